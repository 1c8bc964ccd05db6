//! Plans runs, deduplicates requests against the response cache, sends what is missing and
//! scores answers. Every response (or final error) is committed as it arrives, so a killed run
//! resumes where it stopped and never pays twice.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::Semaphore;

use crate::cache;
use crate::cancel::CancelToken;
use crate::client::{request_body, ChatResponse};
use crate::dispatch::{Dispatcher, Outcome};
use crate::error::{EvalError, Result};
use crate::images::ImageEncoder;
use crate::model::{model_by_name, StoredModel};
use crate::prompt::{default_template, load_template, render, Prompt, Variant};
use crate::scorers::{judge, ScoreContext, Scored, ScorerKind};
use assay_core::store::{RunItemResult, RunKey, RunWrite};
use assay_core::{ItemContent, Project};

pub use assay_core::Version;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalRequest {
    pub models: Vec<String>,
    pub datasets: Vec<String>,
    pub versions: Vec<Version>,
    pub variants: Vec<Variant>,
    /// Run indices 1..=runs.
    pub runs: u32,
    /// "default" (built-in per answer format) or a saved template "name[@version]".
    pub template: String,
    /// None: each item's default scorer for its answer format.
    pub scorer: Option<ScorerKind>,
    /// The judge model for judge scorers.
    pub judge: Option<String>,
}

