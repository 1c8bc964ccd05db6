//! Sends requests for one model: bounded concurrency per endpoint, spreading over replicas by
//! least outstanding requests and taking a failing one out with a growing cooldown, a
//! requests-per-minute limit, and retries with exponential backoff and jitter that honour
//! Retry-After.

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::Value;
use tokio::sync::{Notify, Semaphore, SemaphorePermit};

use crate::cancel::CancelToken;
use crate::client::{chat, ChatResponse};
use crate::model::ModelConfig;

/// How long a replica that failed at the connection or 5xx level is skipped: doubled for each
/// failure in a row, up to the maximum, and back to the start after a success.
const COOLDOWN: Duration = Duration::from_secs(2);
const COOLDOWN_MAX: Duration = Duration::from_secs(60);
const BACKOFF_BASE: f64 = 0.25;
const BACKOFF_MAX: f64 = 30.0;

struct Endpoint {
    url: String,
    permits: Semaphore,
    down_until: Mutex<Option<Instant>>,
    /// Requests on this replica (holding one of its permits) and not answered yet.
    outstanding: AtomicUsize,
    /// Failures in a row at the connection or 5xx level.
    failing: AtomicU32,
    sent: AtomicUsize,
    failed: AtomicUsize,
    latency_us: AtomicU64,
    taken_out: AtomicUsize,
}

impl Endpoint {
    fn is_up(&self, now: Instant) -> bool {
        self.down_until
            .lock()
            .map_or(true, |d| d.is_none_or(|t| t <= now))
    }

    fn take_out(&self) {
        let n = self.failing.fetch_add(1, Ordering::Relaxed).min(5);
        let cooldown = (COOLDOWN * 2u32.pow(n)).min(COOLDOWN_MAX);
        if let Ok(mut d) = self.down_until.lock() {
            *d = Some(Instant::now() + cooldown);
        }
        self.taken_out.fetch_add(1, Ordering::Relaxed);
    }
}

/// Counts a request as outstanding on its replica until it is answered or abandoned.
struct InFlight<'a>(&'a AtomicUsize);

impl<'a> InFlight<'a> {
    fn new(n: &'a AtomicUsize) -> Self {
        n.fetch_add(1, Ordering::Relaxed);
        Self(n)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A request's slot on a replica: its permit, and on release a wake-up for one request waiting
/// for a free slot on any replica.
struct Slot<'a> {
    permit: Option<SemaphorePermit<'a>>,
    turn: Option<SemaphorePermit<'a>>,
    freed: &'a Notify,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        // Given back before the wake-up, so the request woken finds the slot free.
        drop(self.permit.take());
        drop(self.turn.take());
        self.freed.notify_one();
    }
}

/// What one replica of a model did in a run.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReplicaStats {
    pub model: String,
    pub url: String,
    /// HTTP requests sent to it, retries included.
    pub requests: usize,
    pub failures: usize,
    /// Mean time to an answer or an error, in milliseconds.
    pub mean_ms: Option<f64>,
    /// Times it was taken out of the rotation after a connection or 5xx failure.
    pub taken_out: usize,
}

#[derive(Debug, Default)]
pub struct DispatchStats {
    pub retries: AtomicUsize,
}

pub struct Dispatcher {
    pub config: ModelConfig,
    endpoints: Vec<Endpoint>,
    next: AtomicUsize,
    /// One permit per slot on every replica, taken first and in arrival order (tokio's
    /// semaphore is fair), so requests get slots first come, first served.
    turns: Semaphore,
    /// Signalled whenever a slot on any replica is given back.
    freed: Notify,
    next_slot: Mutex<Option<Instant>>,
    http: reqwest::Client,
    api_key: Option<String>,
    pub stats: DispatchStats,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Ok(ChatResponse),
    /// The final error after retries.
    Failed(String),
    Cancelled,
}

