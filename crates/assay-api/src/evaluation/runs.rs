//! A run as a person asks for it, its estimate, and the one background run with live progress.

use super::model_config;
use crate::types::{CriterionOverruled, ItemResults};
use assay_core::store::RunDetail;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use crate::Session;
use assay_core::{Project, Version};
use assay_eval::{run_eval, EvalProgress, EvalRequest, Variant};

/// What a person asks to run: models x datasets x versions x variants x runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvalForm {
    pub models: Vec<String>,
    pub datasets: Vec<String>,
    /// "before", "after"
    pub versions: Vec<String>,
    /// "original", "explicit", "disambiguated", "text_only", "no_image"
    pub variants: Vec<String>,
    pub runs: u32,
    /// A scorer for every item (e.g. "grounding" for CRAG-MM's boxes); None: each item's
    /// default for its answer format.
    #[serde(default)]
    pub scorer: Option<String>,
    /// "default" or None: the built-in template per answer format; a built-in name
    /// ("crag-mm/object_identification_easy_query") or a saved template "name[@version]".
    #[serde(default)]
    pub template: Option<String>,
    /// The judge model for judge scorers (and identification's non-exact names).
    #[serde(default)]
    pub judge: Option<String>,
    /// A seed's protocol ("jammeval", "haerae-vision", "crag-mm", "vague"): the form must
    /// follow it (`assay_eval::protocol::check`), and its runs record it.
    #[serde(default)]
    pub protocol: Option<String>,
}

impl EvalForm {
    fn request(&self) -> ApiResult<EvalRequest> {
        let parse = |list: &[String], what: &str, names: &[&str]| -> ApiResult<()> {
            match list.iter().find(|v| !names.contains(&v.as_str())) {
                Some(v) => Err(ApiError::new("invalid", format!("unknown {what} {v:?}"))),
                None => Ok(()),
            }
        };
        parse(&self.versions, "version", &Version::NAMES)?;
        parse(&self.variants, "variant", &Variant::NAMES)?;
        if self.models.is_empty() || self.datasets.is_empty() || self.runs == 0 {
            return Err(ApiError::new(
                "invalid",
                "choose at least one model, one dataset and one run",
            ));
        }
        let scorer = match self.scorer.as_deref().filter(|s| !s.is_empty()) {
            None => None,
            Some(name) => Some(assay_eval::ScorerKind::parse(name).ok_or_else(|| {
                ApiError::new(
                    "invalid",
                    format!(
                        "unknown scorer {name:?}; one of {}",
                        assay_eval::ScorerKind::NAMES.join(", ")
                    ),
                )
            })?),
        };
        let judge = self.judge.clone().filter(|j| !j.is_empty());
        if scorer.is_some_and(|s| s.needs_judge()) && judge.is_none() {
            return Err(ApiError::new(
                "invalid",
                "this scorer needs a judge model: pick one under judge",
            ));
        }
        let protocol = match self.protocol.as_deref().filter(|p| !p.is_empty()) {
            None => None,
            Some(name) => Some(assay_core::EvalProtocol::parse(name).ok_or_else(|| {
                ApiError::new(
                    "invalid",
                    format!(
                        "unknown protocol {name:?}; one of {}",
                        assay_core::EvalProtocol::NAMES.join(", ")
                    ),
                )
            })?),
        };
        let req = EvalRequest {
            protocol,
            scorer,
            judge,
            template: self
                .template
                .clone()
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "default".into()),
            models: self.models.clone(),
            datasets: self.datasets.clone(),
            versions: self
                .versions
                .iter()
                .filter_map(|v| Version::parse(v))
                .collect(),
            variants: self
                .variants
                .iter()
                .filter_map(|v| Variant::parse(v))
                .collect(),
            runs: self.runs,
        };
        assay_eval::protocol::check(&req).map_err(|e| ApiError::new("invalid", e.to_string()))?;
        Ok(req)
    }
}

/// An upper bound on the requests a run sends: responses already cached are reused and sent
/// again for free, so the real count is at most this.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvalEstimate {
    pub requests: u64,
    /// Judge calls on top (at most one per answer; identification asks only about names that
    /// are not an exact match).
    pub judge_requests: u64,
    /// At the models' prices and the mean tokens of their stored responses; None when a model
    /// has no prices or no response with token counts yet.
    pub cost: Option<f64>,
    /// Items per dataset and version, as counted.
    pub items: Vec<(String, String, u64)>,
}

