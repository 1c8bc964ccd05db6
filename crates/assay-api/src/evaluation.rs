//! Evaluation in the app: models, a background run with live progress, and the before/after
//! table. The engine is assay-eval's, the same one the CLI runs; this module only shapes its
//! inputs and outputs for the window and keeps the state of the run in progress.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use assay_core::{Project, Version};
use assay_eval::model::{models, save_model, ModelConfig};
use assay_eval::scorers::grounding::BoxConvention;
use assay_eval::table::{
    before_after_table, render, variant_table, Breakdown, TableFormat, TableOptions,
};
use assay_eval::{run_eval, CancelToken, EvalProgress, EvalRequest, Variant};

pub(crate) fn eval_err(e: impl std::fmt::Display) -> ApiError {
    ApiError::new("invalid", e.to_string())
}

/// A model as the app edits it. The API key is never here: only the name of the environment
/// variable that holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelForm {
    pub name: String,
    pub endpoints: Vec<String>,
    pub model: String,
    pub api_key_env: Option<String>,
    pub concurrency: u32,
    pub rate_per_minute: Option<u32>,
    pub box_convention: String,
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
    pub max_tokens: u32,
    /// Whether this machine sends requests to it: a model that came from the team or another
    /// project file waits until the person here saves it (seeing its endpoints and key variable).
    #[serde(default)]
    pub accepted: bool,
}

impl ModelForm {
    fn of(cfg: &ModelConfig) -> Self {
        Self {
            name: cfg.name.clone(),
            endpoints: cfg.endpoints.clone(),
            model: cfg.model.clone(),
            api_key_env: cfg.api_key_env.clone(),
            concurrency: cfg.concurrency as u32,
            rate_per_minute: cfg.rate_per_minute,
            box_convention: cfg.box_convention.as_str().into(),
            price_input: cfg.price_input,
            price_output: cfg.price_output,
            max_tokens: cfg.params.max_tokens,
            accepted: assay_eval::trust::is_accepted(cfg),
        }
    }

    /// The stored config with this form's fields applied (other settings kept).
    /// (Cleaning is the saved form's: `ModelConfig::cleaned`, applied by `save_model`.)
    fn apply(&self, mut cfg: ModelConfig) -> ApiResult<ModelConfig> {
        cfg.name = self.name.clone();
        cfg.endpoints = self.endpoints.clone();
        cfg.model = self.model.clone();
        cfg.api_key_env = self.api_key_env.clone();
        cfg.concurrency = self.concurrency as usize;
        cfg.rate_per_minute = self.rate_per_minute;
        cfg.box_convention = BoxConvention::parse(&self.box_convention).ok_or_else(|| {
            ApiError::new(
                "invalid",
                format!(
                    "unknown box convention {:?}; one of {}",
                    self.box_convention,
                    BoxConvention::NAMES.join(", ")
                ),
            )
        })?;
        cfg.price_input = self.price_input;
        cfg.price_output = self.price_output;
        cfg.params.max_tokens = self.max_tokens;
        Ok(cfg)
    }
}

pub fn model_forms(project: &Project) -> ApiResult<Vec<ModelForm>> {
    Ok(models(project)
        .map_err(eval_err)?
        .iter()
        .map(|m| ModelForm::of(&m.config))
        .collect())
}

/// Adds or updates a model (by name); settings the form does not show are kept.
pub fn save_model_form(project: &Project, form: &ModelForm) -> ApiResult<ModelForm> {
    let existing = models(project)
        .map_err(eval_err)?
        .into_iter()
        .find(|m| m.config.name == form.name.trim())
        .map(|m| m.config)
        .unwrap_or_default();
    let (_, saved) = save_model(project, &form.apply(existing)?).map_err(eval_err)?;
    Ok(ModelForm::of(&saved))
}

/// Removes a model that has no runs yet.
pub fn remove_model(project: &Project, name: &str) -> ApiResult<()> {
    Ok(project.remove_model_config(name)?)
}

/// What one test request to a model brought back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelCheck {
    pub ok: bool,
    /// The model's reply, or what went wrong in plain words.
    pub message: String,
    pub millis: u64,
}