impl Dispatcher {
    pub fn new(config: ModelConfig, http: reqwest::Client) -> Self {
        let endpoints = config
            .endpoints
            .iter()
            .map(|u| Endpoint {
                url: u.clone(),
                permits: Semaphore::new(config.concurrency),
                down_until: Mutex::new(None),
                outstanding: AtomicUsize::new(0),
                failing: AtomicU32::new(0),
                sent: AtomicUsize::new(0),
                failed: AtomicUsize::new(0),
                latency_us: AtomicU64::new(0),
                taken_out: AtomicUsize::new(0),
            })
            .collect();
        let api_key = config.api_key();
        let turns = config.concurrency.max(1) * config.endpoints.len().max(1);
        Self {
            config,
            endpoints,
            next: AtomicUsize::new(0),
            turns: Semaphore::new(turns),
            freed: Notify::new(),
            next_slot: Mutex::new(None),
            http,
            api_key,
            stats: DispatchStats::default(),
        }
    }

    /// A free slot on the replica that is up with the fewest outstanding requests (ties in
    /// turn). A request is never queued behind one replica while another has room, so a slow
    /// replica holds only the requests it is answering (queued behind it, they were the run's
    /// slow tail: the engine was 1.23x a bare client over the same replicas).
    ///
    /// A request first takes its turn (one per slot of every replica, first come first
    /// served). Holding a turn, some replica has a free slot: if it is up, the request takes
    /// it at once. If the free slots are all on replicas taken out, it waits for a slot given
    /// back or for a replica to come back; if none is up, it uses the one back soonest, as a
    /// lone endpoint must (its retries' backoff paces it).
    async fn slot(&self) -> (usize, Slot<'_>) {
        // Never closed, so never None.
        let mut turn = self.turns.acquire().await.ok();
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before looking, so a slot given back meanwhile is not missed.
            freed.as_mut().enable();
            let n = self.endpoints.len();
            let start = self.next.fetch_add(1, Ordering::Relaxed);
            let now = Instant::now();
            let mut up: Vec<(usize, usize)> = (0..n)
                .map(|k| (start + k) % n)
                .filter(|&i| self.endpoints[i].is_up(now))
                .map(|i| (self.endpoints[i].outstanding.load(Ordering::Relaxed), i))
                .collect();
            let back_soonest = || {
                (0..n)
                    .min_by_key(|i| self.endpoints[*i].down_until.lock().ok().and_then(|d| *d))
                    .unwrap_or(0)
            };
            if up.is_empty() {
                up.push((0, back_soonest()));
            }
            // Stable: equal loads keep their turn order.
            up.sort_by_key(|&(load, _)| load);
            for (_, i) in up {
                if let Ok(p) = self.endpoints[i].permits.try_acquire() {
                    return (
                        i,
                        Slot {
                            permit: Some(p),
                            turn: turn.take(),
                            freed: &self.freed,
                        },
                    );
                }
            }
            // The free slots are on replicas taken out: until one comes back or a slot is
            // given back.
            let until = self
                .endpoints
                .iter()
                .filter_map(|e| e.down_until.lock().ok().and_then(|d| *d))
                .filter(|t| *t > now)
                .min()
                .unwrap_or(now + Duration::from_millis(50));
            tokio::select! {
                _ = freed => {}
                _ = tokio::time::sleep_until(until.into()) => {}
            }
        }
    }

    /// Per replica: requests, failures, mean latency and times taken out.
    pub fn replica_stats(&self) -> Vec<ReplicaStats> {
        self.endpoints
            .iter()
            .map(|e| {
                let sent = e.sent.load(Ordering::Relaxed);
                ReplicaStats {
                    model: self.config.name.clone(),
                    url: e.url.clone(),
                    requests: sent,
                    failures: e.failed.load(Ordering::Relaxed),
                    mean_ms: (sent > 0).then(|| {
                        e.latency_us.load(Ordering::Relaxed) as f64 / 1000.0 / sent as f64
                    }),
                    taken_out: e.taken_out.load(Ordering::Relaxed),
                }
            })
            .collect()
    }

    fn any_other_up(&self, except: usize) -> bool {
        let now = Instant::now();
        self.endpoints
            .iter()
            .enumerate()
            .any(|(i, e)| i != except && e.is_up(now))
    }

    async fn rate_limit(&self) {
        let Some(rpm) = self.config.rate_per_minute.filter(|r| *r > 0) else {
            return;
        };
        let interval = Duration::from_secs_f64(60.0 / rpm as f64);
        let wait = {
            let Ok(mut next) = self.next_slot.lock() else {
                return;
            };
            let now = Instant::now();
            let slot = next.map_or(now, |t| t.max(now));
            *next = Some(slot + interval);
            slot.saturating_duration_since(now)
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }

    fn backoff(attempt: u32) -> Duration {
        let base = (BACKOFF_BASE * 2f64.powi(attempt as i32)).min(BACKOFF_MAX);
        let jitter = rand::rng().random_range(0.5..=1.0);
        Duration::from_secs_f64(base * jitter)
    }

    pub async fn call(&self, body: &Value, cancel: &CancelToken) -> Outcome {
        let timeout = Duration::from_secs_f64(self.config.timeout_secs.max(0.001));
        let mut last = String::from("no attempt made");
        for attempt in 0..=self.config.max_retries {
            if cancel.is_cancelled() {
                return Outcome::Cancelled;
            }
            let (i, slot) = tokio::select! {
                s = self.slot() => s,
                _ = cancel.cancelled() => return Outcome::Cancelled,
            };
            let ep = &self.endpoints[i];
            let in_flight = InFlight::new(&ep.outstanding);
            let result = {
                tokio::select! {
                    _ = self.rate_limit() => {}
                    _ = cancel.cancelled() => return Outcome::Cancelled,
                }
                ep.sent.fetch_add(1, Ordering::Relaxed);
                let t = Instant::now();
                let r = tokio::select! {
                    r = chat(&self.http, &ep.url, self.api_key.as_deref(), body, timeout) => r,
                    _ = cancel.cancelled() => return Outcome::Cancelled,
                };
                ep.latency_us
                    .fetch_add(t.elapsed().as_micros() as u64, Ordering::Relaxed);
                r
            };
            // A replica that failed is taken out before its slot is given back, so no request
            // waiting for a slot is handed to it.
            if let Err(e) = &result {
                if e.endpoint_down && e.retryable && attempt < self.config.max_retries {
                    ep.take_out();
                }
            }
            // A retry's backoff holds no slot.
            drop(in_flight);
            drop(slot);
            match result {
                Ok(r) => {
                    ep.failing.store(0, Ordering::Relaxed);
                    return Outcome::Ok(r);
                }
                Err(e) => {
                    ep.failed.fetch_add(1, Ordering::Relaxed);
                    last = format!(
                        "{} (attempt {} of {})",
                        e.message,
                        attempt + 1,
                        self.config.max_retries + 1
                    );
                    if !e.retryable || attempt == self.config.max_retries {
                        break;
                    }
                    self.stats.retries.fetch_add(1, Ordering::Relaxed);
                    let mut delay = e.retry_after.unwrap_or_else(|| Self::backoff(attempt));
                    if e.endpoint_down && self.any_other_up(i) {
                        delay = Duration::ZERO;
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = cancel.cancelled() => return Outcome::Cancelled,
                    }
                }
            }
        }
        Outcome::Failed(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each failure in a row doubles the time a replica stays out, up to the maximum.
    #[test]
    fn a_failing_replica_stays_out_longer_each_time() {
        let d = Dispatcher::new(
            ModelConfig {
                endpoints: vec!["http://127.0.0.1:9/v1".into()],
                ..Default::default()
            },
            reqwest::Client::new(),
        );
        let e = &d.endpoints[0];
        let mut outs = Vec::new();
        for _ in 0..8 {
            let t = Instant::now();
            e.take_out();
            let until = e.down_until.lock().unwrap().unwrap();
            outs.push((until - t).as_secs_f64().round() as u64);
        }
        assert_eq!(outs, vec![2, 4, 8, 16, 32, 60, 60, 60]);
        assert!(!e.is_up(Instant::now()));
        assert_eq!(d.replica_stats()[0].taken_out, 8);
    }
}
