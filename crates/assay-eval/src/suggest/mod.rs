//! Model-assisted curation: the seeds' LLM pipeline stages as suggestions a person accepts,
//! edits or rejects. A suggestion run asks one model (through the dispatcher: replicas,
//! concurrency, retries) for one kind of draft over a set of items, reuses cached answers,
//! and stores each answer as it arrives against the revision it was made for, so a killed run
//! resumes where it stopped and pays for nothing twice. Nothing here changes an item.
//!
//! templates.rs  the default prompt per kind and project templates
//! parse.rs      raw output -> typed suggestion, or the reason it did not parse

pub mod parse;
pub mod templates;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::task::JoinSet;

use crate::cancel::CancelToken;
use crate::client::{request_body, ChatResponse};
use crate::dispatch::{Dispatcher, Outcome, ReplicaStats};
use crate::error::{EvalError, Result};
use crate::images::ImageEncoder;
use crate::model::{ModelConfig, StoredModel};
use crate::prompt::{default_template, Variant};
use crate::scorers::grounding;
use assay_core::store::{NewSuggestion, StoredResponse};
use assay_core::{ItemContent, ItemImage, Project, SuggestionKind, SuggestionValue};

use templates::Extra;

/// What to suggest, for which items, with which model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestRequest {
    pub kind: SuggestionKind,
    /// The model asked; difficulty asks none (it reads the strong models' stored runs).
    pub model: Option<String>,
    pub items: Vec<i64>,
    /// None: the built-in default; else a project template "name[@version]".
    pub template: Option<String>,
    /// Difficulty: the strong models whose stored runs are averaged.
    pub strong_models: Vec<String>,
    /// Difficulty: drop when the strong models' mean score is above this (HAERAE-Vision: 0.6).
    pub threshold: f64,
    /// Image dependency: drop when the with-image rating beats the without-image one by less
    /// than this, on 0-10 (HAERAE-Vision: 1).
    pub min_gap: f64,
}

