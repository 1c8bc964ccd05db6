//! Rescoring a run from its stored responses with the current rules: nothing is sent, the
//! revision each result scored stays, and each new number records the scorer version that made
//! it. Only scorers whose verdict depends on the item and the response alone are rescored
//! (choice, soft_match, bleu); a judge needs a model, and a box needs the convention its run
//! was read with, so those results are left as they are and counted.

use serde::{Deserialize, Serialize};

use crate::error::{EvalError, Result};
use crate::scorers::{ScoreContext, ScorerKind};
use assay_core::store::RunItemResult;
use assay_core::Project;

/// What one rescore did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RescoreReport {
    pub run_id: i64,
    pub scorer: String,
    /// The version of the rules the results now carry.
    pub version: i64,
    pub rescored: u64,
    /// Results whose score or outcome the new rules changed.
    pub changed: u64,
    /// Results left as they were (a judge's or a box's verdict), with why.
    pub kept: u64,
    pub why_kept: Option<String>,
}

fn rescorable(kind: ScorerKind) -> bool {
    matches!(
        kind,
        ScorerKind::Choice | ScorerKind::SoftMatch | ScorerKind::Bleu
    )
}

/// Why this replica may not rescore a run, or None when it may: a run still going (its results
/// are still arriving), or a run another team member published (its numbers are theirs). The
/// one rule the CLI, the run list and [`rescore_run`] share.
pub fn why_not_rescorable(
    project: &Project,
    run: &assay_core::store::RunRow,
) -> Result<Option<String>> {
    if matches!(run.status.as_str(), "running" | "pending") {
        return Ok(Some(format!(
            "the run is {}: rescore it once it has stopped",
            run.status
        )));
    }
    Ok(project
        .run_published_by_other(run.id)?
        .map(|author| format!("published by {author}: only they can rescore it")))
}

/// Rescores one run (see the module notes), unless [`why_not_rescorable`] says why not.
pub fn rescore_run(project: &mut Project, run_id: i64) -> Result<RescoreReport> {
    let run = project.run(run_id)?;
    if let Some(why) = why_not_rescorable(project, &run)? {
        return Err(EvalError::Config(format!("run {run_id}: {why}")));
    }
    let mut report = RescoreReport {
        run_id,
        scorer: run.scorer.clone(),
        ..Default::default()
    };
    let mut writes = Vec::new();
    for r in project.stored_results(run_id)? {
        // An "auto" run's result without its own scorer was scored by its answer format's.
        let kind = ScorerKind::parse(&r.scorer)
            .or_else(|| (r.scorer == "auto").then(|| ScorerKind::default_for(r.content.format)));
        let Some((kind, scorer)) = kind
            .filter(|k| rescorable(*k))
            .and_then(|k| k.local().map(|s| (k, s)))
        else {
            report.kept += 1;
            report.why_kept = Some(format!(
                "{} results need a judge model or the run's box convention: re-run or re-judge them",
                r.scorer
            ));
            continue;
        };
        let s = scorer.score(&r.content, &r.response, &ScoreContext::default());
        report.version = report.version.max(kind.version());
        report.rescored += 1;
        if s.score != r.score || s.outcome() != r.outcome {
            report.changed += 1;
        }
        writes.push(RunItemResult {
            item_id: r.item_id,
            item_rev: 0,
            cache_key: None,
            outcome: s.outcome().to_string(),
            from_cache: true,
            score: s.score,
            parsed: s.parsed,
            evidence: Some(s.evidence.to_string()),
            error: None,
            scorer: Some(kind.as_str().to_string()),
            scorer_version: Some(kind.version()),
        });
    }
    if !writes.is_empty() {
        project.write_rescore(run_id, &writes)?;
    }
    Ok(report)
}

/// Rescores every run this replica may rescore; runs it may not are skipped (with their id
/// and why), not failed.
pub fn rescore_all(
    project: &mut Project,
) -> Result<Vec<std::result::Result<RescoreReport, (i64, String)>>> {
    let ids: Vec<i64> = project.run_summaries()?.iter().map(|r| r.run.id).collect();
    Ok(ids
        .into_iter()
        .map(|id| rescore_run(project, id).map_err(|e| (id, format!("run {id}: {e}"))))
        .collect())
}
