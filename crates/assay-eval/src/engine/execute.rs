//! Sending requests and scoring answers: one shared state for every task of a run.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::sync::mpsc;

use super::plan::{Job, Target};
use super::write::Write;
use super::{EvalProgress, ProgressFn};
use crate::cache;
use crate::cancel::CancelToken;
use crate::client::{request_body, ChatResponse};
use crate::dispatch::{Dispatcher, Outcome};
use crate::images::ImageEncoder;
use crate::scorers::{judge, Scored};
use assay_core::Project;

#[derive(Default)]
pub(super) struct Counters {
    pub(super) done: AtomicUsize,
    pub(super) sent: AtomicUsize,
    pub(super) cached: AtomicUsize,
    pub(super) errors: AtomicUsize,
    pub(super) skipped: AtomicUsize,
    pub(super) prompt_tokens: AtomicUsize,
    pub(super) completion_tokens: AtomicUsize,
}

impl Counters {
    pub(super) fn snapshot(&self, total: usize) -> EvalProgress {
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

pub(super) type CallResult = std::result::Result<ChatResponse, Option<String>>;
pub(super) type InFlight = tokio::sync::OnceCell<CallResult>;

pub(super) struct Shared {
    pub(super) dispatchers: Vec<Dispatcher>,
    pub(super) judge: Option<usize>,
    /// The hybrid scorer: a run of choice or soft_match rules with a judge, outside the seeds'
    /// protocols, sends the verdicts its rules are unsure of to the judge.
    pub(super) hybrid: bool,
    pub(super) images: ImageEncoder,
    pub(super) reader: Mutex<Project>,
    /// Bounded: when the database falls behind, senders wait instead of piling up results.
    pub(super) writer: mpsc::Sender<Write>,
    /// (prompt, completion) tokens paid per dispatcher.
    pub(super) tokens: Vec<(AtomicUsize, AtomicUsize)>,
    /// Calls in flight by cache key, so concurrent identical requests are sent once.
    pub(super) inflight: Mutex<HashMap<String, Arc<InFlight>>>,
    pub(super) counters: Counters,
    pub(super) total: usize,
    pub(super) progress: ProgressFn,
    pub(super) cancel: CancelToken,
}

impl Shared {
    pub(super) async fn send(&self, w: Write) {
        // The writer only goes away when a write failed: stop paying for answers.
        if self.writer.send(w).await.is_err() {
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
        if t.scorer.exact_then_judge() {
            return self.exact_then_judge(t, response).await;
        }
        if let Some(local) = t.scorer.local() {
            let s = local.score(&t.content, response, &t.ctx);
            return match self.judge {
                Some(j) if self.hybrid && s.evidence["needs_judge"] == true => {
                    let (system, prompt) =
                        crate::scorers::hybrid::judge_request(&t.question, &t.content, response);
                    // A judge that fails leaves the rules' verdict, unsure, for a later pass.
                    match self.ask_judge(j, system, &prompt, t.run_index).await {
                        Ok(raw) => Ok(crate::scorers::hybrid::judged(
                            &s,
                            &raw,
                            &t.content,
                            &self.dispatchers[j].config.name,
                        )),
                        Err(e) => {
                            let mut s = s;
                            s.evidence["judge_error"] =
                                json!(e.unwrap_or_else(|| "cancelled".into()));
                            Ok(s)
                        }
                    }
                }
                _ => Ok(s),
            };
        }
        let Some(j) = self.judge else {
            return Err(Some(format!(
                "scorer {} needs a judge model",
                t.scorer.as_str()
            )));
        };
        let (system, prompt) = judge::judge_request(t.scorer, &t.question, &t.content, response);
        let raw = self.ask_judge(j, system, &prompt, t.run_index).await?;
        let mut s = judge::parse_judge(t.scorer, &raw, &t.content);
        s.evidence["judge_model"] = json!(self.dispatchers[j].config.name);
        Ok(s)
    }

    /// The judge's reply to one judge prompt, through the response cache.
    async fn ask_judge(
        &self,
        j: usize,
        system: Option<&str>,
        prompt: &str,
        run_index: u32,
    ) -> std::result::Result<String, Option<String>> {
        let cfg = &self.dispatchers[j].config;
        let key = cache::judge_key(cfg, system, prompt, run_index);
        let body = request_body(cfg, system, prompt, &[]);
        let record = cache::text_record(system, prompt);
        let (r, _) = self.call_cached(j, &key, body, record, true).await?;
        Ok(r.text)
    }

    /// CRAG-MM's judged stages (identification, QA): exact match first; a miss goes to the
    /// judge, with the stage's official prompt, when the run has one.
    async fn exact_then_judge(
        &self,
        t: &Target,
        response: &str,
    ) -> std::result::Result<Scored, Option<String>> {
        let Some(rule) = t.scorer.local() else {
            return Err(Some(format!("scorer {} has no rule", t.scorer.as_str())));
        };
        let local = rule.score(&t.content, response, &t.ctx);
        let (Some(j), true) = (self.judge, local.evidence["needs_judge"] == true) else {
            return Ok(local);
        };
        let pred = local.parsed.clone().unwrap_or_default();
        let (system, prompt) = t.scorer.miss_request(&t.question, &t.content, &pred);
        let raw = self.ask_judge(j, system, &prompt, t.run_index).await?;
        Ok(t.scorer
            .miss_judged(&local, &raw, &self.dispatchers[j].config.name))
    }

    pub(super) async fn run_job(self: Arc<Self>, job: Job) {
        let cfg = &self.dispatchers[job.model].config;
        let (response, from_cache) = match job.cached {
            Some(r) => (r, true),
            None => {
                let mut urls = Vec::with_capacity(job.prompt.images.len());
                let views = job.prompt.images.iter().zip(&job.prompt.views);
                for ((img, view), sent) in views.zip(&job.prompt.sent_sizes) {
                    let encoded = self
                        .images
                        .data_url(&img.hash, view.as_ref(), &cfg.images, *sent, &self.reader)
                        .await;
                    match encoded {
                        Ok(u) => urls.push(u.as_str().to_string()),
                        Err(e) => {
                            // The request announced for this job is not made.
                            self.dispatchers[job.model].unexpect(1);
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
                    Ok((r, reused)) => {
                        if reused {
                            // A twin in flight made the call announced for this job.
                            self.dispatchers[job.model].unexpect(1);
                        }
                        (r, reused)
                    }
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