pub fn estimate(project: &Project, form: &EvalForm) -> ApiResult<EvalEstimate> {
    let req = form.request()?;
    let mut items = Vec::new();
    let mut per_round = 0u64;
    for ds in &req.datasets {
        let d = project.dataset_by_name(ds)?;
        for v in &req.versions {
            let n = project.version_members(d.id, *v)?.len() as u64;
            items.push((ds.clone(), v.as_str().to_string(), n));
            per_round += n;
        }
    }
    let per_model = per_round * req.variants.len() as u64 * u64::from(req.runs);
    let mut cost = Some(0.0);
    for m in &req.models {
        let cfg = model_config(project, m)?;
        let tokens = project.mean_tokens(m)?;
        let n = per_model as f64;
        cost = match (cost, tokens) {
            (Some(c), Some((tin, tout))) => cfg.cost(n * tin, n * tout).map(|x| c + x),
            _ => None,
        };
    }
    let requests = per_model * req.models.len() as u64;
    let judge_requests = match (&req.judge, req.scorer) {
        (Some(_), Some(s)) if s.uses_judge() => requests,
        _ => 0,
    };
    if let Some(j) = &req.judge {
        let cfg = model_config(project, j)?;
        let n = judge_requests as f64;
        let judging = project
            .mean_tokens(j)?
            .and_then(|(tin, tout)| cfg.cost(n * tin, n * tout));
        cost = match (cost, judging) {
            (Some(c), Some(x)) => Some(c + x),
            (c, _) if judge_requests == 0 => c,
            _ => None,
        };
    }
    Ok(EvalEstimate {
        requests,
        judge_requests,
        cost,
        items,
    })
}

/// The run in progress (or the last one), as the runs panel shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvalStatus {
    pub running: bool,
    pub total: u64,
    pub done: u64,
    pub sent: u64,
    pub cached: u64,
    pub errors: u64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub elapsed_secs: f64,
    /// From the pace so far; None until something finished.
    pub eta_secs: Option<f64>,
    pub cost: Option<f64>,
    pub cancelled: bool,
    pub run_ids: Vec<i64>,
    pub error: Option<String>,
    /// What was asked, to run it again.
    pub form: Option<EvalForm>,
}

/// The app's one evaluation at a time: its status and the token to cancel it.
pub type EvalJobs = crate::background::Background<EvalStatus>;

impl EvalJobs {
    /// Marks a run started and returns the work to spawn; refused while one is running. A run
    /// killed midway resumes when started again: every response was committed as it came and
    /// is reused from the cache.
    pub fn start(
        self: &Arc<Self>,
        project: PathBuf,
        form: EvalForm,
    ) -> ApiResult<impl std::future::Future<Output = ()> + Send + 'static> {
        let req = form.request()?;
        let token = self.begin(
            EvalStatus {
                running: true,
                form: Some(form),
                ..Default::default()
            },
            |s| s.running,
            "an evaluation is already running; cancel it or wait",
        )?;
        let status = self.status.clone();
        Ok(async move {
            let started = Instant::now();
            let live = status.clone();
            let progress: assay_eval::engine::ProgressFn = Arc::new(move |p: &EvalProgress| {
                if let Ok(mut s) = live.lock() {
                    apply_progress(&mut s, p, started.elapsed().as_secs_f64());
                }
            });
            let result = run_eval(&project, &req, progress, token).await;
            if let Ok(mut s) = status.lock() {
                s.running = false;
                s.elapsed_secs = started.elapsed().as_secs_f64();
                s.eta_secs = None;
                match result {
                    Ok(summary) => {
                        apply_progress(&mut s, &summary.progress, started.elapsed().as_secs_f64());
                        s.eta_secs = None;
                        s.cost = summary.cost;
                        s.cancelled = summary.cancelled;
                        s.run_ids = summary.run_ids;
                    }
                    Err(e) => s.error = Some(e.to_string()),
                }
            }
        })
    }
}

fn apply_progress(s: &mut EvalStatus, p: &EvalProgress, elapsed: f64) {
    s.total = p.total as u64;
    s.done = p.done as u64;
    s.sent = p.sent as u64;
    s.cached = p.cached as u64;
    s.errors = p.errors as u64;
    s.prompt_tokens = p.prompt_tokens;
    s.completion_tokens = p.completion_tokens;
    s.elapsed_secs = elapsed;
    s.eta_secs = (p.done > 0 && p.total > p.done)
        .then(|| elapsed / p.done as f64 * (p.total - p.done) as f64);
}

