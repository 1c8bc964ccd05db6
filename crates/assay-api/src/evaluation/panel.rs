//! A judge panel on one run, for the window.

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use assay_core::Project;

use super::eval_err;
use crate::Session;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PanelPair {
    pub a: String,
    pub b: String,
    pub items: u64,
    pub pearson: Option<f64>,
    pub spearman: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PanelCriterion {
    pub criterion: u64,
    pub items: u64,
    pub alpha_interval: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PanelDisagreement {
    pub item_id: i64,
    pub ext_id: String,
    /// One per judge, in `judges` order.
    pub scores: Vec<Option<f64>>,
    pub spread: f64,
}

/// A judge panel on one run, for the window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PanelView {
    pub run_id: i64,
    pub scorer: String,
    pub judges: Vec<String>,
    /// Items at least one judge gave a verdict on.
    pub items: u64,
    /// Identification's exact matches (scored 1 with no judge asked, not in the figures).
    pub exact: u64,
    pub alpha_interval: Option<f64>,
    pub pairs: Vec<PanelPair>,
    pub criteria: Vec<PanelCriterion>,
    pub disagreements: Vec<PanelDisagreement>,
    /// What this call asked: per judge, verdicts made and how many came from the cache.
    pub judged: Vec<(String, u64, u64)>,
}

/// The hybrid scorer on a stored run: the judge decides the verdicts its rules were unsure of.
/// Blocking (judge calls run on a runtime of this thread), so the caller runs it off the UI's
/// threads.
pub fn judge_unsure_blocking(
    path: &std::path::Path,
    run_id: i64,
    judge: &str,
) -> ApiResult<crate::types::HybridResult> {
    let mut project = Project::open(path)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ApiError::new("internal", e.to_string()))?;
    let r = rt
        .block_on(assay_eval::rescore::judge_unsure(
            &mut project,
            run_id,
            judge,
            assay_eval::CancelToken::new(),
        ))
        .map_err(eval_err)?;
    Ok(crate::types::HybridResult {
        run_id: r.run_id,
        judge: r.judge,
        replies: r.replies as u64,
        unsure_before: r.unsure_before as u64,
        judged: r.judged as u64,
        from_cache: r.from_cache as u64,
        errors: r.errors as u64,
        unsure_after: r.unsure_after as u64,
        judge_calls_per_1000: r.judge_calls_per_1000,
    })
}

/// Asks each judge about the run's stored responses (none when `judges` is empty), then
/// reports the panel. Blocking: judge calls run on a runtime of this thread, so the caller
/// runs it off the UI's threads.
pub fn judge_panel_blocking(
    path: &std::path::Path,
    run_id: i64,
    scorer: &str,
    judges: &[String],
    top: usize,
) -> ApiResult<PanelView> {
    let kind = assay_eval::ScorerKind::parse(scorer)
        .ok_or_else(|| ApiError::new("invalid", format!("unknown scorer {scorer:?}")))?;
    let project = Project::open(path)?;
    let judged = if judges.is_empty() {
        Vec::new()
    } else {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ApiError::new("internal", e.to_string()))?;
        rt.block_on(assay_eval::panel::judge_panel(
            &project,
            run_id,
            kind,
            judges,
            assay_eval::CancelToken::new(),
        ))
        .map_err(eval_err)?
    };
    let r = assay_eval::panel::panel_report(&project, run_id, kind, top).map_err(eval_err)?;
    Ok(PanelView {
        run_id,
        scorer: r.scorer,
        judges: r.judges,
        items: r.items as u64,
        exact: r.exact as u64,
        alpha_interval: r.alpha_interval,
        pairs: r
            .pairs
            .into_iter()
            .map(|p| PanelPair {
                a: p.a,
                b: p.b,
                items: p.items as u64,
                pearson: p.pearson,
                spearman: p.spearman,
            })
            .collect(),
        criteria: r
            .criteria
            .into_iter()
            .map(|c| PanelCriterion {
                criterion: c.criterion as u64,
                items: c.items as u64,
                alpha_interval: c.alpha_interval,
            })
            .collect(),
        disagreements: r
            .disagreements
            .into_iter()
            .map(|d| PanelDisagreement {
                item_id: d.item_id,
                ext_id: d.ext_id,
                scores: d.scores,
                spread: d.spread,
            })
            .collect(),
        judged: judged
            .into_iter()
            .map(|(j, s)| (j, s.judged as u64, s.from_cache as u64))
            .collect(),
    })
}

impl Session {
    /// A sample of a judged run's results for the current user to rate, drawn by seed.
    pub fn judge_review(
        &self,
        run: i64,
        size: usize,
        seed: u64,
    ) -> ApiResult<Vec<assay_core::store::JudgeReviewEntry>> {
        let author = self.author()?;
        Ok(self
            .project()?
            .judge_review_sample(run, size, seed, &author)?)
    }

    /// The current user rates the judge's decision on an item 1-5; returns the run's report.
    pub fn rate_judge(
        &mut self,
        run: i64,
        id: i64,
        rating: u8,
    ) -> ApiResult<assay_core::store::JudgeRatingReport> {
        let author = self.author()?;
        self.project_mut()?
            .rate_judge(run, id, rating, None, &author)?;
        self.judge_rating_report(run)
    }

    pub fn judge_rating_report(&self, run: i64) -> ApiResult<assay_core::store::JudgeRatingReport> {
        Ok(self.project()?.judge_rating_report(run)?)
    }
}