/// Sends one short request to the model's first endpoint.
pub async fn check_model(cfg: ModelConfig) -> ModelCheck {
    let started = Instant::now();
    if let Err(e) = assay_eval::trust::check_usable(&cfg) {
        return ModelCheck {
            ok: false,
            message: e.to_string(),
            millis: 0,
        };
    }
    let Some(endpoint) = cfg.endpoints.first().cloned() else {
        return ModelCheck {
            ok: false,
            message: "the model has no endpoint".into(),
            millis: 0,
        };
    };
    let key = match &cfg.api_key_env {
        Some(var) => match std::env::var(var) {
            Ok(k) => Some(k),
            Err(_) => {
                return ModelCheck {
                    ok: false,
                    message: format!("the environment variable {var} (the API key) is not set"),
                    millis: 0,
                }
            }
        },
        None => None,
    };
    let body = assay_eval::client::request_body(&cfg, None, "Reply with the single word OK.", &[]);
    let http = reqwest::Client::new();
    let res = assay_eval::client::chat(
        &http,
        &endpoint,
        key.as_deref(),
        &body,
        std::time::Duration::from_secs_f64(cfg.timeout_secs.min(30.0)),
    )
    .await;
    let millis = started.elapsed().as_millis() as u64;
    match res {
        Ok(r) => ModelCheck {
            ok: true,
            message: r.text,
            millis,
        },
        Err(e) => ModelCheck {
            ok: false,
            message: format!("{endpoint}: {}", e.message),
            millis,
        },
    }
}

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
        Ok(EvalRequest {
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
        })
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

/// One model's accuracy on both sides of a table row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelPair {
    pub model: String,
    pub before: f64,
    pub after: f64,
    /// The model's rank on each side (1 = best), ties sharing the average of their ranks: the
    /// ranks Spearman's rho of the row is computed on, so the rank chart and rho agree.
    pub rank_before: f64,
    pub rank_after: f64,
}

/// Each model's rank by accuracy, best first (1), ties averaged as SciPy's `rankdata` does.
fn ranks_best_first(accuracies: &[f64]) -> Vec<f64> {
    let negated: Vec<f64> = accuracies.iter().map(|a| -a).collect();
    assay_core::stats::rank_average(&negated)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DashboardRow {
    pub dataset: String,
    /// The category or operation of the row when broken down.
    pub group: Option<String>,
    pub scorer: String,
    /// The scorer with the versions of its rules that made the numbers ("choice v2").
    pub scorer_label: String,
    pub source: String,
    pub items_before: u64,
    pub items_after: u64,
    pub accuracy_before: f64,
    pub accuracy_after: f64,
    pub delta: f64,
    pub rank_correlation: Option<f64>,
    pub models: Vec<ModelPair>,
    /// Unparsed and hedged responses on each side (counted as misses).
    pub unparsed_before: u64,
    pub unparsed_after: u64,
    pub hedged_before: u64,
    pub hedged_after: u64,
}

/// A model's share in one group: `hits` of `n` results (accuracy, or how often an option kind
/// was chosen).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Share {
    pub model: String,
    pub group: String,
    pub hits: u64,
    pub n: u64,
}

/// Adds one result to its (model, group) count.
fn count(
    map: &mut std::collections::BTreeMap<(String, String), (u64, u64)>,
    model: &str,
    group: &str,
    hit: bool,
) {
    let e = map
        .entry((model.to_string(), group.to_string()))
        .or_default();
    e.0 += u64::from(hit);
    e.1 += 1;
}

fn shares(map: std::collections::BTreeMap<(String, String), (u64, u64)>) -> Vec<Share> {
    map.into_iter()
        .map(|((model, group), (hits, n))| Share {
            model,
            group,
            hits,
            n,
        })
        .collect()
}

