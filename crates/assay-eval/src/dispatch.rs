//! Sends requests for one model: bounded concurrency per endpoint, spreading over replicas and
//! skipping a failing one, a requests-per-minute limit, and retries with exponential backoff and
//! jitter that honour Retry-After.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::cancel::CancelToken;
use crate::client::{chat, ChatResponse};
use crate::model::ModelConfig;

/// How long a replica that failed at the connection or 5xx level is skipped.
const COOLDOWN: Duration = Duration::from_secs(2);
const BACKOFF_BASE: f64 = 0.25;
const BACKOFF_MAX: f64 = 30.0;

struct Endpoint {
    url: String,
    permits: Semaphore,
    down_until: Mutex<Option<Instant>>,
}

impl Endpoint {
    fn is_up(&self, now: Instant) -> bool {
        self.down_until
            .lock()
            .map_or(true, |d| d.is_none_or(|t| t <= now))
    }
}

#[derive(Debug, Default)]
pub struct DispatchStats {
    /// HTTP requests made, retries included.
    pub attempts: AtomicUsize,
    pub retries: AtomicUsize,
}

pub struct Dispatcher {
    pub config: ModelConfig,
    endpoints: Vec<Endpoint>,
    next: AtomicUsize,
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
            })
            .collect();
        let api_key = config.api_key();
        Self {
            config,
            endpoints,
            next: AtomicUsize::new(0),
            next_slot: Mutex::new(None),
            http,
            api_key,
            stats: DispatchStats::default(),
        }
    }

    /// Round-robin over replicas that are up; if all are down, the one back soonest.
    fn pick(&self) -> usize {
        let n = self.endpoints.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        for k in 0..n {
            let i = (start + k) % n;
            if self.endpoints[i].is_up(now) {
                return i;
            }
        }
        (0..n)
            .min_by_key(|i| self.endpoints[*i].down_until.lock().ok().and_then(|d| *d))
            .unwrap_or(0)
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
            let i = self.pick();
            let ep = &self.endpoints[i];
            let result = {
                let permit = tokio::select! {
                    p = ep.permits.acquire() => p,
                    _ = cancel.cancelled() => return Outcome::Cancelled,
                };
                let Ok(_permit) = permit else {
                    return Outcome::Failed("endpoint closed".into());
                };
                tokio::select! {
                    _ = self.rate_limit() => {}
                    _ = cancel.cancelled() => return Outcome::Cancelled,
                }
                self.stats.attempts.fetch_add(1, Ordering::Relaxed);
                tokio::select! {
                    r = chat(&self.http, &ep.url, self.api_key.as_deref(), body, timeout) => r,
                    _ = cancel.cancelled() => return Outcome::Cancelled,
                }
            };
            match result {
                Ok(r) => return Outcome::Ok(r),
                Err(e) => {
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
                    if e.endpoint_down {
                        if let Ok(mut d) = ep.down_until.lock() {
                            *d = Some(Instant::now() + COOLDOWN);
                        }
                        if self.any_other_up(i) {
                            delay = Duration::ZERO;
                        }
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
