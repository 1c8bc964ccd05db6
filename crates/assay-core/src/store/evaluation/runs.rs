//! Evaluation runs and what they produced: the run rows, each item's result, the cached
//! responses (with the request that produced them) and people's overrules. The evaluation
//! engine decides what to run and how to score; every statement about its tables is here.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::ItemContent;
use crate::store::items::versions::Version;
use crate::store::{now, Project};

/// Everything that identifies one measurement run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RunKey {
    pub model_id: i64,
    pub dataset_id: i64,
    pub version: Version,
    pub variant: String,
    pub run_index: u32,
    pub template: String,
    pub scorer: String,
    /// "live" or "recorded".
    pub source: String,
    /// The named protocol the run is made under, if any: fixed when the run is made. A request
    /// with other fields' same values but another protocol (or none) is refused rather than
    /// mixing results made two ways in one run.
    pub protocol: Option<crate::EvalProtocol>,
}

/// A run as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunRow {
    pub id: i64,
    pub model: String,
    pub dataset: String,
    pub version: String,
    pub variant: String,
    pub run_index: i64,
    pub template: String,
    pub scorer: String,
    pub source: String,
    pub status: String,
    /// The named protocol it was made under (`EvalProtocol`'s name), if any.
    pub protocol: Option<String>,
}

/// A run with its counts, for `assay runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    #[serde(flatten)]
    pub run: RunRow,
    pub items: i64,
    pub from_cache: i64,
    pub unparsed: i64,
    pub hedged: i64,
    pub errors: i64,
    /// The versions of the scorer's rules that made the run's scores ([2], or [1, 2] while
    /// partly rescored); empty when nothing is scored.
    pub scorer_versions: Vec<i64>,
    /// Mean score over the run's results, errors counted as 0.
    pub accuracy: Option<f64>,
    /// Tokens of the responses this run paid for (not those it reused from the cache).
    #[serde(default)]
    pub prompt_tokens: i64,
    #[serde(default)]
    pub completion_tokens: i64,
    /// From its start to its end (None while it runs).
    #[serde(default)]
    pub duration_secs: Option<f64>,
    /// Verdicts its rules were not sure of (their evidence says why): counted apart, listed in
    /// triage, and sent to a judge by `assay rescore --judge`.
    #[serde(default)]
    pub unsure: i64,
}

/// A stored model response.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResponse {
    pub text: String,
    pub prompt_tokens: Option<i64>,
    pub completion_tokens: Option<i64>,
}

/// One item's result in a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunItemResult {
    pub item_id: i64,
    pub item_rev: i64,
    pub cache_key: Option<String>,
    /// scored, unparsed, hedged, error or skipped.
    pub outcome: String,
    pub from_cache: bool,
    pub score: Option<f64>,
    pub parsed: Option<String>,
    pub evidence: Option<String>,
    pub error: Option<String>,
    pub scorer: Option<String>,
    /// The version of the scorer's rules that produced the score (None: version 1, stored
    /// before versions were kept).
    pub scorer_version: Option<i64>,
}

/// What the engine's writer commits.
#[derive(Debug, Clone, PartialEq)]
pub enum RunWrite {
    Response {
        key: String,
        response: StoredResponse,
        /// The request as sent (JSON), kept for tracing.
        prompt: String,
    },
    Result {
        run_id: i64,
        result: RunItemResult,
    },
}

/// A recorded prediction with its result, for [`Project::record_run`].
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedResult {
    pub result: RunItemResult,
    pub response: String,
    pub prompt: Option<String>,
}

impl RecordedResult {
    /// A reply recorded with its outcome and score under `scorer`, nothing else known (no
    /// cache key, evidence or prompt): what a file of another tool's predictions, a bench or a
    /// test records.
    pub fn plain(
        item_id: i64,
        item_rev: i64,
        outcome: &str,
        score: Option<f64>,
        scorer: &str,
        response: String,
    ) -> Self {
        Self {
            result: RunItemResult {
                item_id,
                item_rev,
                cache_key: None,
                outcome: outcome.into(),
                from_cache: false,
                score,
                parsed: None,
                evidence: None,
                error: None,
                scorer: Some(scorer.into()),
                scorer_version: None,
            },
            response,
            prompt: None,
        }
    }
}

/// How a run's result stands, for the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Scored,
    Unparsed,
    /// Several answers offered without commitment: scored as a miss, counted apart.
    Hedged,
    Error,
    Skipped,
}

impl Outcome {
    fn parse(s: &str) -> Self {
        match s {
            "scored" => Self::Scored,
            "unparsed" => Self::Unparsed,
            "hedged" => Self::Hedged,
            "error" => Self::Error,
            _ => Self::Skipped,
        }
    }
}

/// One result as the tables read it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResultRow {
    pub item_id: i64,
    pub outcome: Outcome,
    pub item_rev: i64,
    pub score: Option<f64>,
    /// The version of the scorer's rules (1 for results stored before versions were kept).
    pub scorer_version: i64,
    /// Its rules were not sure of the verdict.
    pub unsure: bool,
}