impl Session {
    pub fn item_results(&self, id: i64) -> ApiResult<ItemResults> {
        let p = self.project()?;
        let results = p.item_results(id)?;
        let mut run_scores = Vec::new();
        for r in &results {
            let s = assay_eval::table::run_score(p, r.run.id)
                .map_err(|e| ApiError::new("invalid", e.to_string()))?;
            run_scores.push((r.run.id, s));
        }
        Ok(ItemResults {
            results,
            run_scores,
        })
    }

    /// The current user rates one checklist criterion of a run's judgement of an item.
    pub fn overrule_criterion(
        &mut self,
        run_id: i64,
        id: i64,
        criterion: usize,
        rating: f64,
    ) -> ApiResult<CriterionOverruled> {
        let author = self.author()?;
        let p = self.project_mut()?;
        let item_score = assay_eval::table::overrule_criterion(
            p,
            run_id,
            id,
            criterion,
            rating,
            Some(author.user_id),
        )
        .map_err(|e| ApiError::new("invalid", e.to_string()))?;
        let run_score = assay_eval::table::run_score(p, run_id)
            .map_err(|e| ApiError::new("invalid", e.to_string()))?;
        Ok(CriterionOverruled {
            item_score,
            run_score,
        })
    }

    pub fn estimate_eval(&self, form: EvalForm) -> ApiResult<crate::evaluation::EvalEstimate> {
        crate::evaluation::estimate(self.project()?, &form)
    }

    /// The current user's judgement of one run's result for an item (0..1), over the scorer's,
    /// which stays stored; a note says why.
    pub fn overrule_result(
        &mut self,
        run_id: i64,
        id: i64,
        score: f64,
        note: Option<String>,
    ) -> ApiResult<()> {
        let author = self.author()?;
        let p = self.project()?;
        assay_eval::table::overrule(p, run_id, id, score, Some(author.user_id), note.as_deref())
            .map_err(|e| ApiError::new("invalid", e.to_string()))
    }

    /// Every run with its counts and the scorer versions that made its numbers.
    pub fn run_list(&self) -> ApiResult<Vec<crate::types::RunListRow>> {
        let p = self.project()?;
        let configs: std::collections::HashMap<String, assay_eval::ModelConfig> =
            assay_eval::model::models(p)
                .map_err(|e| ApiError::new(e.code(), e.to_string()))?
                .into_iter()
                .map(|m| (m.config.name.clone(), m.config))
                .collect();
        let mut out = Vec::new();
        for r in p.run_summaries()? {
            let cost = configs
                .get(&r.run.model)
                .and_then(|c| c.cost(r.prompt_tokens as f64, r.completion_tokens as f64));
            let no_rescore = assay_eval::rescore::why_not_rescorable(p, &r.run)
                .map_err(|e| ApiError::new(e.code(), e.to_string()))?;
            out.push(crate::types::RunListRow {
                scorer_label: assay_eval::table::scorer_label(&r.run.scorer, &r.scorer_versions),
                items: r.items,
                unparsed: r.unparsed,
                hedged: r.hedged,
                unsure: r.unsure,
                errors: r.errors,
                accuracy: r.accuracy,
                sent: r.items - r.from_cache,
                prompt_tokens: r.prompt_tokens,
                completion_tokens: r.completion_tokens,
                cost,
                duration_secs: r.duration_secs,
                no_rescore,
                replicas: p.run_replicas(r.run.id)?,
                run: r.run,
            });
        }
        Ok(out)
    }

    /// Rescores one run (or, with None, every run this replica may) from stored responses
    /// with the current rules; nothing is sent.
    pub fn rescore_runs(
        &mut self,
        run: Option<i64>,
    ) -> ApiResult<Vec<crate::types::RescoreResult>> {
        let p = self.project_mut()?;
        let reports = match run {
            Some(id) => {
                vec![assay_eval::rescore::rescore_run(p, id).map_err(|e| (id, e.to_string()))]
            }
            None => assay_eval::rescore::rescore_all(p)
                .map_err(|e| ApiError::new("invalid", e.to_string()))?,
        };
        Ok(reports
            .into_iter()
            .map(|r| match r {
                Ok(r) => crate::types::RescoreResult {
                    run_id: r.run_id,
                    scorer: r.scorer,
                    version: r.version,
                    rescored: r.rescored,
                    changed: r.changed,
                    kept: r.kept,
                    why_kept: r.why_kept,
                    error: None,
                },
                Err((run_id, e)) => crate::types::RescoreResult {
                    run_id,
                    scorer: String::new(),
                    version: 0,
                    rescored: 0,
                    changed: 0,
                    kept: 0,
                    why_kept: None,
                    error: Some(e),
                },
            })
            .collect())
    }

