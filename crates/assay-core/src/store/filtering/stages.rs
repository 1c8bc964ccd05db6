//! Filtering stages and human validation, as HAERAE-Vision ran them: per-item keep/drop
//! decisions at each stage (by a person or a model run), phase-1 flags on five dimensions where
//! any flag removes the item, auditors' overrides, and the funnel of survivors.
//!
//! Rows are append-only; the latest decision per (item, stage), the latest flag per (item,
//! dimension, person) and the latest override per item count. Each write refreshes the item's
//! `dropped_stage` and `phase1_removed` columns in the same transaction.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Phase1Dimension;
use crate::store::items::Author;
use crate::store::write_path::filtering;
use crate::store::Project;

/// An item filtering kept, as SQL over `items`' columns: the one definition the list filter,
/// the funnel, exports and the after set use.
pub(crate) const KEPT: &str = "(dropped_stage IS NULL AND phase1_removed = 0)";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Stage {
    pub id: i64,
    pub position: i64,
    pub name: String,
    pub description: String,
}

/// Who decided: a person, or a model run (an automated filter such as GPT-4o screening).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DecidedBy<'a> {
    Person(&'a Author),
    Run(i64),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StageDecision {
    pub stage_id: i64,
    pub position: i64,
    pub stage: String,
    pub keep: bool,
    pub reason: Option<String>,
    /// The person's name, or None when a run decided.
    pub by: Option<String>,
    pub run_id: Option<i64>,
    /// The suggestion a person accepted to make this decision.
    pub suggestion_id: Option<i64>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Phase1Flag {
    pub dimension: Phase1Dimension,
    pub by: String,
    pub note: Option<String>,
    pub created_at: String,
}

/// An item's filtering outcome: the latest decision per stage, the standing phase-1 flags, and
/// an auditor's override if one stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Filtering {
    pub decisions: Vec<StageDecision>,
    pub flags: Vec<Phase1Flag>,
    /// The auditor whose override keeps the item despite its flags.
    pub overridden_by: Option<String>,
    /// Position of the earliest stage that dropped it.
    pub dropped_stage: Option<i64>,
    pub phase1_removed: bool,
    /// In the kept set: not dropped at any stage and not removed by phase-1 flags.
    pub kept: bool,
}

/// Survivors after each stage, overall and per group (source platform or category).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FunnelStep {
    /// 0 for the candidates before any stage; the last step is phase-1 validation.
    pub position: i64,
    pub name: String,
    pub survivors: i64,
    pub groups: Vec<(Option<String>, i64)>,
}

impl Project {
    pub fn stages(&self) -> Result<Vec<Stage>> {
        stages(&self.conn)
    }

    /// Replaces the stage list (names in order). A stage that already has decisions keeps its
    /// id when its name is kept; removing such a stage is refused.
    pub fn set_stages(&mut self, list: &[(String, String)]) -> Result<Vec<Stage>> {
        if list.is_empty() {
            return Err(Error::Invalid("a project needs at least one stage".into()));
        }
        let mut seen = std::collections::HashSet::new();
        for (name, _) in list {
            if name.trim().is_empty() || !seen.insert(name.trim().to_lowercase()) {
                return Err(Error::Invalid(format!(
                    "stage names must be non-empty and distinct: {name:?}"
                )));
            }
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let old = stages(&tx)?;
        for s in &old {
            if !list.iter().any(|(n, _)| n.trim() == s.name) {
                let used: i64 = tx.query_row(
                    "SELECT count(*) FROM stage_decisions WHERE stage_id = ?1",
                    [s.id],
                    |r| r.get(0),
                )?;
                if used > 0 {
                    return Err(Error::Invalid(format!(
                        "stage {:?} has {used} decisions and cannot be removed",
                        s.name
                    )));
                }
                tx.execute("DELETE FROM stages WHERE id = ?1", [s.id])?;
            }
        }
        // Positions move out of the way first (they are unique).
        tx.execute("UPDATE stages SET position = -position - 1000", [])?;
        for (i, (name, description)) in list.iter().enumerate() {
            let pos = i as i64 + 1;
            let name = name.trim();
            let updated = tx.execute(
                "UPDATE stages SET position = ?2, description = ?3 WHERE name = ?1",
                params![name, pos, description],
            )?;
            if updated == 0 {
                tx.execute(
                    "INSERT INTO stages (position, name, description) VALUES (?1, ?2, ?3)",
                    params![pos, name, description],
                )?;
            }
        }
        // Positions changed: every decided item's outcome is recomputed.
        let items: Vec<i64> = tx
            .prepare("SELECT DISTINCT item_id FROM stage_decisions")?
            .query_map([], |r| r.get(0))?
            .collect::<std::result::Result<_, _>>()?;
        for id in items {
            refresh(&tx, id)?;
        }
        tx.commit()?;
        self.stages()
    }

    /// Records a keep/drop decision for an item at a stage.
    pub fn decide_stage(
        &mut self,
        item_id: i64,
        stage_id: i64,
        keep: bool,
        reason: Option<&str>,
        by: DecidedBy<'_>,
    ) -> Result<Filtering> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        filtering::decision(&tx, item_id, stage_id, keep, reason, by)?;
        tx.commit()?;
        self.filtering(item_id)
    }