/// Everything stored about one item of a run, for tracing.
/// One stored result as triage reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentResult {
    pub item_id: i64,
    pub ext_id: String,
    pub model: String,
    pub version: String,
    pub variant: String,
    pub run_index: i64,
    pub scorer: String,
    pub outcome: String,
    pub score: Option<f64>,
    pub parsed: Option<String>,
    pub overruled: Option<f64>,
    /// Why the rules were not sure of this verdict, if they were not.
    pub unsure: Option<String>,
}

/// One run's result for one item, with the run it belongs to and any overrule.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemRunResult {
    pub run: RunRow,
    pub outcome: String,
    pub score: Option<f64>,
    pub parsed: Option<String>,
    /// The scorer's evidence as JSON text (for a checklist judge: each criterion's rating,
    /// quoted evidence and justification).
    pub evidence: Option<String>,
    pub error: Option<String>,
    pub response: Option<String>,
    pub overruled: Option<f64>,
    pub overrule_note: Option<String>,
    pub criterion_overrules: Vec<CriterionOverrule>,
    /// Why the response failed, as people tagged it (see `tag_failure`).
    pub failure_tags: Vec<String>,
}

/// A person's rating of one criterion, with the item score it leads to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewCriterionOverrule<'a> {
    pub run_id: i64,
    pub item_id: i64,
    pub criterion: usize,
    pub rating: f64,
    pub item_score: f64,
    pub author_id: Option<i64>,
    pub note: &'a str,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CriterionOverrule {
    /// 0-based index into the item's checklist as judged.
    pub criterion: i64,
    pub rating: f64,
    pub by: Option<String>,
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TraceRow {
    pub ext_id: String,
    pub item_rev: i64,
    pub outcome: String,
    pub from_cache: bool,
    pub prompt: Option<String>,
    pub response: Option<String>,
    pub parsed: Option<String>,
    pub scorer: Option<String>,
    pub score: Option<f64>,
    pub overruled: Option<f64>,
    pub overrule_note: Option<String>,
    pub evidence: Option<String>,
    pub error: Option<String>,
    /// The version of the scorer's rules that made the score (1 for results stored before).
    pub scorer_version: i64,
}

/// One result of a given scorer, with the item's category (per-category summaries).
#[derive(Debug, Clone, PartialEq)]
pub struct ScorerResult {
    pub category: Option<String>,
    pub outcome: String,
    pub evidence: Option<String>,
}

/// A stored result with its response and the item as it was asked, for rescoring.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResult {
    pub item_id: i64,
    pub content: ItemContent,
    pub response: String,
    pub outcome: String,
    pub score: Option<f64>,
    pub scorer: String,
    pub scorer_version: i64,
    /// A judge decided this verdict for the rules (the hybrid scorer): rules do not undo it.
    pub judge_decided: bool,
}

/// What one replica (endpoint) of a run's model did for the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReplicaRecord {
    pub url: String,
    /// HTTP requests sent to it, retries included.
    pub requests: u64,
    pub failures: u64,
    /// Mean time to an answer or an error, in milliseconds.
    pub mean_ms: Option<f64>,
    /// Times it was taken out of the rotation after a connection or 5xx failure.
    pub taken_out: u64,
}

/// Adds `more` to `have` per URL: counts summed, means weighted by requests.
fn merge_replicas(have: &mut Vec<ReplicaRecord>, more: &[ReplicaRecord]) {
    for m in more {
        match have.iter_mut().find(|h| h.url == m.url) {
            Some(h) => {
                let total = h.requests + m.requests;
                h.mean_ms = match (h.mean_ms, m.mean_ms) {
                    (Some(a), Some(b)) if total > 0 => {
                        Some((a * h.requests as f64 + b * m.requests as f64) / total as f64)
                    }
                    (a, b) => a.or(b),
                };
                h.requests = total;
                h.failures += m.failures;
                h.taken_out += m.taken_out;
            }
            None => have.push(m.clone()),
        }
    }
}

/// A stored response awaiting a judge.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingJudgement {
    pub item_id: i64,
    pub content: ItemContent,
    pub response: String,
}

/// A result whose local rule left the decision to a judge (identification's misses of the
/// exact-name rule), with what the rule found.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingMiss {
    pub item_id: i64,
    pub content: ItemContent,
    pub score: Option<f64>,
    pub parsed: Option<String>,
    /// The rule's evidence (JSON), `needs_judge: true` in it.
    pub evidence: String,
    /// The stored reply the rule read (None when the run kept no response).
    pub response: Option<String>,
}

const RUN_COLUMNS: &str = "r.id, m.name, d.name, r.version, r.variant, r.run_index, r.template, r.scorer, r.source, r.status, r.protocol";

fn run_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunRow> {
    Ok(RunRow {
        id: r.get(0)?,
        model: r.get(1)?,
        dataset: r.get(2)?,
        version: r.get(3)?,
        variant: r.get(4)?,
        run_index: r.get(5)?,
        template: r.get(6)?,
        scorer: r.get(7)?,
        source: r.get(8)?,
        status: r.get(9)?,
        protocol: r.get(10)?,
    })
}

