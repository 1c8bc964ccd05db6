//! A run's own page: its results item by item, and deleting a run nobody depends on.

use rusqlite::{OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::Project;

/// One item's result in a run, as the run's detail lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunItemLine {
    pub item_id: i64,
    pub dataset: String,
    pub ext_id: String,
    pub outcome: String,
    pub score: Option<f64>,
    pub parsed: Option<String>,
    pub error: Option<String>,
    pub from_cache: bool,
    /// The item has changed since this result was scored (it counts for its old revision).
    pub stale: bool,
}

/// A page of a run's results with how many there are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunDetail {
    pub run_id: i64,
    pub total: i64,
    pub lines: Vec<RunItemLine>,
}

impl Project {
    /// Results of a run, in dataset order; `only` keeps one outcome (scored, unparsed, hedged,
    /// error, skipped) or, with "wrong", scored results below 1.
    pub fn run_detail(
        &self,
        run_id: i64,
        only: Option<&str>,
        offset: i64,
        limit: i64,
    ) -> Result<RunDetail> {
        self.run(run_id)?;
        let (cond, arg): (&str, Option<&str>) = match only {
            None | Some("") => ("1", None),
            Some("wrong") => ("ri.outcome = 'scored' AND coalesce(ri.score, 0) < 1", None),
            Some(o) => ("ri.outcome = ?2", Some(o)),
        };
        let mut args: Vec<rusqlite::types::Value> = vec![run_id.into()];
        if let Some(a) = arg {
            args.push(a.to_string().into());
        }
        let total: i64 = self.conn.query_row(
            &format!("SELECT count(*) FROM run_items ri WHERE ri.run_id = ?1 AND {cond}"),
            rusqlite::params_from_iter(args.iter()),
            |r| r.get(0),
        )?;
        let sql = format!(
            "SELECT ri.item_id, d.name, i.ext_id, ri.outcome, ri.score, ri.parsed, ri.error,
                    ri.from_cache, ri.item_rev != i.rev
             FROM run_items ri JOIN items i ON i.id = ri.item_id JOIN datasets d ON d.id = i.dataset_id
             WHERE ri.run_id = ?1 AND {cond}
             ORDER BY ri.item_id LIMIT {} OFFSET {}",
            limit.clamp(1, 10_000),
            offset.max(0)
        );
        let mut st = self.conn.prepare(&sql)?;
        let map = |r: &rusqlite::Row<'_>| {
            Ok(RunItemLine {
                item_id: r.get(0)?,
                dataset: r.get(1)?,
                ext_id: r.get(2)?,
                outcome: r.get(3)?,
                score: r.get(4)?,
                parsed: r.get(5)?,
                error: r.get(6)?,
                from_cache: r.get(7)?,
                stale: r.get(8)?,
            })
        };
        let lines = st
            .query_map(rusqlite::params_from_iter(args.iter()), map)?
            .collect::<std::result::Result<_, _>>()?;
        Ok(RunDetail {
            run_id,
            total,
            lines,
        })
    }

    /// Deletes a run and its results. Refused while it runs, once it was published to a team
    /// (others' numbers rest on it), and while a person's work refers to it (an overruled
    /// score, a failure tag, a judge rating, a stage decision the run made). The stored
    /// responses stay in the cache: running it again sends nothing.
    pub fn delete_run(&mut self, run_id: i64) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let status: String = tx
            .query_row("SELECT status FROM runs WHERE id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("run {run_id}")))?;
        if matches!(status.as_str(), "running" | "pending") {
            return Err(Error::Invalid(format!(
                "run {run_id} is {status}: cancel it first"
            )));
        }
        let published: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM sync_runs WHERE run_id = ?1)",
            [run_id],
            |r| r.get(0),
        )?;
        if published {
            return Err(Error::Forbidden(format!(
                "run {run_id} was published to the team: others' numbers rest on it"
            )));
        }
        for (table, what) in [
            ("overrules", "overruled scores"),
            ("criterion_overrules", "overruled checklist criteria"),
            ("failure_tags", "failure tags"),
            ("judge_ratings", "ratings of its judge"),
            ("stage_decisions", "stage decisions it made"),
        ] {
            let n: i64 = tx.query_row(
                &format!("SELECT count(*) FROM {table} WHERE run_id = ?1"),
                [run_id],
                |r| r.get(0),
            )?;
            if n > 0 {
                return Err(Error::Forbidden(format!(
                    "run {run_id} has {n} {what} by people: it stays so their work keeps its evidence"
                )));
            }
        }
        tx.execute("DELETE FROM panel_judgements WHERE run_id = ?1", [run_id])?;
        tx.execute("DELETE FROM run_items WHERE run_id = ?1", [run_id])?;
        tx.execute("DELETE FROM runs WHERE id = ?1", [run_id])?;
        tx.commit()?;
        Ok(())
    }
}
