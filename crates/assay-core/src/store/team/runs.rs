//! Evaluation runs between replicas: each finished state of a run is a snapshot (its results,
//! each tied to the revision it scored by that revision's team uid, and the responses they
//! came from). A pulled snapshot of a run this replica already holds replaces its results.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::{now, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncRun {
    /// The run's identity across replicas.
    pub origin: String,
    pub model: String,
    pub model_config: String,
    pub dataset: String,
    pub version: String,
    pub variant: String,
    pub run_index: i64,
    pub template: String,
    pub scorer: String,
    pub source: String,
    pub status: String,
    pub created_at: String,
    pub finished_at: String,
    /// The member who published it (None on the way out: the team fills it in).
    #[serde(default)]
    pub author: Option<String>,
    /// The named protocol it was made under (None: set up by hand, or published before runs
    /// recorded one).
    #[serde(default)]
    pub protocol: Option<String>,
    pub items: Vec<SyncRunItem>,
    pub responses: Vec<SyncResponse>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncRunItem {
    pub ext_id: String,
    /// The team uid of the revision the result scored.
    pub revision_uid: String,
    pub cache_key: Option<String>,
    pub outcome: String,
    pub from_cache: bool,
    pub score: Option<f64>,
    pub parsed: Option<String>,
    pub evidence: Option<String>,
    pub error: Option<String>,
    pub scorer: Option<String>,
    /// None: version 1 (published before versions were kept).
    #[serde(default)]
    pub scorer_version: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncResponse {
    pub cache_key: String,
    pub text: String,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
    pub created_at: String,
    pub prompt: Option<String>,
}

/// A run whose state is final.
const FINISHED: &str =
    "r.status IN ('complete', 'incomplete', 'cancelled') AND r.finished_at IS NOT NULL";

impl Project {
    /// Finished runs whose current state the team has not got yet, with results and responses.
    pub fn pending_runs(&mut self) -> Result<Vec<SyncRun>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        // A run first published gets its identity now.
        self.conn.execute(
            &format!(
                "INSERT INTO sync_runs (run_id, origin)
                 SELECT r.id, lower(hex(randomblob(16))) FROM runs r
                 WHERE {FINISHED} AND r.id NOT IN (SELECT run_id FROM sync_runs)"
            ),
            [],
        )?;
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT r.id, s.origin, m.name, m.config, d.name, r.version, r.variant, r.run_index,
                    r.template, r.scorer, r.source, r.status, r.created_at, r.finished_at,
                    r.protocol
             FROM runs r JOIN sync_runs s ON s.run_id = r.id JOIN models m ON m.id = r.model_id
             JOIN datasets d ON d.id = r.dataset_id
             WHERE {FINISHED} AND s.snapshot IS NOT r.finished_at ORDER BY r.id"
        ))?;
        let heads: Vec<(i64, SyncRun)> = st
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    SyncRun {
                        origin: r.get(1)?,
                        model: r.get(2)?,
                        model_config: r.get(3)?,
                        dataset: r.get(4)?,
                        version: r.get(5)?,
                        variant: r.get(6)?,
                        run_index: r.get(7)?,
                        template: r.get(8)?,
                        scorer: r.get(9)?,
                        source: r.get(10)?,
                        status: r.get(11)?,
                        created_at: r.get(12)?,
                        finished_at: r.get(13)?,
                        protocol: r.get(14)?,
                        author: None,
                        items: Vec::new(),
                        responses: Vec::new(),
                    },
                ))
            })?
            .collect::<std::result::Result<_, _>>()?;
        drop(st);
        let mut out = Vec::new();
        for (run_id, mut run) in heads {
            let mut items = self.conn.prepare_cached(
                "SELECT i.ext_id, s.uid, ri.cache_key, ri.outcome, ri.from_cache, ri.score,
                        ri.parsed, ri.evidence, ri.error, ri.scorer, ri.scorer_version
                 FROM run_items ri JOIN items i ON i.id = ri.item_id
                 JOIN revisions rv ON rv.item_id = ri.item_id AND rv.rev = ri.item_rev
                 JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = rv.id
                 WHERE ri.run_id = ?1 ORDER BY i.id",
            )?;
            run.items = items
                .query_map([run_id], |r| {
                    Ok(SyncRunItem {
                        ext_id: r.get(0)?,
                        revision_uid: r.get(1)?,
                        cache_key: r.get(2)?,
                        outcome: r.get(3)?,
                        from_cache: r.get(4)?,
                        score: r.get(5)?,
                        parsed: r.get(6)?,
                        evidence: r.get(7)?,
                        error: r.get(8)?,
                        scorer: r.get(9)?,
                        scorer_version: r.get(10)?,
                    })
                })?
                .collect::<std::result::Result<_, _>>()?;
            let mut responses = self.conn.prepare_cached(
                "SELECT cache_key, text, prompt_tokens, completion_tokens, created_at, prompt
                 FROM responses WHERE cache_key IN
                   (SELECT cache_key FROM run_items WHERE run_id = ?1 AND cache_key IS NOT NULL)",
            )?;
            run.responses = responses
                .query_map([run_id], |r| {
                    Ok(SyncResponse {
                        cache_key: r.get(0)?,
                        text: r.get(1)?,
                        prompt_tokens: r.get(2)?,
                        completion_tokens: r.get(3)?,
                        created_at: r.get(4)?,
                        prompt: r.get(5)?,
                    })
                })?
                .collect::<std::result::Result<_, _>>()?;
            out.push(run);
        }
        Ok(out)
    }

    /// Records that the team holds this run's snapshot (at position `seq`), published by `me`.
    pub fn mark_run_pushed(
        &mut self,
        origin: &str,
        finished_at: &str,
        seq: i64,
        me: Option<&str>,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE sync_runs SET snapshot = ?2, seq = ?3, author = ?4 WHERE origin = ?1",
            )?
            .execute(params![origin, finished_at, seq, me])?;
        Ok(())
    }

    /// The team refused this state of a run: it is not offered again (a later state is), and the
    /// reason is listed with the other rows not taken.
    pub fn mark_run_refused(&mut self, origin: &str, finished_at: &str, why: &str) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE sync_runs SET snapshot = ?2 WHERE origin = ?1")?
            .execute(params![origin, finished_at])?;
        self.set_aside_pulled(
            "runs",
            &format!("{origin}@{finished_at}"),
            None,
            &format!("refused by the team: {why}"),
        )
    }

    /// Applies a run snapshot pulled from the team; false when this replica has it already.
    pub fn apply_pulled_run(&mut self, run: &SyncRun, seq: i64) -> Result<bool> {
        if let Some(p) = &run.protocol {
            let Some(protocol) = crate::EvalProtocol::parse(p) else {
                return Err(Error::Invalid(format!(
                    "run {}: protocol {p:?} is none Assay knows ({})",
                    run.origin,
                    crate::EvalProtocol::NAMES.join(", ")
                )));
            };
            protocol
                .admits(&run.variant, run.run_index, &run.template, &run.scorer)
                .map_err(|why| Error::Invalid(format!("run {}: {why}", run.origin)))?;
        }
        let tx = self.conn.savepoint()?;
        let known: Option<(i64, Option<String>, Option<String>)> = tx
            .prepare_cached("SELECT run_id, snapshot, author FROM sync_runs WHERE origin = ?1")?
            .query_row([&run.origin], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        // None: published by the team's owner with the project.
        let author = run.author.as_deref();
        if let Some((_, _, known_author)) = &known {
            // A run is its publisher's: a snapshot under another's origin (or this replica's own
            // run, which it alone publishes) is never taken.
            if known_author.as_deref() != author {
                return Err(Error::Forbidden(format!(
                    "run {}: a snapshot by {} of a run that is not theirs",
                    run.origin,
                    author.unwrap_or("the owner")
                )));
            }
        }
        if let Some((_, Some(snap), _)) = &known {
            if *snap == run.finished_at {
                tx.prepare_cached("UPDATE sync_runs SET seq = ?2 WHERE origin = ?1")?
                    .execute(params![run.origin, seq])?;
                tx.commit()?;
                return Ok(false);
            }
        }
        // A model's name is its publisher's: another member's model is kept under the name
        // with theirs, whatever this replica has or will have under the plain name, so nothing
        // a member publishes is adopted as this machine's model, merged into it, or given its
        // runs (even with the same configuration, copied to pass for it).
        let me: Option<String> = tx
            .prepare_cached("SELECT value FROM sync_state WHERE key = 'member'")?
            .query_row([], |r| r.get(0))
            .optional()?;
        let model_name = match author {
            Some(who) if me.as_deref() != Some(who) => format!("{} ({who})", run.model),
            _ => run.model.clone(),
        };
        tx.prepare_cached(
            "INSERT OR IGNORE INTO models (name, config, created_at) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![model_name, run.model_config, now()])?;
        let model_id: i64 = tx
            .prepare_cached("SELECT id FROM models WHERE name = ?1")?
            .query_row([&model_name], |r| r.get(0))?;
        let dataset_id: i64 = tx
            .prepare_cached("SELECT id FROM datasets WHERE name = ?1")?
            .query_row([&run.dataset], |r| r.get(0))
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("dataset {}", run.dataset)))?;
        let run_id = match known {
            Some((id, _, _)) => {
                tx.prepare_cached("DELETE FROM run_items WHERE run_id = ?1")?
                    .execute([id])?;
                tx.prepare_cached(
                    "UPDATE runs SET status = ?2, finished_at = ?3, protocol = ?4 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    run.status,
                    run.finished_at,
                    run.protocol
                ])?;
                id
            }
            None => {
                // Someone else's run of the same model and set is one more run of it here.
                let taken: Option<i64> = tx
                    .prepare_cached(
                        "SELECT max(run_index) FROM runs WHERE model_id = ?1 AND dataset_id = ?2
                       AND version = ?3 AND variant = ?4 AND template = ?5 AND scorer = ?6
                       AND run_index >= ?7",
                    )?
                    .query_row(
                        params![
                            model_id,
                            dataset_id,
                            run.version,
                            run.variant,
                            run.template,
                            run.scorer,
                            run.run_index
                        ],
                        |r| r.get(0),
                    )?;
                let index = taken.map_or(run.run_index, |t| t + 1);
                tx.prepare_cached(
                    "INSERT INTO runs (model_id, dataset_id, version, variant, run_index, template,
                                       scorer, source, status, created_at, finished_at, protocol)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                )?
                .execute(params![
                    model_id,
                    dataset_id,
                    run.version,
                    run.variant,
                    index,
                    run.template,
                    run.scorer,
                    run.source,
                    run.status,
                    run.created_at,
                    run.finished_at,
                    run.protocol
                ])?;
                let id = tx.last_insert_rowid();
                tx.prepare_cached(
                    "INSERT INTO sync_runs (run_id, origin, author) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![id, run.origin, author])?;
                id
            }
        };
        // Pulled responses live under their publisher's name, so two people's keys never meet
        // (recorded runs number their keys locally) and none is a cache key here.
        let team_key = |k: &str| format!("team:{}:{k}", author.unwrap_or("owner"));
        for r in &run.responses {
            tx.prepare_cached("INSERT OR IGNORE INTO responses (cache_key, text, prompt_tokens, completion_tokens,
                                                  created_at, prompt)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)")?.execute(
                params![
                    team_key(&r.cache_key),
                    r.text,
                    r.prompt_tokens,
                    r.completion_tokens,
                    r.created_at,
                    r.prompt
                ],
            )?;
        }
        for it in &run.items {
            let (item_id, item_rev) =
                crate::store::team::sync::revision_by_uid(&tx, &it.revision_uid)?;
            let scored: Option<i64> = tx
                .prepare_cached(
                    "SELECT i.id FROM items i JOIN datasets d ON d.id = i.dataset_id
                     WHERE d.id = ?1 AND i.ext_id = ?2",
                )?
                .query_row(params![dataset_id, it.ext_id], |r| r.get(0))
                .optional()?;
            if scored != Some(item_id) {
                return Err(Error::Invalid(format!(
                    "run {}: the result for {} scores another item's revision",
                    run.origin, it.ext_id
                )));
            }
            tx.prepare_cached("INSERT OR REPLACE INTO run_items (run_id, item_id, item_rev, cache_key, outcome,
                                                   from_cache, score, parsed, evidence, error, scorer,
                                                   scorer_version, unsure)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)")?.execute(
                params![
                    run_id,
                    item_id,
                    item_rev,
                    it.cache_key.as_deref().map(team_key),
                    it.outcome,
                    it.from_cache,
                    it.score,
                    it.parsed,
                    it.evidence,
                    it.error,
                    it.scorer,
                    it.scorer_version,
                    crate::store::evaluation::runs::unsure_of(it.evidence.as_deref())
                ],
            )?;
        }
        tx.prepare_cached("UPDATE sync_runs SET snapshot = ?2, seq = ?3 WHERE origin = ?1")?
            .execute(params![run.origin, run.finished_at, seq])?;
        tx.commit()?;
        Ok(true)
    }
}