impl Default for EvalRequest {
    fn default() -> Self {
        Self {
            models: Vec::new(),
            datasets: Vec::new(),
            versions: vec![Version::Before, Version::After],
            variants: vec![Variant::Original],
            runs: 3,
            template: "default".into(),
            scorer: None,
            judge: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalProgress {
    pub total: usize,
    pub done: usize,
    /// Requests that reached an endpoint and finished (answer or final error).
    pub sent: usize,
    pub cached: usize,
    pub errors: usize,
    pub skipped: usize,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalSummary {
    pub progress: EvalProgress,
    /// HTTP attempts including retries.
    pub http_attempts: usize,
    pub retries: usize,
    pub run_ids: Vec<i64>,
    /// Total cost at each model's own prices (judge included); None when a model that was
    /// sent requests has no prices.
    pub cost: Option<f64>,
    /// Tokens and cost per model, the judge included.
    pub costs: Vec<ModelCost>,
    pub cancelled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCost {
    pub model: String,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub cost: Option<f64>,
}

#[derive(Default)]
struct Counters {
    done: AtomicUsize,
    sent: AtomicUsize,
    cached: AtomicUsize,
    errors: AtomicUsize,
    skipped: AtomicUsize,
    prompt_tokens: AtomicUsize,
    completion_tokens: AtomicUsize,
}

impl Counters {
    fn snapshot(&self, total: usize) -> EvalProgress {
        EvalProgress {
            total,
            done: self.done.load(Ordering::Relaxed),
            sent: self.sent.load(Ordering::Relaxed),
            cached: self.cached.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            skipped: self.skipped.load(Ordering::Relaxed),
            prompt_tokens: self.prompt_tokens.load(Ordering::Relaxed) as i64,
            completion_tokens: self.completion_tokens.load(Ordering::Relaxed) as i64,
        }
    }
}

#[derive(Clone)]
struct Target {
    run_id: i64,
    item_id: i64,
    rev: i64,
    content: Arc<ItemContent>,
    scorer: ScorerKind,
    /// The question as asked (the variant's text), which a judge must see.
    question: Arc<str>,
    /// How the answering model's responses are read.
    ctx: Arc<ScoreContext>,
}

struct Job {
    key: String,
    model: usize,
    prompt: Prompt,
    cached: Option<ChatResponse>,
    targets: Vec<Target>,
}

enum Write {
    Response {
        key: String,
        response: ChatResponse,
        prompt: String,
    },
    Result {
        target: Target,
        key: Option<String>,
        from_cache: bool,
        outcome: &'static str,
        scored: Option<Scored>,
        error: Option<String>,
    },
}

type CallResult = std::result::Result<ChatResponse, Option<String>>;
type InFlight = tokio::sync::OnceCell<CallResult>;

pub type ProgressFn = Arc<dyn Fn(&EvalProgress) + Send + Sync>;

fn write_batch(project: &mut Project, batch: Vec<Write>) -> assay_core::Result<()> {
    let rows: Vec<RunWrite> = batch
        .into_iter()
        .map(|w| match w {
            Write::Response {
                key,
                response,
                prompt,
            } => RunWrite::Response {
                key,
                response: cache::to_stored(&response),
                prompt,
            },
            Write::Result {
                target,
                key,
                from_cache,
                outcome,
                scored,
                error,
            } => {
                let (score, parsed, evidence) = match scored {
                    Some(s) => (s.score, s.parsed, Some(s.evidence.to_string())),
                    None => (None, None, None),
                };
                RunWrite::Result {
                    run_id: target.run_id,
                    result: RunItemResult {
                        item_id: target.item_id,
                        item_rev: target.rev,
                        cache_key: key,
                        outcome: outcome.to_string(),
                        from_cache,
                        score,
                        parsed,
                        evidence,
                        error,
                        scorer: Some(target.scorer.as_str().to_string()),
                    },
                }
            }
        })
        .collect();
    project.write_run_batch(&rows)
}

/// Owns the only writing connection; commits whatever has arrived, as soon as it arrives.
fn spawn_writer(
    path: PathBuf,
    mut rx: mpsc::Receiver<Write>,
) -> std::thread::JoinHandle<Result<()>> {
    std::thread::spawn(move || {
        let mut project = Project::open(&path)?;
        // A failed write ends this thread and drops the receiver: the engine sees its next send
        // fail and stops the run instead of paying for answers it cannot keep.
        while let Some(first) = rx.blocking_recv() {
            let mut batch = vec![first];
            while let Ok(more) = rx.try_recv() {
                batch.push(more);
                if batch.len() >= 512 {
                    break;
                }
            }
            write_batch(&mut project, batch)?;
        }
        Ok(())
    })
}

struct Shared {
    dispatchers: Vec<Dispatcher>,
    judge: Option<usize>,
    images: ImageEncoder,
    reader: Mutex<Project>,
    /// Bounded: when the database falls behind, senders wait instead of piling up results.
    writer: mpsc::Sender<Write>,
    /// (prompt, completion) tokens paid per dispatcher.
    tokens: Vec<(AtomicUsize, AtomicUsize)>,
    /// Set when the writer could not store a result; the run is stopped.
    write_failed: std::sync::atomic::AtomicBool,
    /// Calls in flight by cache key, so concurrent identical requests are sent once.
    inflight: Mutex<HashMap<String, Arc<InFlight>>>,
    counters: Counters,
    total: usize,
    progress: ProgressFn,
    cancel: CancelToken,
}

impl Shared {
    async fn send(&self, w: Write) {
        if self.writer.send(w).await.is_err() {
            self.write_failed.store(true, Ordering::Relaxed);
            self.cancel.cancel();
        }
    }

    async fn finish(
        &self,
        target: Target,
        key: Option<String>,
        from_cache: bool,
        result: std::result::Result<Scored, String>,
    ) {
        let (outcome, scored, error) = match result {
            Ok(s) => (s.outcome(), Some(s), None),
            Err(e) => {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
                ("error", None, Some(e))
            }
        };
        self.send(Write::Result {
            target,
            key,
            from_cache,
            outcome,
            scored,
            error,
        })
        .await;
        self.counters.done.fetch_add(1, Ordering::Relaxed);
        (self.progress)(&self.counters.snapshot(self.total));
    }

    /// The cached response, or one request for it however many tasks ask at once. The flag
    /// says whether this caller reused an answer instead of paying for it.
    async fn call_cached(
        &self,
        model: usize,
        key: &str,
        body: serde_json::Value,
        prompt: String,
        check_store: bool,
    ) -> std::result::Result<(ChatResponse, bool), Option<String>> {
        if check_store {
            let hit = self
                .reader
                .lock()
                .ok()
                .and_then(|p| p.response(key).ok().flatten())
                .map(|r| cache::from_stored(&r));
            if let Some(r) = hit {
                return Ok((r, true));
            }
        }
        let cell = {
            let Ok(mut map) = self.inflight.lock() else {
                return Err(Some("engine state poisoned".into()));
            };
            map.entry(key.to_string()).or_default().clone()
        };
        let mut sent_here = false;
        let result = cell
            .get_or_init(|| {
                sent_here = true;
                self.send_request(model, key, body, prompt)
            })
            .await
            .clone();
        result.map(|r| (r, !sent_here))
    }

    async fn send_request(
        &self,
        model: usize,
        key: &str,
        body: serde_json::Value,
        prompt: String,
    ) -> CallResult {
        match self.dispatchers[model].call(&body, &self.cancel).await {
            Outcome::Ok(r) => {
                self.counters.sent.fetch_add(1, Ordering::Relaxed);
                self.counters
                    .prompt_tokens
                    .fetch_add(r.prompt_tokens.unwrap_or(0) as usize, Ordering::Relaxed);
                self.counters
                    .completion_tokens
                    .fetch_add(r.completion_tokens.unwrap_or(0) as usize, Ordering::Relaxed);
                self.tokens[model]
                    .0
                    .fetch_add(r.prompt_tokens.unwrap_or(0) as usize, Ordering::Relaxed);
                self.tokens[model]
                    .1
                    .fetch_add(r.completion_tokens.unwrap_or(0) as usize, Ordering::Relaxed);
                self.send(Write::Response {
                    key: key.to_string(),
                    response: r.clone(),
                    prompt,
                })
                .await;
                Ok(r)
            }
            Outcome::Failed(e) => {
                self.counters.sent.fetch_add(1, Ordering::Relaxed);
                Err(Some(e))
            }
            Outcome::Cancelled => Err(None),
        }
    }

    /// Scores a response; judge scorers call the judge model (through the cache).
    async fn score(
        &self,
        t: &Target,
        response: &str,
    ) -> std::result::Result<Scored, Option<String>> {
        if let Some(local) = t.scorer.local() {
            return Ok(local.score(&t.content, response, &t.ctx));
        }
        let Some(j) = self.judge else {
            return Err(Some(format!(
                "scorer {} needs a judge model",
                t.scorer.as_str()
            )));
        };
        let (system, prompt) = judge::judge_request(t.scorer, &t.question, &t.content, response);
        let cfg = &self.dispatchers[j].config;
        let key = cache::judge_key(cfg, &format!("{}{prompt}", system.unwrap_or("")));
        let body = request_body(cfg, system, &prompt, &[]);
        let record =
            serde_json::json!({"system": system, "text": prompt, "images": []}).to_string();
        let (r, _) = self.call_cached(j, &key, body, record, true).await?;
        let mut s = judge::parse_judge(t.scorer, &r.text, &t.content);
        s.evidence["judge_model"] = json!(cfg.name);
        Ok(s)
    }

    async fn run_job(self: Arc<Self>, job: Job) {
        let cfg = &self.dispatchers[job.model].config;
        let (response, from_cache) = match job.cached {
            Some(r) => (r, true),
            None => {
                let mut urls = Vec::with_capacity(job.prompt.images.len());
                for (img, sent) in job.prompt.images.iter().zip(&job.prompt.sent_sizes) {
                    let encoded = self
                        .images
                        .data_url(&img.hash, &cfg.images, *sent, |h| {
                            let p = self
                                .reader
                                .lock()
                                .map_err(|_| "image reader poisoned".to_string())?;
                            p.image_bytes(h).map(|(b, _)| b).map_err(|e| e.to_string())
                        })
                        .await;
                    match encoded {
                        Ok(u) => urls.push(u.as_str().to_string()),
                        Err(e) => {
                            for t in job.targets {
                                self.finish(
                                    t,
                                    Some(job.key.clone()),
                                    false,
                                    Err(format!("image: {e}")),
                                )
                                .await;
                            }
                            return;
                        }
                    }
                }
                let body = request_body(cfg, job.prompt.system.as_deref(), &job.prompt.text, &urls);
                // Planning already looked this key up in the store; only in-flight twins share it.
                let record = cache::prompt_record(&job.prompt);
                match self
                    .call_cached(job.model, &job.key, body, record, false)
                    .await
                {
                    Ok(x) => x,
                    Err(Some(e)) => {
                        for t in job.targets {
                            self.finish(t, Some(job.key.clone()), false, Err(e.clone()))
                                .await;
                        }
                        return;
                    }
                    Err(None) => return,
                }
            }
        };
        if from_cache {
            self.counters
                .cached
                .fetch_add(job.targets.len(), Ordering::Relaxed);
        }
        for (n, t) in job.targets.into_iter().enumerate() {
            // Several targets sharing one request: the first paid for it, the rest reuse it.
            let reused = from_cache || n > 0;
            if n > 0 && !from_cache {
                self.counters.cached.fetch_add(1, Ordering::Relaxed);
            }
            match self.score(&t, &response.text).await {
                Ok(s) => self.finish(t, Some(job.key.clone()), reused, Ok(s)).await,
                Err(Some(e)) => self.finish(t, Some(job.key.clone()), reused, Err(e)).await,
                Err(None) => return,
            }
        }
    }
}

/// Runs the request to completion (or cancellation) and reports what was sent and reused.
pub async fn run_eval(
    path: &Path,
    req: &EvalRequest,
    progress: ProgressFn,
    cancel: CancelToken,
) -> Result<EvalSummary> {
    let project = Project::open(path)?;
    let models: Vec<StoredModel> = req
        .models
        .iter()
        .map(|m| model_by_name(&project, m))
        .collect::<Result<_>>()?;
    for m in &models {
        m.config.validate()?;
    }
    let judge_model = req
        .judge
        .as_deref()
        .map(|j| model_by_name(&project, j))
        .transpose()?;
    if req.scorer.is_some_and(|s| s.needs_judge()) && judge_model.is_none() {
        return Err(EvalError::Config("this scorer needs a judge model".into()));
    }
    let template = load_template(&project, &req.template)?;
    let template_label = template
        .as_ref()
        .map_or("default".to_string(), |t| t.0.clone());
    let scorer_label = req.scorer.map_or("auto", |s| s.as_str());

    let mut jobs: Vec<Job> = Vec::new();
    let mut by_key: HashMap<(usize, String), usize> = HashMap::new();
    let mut run_ids = Vec::new();
    let mut expected: HashMap<i64, usize> = HashMap::new();
    let counters = Counters::default();
    let mut total = 0usize;
    let mut skipped_writes = Vec::new();

    for ds in &req.datasets {
        let ds_id = project.dataset_by_name(ds)?.id;
        for version in &req.versions {
            let items: Vec<(i64, i64, Arc<ItemContent>)> = project
                .version_items(ds_id, *version)?
                .into_iter()
                .map(|(m, c)| (m.id, m.rev, Arc::new(c)))
                .collect();
            let wanted: HashSet<(i64, i64)> =
                items.iter().map(|(id, rev, _)| (*id, *rev)).collect();
            for (mi, m) in models.iter().enumerate() {
                let ctx = Arc::new(m.config.score_context());
                for variant in &req.variants {
                    for run_index in 1..=req.runs {
                        let run_id = project.ensure_run(&RunKey {
                            model_id: m.id,
                            dataset_id: ds_id,
                            version: *version,
                            variant: variant.as_str().into(),
                            run_index,
                            template: template_label.clone(),
                            scorer: scorer_label.into(),
                            source: "live".into(),
                        })?;
                        run_ids.push(run_id);
                        expected.insert(run_id, items.len());
                        // Results for items edited or removed since are stale: drop them and redo.
                        let mut done = HashSet::new();
                        for (item, rev, outcome) in project.run_item_states(run_id)? {
                            if !wanted.contains(&(item, rev)) {
                                project.forget_run_item(run_id, item)?;
                            } else if outcome != "error" {
                                done.insert(item);
                            }
                        }
                        project.start_run(run_id)?;
                        for (id, rev, content) in &items {
                            if done.contains(id) {
                                continue;
                            }
                            total += 1;
                            let scorer = req
                                .scorer
                                .unwrap_or_else(|| ScorerKind::default_for(content.format));
                            let question: Arc<str> = variant
                                .question(content)
                                .map_or(Arc::from(content.question.as_str()), |q| Arc::from(q.0));
                            let target = Target {
                                run_id,
                                item_id: *id,
                                rev: *rev,
                                content: content.clone(),
                                scorer,
                                question,
                                ctx: ctx.clone(),
                            };
                            // The built-in template follows what is measured: a grounding run
                            // over a VQA set (CRAG-MM) asks for a box, not the answer.
                            let asked = match scorer {
                                ScorerKind::Grounding => assay_core::AnswerFormat::Grounding,
                                _ => content.format,
                            };
                            let body = template.as_ref().map_or_else(
                                || default_template(asked, m.config.box_convention),
                                |t| t.1.clone(),
                            );
                            let Some(prompt) = render(&body, content, *variant, &ctx) else {
                                skipped_writes.push(target);
                                continue;
                            };
                            let key = cache::request_key(&m.config, &prompt, run_index);
                            if let Some(&j) = by_key.get(&(mi, key.clone())) {
                                jobs[j].targets.push(target);
                                continue;
                            }
                            let cached = project.response(&key)?.map(|r| cache::from_stored(&r));
                            by_key.insert((mi, key.clone()), jobs.len());
                            jobs.push(Job {
                                key,
                                model: mi,
                                prompt,
                                cached,
                                targets: vec![target],
                            });
                        }
                    }
                }
            }
        }
    }
    drop(by_key);

    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(256)
        .build()
        .map_err(|e| EvalError::Config(format!("HTTP client: {e}")))?;
    let mut dispatchers: Vec<Dispatcher> = models
        .iter()
        .map(|m| Dispatcher::new(m.config.clone(), http.clone()))
        .collect();
    let judge = judge_model.map(|j| {
        dispatchers.push(Dispatcher::new(j.config, http.clone()));
        dispatchers.len() - 1
    });
    // Enough tasks in flight to keep every endpoint busy, few enough to bound memory.
    let in_flight: usize = dispatchers
        .iter()
        .map(|d| d.config.concurrency * d.config.endpoints.len().max(1))
        .sum::<usize>()
        * 2;

    let (tx, rx) = mpsc::channel(1024);
    let writer = spawn_writer(path.to_path_buf(), rx);
    let tokens = dispatchers
        .iter()
        .map(|_| (AtomicUsize::new(0), AtomicUsize::new(0)))
        .collect();
    let shared = Arc::new(Shared {
        tokens,
        dispatchers,
        judge,
        images: ImageEncoder::default(),
        reader: Mutex::new(Project::open(path)?),
        writer: tx,
        write_failed: std::sync::atomic::AtomicBool::new(false),
        inflight: Mutex::new(HashMap::new()),
        counters,
        total,
        progress,
        cancel: cancel.clone(),
    });
    for t in skipped_writes {
        shared.counters.skipped.fetch_add(1, Ordering::Relaxed);
        shared
            .send(Write::Result {
                target: t,
                key: None,
                from_cache: false,
                outcome: "skipped",
                scored: None,
                error: None,
            })
            .await;
        shared.counters.done.fetch_add(1, Ordering::Relaxed);
    }
    (shared.progress)(&shared.counters.snapshot(total));

    let limit = Arc::new(Semaphore::new(in_flight.max(1)));
    let mut set = tokio::task::JoinSet::new();
    for job in jobs {
        if cancel.is_cancelled() {
            break;
        }
        let permit = tokio::select! {
            p = limit.clone().acquire_owned() => p,
            _ = cancel.cancelled() => break,
        };
        let Ok(permit) = permit else { break };
        let s = shared.clone();
        set.spawn(async move {
            s.run_job(job).await;
            drop(permit);
        });
        while set.try_join_next().is_some() {}
    }
    while set.join_next().await.is_some() {}

    let snapshot = shared.counters.snapshot(total);
    let attempts: usize = shared
        .dispatchers
        .iter()
        .map(|d| d.stats.attempts.load(Ordering::Relaxed))
        .sum();
    let retries: usize = shared
        .dispatchers
        .iter()
        .map(|d| d.stats.retries.load(Ordering::Relaxed))
        .sum();
    // Each model's tokens at its own prices; the judge is priced as itself.
    let costs: Vec<ModelCost> = shared
        .dispatchers
        .iter()
        .zip(&shared.tokens)
        .map(|(d, (p, c))| {
            let (p, c) = (
                p.load(Ordering::Relaxed) as i64,
                c.load(Ordering::Relaxed) as i64,
            );
            let price = d
                .config
                .price_input
                .zip(d.config.price_output)
                .map(|(pi, po)| (p as f64 * pi + c as f64 * po) / 1e6);
            ModelCost {
                model: d.config.name.clone(),
                prompt_tokens: p,
                completion_tokens: c,
                cost: if p + c == 0 { Some(0.0) } else { price },
            }
        })
        .collect();
    let cost = costs.iter().map(|c| c.cost).sum::<Option<f64>>();
    let write_failed = shared.write_failed.load(Ordering::Relaxed);
    match Arc::try_unwrap(shared) {
        Ok(s) => drop(s),
        Err(_) => return Err(EvalError::Config("engine tasks outlived the run".into())),
    }
    let written = writer
        .join()
        .map_err(|_| EvalError::Config("writer thread panicked".into()))?;
    if let Err(e) = written {
        // Results could not be stored: the run was stopped; what was stored stays, and the
        // runs are left incomplete so a later run resumes them.
        for id in &run_ids {
            project.finish_run(*id, expected.get(id).copied().unwrap_or(0), false)?;
        }
        return Err(EvalError::Config(format!(
            "results could not be written, so the run was stopped: {e}"
        )));
    }
    debug_assert!(!write_failed, "a send failed while the writer succeeded");

    // A run is complete only when every item of its version has a non-error result; a
    // cancelled run stays cancelled until a later run fills it.
    let cancelled = cancel.is_cancelled();
    for id in &run_ids {
        project.finish_run(*id, expected.get(id).copied().unwrap_or(0), cancelled)?;
    }
    Ok(EvalSummary {
        progress: snapshot,
        http_attempts: attempts,
        retries,
        run_ids,
        cost,
        costs,
        cancelled: cancel.is_cancelled(),
    })
}