fn insert_result(conn: &rusqlite::Connection, run_id: i64, r: &RunItemResult) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO run_items (run_id, item_id, item_rev, cache_key, outcome, from_cache, score, parsed, evidence, error, scorer, scorer_version, unsure)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?
    .execute(params![
        run_id, r.item_id, r.item_rev, r.cache_key, r.outcome, r.from_cache, r.score, r.parsed,
        r.evidence, r.error, r.scorer, r.scorer_version, unsure_of(r.evidence.as_deref())
    ])?;
    Ok(())
}

/// Why a result's rules were unsure, from its evidence (`unsure`): the one place the store
/// reads it, for every statement that writes a result. Most evidence has none, and a substring
/// test settles those without parsing.
pub(crate) fn unsure_of(evidence: Option<&str>) -> Option<String> {
    let e = evidence.filter(|e| e.contains("\"unsure\""))?;
    let v: serde_json::Value = serde_json::from_str(e).ok()?;
    v.get("unsure")?.as_str().map(str::to_string)
}

pub(crate) fn insert_response(
    conn: &rusqlite::Connection,
    key: &str,
    r: &StoredResponse,
    prompt: Option<&str>,
    replace: bool,
) -> Result<()> {
    let verb = if replace {
        "INSERT OR REPLACE"
    } else {
        "INSERT OR IGNORE"
    };
    conn.prepare_cached(&format!(
        "{verb} INTO responses (cache_key, text, prompt_tokens, completion_tokens, created_at, prompt)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    ))?
    .execute(params![key, r.text, r.prompt_tokens, r.completion_tokens, now(), prompt])?;
    Ok(())
}

/// "The latest overrule wins": the score people last gave a run item's result (NULL when
/// nobody overruled it), as SQL over a `run_items` row aliased `ri`. Every read of a result's
/// standing score uses it; [`OVERRULED_NOTE`] is that overrule's note.
const OVERRULED_SCORE: &str = "(SELECT o.score FROM overrules o WHERE o.run_id = ri.run_id
     AND o.item_id = ri.item_id ORDER BY o.id DESC LIMIT 1)";
const OVERRULED_NOTE: &str = "(SELECT o.note FROM overrules o WHERE o.run_id = ri.run_id
     AND o.item_id = ri.item_id ORDER BY o.id DESC LIMIT 1)";

impl Project {
    /// The run for this key, created (pending) if new.
    pub fn ensure_run(&self, k: &RunKey) -> Result<i64> {
        ensure_run(&self.conn, k)
    }

