//! Tracing a run's numbers back to their sources: for each item, the request as sent, the raw
//! response, what the scorer read, the rule and evidence, and any person's overrule.

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
    /// The version of the scorer's rules that made the score.
    pub scorer_version: i64,
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
    let rows = project.scorer_results(run_id, "rating")?;
    if rows.is_empty() {
        return Ok(None);
    }
    let mut by_cat: std::collections::BTreeMap<String, (f64, f64, usize)> = Default::default();
    let mut unparsed = 0;
    for r in rows {
        let (cat, outcome) = (r.category, r.outcome);
        let ev: serde_json::Value = r
            .evidence
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
    let run = project
        .run(run_id)
        .map_err(|_| EvalError::Config(format!("no run {run_id}")))?;
    let json = |s: Option<String>| s.and_then(|t| serde_json::from_str(&t).ok());
    let items: Vec<TraceRow> = project
        .run_trace(run_id, item)?
        .into_iter()
        .map(|r| TraceRow {
            item: r.ext_id,
            item_rev: r.item_rev,
            outcome: r.outcome,
            from_cache: r.from_cache,
            prompt: json(r.prompt),
            response: r.response,
            parsed: r.parsed,
            scorer: r.scorer,
            scorer_version: r.scorer_version,
            score: r.score,
            overruled: r.overruled,
            overrule_note: r.overrule_note,
            evidence: json(r.evidence),
            error: r.error,
        })
        .collect();
    if let (Some(id), true) = (item, items.is_empty()) {
        return Err(EvalError::Config(format!(
            "run {run_id} has no result for item {id:?}"
        )));
    }
    Ok(RunTrace {
        run_id,
        model: run.model,
        dataset: run.dataset,
        version: run.version,
        variant: run.variant,
        run_index: run.run_index,
        template: run.template,
        scorer: run.scorer,
        source: run.source,
        status: run.status,
        rating: rating_summary(project, run_id)?,
        items,
    })
}
