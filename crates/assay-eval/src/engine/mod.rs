//! Plans runs, deduplicates requests against the response cache, sends what is missing and
//! scores answers. Every response (or final error) is committed as it arrives, so a killed run
//! resumes where it stopped and never pays twice.
//!
//! plan.rs     runs and stale results, then the requests, a chunk of items at a time
//! execute.rs  sending (bounded concurrency, in-flight twins sent once), scoring, judging
//! write.rs    the one writing connection, fed by a bounded channel
//! finish.rs   cost per model; run statuses are set by the store (`Project::finish_run`)

mod execute;
mod finish;
mod plan;
mod write;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tokio::sync::{mpsc, Semaphore};

use crate::cancel::CancelToken;
use crate::dispatch::Dispatcher;
use crate::error::{EvalError, Result};
use crate::images::ImageEncoder;
use crate::model::StoredModel;
use crate::prompt::{load_template, Variant};
use crate::scorers::ScorerKind;
use assay_core::Project;

use execute::{Counters, Shared};
use write::{spawn_writer, Write};

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
    /// The named protocol the request follows (`protocol::check` holds it to it); its runs
    /// record it.
    pub protocol: Option<assay_core::EvalProtocol>,
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
            protocol: None,
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
    /// What each replica of each model did: requests, failures, mean latency.
    pub replicas: Vec<crate::dispatch::ReplicaStats>,
    pub cancelled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCost {
    pub model: String,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    pub cost: Option<f64>,
}

pub type ProgressFn = Arc<dyn Fn(&EvalProgress) + Send + Sync>;

fn replica_record(r: &crate::dispatch::ReplicaStats) -> assay_core::store::ReplicaRecord {
    assay_core::store::ReplicaRecord {
        url: r.url.clone(),
        requests: r.requests as u64,
        failures: r.failures as u64,
        mean_ms: r.mean_ms,
        taken_out: r.taken_out as u64,
    }
}