/// Grounding by referring-expression type and box size, and multiple-choice distractor
/// choices, from every result scored on its item's current revision (original question).
fn breakdowns(project: &Project) -> ApiResult<(Vec<Share>, Vec<Share>, Vec<Share>)> {
    use std::collections::{BTreeMap, HashMap};
    let (mut by_ref, mut by_size, mut picks) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let edges = assay_core::grounding::metrics::SIZE_RATIO_EDGES;
    for d in project.datasets()? {
        // Only the two scorers broken down here, and only in datasets that can have them (boxes,
        // options): a short-answer dataset reads no results at all.
        let has = |f: assay_core::store::Filter| -> ApiResult<bool> {
            let page = assay_core::store::Page {
                offset: 0,
                limit: 1,
            };
            Ok(!project.query(&f, page)?.rows.is_empty())
        };
        let mut results = Vec::new();
        if has(assay_core::store::Filter {
            datasets: vec![d.id],
            has_box: Some(true),
            ..Default::default()
        })? {
            results.extend(project.current_results_of(d.id, Some("grounding"))?);
        }
        if has(assay_core::store::Filter {
            datasets: vec![d.id],
            formats: vec![assay_core::AnswerFormat::MultipleChoice],
            ..Default::default()
        })? {
            results.extend(project.current_results_of(d.id, Some("choice"))?);
        }
        if results.is_empty() {
            continue;
        }
        let items: HashMap<i64, assay_core::ItemContent> = project
            .current_items(d.id)?
            .into_iter()
            .map(|i| (i.id, i.content))
            .collect();
        for r in results.iter().filter(|r| r.variant == "original") {
            let Some(c) = items.get(&r.item_id) else {
                continue;
            };
            let hit = r.overruled.or(r.score).unwrap_or(0.0) >= 0.5;
            match r.scorer.as_str() {
                "grounding" => {
                    let rt = c.ref_type.map_or("none", |t| t.as_str());
                    count(&mut by_ref, &r.model, rt, hit);
                    if let Some(m) = assay_core::grounding::metrics::of_item(c) {
                        if let Some(w) = edges
                            .windows(2)
                            .find(|w| m.size_ratio < w[1] || w[1] >= 1.0)
                        {
                            count(&mut by_size, &r.model, &format!("{}-{}", w[0], w[1]), hit);
                        }
                    }
                }
                "choice" => {
                    // A hedge ("B|D") chose no option.
                    let chosen = r
                        .parsed
                        .as_deref()
                        .filter(|_| r.outcome != "hedged")
                        .and_then(|l| l.chars().next())
                        .filter(|ch| ch.is_ascii_uppercase())
                        .map(|ch| (ch as u8 - b'A') as usize);
                    let kind = match chosen {
                        None if r.outcome == "hedged" => "hedged",
                        None => "unparsed",
                        Some(i) if Some(i) == c.correct_option => "correct",
                        Some(i) => c
                            .options
                            .get(i)
                            .and_then(|o| o.kind)
                            .map_or("other", |k| k.as_str()),
                    };
                    count(&mut picks, &r.model, kind, true);
                }
                _ => {}
            }
        }
    }
    Ok((shares(by_ref), shares(by_size), shares(picks)))
}

/// JAMMEval's Table 2 for every dataset with runs on both sides, as rows for the window and
/// the same table rendered for copying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Dashboard {
    pub rows: Vec<DashboardRow>,
    /// (dataset, refinement operation or "unset", items): what refining did to each dataset.
    pub operations: Vec<(String, String, i64)>,
    /// (model, failure tag, responses): why models failed, as people tagged it.
    pub failure_tags: Vec<(String, String, i64)>,
    /// Grounding accuracy per model and referring-expression type (type "none" when unset).
    pub grounding_by_ref: Vec<Share>,
    /// Grounding accuracy per model and box size bin ("0.01-0.02" of the image area).
    pub grounding_by_size: Vec<Share>,
    /// For multiple choice: which kind of option each model chose (correct, FSU, SU, NE).
    pub distractors: Vec<Share>,
    pub markdown: String,
    pub csv: String,
    pub latex: String,
}

