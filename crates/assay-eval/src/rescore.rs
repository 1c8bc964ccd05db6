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
        if r.judge_decided {
            report.kept += 1;
            report.why_kept = Some("a judge decided them for the rules (hybrid)".into());
            continue;
        }
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

/// What a judge did with a run's unsure verdicts ([`judge_unsure`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HybridReport {
    pub run_id: i64,
    pub judge: String,
    /// The run's results.
    pub replies: usize,
    /// Verdicts the rules were unsure of before the judge.
    pub unsure_before: usize,
    /// Judge requests made or found in the cache.
    pub judged: usize,
    pub from_cache: usize,
    pub errors: usize,
    /// Still unsure after (the judge gave no verdict, failed, or the reply was not stored).
    pub unsure_after: usize,
    /// The hybrid scorer's cost: judge requests sent per 1,000 replies (cached ones are free).
    pub judge_calls_per_1000: f64,
}

/// The hybrid scorer on a stored run: the judge `judge` decides each verdict the rules were
/// unsure of, the rules' reading kept beside its verdict ([`crate::scorers::hybrid`]). Judge
/// replies go through the response cache, so a second pass sends nothing.
pub async fn judge_unsure(
    project: &mut Project,
    run_id: i64,
    judge: &str,
    cancel: crate::cancel::CancelToken,
) -> Result<HybridReport> {
    let run = project.run(run_id)?;
    // The same rule as a rescore: not while it runs, not another member's published run.
    if let Some(why) = why_not_rescorable(project, &run)? {
        return Err(EvalError::Config(format!("run {run_id}: {why}")));
    }
    // `auto` runs score letters with choice and short answers with soft_match.
    // A live hybrid run is labelled with its judge ("choice+J").
    let base = run.scorer.split('+').next().unwrap_or("");
    let kind = if base == "auto" {
        Some(ScorerKind::Choice)
    } else {
        ScorerKind::parse(base)
    };
    let kind = kind
        .filter(|k| crate::scorers::hybrid::decides(*k))
        .ok_or_else(|| {
            EvalError::Config(format!(
                "run {run_id} is scored by {}: a judge decides unsure verdicts of choice, soft_match and auto runs",
                run.scorer
            ))
        })?;
    let count = |p: &Project| -> Result<(usize, usize)> {
        let s = p
            .run_summaries()?
            .into_iter()
            .find(|s| s.run.id == run_id)
            .ok_or_else(|| EvalError::Config(format!("no run {run_id}")))?;
        Ok((s.items as usize, s.unsure as usize))
    };
    let (replies, unsure_before) = count(project)?;
    let s = crate::judging::judge_run(project, run_id, kind, judge, cancel).await?;
    let (_, unsure_after) = count(project)?;
    Ok(HybridReport {
        run_id,
        judge: judge.to_string(),
        replies,
        unsure_before,
        judged: s.judged,
        from_cache: s.from_cache,
        errors: s.errors,
        unsure_after,
        judge_calls_per_1000: if replies == 0 {
            0.0
        } else {
            // Requests sent: replies found in the cache cost nothing.
            (s.judged - s.from_cache + s.errors) as f64 * 1000.0 / replies as f64
        },
    })
}