impl SuggestRequest {
    pub fn new(kind: SuggestionKind, model: Option<String>, items: Vec<i64>) -> Self {
        Self {
            kind,
            model,
            items,
            template: None,
            strong_models: Vec::new(),
            threshold: 0.6,
            min_gap: 1.0,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SuggestProgress {
    pub total: usize,
    pub done: usize,
    /// Requests answered by the endpoint (not the cache).
    pub sent: usize,
    pub cached: usize,
    pub parsed: usize,
    pub unparsed: usize,
    pub errors: usize,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestSummary {
    pub run_id: i64,
    pub kind: SuggestionKind,
    pub model: String,
    pub template: String,
    /// Items asked for, and of them those already answered for their current revision.
    pub items: usize,
    pub already: usize,
    pub progress: SuggestProgress,
    pub cost: Option<f64>,
    pub replicas: Vec<ReplicaStats>,
    pub cancelled: bool,
}

/// What a run would cost before it starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestEstimate {
    pub items: usize,
    /// Items without an answer for their current revision.
    pub todo: usize,
    /// Requests to send: `todo` times the kind's requests per item, less those in the cache
    /// (known for single-request kinds).
    pub requests: usize,
    pub cached: usize,
    /// From the model's mean tokens in earlier runs and its prices; None when either is
    /// unknown.
    pub cost: Option<f64>,
}

pub type SuggestProgressFn = Arc<dyn Fn(&SuggestProgress) + Send + Sync>;

/// Requests per item a kind sends.
pub fn requests_per_item(kind: SuggestionKind) -> usize {
    match kind {
        SuggestionKind::Difficulty => 0,
        SuggestionKind::ImageDependency => 3,
        _ => 1,
    }
}

/// The cache key of a suggestion request: the model, its parameters, the full text and each
/// image by hash and sent size. Endpoint URLs are left out so replicas share entries.
pub fn request_key(
    cfg: &ModelConfig,
    system: Option<&str>,
    text: &str,
    images: &[(String, (u32, u32))],
) -> String {
    let material = json!({
        "suggest": true,
        "model": cfg.model,
        "params": cfg.params,
        "images_policy": cfg.images,
        "system": system,
        "text": text,
        "images": images,
    });
    hex::encode(Sha256::digest(material.to_string().as_bytes()))
}

/// An image and the size it is sent at.
type SentImage = (ItemImage, (u32, u32));

/// One request: texts, images with their sent sizes.
struct Ask {
    system: Option<String>,
    text: String,
    images: Vec<SentImage>,
}

impl Ask {
    /// The request a single-request kind sends for an item, and for target boxes the index of
    /// the image sent. The runner sends it; the estimate looks its key up in the cache.
    fn for_item(
        cfg: &ModelConfig,
        kind: SuggestionKind,
        template: &str,
        item: &ItemContent,
    ) -> (Self, usize) {
        let (images, box_image) = request_images(cfg, kind, item);
        let extra = Extra {
            width: images.first().map(|(_, s)| s.0),
            height: images.first().map(|(_, s)| s.1),
            ..Default::default()
        };
        let (system, text) = templates::render(template, item, &extra);
        (
            Ask {
                system,
                text,
                images,
            },
            box_image,
        )
    }

    fn key(&self, cfg: &ModelConfig) -> String {
        let sizes: Vec<(String, (u32, u32))> = self
            .images
            .iter()
            .map(|(i, s)| (i.hash.clone(), *s))
            .collect();
        request_key(cfg, self.system.as_deref(), &self.text, &sizes)
    }
}

type Fresh = (String, StoredResponse, String);
type Shared = tokio::sync::OnceCell<std::result::Result<ChatResponse, String>>;

struct Asker {
    dispatcher: Dispatcher,
    encoder: ImageEncoder,
    reader: Mutex<Project>,
    inflight: Mutex<HashMap<String, Arc<Shared>>>,
    cancel: CancelToken,
    sent: AtomicUsize,
    cached: AtomicUsize,
    prompt_tokens: AtomicUsize,
    completion_tokens: AtomicUsize,
}

impl Asker {
    fn cfg(&self) -> &ModelConfig {
        &self.dispatcher.config
    }

    /// The answer (cached, shared with an identical request in flight, or sent), its key, and
    /// the response to store when this call paid for it.
    async fn ask(
        &self,
        a: &Ask,
    ) -> std::result::Result<(ChatResponse, String, bool, Option<Fresh>), String> {
        let key = a.key(self.cfg());
        let hit = self
            .reader
            .lock()
            .map_err(|_| "reader poisoned".to_string())?
            .response(&key)
            .map_err(|e| e.to_string())?;
        if let Some(r) = hit {
            self.cached.fetch_add(1, Ordering::Relaxed);
            return Ok((crate::cache::from_stored(&r), key, true, None));
        }
        let cell = self
            .inflight
            .lock()
            .map_err(|_| "engine state poisoned".to_string())?
            .entry(key.clone())
            .or_default()
            .clone();
        let mut sent_here = false;
        let result = cell
            .get_or_init(|| {
                sent_here = true;
                self.send(a)
            })
            .await
            .clone();
        let r = result?;
        if !sent_here {
            self.cached.fetch_add(1, Ordering::Relaxed);
            return Ok((r, key, true, None));
        }
        let record = json!({
            "system": a.system,
            "text": a.text,
            "images": a.images.iter().map(|(i, s)| json!({"hash": i.hash, "original_size": [i.width, i.height], "sent_size": [s.0, s.1]})).collect::<Vec<_>>(),
        })
        .to_string();
        let fresh = (key.clone(), crate::cache::to_stored(&r), record);
        Ok((r, key, false, Some(fresh)))
    }

    async fn send(&self, a: &Ask) -> std::result::Result<ChatResponse, String> {
        let mut urls = Vec::with_capacity(a.images.len());
        for (img, sent) in &a.images {
            let url = self
                .encoder
                .data_url(&img.hash, None, &self.cfg().images, *sent, &self.reader)
                .await?;
            urls.push(url.as_str().to_string());
        }
        let body = request_body(self.cfg(), a.system.as_deref(), &a.text, &urls);
        match self.dispatcher.call(&body, &self.cancel).await {
            Outcome::Ok(r) => {
                self.sent.fetch_add(1, Ordering::Relaxed);
                self.prompt_tokens
                    .fetch_add(r.prompt_tokens.unwrap_or(0) as usize, Ordering::Relaxed);
                self.completion_tokens
                    .fetch_add(r.completion_tokens.unwrap_or(0) as usize, Ordering::Relaxed);
                Ok(r)
            }
            Outcome::Failed(e) => {
                self.sent.fetch_add(1, Ordering::Relaxed);
                Err(e)
            }
            Outcome::Cancelled => Err("cancelled".into()),
        }
    }
}

/// One item's answer, ready to store.
struct Done {
    item_id: i64,
    rev: i64,
    value: std::result::Result<SuggestionValue, String>,
    raw: Option<String>,
    error: bool,
    key: Option<String>,
    from_cache: bool,
    fresh: Vec<Fresh>,
}

/// The images a kind's request carries, and for target boxes the index of the one image sent:
/// the first that has a target already (the box to redo), else the first.
fn request_images(
    cfg: &ModelConfig,
    kind: SuggestionKind,
    item: &ItemContent,
) -> (Vec<SentImage>, usize) {
    if !templates::sends_images(kind) {
        return (Vec::new(), 0);
    }
    let all = sent_images(cfg, item);
    if kind != SuggestionKind::TargetBox {
        return (all, 0);
    }
    let at = item
        .images
        .iter()
        .position(|i| !i.target_boxes.is_empty())
        .unwrap_or(0);
    (all.into_iter().skip(at).take(1).collect(), at)
}

impl Done {
    /// An item whose request failed (or could not be made), with the responses already paid for.
    fn failed(item_id: i64, rev: i64, e: String, fresh: Vec<Fresh>) -> Self {
        Done {
            item_id,
            rev,
            value: Err(e),
            raw: None,
            error: true,
            key: None,
            from_cache: false,
            fresh,
        }
    }
}

fn sent_images(cfg: &ModelConfig, item: &ItemContent) -> Vec<SentImage> {
    let ctx = cfg.score_context();
    item.images
        .iter()
        .map(|i| (i.clone(), ctx.sent_size_of(i, None)))
        .collect()
}

async fn suggest_item(
    asker: Arc<Asker>,
    kind: SuggestionKind,
    template: Arc<String>,
    item_id: i64,
    min_gap: f64,
) -> Done {
    let loaded = asker
        .reader
        .lock()
        .map_err(|_| "reader poisoned".to_string())
        .and_then(|p| p.item(item_id).map_err(|e| e.to_string()));
    let (content, rev) = match loaded {
        Ok(v) => (v.content, v.rev),
        Err(e) => return Done::failed(item_id, 0, e, Vec::new()),
    };
    if kind == SuggestionKind::ImageDependency {
        return image_dependency(&asker, &template, &content, item_id, rev, min_gap).await;
    }
    let (ask, box_image) = Ask::for_item(asker.cfg(), kind, &template, &content);
    if kind == SuggestionKind::TargetBox && ask.images.is_empty() {
        return Done::failed(
            item_id,
            rev,
            "the item has no image to draw a box on".into(),
            Vec::new(),
        );
    }
    match asker.ask(&ask).await {
        Ok((r, key, from_cache, fresh)) => {
            let value = if kind == SuggestionKind::TargetBox {
                let (img, sent) = &ask.images[0];
                grounding::model_box(
                    &r.text,
                    asker.cfg().box_convention,
                    *sent,
                    (img.width, img.height),
                )
                .map(|bbox| SuggestionValue::TargetBox {
                    image: box_image,
                    bbox,
                })
                .ok_or_else(|| "no box [x1, y1, x2, y2] in the reply".to_string())
            } else {
                parse::parse(kind, &r.text)
            };
            Done {
                item_id,
                rev,
                value,
                raw: Some(r.text),
                error: false,
                key: Some(key),
                from_cache,
                fresh: fresh.into_iter().collect(),
            }
        }
        Err(e) => Done::failed(item_id, rev, e, Vec::new()),
    }
}

/// HAERAE-Vision stage 4: the item's own question answered with and without its images, both
/// answers rated 0-10 against the reference in one judge request by the same model.
async fn image_dependency(
    asker: &Asker,
    template: &str,
    content: &ItemContent,
    item_id: i64,
    rev: i64,
    min_gap: f64,
) -> Done {
    let ctx = asker.cfg().score_context();
    let answer_template = default_template(content.format, ctx.boxes);
    let mut fresh = Vec::new();
    let mut answers = Vec::new();
    let mut all_cached = true;
    for variant in [Variant::Original, Variant::NoImage] {
        let Some(p) = crate::prompt::render(&answer_template, content, variant, &ctx) else {
            return Done::failed(
                item_id,
                rev,
                "the item's question cannot be asked".into(),
                fresh,
            );
        };
        let ask = Ask {
            system: p.system,
            text: p.text,
            images: p.images.into_iter().zip(p.sent_sizes).collect(),
        };
        match asker.ask(&ask).await {
            Ok((r, _, from_cache, f)) => {
                all_cached &= from_cache;
                fresh.extend(f);
                answers.push(r.text);
            }
            Err(e) => return Done::failed(item_id, rev, e, fresh),
        }
    }
    let extra = Extra {
        answer_with_image: Some(answers[0].clone()),
        answer_without_image: Some(answers[1].clone()),
        ..Default::default()
    };
    let (system, text) = templates::render(template, content, &extra);
    let rating = Ask {
        system,
        text,
        images: Vec::new(),
    };
    match asker.ask(&rating).await {
        Ok((r, key, from_cache, f)) => {
            fresh.extend(f);
            let raw = format!(
                "[answer with the image]\n{}\n\n[answer without the image]\n{}\n\n[rating]\n{}",
                answers[0], answers[1], r.text
            );
            let value = parse::ratings(&r.text).map(|(with_image, without_image)| {
                SuggestionValue::ImageDependency {
                    keep: with_image - without_image >= min_gap,
                    with_image,
                    without_image,
                    min_gap,
                }
            });
            Done {
                item_id,
                rev,
                value,
                raw: Some(raw),
                error: false,
                key: Some(key),
                from_cache: from_cache && all_cached,
                fresh,
            }
        }
        Err(e) => Done::failed(item_id, rev, e, fresh),
    }
}

fn model_for(project: &Project, req: &SuggestRequest) -> Result<Option<StoredModel>> {
    if req.kind == SuggestionKind::Difficulty {
        if req.strong_models.is_empty() {
            return Err(EvalError::Config(
                "difficulty reads the stored runs of strong models: name at least one".into(),
            ));
        }
        return Ok(None);
    }
    let name = req
        .model
        .as_deref()
        .ok_or_else(|| EvalError::Config(format!("{} suggestions need a model", req.kind)))?;
    let m = crate::trust::model_for_requests(project, name)?;
    m.config.validate()?;
    Ok(Some(m))
}

fn difficulty_labels(req: &SuggestRequest) -> (String, String) {
    (
        format!("runs:{}", req.strong_models.join("+")),
        format!("difficulty@mean>{}", req.threshold),
    )
}

/// What a run would send and cost, without sending anything.
pub fn estimate(project: &Project, req: &SuggestRequest) -> Result<SuggestEstimate> {
    let Some(model) = model_for(project, req)? else {
        let (m, t) = difficulty_labels(req);
        let todo = project.suggestion_todo(req.kind, &m, &t, &req.items)?.len();
        return Ok(SuggestEstimate {
            items: req.items.len(),
            todo,
            requests: 0,
            cached: 0,
            cost: Some(0.0),
        });
    };
    let (label, body) = templates::load(project, req.kind, req.template.as_deref())?;
    let todo = project.suggestion_todo(req.kind, &model.config.name, &label, &req.items)?;
    let per_item = requests_per_item(req.kind);
    let mut cached = 0;
    if per_item == 1 {
        for &id in &todo {
            let content = project.item(id)?.content;
            let (ask, _) = Ask::for_item(&model.config, req.kind, &body, &content);
            cached += usize::from(project.response(&ask.key(&model.config))?.is_some());
        }
    }
    let requests = todo.len() * per_item - cached;
    let n = requests as f64;
    let cost = project
        .mean_tokens(&model.config.name)?
        .and_then(|(tin, tout)| model.config.cost(n * tin, n * tout))
        .or((requests == 0).then_some(0.0));
    Ok(SuggestEstimate {
        items: req.items.len(),
        todo: todo.len(),
        requests,
        cached,
        cost,
    })
}

/// Runs a suggestion request to completion or cancellation. Every answer is committed (with
/// the response it paid for) as it arrives; running it again asks only what is missing.
pub async fn run_suggestions(
    path: &Path,
    req: &SuggestRequest,
    progress: SuggestProgressFn,
    cancel: CancelToken,
) -> Result<SuggestSummary> {
    let mut project = Project::open(path)?;
    let model = model_for(&project, req)?;
    let Some(model) = model else {
        return difficulty(&mut project, req, progress);
    };
    let (label, body) = templates::load(&project, req.kind, req.template.as_deref())?;
    let name = model.config.name.clone();
    let todo = project.suggestion_todo(req.kind, &name, &label, &req.items)?;
    let run_id = project.start_suggestion_run(req.kind, &name, &label, req.items.len())?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .map_err(|e| EvalError::Config(format!("HTTP client: {e}")))?;
    let limit = (model.config.concurrency * model.config.endpoints.len().max(1) * 2).max(1);
    let asker = Arc::new(Asker {
        dispatcher: Dispatcher::new(model.config.clone(), http),
        encoder: ImageEncoder::default(),
        reader: Mutex::new(Project::open(path)?),
        inflight: Mutex::new(HashMap::new()),
        cancel: cancel.clone(),
        sent: AtomicUsize::new(0),
        cached: AtomicUsize::new(0),
        prompt_tokens: AtomicUsize::new(0),
        completion_tokens: AtomicUsize::new(0),
    });
    // At least one request per item left (cached answers make it fewer): a slow replica keeps
    // its share until only the last items are left.
    asker.dispatcher.expect(todo.len());
    let template = Arc::new(body);
    let mut p = SuggestProgress {
        total: todo.len(),
        ..Default::default()
    };
    progress(&p);
    let mut queue = todo.into_iter();
    let mut set: JoinSet<Done> = JoinSet::new();
    let mut write_error = None;
    loop {
        while set.len() < limit && !cancel.is_cancelled() {
            let Some(id) = queue.next() else { break };
            set.spawn(suggest_item(
                asker.clone(),
                req.kind,
                template.clone(),
                id,
                req.min_gap,
            ));
        }
        let Some(first) = set.join_next().await else {
            break;
        };
        // Whatever else has finished goes into the same transaction.
        let mut finished = vec![first];
        while let Some(more) = set.try_join_next() {
            finished.push(more);
        }
        let mut batch = Vec::with_capacity(finished.len());
        let mut fresh = Vec::new();
        for f in finished {
            // A task that died has nothing to store; its item is asked again on resume.
            let Ok(d) = f else { continue };
            fresh.extend(d.fresh);
            // A request cancelled midway is not an answer: it is asked again on resume.
            if d.error && cancel.is_cancelled() {
                continue;
            }
            let (value, problem) = match d.value {
                Ok(v) => (Some(v), None),
                Err(e) => (None, Some(e)),
            };
            if d.error {
                p.errors += 1;
            } else if value.is_some() {
                p.parsed += 1;
            } else {
                p.unparsed += 1;
            }
            p.done += 1;
            batch.push(NewSuggestion {
                run_id,
                item_id: d.item_id,
                item_rev: d.rev,
                kind: req.kind,
                model: name.clone(),
                template: label.clone(),
                value,
                raw: d.raw,
                problem,
                error: d.error,
                cache_key: d.key,
                from_cache: d.from_cache,
            });
        }
        if let Err(e) = project.write_suggestions(&batch, &fresh) {
            // Stop paying for answers that cannot be kept.
            cancel.cancel();
            write_error = Some(e);
        }
        p.sent = asker.sent.load(Ordering::Relaxed);
        p.cached = asker.cached.load(Ordering::Relaxed);
        p.prompt_tokens = asker.prompt_tokens.load(Ordering::Relaxed) as i64;
        p.completion_tokens = asker.completion_tokens.load(Ordering::Relaxed) as i64;
        progress(&p);
    }
    let cancelled = cancel.is_cancelled();
    let status = if cancelled {
        "cancelled"
    } else if p.errors > 0 {
        "incomplete"
    } else {
        "complete"
    };
    project.finish_suggestion_run(run_id, status)?;
    if let Some(e) = write_error {
        return Err(EvalError::Config(format!(
            "suggestions could not be written, so the run was stopped: {e}"
        )));
    }
    let cost = model
        .config
        .cost(p.prompt_tokens as f64, p.completion_tokens as f64)
        .or((p.prompt_tokens + p.completion_tokens == 0).then_some(0.0));
    Ok(SuggestSummary {
        run_id,
        kind: req.kind,
        model: name,
        template: label,
        items: req.items.len(),
        already: req.items.len() - p.total,
        progress: p,
        cost,
        replicas: asker.dispatcher.replica_stats(),
        cancelled,
    })
}

/// HAERAE-Vision stage 3 from stored runs: the strong models' mean score on each item's current
/// revision; no request is sent. An item a model has no result for is an error naming it, so
/// a later run (after `assay eval`) fills it.
fn difficulty(
    project: &mut Project,
    req: &SuggestRequest,
    progress: SuggestProgressFn,
) -> Result<SuggestSummary> {
    let (model, template) = difficulty_labels(req);
    let todo = project.suggestion_todo(req.kind, &model, &template, &req.items)?;
    let run_id = project.start_suggestion_run(req.kind, &model, &template, req.items.len())?;
    let mut p = SuggestProgress {
        total: todo.len(),
        ..Default::default()
    };
    let mut batch = Vec::with_capacity(todo.len());
    for id in todo {
        let rev = project.item(id)?.rev;
        let scores = project.model_scores_on_item(id, &req.strong_models)?;
        let missing: Vec<&str> = req
            .strong_models
            .iter()
            .filter(|m| !scores.iter().any(|s| &s.model == *m))
            .map(String::as_str)
            .collect();
        let (value, problem) = if missing.is_empty() {
            let mean = scores.iter().map(|s| s.score).sum::<f64>() / scores.len() as f64;
            p.parsed += 1;
            (
                Some(SuggestionValue::Difficulty {
                    keep: mean <= req.threshold,
                    mean,
                    threshold: req.threshold,
                    scores,
                }),
                None,
            )
        } else {
            p.errors += 1;
            (
                None,
                Some(format!(
                    "no scored run of {} on this revision; evaluate it first (assay eval)",
                    missing.join(", ")
                )),
            )
        };
        p.done += 1;
        batch.push(NewSuggestion {
            run_id,
            item_id: id,
            item_rev: rev,
            kind: req.kind,
            model: model.clone(),
            template: template.clone(),
            error: value.is_none(),
            value,
            raw: None,
            problem,
            cache_key: None,
            from_cache: false,
        });
    }
    project.write_suggestions(&batch, &[])?;
    progress(&p);
    project.finish_suggestion_run(
        run_id,
        if p.errors > 0 {
            "incomplete"
        } else {
            "complete"
        },
    )?;
    Ok(SuggestSummary {
        run_id,
        kind: req.kind,
        model,
        template,
        items: req.items.len(),
        already: req.items.len() - p.total,
        progress: p,
        cost: Some(0.0),
        replicas: Vec::new(),
        cancelled: false,
    })
}