    /// Sets or withdraws this person's phase-1 flag on one dimension of an item.
    pub fn flag_phase1(
        &mut self,
        item_id: i64,
        dimension: Phase1Dimension,
        flagged: bool,
        note: Option<&str>,
        author: &Author,
    ) -> Result<Filtering> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        filtering::phase1_flag(&tx, item_id, dimension, flagged, note, author)?;
        tx.commit()?;
        self.filtering(item_id)
    }

    /// An auditor keeps a flagged item (or withdraws that override). Only auditors may.
    pub fn override_phase1(
        &mut self,
        item_id: i64,
        keep: bool,
        note: Option<&str>,
        author: &Author,
    ) -> Result<Filtering> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        filtering::phase1_override(&tx, item_id, keep, note, author)?;
        tx.commit()?;
        self.filtering(item_id)
    }

    pub fn filtering(&self, item_id: i64) -> Result<Filtering> {
        let mut st = self.conn.prepare_cached(
            "SELECT d.stage_id, s.position, s.name, d.keep, d.reason, u.name, d.run_id, d.created_at,
                    (SELECT f.suggestion_id FROM suggestion_reviews f WHERE f.stage_decision_id = d.id)
             FROM stage_decisions d JOIN stages s ON s.id = d.stage_id
             LEFT JOIN users u ON u.id = d.author_id
             WHERE d.item_id = ?1 AND d.id = (SELECT max(id) FROM stage_decisions
                 WHERE item_id = d.item_id AND stage_id = d.stage_id)
             ORDER BY s.position",
        )?;
        let decisions = st
            .query_map([item_id], |r| {
                Ok(StageDecision {
                    stage_id: r.get(0)?,
                    position: r.get(1)?,
                    stage: r.get(2)?,
                    keep: r.get(3)?,
                    reason: r.get(4)?,
                    by: r.get(5)?,
                    run_id: r.get(6)?,
                    suggestion_id: r.get(8)?,
                    created_at: r.get(7)?,
                })
            })?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let flags = standing_flags(&self.conn, item_id)?;
        let overridden_by = standing_override(&self.conn, item_id)?;
        let (dropped_stage, phase1_removed): (Option<i64>, bool) = self.conn.query_row(
            "SELECT dropped_stage, phase1_removed FROM items WHERE id = ?1",
            [item_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(Filtering {
            decisions,
            flags,
            overridden_by,
            dropped_stage,
            phase1_removed,
            kept: dropped_stage.is_none() && !phase1_removed,
        })
    }

    /// The funnel over some datasets (all when empty): candidates, the survivors after each
    /// stage, then after phase-1 validation; each split by `group` ("source" or "category").
    pub fn funnel(&self, datasets: &[i64], group: &str) -> Result<Vec<FunnelStep>> {
        let col = match group {
            "source" => "source",
            "category" => "category",
            other => {
                return Err(Error::Invalid(format!(
                    "a funnel groups by source or category, not {other:?}"
                )))
            }
        };
        let ds = if datasets.is_empty() {
            String::new()
        } else {
            format!(
                " AND dataset_id IN ({})",
                datasets
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let count = |cond: &str| -> Result<(i64, Groups)> {
            let mut st = self.conn.prepare(&format!(
                "SELECT {col}, count(*) FROM items WHERE {cond}{ds} GROUP BY {col} ORDER BY count(*) DESC"
            ))?;
            let groups = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<std::result::Result<Groups, _>>()?;
            Ok((groups.iter().map(|g| g.1).sum(), groups))
        };
        let mut out = Vec::new();
        let (n, groups) = count("1")?;
        out.push(FunnelStep {
            position: 0,
            name: "Candidates".into(),
            survivors: n,
            groups,
        });
        for s in self.stages()? {
            let (n, groups) = count(&format!(
                "(dropped_stage IS NULL OR dropped_stage > {})",
                s.position
            ))?;
            out.push(FunnelStep {
                position: s.position,
                name: s.name,
                survivors: n,
                groups,
            });
        }
        let (n, groups) = count(KEPT)?;
        out.push(FunnelStep {
            position: out.len() as i64,
            name: "Phase-1 validation".into(),
            survivors: n,
            groups,
        });
        Ok(out)
    }
}

/// Counts per group value (source platform or category).
type Groups = Vec<(Option<String>, i64)>;

fn stages(conn: &Connection) -> Result<Vec<Stage>> {
    let mut st = conn
        .prepare_cached("SELECT id, position, name, description FROM stages ORDER BY position")?;
    let rows = st.query_map([], |r| {
        Ok(Stage {
            id: r.get(0)?,
            position: r.get(1)?,
            name: r.get(2)?,
            description: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<std::result::Result<_, _>>()?)
}

/// Each person's latest flag per dimension, where it is set.
fn standing_flags(conn: &Connection, item_id: i64) -> Result<Vec<Phase1Flag>> {
    let mut st = conn.prepare_cached(
        "SELECT f.dimension, u.name, f.note, f.created_at FROM phase1_flags f
         JOIN users u ON u.id = f.author_id
         WHERE f.item_id = ?1 AND f.flagged = 1 AND f.id = (SELECT max(id) FROM phase1_flags
             WHERE item_id = f.item_id AND dimension = f.dimension AND author_id = f.author_id)
         ORDER BY f.id",
    )?;
    let rows = st.query_map([item_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (d, by, note, at) = row?;
        if let Some(dimension) = Phase1Dimension::parse(&d) {
            out.push(Phase1Flag {
                dimension,
                by,
                note,
                created_at: at,
            });
        }
    }
    Ok(out)
}

/// The auditor whose latest override keeps the item, if the latest override keeps it.
fn standing_override(conn: &Connection, item_id: i64) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            "SELECT o.keep, u.name FROM phase1_overrides o JOIN users u ON u.id = o.author_id
             WHERE o.item_id = ?1 ORDER BY o.id DESC LIMIT 1",
            [item_id],
            |r| Ok((r.get::<_, bool>(0)?, r.get::<_, String>(1)?)),
        )
        .optional()?
        .and_then(|(keep, name)| keep.then_some(name)))
}

/// The latest decision on an item at a stage (None: never decided).
pub(crate) fn latest_decision(
    conn: &Connection,
    item_id: i64,
    stage_id: i64,
) -> Result<Option<bool>> {
    Ok(conn
        .query_row(
            "SELECT keep FROM stage_decisions WHERE item_id = ?1 AND stage_id = ?2 ORDER BY id DESC LIMIT 1",
            params![item_id, stage_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// Recomputes an item's outcome columns from its decisions, flags and overrides.
pub(crate) fn refresh(conn: &Connection, item_id: i64) -> Result<()> {
    let dropped: Option<i64> = conn.query_row(
        "SELECT min(s.position) FROM stage_decisions d JOIN stages s ON s.id = d.stage_id
         WHERE d.item_id = ?1 AND d.keep = 0 AND d.id = (SELECT max(id) FROM stage_decisions
             WHERE item_id = d.item_id AND stage_id = d.stage_id)",
        [item_id],
        |r| r.get(0),
    )?;
    let flagged = !standing_flags(conn, item_id)?.is_empty();
    let removed = flagged && standing_override(conn, item_id)?.is_none();
    conn.execute(
        "UPDATE items SET dropped_stage = ?2, phase1_removed = ?3 WHERE id = ?1",
        params![item_id, dropped, removed],
    )?;
    Ok(())
}
