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
    /// Recent time to an answer, in microseconds (a moving average of successes; 0 until the
    /// first).
    recent_us: AtomicU64,
    taken_out: AtomicUsize,
}

impl Endpoint {
    fn recent_ms(&self) -> f64 {
        self.recent_us.load(Ordering::Relaxed) as f64 / 1000.0
    }

    /// Folds an answer's time into the moving average (weight 1/8: a replica that turns slow
    /// is seen within a few dozen answers). Concurrent updates may lose one sample, which an
    /// average can afford.
    fn record_answer(&self, took: Duration) {
        let sample = took.as_micros().min(u64::MAX as u128) as i64;
        let old = self.recent_us.load(Ordering::Relaxed) as i64;
        let new = if old == 0 {
            sample
        } else {
            old + (sample - old) / 8
        };
        self.recent_us.store(new.max(1) as u64, Ordering::Relaxed);
    }

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

/// Whether a request should take a free slot on a replica that answers in `own_ms`, when the
/// replicas faster than it (`faster`: each one's recent time in ms) are full and `queued`
/// requests (this one included) are waiting or still to come. Sent to the faster ones instead,
/// the last of them would wait about `queued` over their combined rate and then take their
/// time: the slow slot is worth taking only if it answers sooner than that. So a slow replica
/// takes its share while there is plenty of work, and none of the last requests, which it
/// would hold long after the fast ones are done (with one replica 5x slower, that tail cost
/// the run ~15 % of the replicas' capacity).
fn worth_sending(own_ms: f64, faster: &[f64], per_replica: usize, queued: usize) -> bool {
    let rate: f64 = faster
        .iter()
        .filter(|&&ms| ms > 0.0)
        .map(|ms| per_replica as f64 / ms)
        .sum();
    let Some(best) = faster
        .iter()
        .copied()
        .filter(|&ms| ms > 0.0)
        .min_by(f64::total_cmp)
    else {
        return true;
    };
    // Within half again the fastest one's time, a replica is always worth it: the times move
    // that much with load, and such a tail costs at most half a request's time.
    own_ms <= 0.0 || rate <= 0.0 || own_ms <= best * 1.5 || own_ms <= best + queued as f64 / rate
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
    /// Requests looking for a slot now.
    waiting: AtomicUsize,
    /// Requests the caller said are still to come (see `expect`).
    announced: AtomicUsize,
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
                recent_us: AtomicU64::new(0),
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
            waiting: AtomicUsize::new(0),
            announced: AtomicUsize::new(0),
            next_slot: Mutex::new(None),
            http,
            api_key,
            stats: DispatchStats::default(),
        }
    }

    /// Says that `n` more calls are coming (a run's planned requests), so a slow replica keeps
    /// its share until only the last of them are left. Each call takes one back as it starts.
    pub fn expect(&self, n: usize) {
        self.announced.fetch_add(n, Ordering::Relaxed);
    }

    fn started(&self) {
        let _ = self
            .announced
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |a| a.checked_sub(1));
    }

    /// Of the replicas up (`(load, index)`), those worth a request now (`worth_sending`).
    fn worth_it(&self, up: &mut Vec<(usize, usize)>) {
        let recent: Vec<f64> = up
            .iter()
            .map(|&(_, i)| self.endpoints[i].recent_ms())
            .collect();
        let queued = self.waiting.load(Ordering::Relaxed) + self.announced.load(Ordering::Relaxed);
        let per_replica = self.config.concurrency.max(1);
        let mut k = 0;
        up.retain(|_| {
            let own = recent[k];
            k += 1;
            let faster: Vec<f64> = recent
                .iter()
                .copied()
                .filter(|&ms| ms > 0.0 && ms < own)
                .collect();
            worth_sending(own, &faster, per_replica, queued)
        });
    }

    /// A free slot on the replica that is up with the fewest outstanding requests (ties in
    /// turn), unless it is so much slower than the others that the work left is better waiting
    /// for them (`worth_sending`). A request is never queued behind one replica while another has room, so a slow
    /// replica holds only the requests it is answering (queued behind it, they were the run's
    /// slow tail: the engine was 1.23x a bare client over the same replicas).
    ///
    /// A request first takes its turn (one per slot of every replica, first come first
    /// served). Holding a turn, some replica has a free slot: if it is up, the request takes
    /// it at once. If the free slots are all on replicas taken out, it waits for a slot given
    /// back or for a replica to come back; if none is up, it uses the one back soonest, as a
    /// lone endpoint must (its retries' backoff paces it).
    async fn slot(&self) -> (usize, Slot<'_>) {
        let _waiting = InFlight::new(&self.waiting);
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
            let all_up = up.len();
            if all_up > 1 {
                self.worth_it(&mut up);
            }
            let passed_over = up.len() < all_up;
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
            // A replica passed over is looked at again soon: the faster ones may have gone
            // down meanwhile, with no slot given back to wake this request.
            let until = if passed_over {
                until.min(now + Duration::from_millis(50))
            } else {
                until
            };
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
        self.started();
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
                let took = t.elapsed();
                ep.latency_us
                    .fetch_add(took.as_micros() as u64, Ordering::Relaxed);
                if r.is_ok() {
                    ep.record_answer(took);
                }
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

    /// Seven replicas at 100 ms and one at 500, 64 requests each in flight (the replicas
    /// bench): the slow one is worth a request while about 1,792 or more are left (500 <= 100 +
    /// q / 4.48), and not for the last ones.
    #[test]
    fn a_slow_replica_takes_work_only_while_plenty_is_left() {
        let fast = [100.0; 7];
        assert!(worth_sending(500.0, &fast, 64, 10_000));
        assert!(worth_sending(500.0, &fast, 64, 1_800));
        assert!(!worth_sending(500.0, &fast, 64, 1_780));
        assert!(!worth_sending(500.0, &fast, 64, 1));
        // Replicas about as fast as the others are always worth it, and so is the fastest.
        assert!(worth_sending(101.0, &fast, 64, 1));
        assert!(worth_sending(150.0, &fast, 64, 1));
        assert!(!worth_sending(151.0, &fast, 64, 1));
        assert!(worth_sending(100.0, &[], 64, 1));
        // Times not known yet are no reason to hold back.
        assert!(worth_sending(0.0, &fast, 64, 1));
        assert!(worth_sending(500.0, &[0.0, 0.0], 64, 1));
    }

    /// Once both replicas' times are known, a lone request goes to the fast one even when
    /// the slow one has the fewest outstanding (least outstanding alone alternated them).
    #[tokio::test]
    async fn a_lone_request_is_not_sent_to_a_much_slower_replica() {
        use crate::stub::{StubConfig, StubServer};
        let stub = |ms| {
            StubServer::start(StubConfig {
                latency: Duration::from_millis(ms),
                ..Default::default()
            })
        };
        let (slow, fast) = (stub(400).await.unwrap(), stub(5).await.unwrap());
        let d = Dispatcher::new(
            ModelConfig {
                endpoints: vec![slow.url.clone(), fast.url.clone()],
                concurrency: 1,
                ..Default::default()
            },
            reqwest::Client::new(),
        );
        let body =
            serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "q"}]});
        let cancel = CancelToken::new();
        // Two at once: one to each, so both replicas' times are learnt.
        let (a, b) = tokio::join!(d.call(&body, &cancel), d.call(&body, &cancel));
        assert!(matches!((&a, &b), (Outcome::Ok(_), Outcome::Ok(_))));
        assert_eq!((slow.requests(), fast.requests()), (1, 1));
        for _ in 0..10 {
            assert!(matches!(d.call(&body, &cancel).await, Outcome::Ok(_)));
        }
        assert_eq!((slow.requests(), fast.requests()), (1, 11));
        // With plenty announced, the slow one takes its share again.
        d.expect(1_000);
        let call = || d.call(&body, &cancel);
        let four = tokio::join!(call(), call(), call(), call());
        for r in [four.0, four.1, four.2, four.3] {
            assert!(matches!(r, Outcome::Ok(_)));
        }
        assert_eq!(slow.requests(), 2, "the slow replica took one of the four");
    }
}