    /// Items ranked by evidence in the stored runs that they need a person.
    pub fn triage(&self) -> ApiResult<Vec<crate::types::TriageEntry>> {
        let items = assay_eval::triage::triage(self.project()?, &[])
            .map_err(|e| ApiError::new("invalid", e.to_string()))?;
        Ok(items
            .into_iter()
            .map(|t| crate::types::TriageEntry {
                item_id: t.item_id,
                ext_id: t.ext_id,
                dataset: t.dataset,
                score: t.score,
                reasons: t.reasons.into_iter().map(|r| (r.kind, r.detail)).collect(),
            })
            .collect())
    }

    /// The current user sets or withdraws a failure tag on one run's result for an item.
    pub fn tag_failure(&self, run_id: i64, id: i64, tag: String, tagged: bool) -> ApiResult<()> {
        let author = self.author()?;
        Ok(self
            .project()?
            .tag_failure(run_id, id, &tag, tagged, Some(author.user_id))?)
    }

    /// The last evaluation this project ran from the app (what "run again" repeats).
    pub fn last_eval(&self) -> Option<crate::evaluation::EvalForm> {
        let key = self.project.as_ref()?.path().display().to_string();
        self.prefs
            .evals
            .get(&key)
            .cloned()
            .or_else(|| self.runs_on_the_table())
    }

    /// With no request remembered on this machine (a project built elsewhere, the sample): the
    /// request that runs again what the latest live run measured, every model, set, version and
    /// variant run with its scorer and template, so "update after each save" has something to
    /// repeat. Recorded predictions are left out: nothing could send them again.
    fn runs_on_the_table(&self) -> Option<crate::evaluation::EvalForm> {
        let runs = self.project.as_ref()?.run_summaries().ok()?;
        let live: Vec<_> = runs.iter().filter(|r| r.run.source == "live").collect();
        let latest = live.iter().max_by_key(|r| r.run.id)?;
        let same: Vec<_> = live
            .iter()
            .filter(|r| r.run.scorer == latest.run.scorer && r.run.template == latest.run.template)
            .collect();
        let distinct = |f: &dyn Fn(&assay_core::store::RunSummary) -> String| {
            let mut v: Vec<String> = same.iter().map(|r| f(r)).collect();
            v.sort();
            v.dedup();
            v
        };
        let (scorer, judge) = match latest.run.scorer.split_once('+') {
            Some(("auto", j)) => (None, Some(j.to_string())),
            Some((s, j)) => (Some(s.to_string()), Some(j.to_string())),
            None if latest.run.scorer == "auto" => (None, None),
            None => (Some(latest.run.scorer.clone()), None),
        };
        Some(crate::evaluation::EvalForm {
            models: distinct(&|r| r.run.model.clone()),
            datasets: distinct(&|r| r.run.dataset.clone()),
            versions: distinct(&|r| r.run.version.clone()),
            variants: distinct(&|r| r.run.variant.clone()),
            runs: same
                .iter()
                .map(|r| r.run.run_index)
                .max()
                .unwrap_or(1)
                .max(1) as u32,
            scorer,
            template: (latest.run.template != "default").then(|| latest.run.template.clone()),
            judge,
            protocol: latest.run.protocol.clone(),
        })
    }

    pub fn remember_eval(&mut self, form: &crate::evaluation::EvalForm) -> ApiResult<()> {
        let key = self.project()?.path().display().to_string();
        self.prefs.evals.insert(key, form.clone());
        self.save_prefs();
        Ok(())
    }

    pub fn run_detail(
        &self,
        run: i64,
        only: Option<String>,
        offset: i64,
        limit: i64,
    ) -> ApiResult<RunDetail> {
        Ok(self
            .project()?
            .run_detail(run, only.as_deref(), offset, limit)?)
    }

    pub fn delete_run(&mut self, run: i64) -> ApiResult<()> {
        Ok(self.project_mut()?.delete_run(run)?)
    }
}
