//! Tracing a run's numbers back to their sources: for each item, the request as sent, the raw
//! response, what the scorer read, the rule and evidence, and any person's overrule.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use crate::error::{EvalError, Result};
use assay_core::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRow {
    pub item: String,
    pub item_rev: i64,
    pub outcome: String,
    pub from_cache: bool,
    /// The request as sent (system, text, images by hash and sent size); None when the tool
    /// that produced a recorded prediction did not keep it.
    pub prompt: Option<serde_json::Value>,
    pub response: Option<String>,
    pub parsed: Option<String>,
    pub scorer: Option<String>,
    /// The scorer's score.
    pub score: Option<f64>,
    /// A person's latest overrule, which the table uses instead.
    pub overruled: Option<f64>,
    pub overrule_note: Option<String>,
    pub evidence: Option<serde_json::Value>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunTrace {
    pub run_id: i64,
    pub model: String,
    pub dataset: String,
    pub version: String,
    pub variant: String,
    pub run_index: i64,
    pub template: String,
    pub scorer: String,
    pub source: String,
    pub status: String,
    /// For rating runs (Heron-Bench): the score relative to the reference's own rating.
    pub rating: Option<RatingSummary>,
    pub items: Vec<TraceRow>,
}

/// Heron-Bench's report: per category 100 * mean(rating) / mean(reference rating), and the
/// mean of the categories. Unparsed judgements are left out of both means (llm-jp-eval-mm
/// averages them in as -1 on both sides).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingSummary {
    /// (category, mean rating, mean reference rating, relative score in percent).
    pub categories: Vec<(String, f64, f64, f64)>,
    pub overall_relative: f64,
    pub unparsed: usize,
}

/// The rating summary of a run, when its items were rated.
pub fn rating_summary(project: &Project, run_id: i64) -> Result<Option<RatingSummary>> {
    let mut st = project.connection().prepare(
        "SELECT i.category, ri.outcome, ri.evidence FROM run_items ri JOIN items i ON i.id = ri.item_id
         WHERE ri.run_id = ?1 AND ri.scorer = 'rating'",
    )?;
    let rows = st.query_map([run_id], |r| {
        Ok((
            r.get::<_, Option<String>>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
        ))
    })?;
    let mut by_cat: std::collections::BTreeMap<String, (f64, f64, usize)> = Default::default();
    let (mut any, mut unparsed) = (false, 0);
    for row in rows {
        let (cat, outcome, ev) = row?;
        any = true;
        let ev: serde_json::Value = ev
            .and_then(|e| serde_json::from_str(&e).ok())
            .unwrap_or_default();
        match (
            outcome.as_str(),
            ev["rating"].as_f64(),
            ev["reference_rating"].as_f64(),
        ) {
            ("scored", Some(a), Some(b)) => {
                let e = by_cat
                    .entry(cat.unwrap_or_else(|| "(none)".into()))
                    .or_default();
                e.0 += a;
                e.1 += b;
                e.2 += 1;
            }
            _ => unparsed += 1,
        }
    }
    if !any {
        return Ok(None);
    }
    let categories: Vec<(String, f64, f64, f64)> = by_cat
        .into_iter()
        .map(|(c, (a, b, n))| {
            let (ma, mb) = (a / n as f64, b / n as f64);
            (c, ma, mb, if mb > 0.0 { 100.0 * ma / mb } else { 0.0 })
        })
        .collect();
    let overall_relative = if categories.is_empty() {
        0.0
    } else {
        categories.iter().map(|c| c.3).sum::<f64>() / categories.len() as f64
    };
    Ok(Some(RatingSummary {
        categories,
        overall_relative,
        unparsed,
    }))
}

/// Every result of a run, in dataset order; `item` limits it to one item id.
pub fn trace_run(project: &Project, run_id: i64, item: Option<&str>) -> Result<RunTrace> {
    let conn = project.connection();
    let head = conn
        .query_row(
            "SELECT m.name, d.name, r.version, r.variant, r.run_index, r.template, r.scorer, r.source, r.status
             FROM runs r JOIN models m ON m.id = r.model_id JOIN datasets d ON d.id = r.dataset_id WHERE r.id = ?1",
            [run_id],
            |r| {
                Ok(RunTrace {
                    run_id,
                    model: r.get(0)?,
                    dataset: r.get(1)?,
                    version: r.get(2)?,
                    variant: r.get(3)?,
                    run_index: r.get(4)?,
                    template: r.get(5)?,
                    scorer: r.get(6)?,
                    source: r.get(7)?,
                    status: r.get(8)?,
                    rating: None,
                    items: Vec::new(),
                })
            },
        )
        .map_err(|_| EvalError::Config(format!("no run {run_id}")))?;
    let mut st = conn.prepare(
        "SELECT i.ext_id, ri.item_rev, ri.outcome, ri.from_cache, resp.prompt, resp.text, ri.parsed, ri.scorer,
                ri.score,
                (SELECT o.score FROM overrules o WHERE o.run_id = ri.run_id AND o.item_id = ri.item_id ORDER BY o.id DESC LIMIT 1),
                (SELECT o.note FROM overrules o WHERE o.run_id = ri.run_id AND o.item_id = ri.item_id ORDER BY o.id DESC LIMIT 1),
                ri.evidence, ri.error
         FROM run_items ri JOIN items i ON i.id = ri.item_id
         LEFT JOIN responses resp ON resp.cache_key = ri.cache_key
         WHERE ri.run_id = ?1 AND (?2 IS NULL OR i.ext_id = ?2) ORDER BY i.seq",
    )?;
    let json = |s: Option<String>| s.and_then(|t| serde_json::from_str(&t).ok());
    let rows = st.query_map(params![run_id, item], |r| {
        Ok(TraceRow {
            item: r.get(0)?,
            item_rev: r.get(1)?,
            outcome: r.get(2)?,
            from_cache: r.get::<_, i64>(3)? != 0,
            prompt: json(r.get(4)?),
            response: r.get(5)?,
            parsed: r.get(6)?,
            scorer: r.get(7)?,
            score: r.get(8)?,
            overruled: r.get(9)?,
            overrule_note: r.get(10)?,
            evidence: json(r.get(11)?),
            error: r.get(12)?,
        })
    })?;
    let mut out = head;
    out.rating = rating_summary(project, run_id)?;
    out.items = rows.collect::<std::result::Result<_, _>>()?;
    if let (Some(id), true) = (item, out.items.is_empty()) {
        return Err(EvalError::Config(format!(
            "run {run_id} has no result for item {id:?}"
        )));
    }
    Ok(out)
}