/// The dashboard; with `against`, each row compares the original question with that variant
/// (explicit, disambiguated, text-only, no image) on the after version instead of before/after.
pub fn dashboard(project: &Project, by: Option<&str>) -> ApiResult<Dashboard> {
    dashboard_vs(project, by, None)
}

pub fn dashboard_vs(
    project: &Project,
    by: Option<&str>,
    against: Option<&str>,
) -> ApiResult<Dashboard> {
    let datasets: Vec<String> = project.datasets()?.into_iter().map(|d| d.name).collect();
    let by = by
        .map(|b| {
            Breakdown::parse(b).ok_or_else(|| {
                ApiError::new(
                    "invalid",
                    format!("rows by {b:?}? one of {}", Breakdown::NAMES.join(", ")),
                )
            })
        })
        .transpose()?;
    let opts = TableOptions {
        bootstrap: 0,
        by,
        ..Default::default()
    };
    let rows = match against {
        None => {
            before_after_table(project, &datasets, Variant::Original, &opts).map_err(eval_err)?
        }
        Some(v) => {
            let second = Variant::parse(v).ok_or_else(|| {
                ApiError::new(
                    "invalid",
                    format!("compare with {v:?}? one of {}", Variant::NAMES.join(", ")),
                )
            })?;
            let mut rows = Vec::new();
            for d in &datasets {
                rows.extend(
                    variant_table(project, d, Version::After, Variant::Original, second, &opts)
                        .map_err(eval_err)?,
                );
            }
            rows
        }
    };
    let out = rows
        .iter()
        .map(|r| DashboardRow {
            dataset: r.dataset.clone(),
            group: r.group.clone(),
            scorer: r.protocol.scorer.clone(),
            scorer_label: assay_eval::table::scorer_label(&r.protocol.scorer, &r.scorer_versions),
            source: r.protocol.source.clone(),
            unparsed_before: r.before.unparsed as u64,
            unparsed_after: r.after.unparsed as u64,
            hedged_before: r.before.hedged as u64,
            hedged_after: r.after.hedged as u64,
            items_before: r.before.items as u64,
            items_after: r.after.items as u64,
            accuracy_before: r.before.accuracy,
            accuracy_after: r.after.accuracy,
            delta: r.delta_accuracy,
            rank_correlation: r.rank_correlation,
            models: {
                let pairs: Vec<(String, f64, f64)> = r
                    .before
                    .models
                    .iter()
                    .map(|m| {
                        let after = r
                            .after
                            .models
                            .iter()
                            .find(|a| a.model == m.model)
                            .map_or(f64::NAN, |a| a.mean);
                        (m.model.clone(), m.mean, after)
                    })
                    .collect();
                let rb = ranks_best_first(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
                let ra = ranks_best_first(&pairs.iter().map(|p| p.2).collect::<Vec<_>>());
                pairs
                    .into_iter()
                    .enumerate()
                    .map(|(k, (model, before, after))| ModelPair {
                        model,
                        before,
                        after,
                        rank_before: rb[k],
                        rank_after: ra[k],
                    })
                    .collect()
            },
        })
        .collect();
    let text = |f| render(&rows, f).map_err(eval_err);
    let operations = project
        .summary()?
        .datasets
        .into_iter()
        .flat_map(|d| {
            let name = d.dataset.clone();
            d.ops.into_iter().map(move |(op, n)| (name.clone(), op, n))
        })
        .collect();
    let (grounding_by_ref, grounding_by_size, distractors) = breakdowns(project)?;
    Ok(Dashboard {
        rows: out,
        grounding_by_ref,
        grounding_by_size,
        distractors,
        operations,
        failure_tags: project.failure_tag_counts()?,
        markdown: text(TableFormat::Markdown)?,
        csv: text(TableFormat::Csv)?,
        latex: text(TableFormat::Latex)?,
    })
}

/// The model's full config, for a test request made outside the session lock.
pub fn model_config(project: &Project, name: &str) -> ApiResult<ModelConfig> {
    Ok(assay_eval::model::model_by_name(project, name)
        .map_err(eval_err)?
        .config)
}

/// One accuracy in the stage table: `accuracy` over `items` items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageCell {
    pub accuracy: f64,
    pub items: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageViewRow {
    pub dataset: String,
    pub model: String,
    pub variant: String,
    /// "all", "ref_type", "size" or "saliency".
    pub breakdown: String,
    pub group: String,
    /// One per column; null where the model has no such runs.
    pub cells: Vec<Option<StageCell>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageViewCorrelation {
    pub dataset: String,
    pub model: String,
    pub variant: String,
    pub column: String,
    pub popularity_rho: Option<f64>,
    pub popularity_items: u64,
    pub saliency_r_pb: Option<f64>,
    pub saliency_items: u64,
}

/// CRAG-MM-Diagnostics' stage table for the window, with its renderings for copying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageView {
    pub version: String,
    /// Column labels: "Grounding", "Identification (crag-mm/object_identification_easy_query)".
    pub columns: Vec<String>,
    pub rows: Vec<StageViewRow>,
    pub correlations: Vec<StageViewCorrelation>,
    pub markdown: String,
    pub csv: String,
    pub latex: String,
}

pub fn stage_view(project: &Project, version: &str) -> ApiResult<StageView> {
    use assay_eval::stage_table::{render_stages, stage_table, StageOptions};
    let v = Version::parse(version).ok_or_else(|| {
        ApiError::new(
            "invalid",
            format!("version {version:?}? one of {}", Version::NAMES.join(", ")),
        )
    })?;
    let datasets: Vec<String> = project.datasets()?.into_iter().map(|d| d.name).collect();
    let opts = StageOptions {
        version: v,
        ..Default::default()
    };
    let t = stage_table(project, &datasets, &opts).map_err(eval_err)?;
    let columns: Vec<String> = t.columns.iter().map(|c| c.label()).collect();
    let render = |f| render_stages(&t, f).map_err(eval_err);
    Ok(StageView {
        version: v.as_str().into(),
        markdown: render(TableFormat::Markdown)?,
        csv: render(TableFormat::Csv)?,
        latex: render(TableFormat::Latex)?,
        rows: t
            .rows
            .iter()
            .map(|r| StageViewRow {
                dataset: r.dataset.clone(),
                model: r.model.clone(),
                variant: r.variant.clone(),
                breakdown: r.breakdown.clone(),
                group: r.group.clone(),
                cells: r
                    .cells
                    .iter()
                    .map(|c| {
                        c.map(|c| StageCell {
                            accuracy: c.accuracy,
                            items: c.items as u64,
                        })
                    })
                    .collect(),
            })
            .collect(),
        correlations: t
            .correlations
            .iter()
            .map(|c| StageViewCorrelation {
                dataset: c.dataset.clone(),
                model: c.model.clone(),
                variant: c.variant.clone(),
                column: columns[c.column].clone(),
                popularity_rho: c.popularity_rho,
                popularity_items: c.popularity_items as u64,
                saliency_r_pb: c.saliency_r_pb,
                saliency_items: c.saliency_items as u64,
            })
            .collect(),
        columns,
    })
}

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

/// Asks each judge about the run's stored responses (none when `judges` is empty), then
/// reports the panel. Blocking: judge calls run on a runtime of this thread, so the caller
/// runs it off the UI's threads.
pub fn judge_panel_blocking(
    path: &std::path::Path,
    run_id: i64,
    scorer: &str,
    judges: &[String],
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
    let r = assay_eval::panel::panel_report(&project, run_id, kind, 50).map_err(eval_err)?;
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

/// Recorded predictions to import as a run, as the window's form fills it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PredictionsForm {
    pub file: String,
    pub model: String,
    pub dataset: String,
    pub version: String,
    pub variant: String,
    pub run_index: u32,
    /// None: the format's usual scorer.
    pub scorer: Option<String>,
    /// None: detected from the file.
    pub format: Option<String>,
    /// The judge model for judge scorers, and identification's near misses.
    pub judge: Option<String>,
}

/// What an import of recorded predictions did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PredictionsReport {
    pub run_id: i64,
    pub format: String,
    pub matched: u64,
    pub scored: u64,
    pub unparsed: u64,
    pub missing: u64,
    pub unknown_ids: Vec<String>,
    /// Judge requests answered (from the cache among them), unparsed and failed.
    pub judged: u64,
    pub judged_from_cache: u64,
    pub judge_unparsed: u64,
    pub judge_errors: u64,
}