/// Runs the request to completion (or cancellation) and reports what was sent and reused.
pub async fn run_eval(
    path: &Path,
    req: &EvalRequest,
    progress: ProgressFn,
    cancel: CancelToken,
) -> Result<EvalSummary> {
    crate::protocol::check(req)?;
    let project = Project::open(path)?;
    let mut models: Vec<StoredModel> = req
        .models
        .iter()
        .map(|m| crate::trust::model_for_requests(&project, m))
        .collect::<Result<_>>()?;
    // A protocol sends the seed's generation settings, not the model's own; they are part
    // of every request key, so the answers of the two are never mixed.
    if let Some(p) = req.protocol {
        let sampling = crate::protocol::preset(p).sampling;
        for m in &mut models {
            sampling.apply(&mut m.config.params);
        }
    }
    for m in &models {
        m.config.validate()?;
    }
    let judge_model = req
        .judge
        .as_deref()
        .map(|j| crate::trust::model_for_requests(&project, j))
        .transpose()?;
    if req.scorer.is_some_and(|s| s.needs_judge()) && judge_model.is_none() {
        return Err(EvalError::Config("this scorer needs a judge model".into()));
    }
    let template = load_template(&project, &req.template)?;
    let template_label = template
        .as_ref()
        .map_or("default".to_string(), |t| t.0.clone());
    // CRAG-MM's judges (identification, QA) are optional and decide the near misses, so runs judged by
    // different judges (or none) are different measurements: the judge is in the run's key.
    // The hybrid scorer: outside a protocol, a judge given to choice or soft_match rules (or
    // to `auto`) decides the verdicts they are unsure of; the judge is in the run's key.
    let hybrid = req.protocol.is_none()
        && judge_model.is_some()
        && req.scorer.is_none_or(crate::scorers::hybrid::decides);
    let scorer_label = match (req.scorer, &req.judge) {
        (Some(k), Some(j)) if k.exact_then_judge() => format!("{}+{j}", k.as_str()),
        (s, Some(j)) if hybrid => format!("{}+{j}", s.map_or("auto", |s| s.as_str())),
        // JAMMEval's short answers are judged: its runs by different judges differ too.
        (None, Some(j)) if req.protocol == Some(assay_core::EvalProtocol::Jammeval) => {
            format!("auto+{j}")
        }
        (s, _) => s.map_or("auto", |s| s.as_str()).to_string(),
    };

    let plan = plan::plan(
        &project,
        req,
        &models,
        &template,
        &template_label,
        &scorer_label,
    )?;
    let total = plan.total;
    let counters = Counters::default();

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
    // The judge's calls are not planned (a reply decides whether it is asked): every target
    // is announced, which errs toward using all its replicas to the end.
    if let Some(j) = judge {
        dispatchers[j].expect(total);
    }
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
        hybrid,
        images: ImageEncoder::default(),
        reader: Mutex::new(Project::open(path)?),
        writer: tx,
        inflight: Mutex::new(HashMap::new()),
        counters,
        total,
        progress,
        cancel: cancel.clone(),
    });
    (shared.progress)(&shared.counters.snapshot(total));

    // Requests are made a chunk of items at a time on a blocking thread while the first ones
    // are already out: reading items and looking up cached answers no longer delays them.
    // Each model's dispatcher hears of every target up front, and of each one that needs no
    // request of its own (cached, sharing a request, skipped) as it is planned, so a slow
    // replica keeps its share until only the run's last requests are left.
    for (m, n) in plan.targets_per_model.iter().enumerate() {
        shared.dispatchers[m].expect(*n);
    }
    let (plan_tx, mut planned) = mpsc::channel::<plan::Planned>(4096);
    let planner = {
        let shared = shared.clone();
        let scorer = req.scorer;
        tokio::task::spawn_blocking(move || {
            let made = plan.stream(&project, &models, scorer, &template, &mut |p| {
                let (model, unsent) = p.unsent();
                shared.dispatchers[model].unexpect(unsent);
                plan_tx.blocking_send(p).is_ok()
            });
            (project, plan, made)
        })
    };

    // Runs this call may send requests for: only they get the replicas' figures.
    let mut sending: std::collections::HashSet<i64> = std::collections::HashSet::new();
    let limit = Arc::new(Semaphore::new(in_flight.max(1)));
    let mut set = tokio::task::JoinSet::new();
    loop {
        let next = tokio::select! {
            p = planned.recv() => p,
            _ = cancel.cancelled() => None,
        };
        let job = match next {
            None => break,
            Some(plan::Planned::Skipped(_, t)) => {
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
                (shared.progress)(&shared.counters.snapshot(total));
                continue;
            }
            Some(plan::Planned::Job(job)) => job,
        };
        if job.cached.is_none() {
            sending.extend(job.targets.iter().map(|t| t.run_id));
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
    // Whatever stopped the loop, the planner stops at its next request.
    drop(planned);
    let (project, plan, made) = planner
        .await
        .map_err(|_| EvalError::Config("planning thread panicked".into()))?;
    // Planning that failed part way stopped the loop with no more requests: those already
    // sent finish and are stored (cancelling them would throw away answers paid for).
    while set.join_next().await.is_some() {}
    let plan::Plan {
        run_ids,
        run_models,
        expected,
        ..
    } = plan;

    let snapshot = shared.counters.snapshot(total);
    let retries: usize = shared
        .dispatchers
        .iter()
        .map(|d| d.stats.retries.load(Ordering::Relaxed))
        .sum();
    let per_model: Vec<Vec<crate::dispatch::ReplicaStats>> = shared
        .dispatchers
        .iter()
        .map(|d| d.replica_stats())
        .collect();
    let replicas: Vec<_> = per_model.iter().flatten().cloned().collect();
    // HTTP attempts are the replicas' requests, retries included.
    let attempts: usize = replicas.iter().map(|r| r.requests).sum();
    let (costs, cost) = finish::costs(&shared);
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

    if let Err(e) = made {
        for id in &run_ids {
            project.finish_run(*id, expected.get(id).copied().unwrap_or(0), true)?;
        }
        return Err(e);
    }

    // A run is complete only when every item of its version has a non-error result; a
    // cancelled run stays cancelled until a later run fills it.
    let cancelled = cancel.is_cancelled();
    for id in &run_ids {
        project.finish_run(*id, expected.get(id).copied().unwrap_or(0), cancelled)?;
        // What the run's model's replicas did in this call, for the record of each run that
        // had requests to send (a model's call is counted in each of its runs that sent).
        let served: Vec<assay_core::store::ReplicaRecord> = run_models
            .get(id)
            .filter(|_| sending.contains(id))
            .map(|&m| {
                per_model[m]
                    .iter()
                    .filter(|r| r.requests > 0)
                    .map(replica_record)
                    .collect()
            })
            .unwrap_or_default();
        if !served.is_empty() {
            project.add_run_replicas(*id, &served)?;
        }
    }
    Ok(EvalSummary {
        progress: snapshot,
        http_attempts: attempts,
        retries,
        run_ids,
        cost,
        costs,
        replicas,
        cancelled: cancel.is_cancelled(),
    })
}