    /// Each stored result of a run: (item, revision, outcome).
    pub fn run_item_states(&self, run_id: i64) -> Result<Vec<(i64, i64, String)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT item_id, item_rev, outcome FROM run_items WHERE run_id = ?1")?;
        let rows = st.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The request key of a run's stored, answered result for an item (None for an error, a
    /// skipped target or a result recorded without one).
    pub fn run_item_cache_key(&self, run_id: i64, item_id: i64) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT cache_key FROM run_items WHERE run_id = ?1 AND item_id = ?2
                   AND outcome NOT IN ('error', 'skipped')",
            )?
            .query_row(params![run_id, item_id], |r| r.get(0))
            .optional()?
            .flatten())
    }

    /// Drops a stale result (the item changed since) so the run redoes it.
    pub fn forget_run_item(&self, run_id: i64, item_id: i64) -> Result<()> {
        self.conn.execute(
            "DELETE FROM run_items WHERE run_id = ?1 AND item_id = ?2",
            params![run_id, item_id],
        )?;
        Ok(())
    }

    /// Marks a run as running again (a resumed or repeated run).
    pub fn start_run(&self, run_id: i64) -> Result<()> {
        self.conn.execute(
            "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?1",
            [run_id],
        )?;
        Ok(())
    }

    /// Ends a run: complete when every one of `expected` items has a non-error result;
    /// cancelled when stopped short by a person; incomplete otherwise.
    pub fn finish_run(&self, run_id: i64, expected: usize, cancelled: bool) -> Result<String> {
        let (rows, errors): (i64, i64) = self.conn.query_row(
            "SELECT COUNT(*), COALESCE(SUM(outcome = 'error'), 0) FROM run_items WHERE run_id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let full = rows as usize >= expected;
        let status = match (full, errors > 0, cancelled) {
            (true, false, _) => "complete",
            (false, _, true) => "cancelled",
            _ => "incomplete",
        };
        self.set_run_status(run_id, status)?;
        Ok(status.to_string())
    }

    pub fn set_run_status(&self, run_id: i64, status: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE runs SET status = ?2, finished_at = ?3 WHERE id = ?1",
            params![run_id, status, now()],
        )?;
        Ok(())
    }

    /// Commits what the engine's writer received, in one transaction.
    pub fn write_run_batch(&mut self, batch: &[RunWrite]) -> Result<()> {
        let tx = self.conn.transaction()?;
        for w in batch {
            match w {
                RunWrite::Response {
                    key,
                    response,
                    prompt,
                } => insert_response(&tx, key, response, Some(prompt), false)?,
                RunWrite::Result { run_id, result } => insert_result(&tx, *run_id, result)?,
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// A cached response.
    pub fn response(&self, key: &str) -> Result<Option<StoredResponse>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT text, prompt_tokens, completion_tokens FROM responses WHERE cache_key = ?1",
            )?
            .query_row([key], |r| {
                Ok(StoredResponse {
                    text: r.get(0)?,
                    prompt_tokens: r.get(1)?,
                    completion_tokens: r.get(2)?,
                })
            })
            .optional()?)
    }

    pub fn store_response(
        &self,
        key: &str,
        r: &StoredResponse,
        prompt: Option<&str>,
    ) -> Result<()> {
        insert_response(&self.conn, key, r, prompt, false)
    }

    /// Replaces a run's results with recorded ones, in one transaction; returns the run id.
    pub fn record_run(
        &mut self,
        key: &RunKey,
        results: &[RecordedResult],
        status: &str,
    ) -> Result<i64> {
        let tx = self.conn.transaction()?;
        let run_id = ensure_run(&tx, key)?;
        tx.execute("DELETE FROM run_items WHERE run_id = ?1", [run_id])?;
        for r in results {
            let cache_key = format!("recorded:{run_id}:{}", r.result.item_id);
            let response = StoredResponse {
                text: r.response.clone(),
                prompt_tokens: None,
                completion_tokens: None,
            };
            insert_response(&tx, &cache_key, &response, r.prompt.as_deref(), true)?;
            let mut result = r.result.clone();
            result.cache_key = Some(cache_key);
            insert_result(&tx, run_id, &result)?;
        }
        tx.execute(
            "UPDATE runs SET status = ?2, finished_at = ?3 WHERE id = ?1",
            params![run_id, status, now()],
        )?;
        tx.commit()?;
        Ok(run_id)
    }

    /// Replaces one item's result of a run (a judgement added to a recorded response); the
    /// item revision and cache key stay as stored, whatever `r` holds for them.
    pub fn update_run_item(&self, run_id: i64, r: &RunItemResult) -> Result<()> {
        self.conn.execute(
            "UPDATE run_items SET outcome = ?3, score = ?4, parsed = ?5, evidence = ?6, error = ?7, scorer = ?8, from_cache = ?9, scorer_version = ?10,
                    unsure = ?11
             WHERE run_id = ?1 AND item_id = ?2",
            params![run_id, r.item_id, r.outcome, r.score, r.parsed, r.evidence, r.error, r.scorer, r.from_cache, r.scorer_version, unsure_of(r.evidence.as_deref())],
        )?;
        Ok(())
    }

    pub fn run(&self, run_id: i64) -> Result<RunRow> {
        self.conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs r JOIN models m ON m.id = r.model_id JOIN datasets d ON d.id = r.dataset_id WHERE r.id = ?1"),
                [run_id],
                run_row,
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("run {run_id}")))
    }

    /// The runs of one dataset, version and variant, by model then run index.
    pub fn runs_of(&self, dataset_id: i64, version: Version, variant: &str) -> Result<Vec<RunRow>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {RUN_COLUMNS} FROM runs r JOIN models m ON m.id = r.model_id JOIN datasets d ON d.id = r.dataset_id
             WHERE r.dataset_id = ?1 AND r.version = ?2 AND r.variant = ?3 ORDER BY m.name, r.run_index"
        ))?;
        let rows = st.query_map(params![dataset_id, version.as_str(), variant], run_row)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Every run with its counts.
    pub fn run_summaries(&self) -> Result<Vec<RunSummary>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {RUN_COLUMNS},
                (SELECT count(*) FROM run_items ri WHERE ri.run_id = r.id),
                (SELECT count(*) FROM run_items ri WHERE ri.run_id = r.id AND ri.from_cache = 1),
                (SELECT count(*) FROM run_items ri WHERE ri.run_id = r.id AND ri.outcome = 'unparsed'),
                (SELECT count(*) FROM run_items ri WHERE ri.run_id = r.id AND ri.outcome = 'error'),
                (SELECT count(*) FROM run_items ri WHERE ri.run_id = r.id AND ri.outcome = 'hedged'),
                (SELECT coalesce(group_concat(v, ','), '') FROM (SELECT DISTINCT coalesce(ri.scorer_version, 1) AS v FROM run_items ri
                    WHERE ri.run_id = r.id AND ri.outcome IN ('scored', 'unparsed', 'hedged') ORDER BY v)),
                (SELECT avg(CASE WHEN ri.outcome = 'error' THEN 0 ELSE coalesce(ri.score, 0) END) FROM run_items ri WHERE ri.run_id = r.id AND ri.outcome != 'skipped'),
                (SELECT coalesce(sum(resp.prompt_tokens), 0) FROM run_items ri JOIN responses resp ON resp.cache_key = ri.cache_key
                    WHERE ri.run_id = r.id AND ri.from_cache = 0),
                (SELECT coalesce(sum(resp.completion_tokens), 0) FROM run_items ri JOIN responses resp ON resp.cache_key = ri.cache_key
                    WHERE ri.run_id = r.id AND ri.from_cache = 0),
                (julianday(r.finished_at) - julianday(r.created_at)) * 86400.0,
                (SELECT count(*) FROM run_items ri WHERE ri.run_id = r.id AND ri.unsure IS NOT NULL)
             FROM runs r JOIN models m ON m.id = r.model_id JOIN datasets d ON d.id = r.dataset_id ORDER BY r.id"
        ))?;
        let rows = st.query_map([], |r| {
            Ok(RunSummary {
                run: run_row(r)?,
                items: r.get(11)?,
                from_cache: r.get(12)?,
                unparsed: r.get(13)?,
                errors: r.get(14)?,
                hedged: r.get(15)?,
                scorer_versions: r
                    .get::<_, String>(16)?
                    .split(',')
                    .filter_map(|v| v.parse().ok())
                    .collect(),
                accuracy: r.get(17)?,
                prompt_tokens: r.get(18)?,
                completion_tokens: r.get(19)?,
                duration_secs: r.get(20)?,
                unsure: r.get(21)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Every current result on a dataset's items at their current revision (results for an
    /// older revision are stale and left out; so an item drops out of triage once fixed), with
    /// the run's model, version, variant and index and any person's overrule.
    pub fn current_results(&self, dataset_id: i64) -> Result<Vec<CurrentResult>> {
        self.current_results_of(dataset_id, None)
    }

    /// [`current_results`](Self::current_results) limited to results of one scorer, for
    /// breakdowns that read a few scorers of a large project.
    pub fn current_results_of(
        &self,
        dataset_id: i64,
        scorer: Option<&str>,
    ) -> Result<Vec<CurrentResult>> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT ri.item_id, i.ext_id, m.name, r.version, r.variant, r.run_index,
                    coalesce(ri.scorer, r.scorer),
                    ri.outcome, ri.score, ri.parsed, {OVERRULED_SCORE}, ri.unsure
             FROM run_items ri JOIN runs r ON r.id = ri.run_id JOIN models m ON m.id = r.model_id
             JOIN items i ON i.id = ri.item_id
             WHERE r.dataset_id = ?1 AND ri.outcome IN ('scored', 'unparsed', 'hedged')
               AND ri.item_rev = i.rev
               AND (?2 IS NULL OR coalesce(ri.scorer, r.scorer) = ?2)
             ORDER BY i.seq, m.name, r.run_index"
        ))?;
        let rows = st.query_map(params![dataset_id, scorer], |r| {
            Ok(CurrentResult {
                item_id: r.get(0)?,
                ext_id: r.get(1)?,
                model: r.get(2)?,
                version: r.get(3)?,
                variant: r.get(4)?,
                run_index: r.get(5)?,
                scorer: r.get(6)?,
                outcome: r.get(7)?,
                score: r.get(8)?,
                parsed: r.get(9)?,
                overruled: r.get(10)?,
                unsure: r.get(11)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Sets or withdraws a person's failure tag on one run's result for an item.
    pub fn tag_failure(
        &self,
        run_id: i64,
        item_id: i64,
        tag: &str,
        tagged: bool,
        author_id: Option<i64>,
    ) -> Result<()> {
        let tag = tag.trim().to_lowercase();
        if tag.is_empty() {
            return Err(Error::Invalid("a failure tag needs a name".into()));
        }
        self.conn.execute(
            "INSERT INTO failure_tags (run_id, item_id, tag, tagged, author_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run_id, item_id, tag, tagged, author_id, now()],
        )?;
        Ok(())
    }

    /// The failure tags standing on one run's result for an item.
    pub fn failure_tags(&self, run_id: i64, item_id: i64) -> Result<Vec<String>> {
        let mut st = self.conn.prepare_cached(
            "SELECT f.tag FROM failure_tags f WHERE f.run_id = ?1 AND f.item_id = ?2 AND f.tagged = 1
               AND f.id = (SELECT max(id) FROM failure_tags
                           WHERE run_id = f.run_id AND item_id = f.item_id AND tag = f.tag)
             ORDER BY f.tag",
        )?;
        let rows = st.query_map(params![run_id, item_id], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Standing failure tags counted per model and tag, over every run of the project.
    pub fn failure_tag_counts(&self) -> Result<Vec<(String, String, i64)>> {
        let mut st = self.conn.prepare(
            "SELECT m.name, f.tag, count(*) FROM failure_tags f
             JOIN runs r ON r.id = f.run_id JOIN models m ON m.id = r.model_id
             WHERE f.tagged = 1 AND f.id = (SELECT max(id) FROM failure_tags
                 WHERE run_id = f.run_id AND item_id = f.item_id AND tag = f.tag)
             GROUP BY m.name, f.tag ORDER BY m.name, count(*) DESC",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// A run's results as the tables read them.
    pub fn run_results(&self, run_id: i64) -> Result<Vec<ResultRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT item_id, outcome, item_rev, score, coalesce(scorer_version, 1) FROM run_items WHERE run_id = ?1",
        )?;
        // The unsure ones through their partial index, not by reading each result's row to its end.
        let unsure: std::collections::HashSet<i64> = self
            .conn
            .prepare_cached(
                "SELECT item_id FROM run_items WHERE run_id = ?1 AND unsure IS NOT NULL",
            )?
            .query_map([run_id], |r| r.get(0))?
            .collect::<std::result::Result<_, _>>()?;
        let rows = st.query_map([run_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, Option<f64>>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (item_id, outcome, item_rev, score, scorer_version) = row?;
            let unsure = unsure.contains(&item_id);
            out.push(ResultRow {
                item_id,
                outcome: Outcome::parse(&outcome),
                item_rev,
                score,
                scorer_version,
                unsure,
            });
        }
        Ok(out)
    }

    /// People's overrules of a run's results, oldest first (the last per item wins).
    pub fn run_overrules(&self, run_id: i64) -> Result<Vec<(i64, f64)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT item_id, score FROM overrules WHERE run_id = ?1 ORDER BY id")?;
        let rows = st.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Records a person's judgement over a scorer's; the scorer's result stays stored.
    pub fn add_overrule(
        &self,
        run_id: i64,
        item_id: i64,
        score: f64,
        author_id: Option<i64>,
        note: Option<&str>,
    ) -> Result<()> {
        if !(0.0..=1.0).contains(&score) {
            return Err(Error::Invalid(format!("score {score} is outside 0..1")));
        }
        self.conn.execute(
            "INSERT INTO overrules (run_id, item_id, score, author_id, note, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run_id, item_id, score, author_id, note, now()],
        )?;
        Ok(())
    }

    /// Every run's result for one item, newest run first: what the item panel shows.
    pub fn item_results(&self, item_id: i64) -> Result<Vec<ItemRunResult>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {RUN_COLUMNS}, ri.outcome, ri.score, ri.parsed, ri.evidence, ri.error, resp.text,
                    {OVERRULED_SCORE}, {OVERRULED_NOTE}
             FROM run_items ri JOIN runs r ON r.id = ri.run_id
             JOIN models m ON m.id = r.model_id JOIN datasets d ON d.id = r.dataset_id
             LEFT JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE ri.item_id = ?1 ORDER BY r.id DESC"
        ))?;
        let rows = st.query_map([item_id], |r| {
            let run = run_row(r)?;
            Ok(ItemRunResult {
                run,
                outcome: r.get(11)?,
                score: r.get(12)?,
                parsed: r.get(13)?,
                evidence: r.get(14)?,
                error: r.get(15)?,
                response: r.get(16)?,
                overruled: r.get(17)?,
                overrule_note: r.get(18)?,
                criterion_overrules: Vec::new(),
                failure_tags: Vec::new(),
            })
        })?;
        let mut out: Vec<ItemRunResult> = rows.collect::<std::result::Result<_, _>>()?;
        for r in &mut out {
            r.criterion_overrules = self.criterion_overrules(r.run.id, item_id)?;
            r.failure_tags = self.failure_tags(r.run.id, item_id)?;
        }
        Ok(out)
    }

    /// The standing (latest) person's rating per criterion of one run's judgement of an item.
    pub fn criterion_overrules(&self, run_id: i64, item_id: i64) -> Result<Vec<CriterionOverrule>> {
        let mut st = self.conn.prepare_cached(
            "SELECT c.criterion, c.rating, u.name, c.note FROM criterion_overrules c
             LEFT JOIN users u ON u.id = c.author_id
             WHERE c.run_id = ?1 AND c.item_id = ?2 AND c.id = (SELECT max(id) FROM criterion_overrules
                 WHERE run_id = c.run_id AND item_id = c.item_id AND criterion = c.criterion)
             ORDER BY c.criterion",
        )?;
        let rows = st.query_map(params![run_id, item_id], |r| {
            Ok(CriterionOverrule {
                criterion: r.get(0)?,
                rating: r.get(1)?,
                by: r.get(2)?,
                note: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Records a person's rating of one criterion and the item's resulting score (computed by
    /// the scorer's rule, assay-eval) as its overrule, in one transaction.
    pub fn add_criterion_overrule(&mut self, o: &NewCriterionOverrule<'_>) -> Result<()> {
        let NewCriterionOverrule {
            run_id,
            item_id,
            criterion,
            rating,
            item_score,
            author_id,
            note,
        } = *o;
        if ![0.0, 0.5, 1.0].contains(&rating) {
            return Err(Error::Invalid(format!(
                "a criterion is met (1), partially met (0.5) or not met (0), not {rating}"
            )));
        }
        let tx = self.conn.transaction()?;
        let ts = now();
        tx.execute(
            "INSERT INTO criterion_overrules (run_id, item_id, criterion, rating, author_id, note, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![run_id, item_id, criterion as i64, rating, author_id, note, ts],
        )?;
        tx.execute(
            "INSERT INTO overrules (run_id, item_id, score, author_id, note, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run_id, item_id, item_score, author_id, note, ts],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Everything stored about a run's items, in dataset order; `ext_id` limits it to one.
    pub fn run_trace(&self, run_id: i64, ext_id: Option<&str>) -> Result<Vec<TraceRow>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT i.ext_id, ri.item_rev, ri.outcome, ri.from_cache, resp.prompt, resp.text, ri.parsed, ri.scorer,
                    ri.score, {OVERRULED_SCORE}, {OVERRULED_NOTE},
                    ri.evidence, ri.error, coalesce(ri.scorer_version, 1)
             FROM run_items ri JOIN items i ON i.id = ri.item_id
             LEFT JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE ri.run_id = ?1 AND (?2 IS NULL OR i.ext_id = ?2) ORDER BY i.seq"
        ))?;
        let rows = st.query_map(params![run_id, ext_id], |r| {
            Ok(TraceRow {
                ext_id: r.get(0)?,
                item_rev: r.get(1)?,
                outcome: r.get(2)?,
                from_cache: r.get::<_, i64>(3)? != 0,
                prompt: r.get(4)?,
                response: r.get(5)?,
                parsed: r.get(6)?,
                scorer: r.get(7)?,
                score: r.get(8)?,
                overruled: r.get(9)?,
                overrule_note: r.get(10)?,
                evidence: r.get(11)?,
                error: r.get(12)?,
                scorer_version: r.get(13)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// A run's results that came from a stored response (errors and skipped items have none),
    /// with the item as it was asked: what a rescore reads.
    pub fn stored_results(&self, run_id: i64) -> Result<Vec<StoredResult>> {
        let mut st = self.conn.prepare(
            "SELECT ri.item_id, revision_json(rv.content), resp.text, ri.outcome, ri.score, coalesce(ri.scorer, r.scorer),
                    coalesce(ri.scorer_version, 1),
                    json_valid(ri.evidence) AND json_extract(ri.evidence, '$.decided_by') = 'judge'
             FROM run_items ri JOIN runs r ON r.id = ri.run_id
             JOIN revisions rv ON rv.item_id = ri.item_id AND rv.rev = ri.item_rev
             JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE ri.run_id = ?1 AND ri.outcome IN ('scored', 'unparsed', 'hedged')
             ORDER BY ri.item_id",
        )?;
        let rows = st.query_map([run_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<f64>>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, i64>(6)?,
                r.get::<_, Option<bool>>(7)?.unwrap_or(false),
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (item_id, json, response, outcome, score, scorer, scorer_version, judge_decided) =
                row?;
            out.push(StoredResult {
                item_id,
                content: crate::store::items::parse_content(&json)?,
                response,
                outcome,
                score,
                scorer,
                scorer_version,
                judge_decided,
            });
        }
        Ok(out)
    }

    /// Writes the results of a rescore in one transaction, and marks the run's state as new
    /// (its finished time moves), so a team sees the rescored numbers as the run's next
    /// snapshot. The revision and cache key of each result stay as stored.
    pub fn write_rescore(&mut self, run_id: i64, results: &[RunItemResult]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut st = tx.prepare_cached(
                "UPDATE run_items SET outcome = ?3, score = ?4, parsed = ?5, evidence = ?6, scorer = ?7, scorer_version = ?8,
                        unsure = ?9
                 WHERE run_id = ?1 AND item_id = ?2",
            )?;
            for r in results {
                st.execute(params![
                    run_id,
                    r.item_id,
                    r.outcome,
                    r.score,
                    r.parsed,
                    r.evidence,
                    r.scorer,
                    r.scorer_version,
                    unsure_of(r.evidence.as_deref())
                ])?;
            }
        }
        tx.execute(
            "UPDATE runs SET finished_at = ?2 WHERE id = ?1 AND finished_at IS NOT NULL",
            params![run_id, now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Whether a run was published by another team member (pulled here): its results are
    /// theirs to rescore.
    pub fn run_published_by_other(&self, run_id: i64) -> Result<Option<String>> {
        // This replica's team login, as the team database named it at the last sync (None on
        // the owner's replica and on a project that never synced).
        let me: Option<String> = self.sync_get("member")?;
        let row: Option<(Option<String>, Option<String>)> = self
            .conn
            .query_row(
                "SELECT author, snapshot FROM sync_runs WHERE run_id = ?1",
                [run_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(match row {
            Some((Some(author), _)) if me.as_deref() != Some(author.as_str()) => Some(author),
            // On a member's replica, a published run with no author is the owner's.
            Some((None, Some(_))) if me.is_some() => Some("the team's owner".into()),
            _ => None,
        })
    }

    /// Results of a run made by one scorer.
    pub fn scorer_results(&self, run_id: i64, scorer: &str) -> Result<Vec<ScorerResult>> {
        let mut st = self.conn.prepare(
            "SELECT i.category, ri.outcome, ri.evidence FROM run_items ri JOIN items i ON i.id = ri.item_id
             WHERE ri.run_id = ?1 AND ri.scorer = ?2",
        )?;
        let rows = st.query_map(params![run_id, scorer], |r| {
            Ok(ScorerResult {
                category: r.get(0)?,
                outcome: r.get(1)?,
                evidence: r.get(2)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Adds what the replicas did in one engine call to the run's record.
    pub fn add_run_replicas(&self, run_id: i64, more: &[ReplicaRecord]) -> Result<()> {
        let mut have = self.run_replicas(run_id)?;
        merge_replicas(&mut have, more);
        let json = serde_json::to_string(&have).map_err(|e| Error::Invalid(e.to_string()))?;
        self.conn.execute(
            "UPDATE runs SET replicas = ?2 WHERE id = ?1",
            params![run_id, json],
        )?;
        Ok(())
    }

    /// The replicas that served the run, as recorded on this machine.
    pub fn run_replicas(&self, run_id: i64) -> Result<Vec<ReplicaRecord>> {
        let json: Option<String> =
            self.conn
                .query_row("SELECT replicas FROM runs WHERE id = ?1", [run_id], |r| {
                    r.get(0)
                })?;
        Ok(json
            .and_then(|j| serde_json::from_str(&j).ok())
            .unwrap_or_default())
    }

    /// Stored responses of a run not yet judged by `scorer`, with the item as it was asked.
    pub fn pending_judgements(&self, run_id: i64, scorer: &str) -> Result<Vec<PendingJudgement>> {
        let mut st = self.conn.prepare(
            "SELECT ri.item_id, revision_json(rv.content), resp.text FROM run_items ri
             JOIN revisions rv ON rv.item_id = ri.item_id AND rv.rev = ri.item_rev
             JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE ri.run_id = ?1 AND NOT (ri.scorer = ?2 AND ri.outcome IN ('scored', 'unparsed', 'hedged'))
             ORDER BY ri.item_id",
        )?;
        let rows = st.query_map(params![run_id, scorer], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (item_id, json, response) = row?;
            out.push(PendingJudgement {
                item_id,
                content: crate::store::items::parse_content(&json)?,
                response,
            });
        }
        Ok(out)
    }
}

impl Project {
    /// The run's results its rule left to a judge and no judge has decided yet.
    pub fn pending_misses(&self, run_id: i64) -> Result<Vec<PendingMiss>> {
        let mut st = self.conn.prepare(
            "SELECT ri.item_id, revision_json(rv.content), ri.score, ri.parsed, ri.evidence, resp.text FROM run_items ri
             JOIN revisions rv ON rv.item_id = ri.item_id AND rv.rev = ri.item_rev
             LEFT JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE ri.run_id = ?1 AND json_valid(ri.evidence)
               AND json_extract(ri.evidence, '$.needs_judge') = 1
             ORDER BY ri.item_id",
        )?;
        let rows = st.query_map([run_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<f64>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, Option<String>>(5)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (item_id, json, score, parsed, evidence, response) = row?;
            out.push(PendingMiss {
                item_id,
                content: crate::store::items::parse_content(&json)?,
                score,
                parsed,
                evidence,
                response,
            });
        }
        Ok(out)
    }
}

fn ensure_run(conn: &rusqlite::Connection, k: &RunKey) -> Result<i64> {
    let protocol = k.protocol.map(|p| p.as_str());
    conn.execute(
        "INSERT OR IGNORE INTO runs (model_id, dataset_id, version, variant, run_index, template, scorer, source, created_at, protocol)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![k.model_id, k.dataset_id, k.version.as_str(), k.variant, k.run_index, k.template, k.scorer, k.source, now(), protocol],
    )?;
    let (id, had): (i64, Option<String>) = conn.query_row(
        "SELECT id, protocol FROM runs WHERE model_id = ?1 AND dataset_id = ?2 AND version = ?3 AND variant = ?4
         AND run_index = ?5 AND template = ?6 AND scorer = ?7",
        params![k.model_id, k.dataset_id, k.version.as_str(), k.variant, k.run_index, k.template, k.scorer],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    // A run's protocol is fixed when it is made: a preset never adopts a run made by hand
    // (its results may have been made another way, e.g. by another judge), and a request
    // without the preset never adds to the preset's run.
    if had.as_deref() != protocol {
        let named = |p: Option<&str>| {
            p.map_or("by hand".to_string(), |p| format!("under the {p} protocol"))
        };
        return Err(Error::Invalid(format!(
            "run {} ({} {} run {}, template {}, scorer {}) was made {}, and this request is {}: \
             a run keeps the protocol it was made under (name the same protocol to resume it, or \
             choose another template or scorer)",
            id,
            k.version.as_str(),
            k.variant,
            k.run_index,
            k.template,
            k.scorer,
            named(had.as_deref()),
            named(protocol)
        )));
    }
    Ok(id)
}