/// Imports a file of another tool's predictions as a run and, with a judge, has the judge score
/// what it decides: the CLI's `assay predictions import`, off the window's thread.
/// A choice made in a form; empty means "the default".
fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.is_empty())
}

pub fn import_predictions_blocking(
    path: &std::path::Path,
    form: &PredictionsForm,
) -> ApiResult<PredictionsReport> {
    use assay_eval::predictions::{import_and_judge, PredictionFormat, PredictionImport};
    use assay_eval::ScorerKind;
    let scorer = match given(&form.scorer) {
        Some(s) => Some(
            ScorerKind::parse(s)
                .ok_or_else(|| ApiError::new("invalid", format!("unknown scorer {s:?}")))?,
        ),
        None => None,
    };
    let format = match given(&form.format) {
        Some(s) => Some(
            PredictionFormat::parse(s)
                .ok_or_else(|| ApiError::new("invalid", format!("unknown format {s:?}")))?,
        ),
        None => None,
    };
    let version = Version::parse(&form.version)
        .ok_or_else(|| ApiError::new("invalid", format!("unknown version {:?}", form.version)))?;
    let variant = Variant::parse(&form.variant)
        .ok_or_else(|| ApiError::new("invalid", format!("unknown variant {:?}", form.variant)))?;
    let judge = form
        .judge
        .as_deref()
        .map(str::trim)
        .filter(|j| !j.is_empty());
    let mut project = Project::open(path)?;
    let opts = PredictionImport {
        model: form.model.trim().to_string(),
        dataset: form.dataset.clone(),
        version,
        variant,
        run_index: form.run_index,
        scorer,
        format,
        box_convention: BoxConvention::Auto,
        max_side: None,
        id_field: "id".into(),
        text_field: "prediction".into(),
        filter: None,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ApiError::new("internal", e.to_string()))?;
    let (r, judged) = rt
        .block_on(import_and_judge(
            &mut project,
            std::path::Path::new(form.file.trim()),
            &opts,
            judge,
            CancelToken::new(),
        ))
        .map_err(eval_err)?;
    let judged = judged.unwrap_or_default();
    Ok(PredictionsReport {
        run_id: r.run_id,
        format: r.format.as_str().into(),
        matched: r.matched as u64,
        scored: r.scored as u64,
        unparsed: r.unparsed as u64,
        missing: r.missing as u64,
        unknown_ids: r.unknown_ids.into_iter().take(20).collect(),
        judged: judged.judged as u64,
        judged_from_cache: judged.from_cache as u64,
        judge_unparsed: judged.unparsed as u64,
        judge_errors: judged.errors as u64,
    })
}

#[cfg(test)]
mod rank_tests {
    use super::ranks_best_first;

    /// The chart's ranks are the ones Spearman's rho uses: rho over them equals the row's rho,
    /// ties included (SciPy: spearmanr([0.7, 0.5, 0.5, 0.2], [0.4, 0.9, 0.6, 0.6]) = -0.5).
    #[test]
    fn ranks_average_ties_as_spearman_does() {
        let before = [0.7, 0.5, 0.5, 0.2];
        let after = [0.4, 0.9, 0.6, 0.6];
        assert_eq!(ranks_best_first(&before), vec![1.0, 2.5, 2.5, 4.0]);
        assert_eq!(ranks_best_first(&after), vec![4.0, 1.0, 2.5, 2.5]);
        let rho_ranks =
            assay_core::stats::pearson(&ranks_best_first(&before), &ranks_best_first(&after))
                .unwrap();
        let rho = assay_core::stats::spearman(&before, &after).unwrap();
        assert!((rho_ranks - rho).abs() < 1e-12);
        assert!((rho - -0.5).abs() < 1e-12, "{rho}");
    }
}
