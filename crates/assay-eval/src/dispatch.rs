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
/// A replica passed over for being slow gets one request when it has had none out for this
/// long, so a replica that was slow once (a cold start) is timed again.
const PROBE_AFTER: Duration = Duration::from_secs(2);

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
    /// Recent time to a reply, in microseconds: a moving average (0 until the first reply).
    recent_us: AtomicU64,
    /// Replies folded into it, and when it was last heard from (microseconds after the
    /// dispatcher started): its last reply, or the moment it was given a request with none
    /// out (so an idle replica given work is not taken for one that stopped answering).
    replies: AtomicU64,
    last_reply_us: AtomicU64,
    /// Whether the last reply was an error: its time then says nothing of the replica's speed.
    last_failed: std::sync::atomic::AtomicBool,
    taken_out: AtomicUsize,
}

impl Endpoint {
    fn recent_ms(&self) -> f64 {
        self.recent_us.load(Ordering::Relaxed) as f64 / 1000.0
    }

    /// Folds a reply's time into the moving average: the mean of the first eight, then each
    /// new one weighing 1/8 (a replica that turns slow is seen within a few dozen replies; a
    /// slow first reply, a cold start, is outweighed by the next few). An error's time only
    /// ever makes the replica slower (a timeout counts in full; a quick refusal is no sign of
    /// speed). Concurrent updates may lose one sample, which an average can afford.
    fn record_reply(&self, took: Duration, ok: bool, at_us: u64) {
        let sample = took.as_micros().min(i64::MAX as u128) as i64;
        let old = self.recent_us.load(Ordering::Relaxed) as i64;
        self.last_reply_us.store(at_us, Ordering::Relaxed);
        self.last_failed.store(!ok, Ordering::Relaxed);
        if !ok && sample <= old {
            return;
        }
        let n = self
            .replies
            .fetch_add(1, Ordering::Relaxed)
            .saturating_add(1) as i64;
        let new = old + (sample - old) / n.min(8);
        self.recent_us.store(new.max(1) as u64, Ordering::Relaxed);
    }

    /// How long a request takes here now, in ms: the recent average, or longer while requests
    /// are out and no reply has come for longer than that (a replica that stopped answering
    /// looks slow at once, not at its first timeout). 0 when nothing is known yet.
    fn expected_ms(&self, now_us: u64, outstanding: usize) -> f64 {
        let recent = self.recent_ms();
        if recent <= 0.0 || outstanding == 0 {
            return recent;
        }
        let silent = now_us.saturating_sub(self.last_reply_us.load(Ordering::Relaxed));
        recent.max(silent as f64 / 1000.0)
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
fn worth_sending<'a>(
    own_ms: f64,
    faster: impl IntoIterator<Item = &'a f64>,
    per_replica: usize,
    queued: usize,
) -> bool {
    let (mut rate, mut best) = (0.0, f64::INFINITY);
    for &ms in faster.into_iter().filter(|&&ms| ms > 0.0) {
        rate += per_replica as f64 / ms;
        best = best.min(ms);
    }
    // Within half again the fastest one's time, a replica is always worth it: the times move
    // that much with load, and such a tail costs at most half a request's time.
    own_ms <= 0.0 || rate <= 0.0 || own_ms <= best * 1.5 || own_ms <= best + queued as f64 / rate
}

/// Counts a request in a counter (outstanding on its replica, or waiting for a slot) until it
/// is done there or abandoned.
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
    /// When the dispatcher started: replies are timed from it.
    epoch: Instant,
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
                replies: AtomicU64::new(0),
                last_reply_us: AtomicU64::new(0),
                last_failed: Default::default(),
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
            epoch: Instant::now(),
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

    /// Takes back `n` announced calls that will not be made (answered from the cache, or
    /// sharing another call).
    pub fn unexpect(&self, n: usize) {
        let _ = self
            .announced
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |a| {
                Some(a.saturating_sub(n))
            });
    }

    fn started(&self) {
        self.unexpect(1);
    }

    /// Of the replicas up (`(load, index)`), those worth a request now (`worth_sending`). A
    /// replica whose last reply was an error does not count as faster than another; one with
    /// nothing out and no reply for `PROBE_AFTER` is always worth one request, so a replica
    /// passed over is timed again.
    fn worth_it(&self, up: &mut Vec<(usize, usize)>) {
        let now_us = self.epoch.elapsed().as_micros() as u64;
        let probe_us = PROBE_AFTER.as_micros() as u64;
        let expected: Vec<f64> = up
            .iter()
            .map(|&(load, i)| self.endpoints[i].expected_ms(now_us, load))
            .collect();
        let credible: Vec<bool> = up
            .iter()
            .map(|&(_, i)| !self.endpoints[i].last_failed.load(Ordering::Relaxed))
            .collect();
        let queued = self.waiting.load(Ordering::Relaxed) + self.announced.load(Ordering::Relaxed);
        let per_replica = self.config.concurrency.max(1);
        let mut k = 0;
        up.retain(|&(load, i)| {
            let own = expected[k];
            k += 1;
            let e = &self.endpoints[i];
            let silent = now_us.saturating_sub(e.last_reply_us.load(Ordering::Relaxed));
            if load == 0 && silent >= probe_us {
                return true;
            }
            let faster = (expected.iter().zip(&credible))
                .filter(|&(&ms, &ok)| ok && ms < own)
                .map(|(ms, _)| ms);
            worth_sending(own, faster, per_replica, queued)
        });
    }

    /// A free slot on the replica that is up with the fewest outstanding requests (ties in
    /// turn), unless it is so much slower than the others that the work left is better waiting
    /// for them (`worth_sending`). A request is never queued behind one replica while another
    /// has room, so a slow replica holds only the requests it is answering (queued behind it,
    /// they were the run's slow tail: the engine was 1.23x a bare client over the same
    /// replicas).
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
            if ep.outstanding.load(Ordering::Relaxed) == 0 {
                ep.last_reply_us
                    .store(self.epoch.elapsed().as_micros() as u64, Ordering::Relaxed);
            }
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
                let at = self.epoch.elapsed().as_micros() as u64;
                ep.record_reply(took, r.is_ok(), at);
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
        // Least outstanding alone sent every other one to the slow replica. At most one may
        // go there now: its probe, if the machine is so loaded that the ten took 2 s.
        assert!(slow.requests() <= 2, "slow {}", slow.requests());
        assert_eq!(slow.requests() + fast.requests(), 12);
        // With plenty announced, the slow one takes its share again.
        d.expect(1_000);
        let before = slow.requests();
        let call = || d.call(&body, &cancel);
        let four = tokio::join!(call(), call(), call(), call());
        for r in [four.0, four.1, four.2, four.3] {
            assert!(matches!(r, Outcome::Ok(_)));
        }
        assert_eq!(
            slow.requests(),
            before + 1,
            "the slow replica took one of the four"
        );
    }

    /// What `worth_it` keeps, from the replicas' recorded replies: a replica silent for long
    /// with requests out looks as slow as its silence; one that failed last is not counted as
    /// faster; one passed over and idle for `PROBE_AFTER` is given a request again.
    #[test]
    fn silence_failures_and_idle_replicas_are_weighed() {
        let d = Dispatcher::new(
            ModelConfig {
                endpoints: vec![
                    "http://127.0.0.1:9/v1".into(),
                    "http://127.0.0.1:9/v2".into(),
                ],
                concurrency: 4,
                ..Default::default()
            },
            reqwest::Client::new(),
        );
        let mut d = d;
        // As if it had been running for a while, so times can lie in the past.
        d.epoch = Instant::now() - Duration::from_secs(60);
        let d = d;
        let now = || d.epoch.elapsed().as_micros() as u64;
        let (fast, slow) = (&d.endpoints[0], &d.endpoints[1]);
        fast.record_reply(Duration::from_millis(10), true, now());
        slow.record_reply(Duration::from_millis(400), true, now());
        let kept = |loads: [usize; 2]| {
            let mut up = vec![(loads[0], 0), (loads[1], 1)];
            d.worth_it(&mut up);
            up.into_iter().map(|(_, i)| i).collect::<Vec<_>>()
        };
        assert_eq!(
            kept([4, 0]),
            vec![0],
            "the slow one waits while the fast one answers"
        );
        // The fast one has four requests out and has said nothing for 300 ms: 400 ms is
        // within half again its silence.
        fast.last_reply_us
            .store(now().saturating_sub(300_000), Ordering::Relaxed);
        assert_eq!(kept([4, 0]), vec![0, 1]);
        // The fast one's last reply was an error: it is no yardstick.
        fast.record_reply(Duration::from_millis(10), true, now());
        assert_eq!(kept([4, 0]), vec![0]);
        fast.record_reply(Duration::from_millis(1), false, now());
        assert_eq!(kept([4, 0]), vec![0, 1]);
        // A quick error did not make it look faster; a timeout made it slower.
        assert!(
            (fast.recent_ms() - 10.0).abs() < 1.0,
            "{}",
            fast.recent_ms()
        );
        fast.record_reply(Duration::from_millis(5_000), false, now());
        assert!(fast.recent_ms() > 400.0, "{}", fast.recent_ms());
        // Back to a fast one that answers; the slow one idle past PROBE_AFTER gets one request.
        for _ in 0..60 {
            fast.record_reply(Duration::from_millis(10), true, now());
        }
        assert!(fast.recent_ms() < 20.0, "{}", fast.recent_ms());
        assert_eq!(kept([4, 0]), vec![0]);
        slow.last_reply_us.store(
            now().saturating_sub(PROBE_AFTER.as_micros() as u64 + 1),
            Ordering::Relaxed,
        );
        assert_eq!(kept([4, 0]), vec![0, 1]);
        assert_eq!(kept([4, 1]), vec![0], "one probe at a time");
    }

    /// A fast replica that stops answering: a request waiting for it goes to the slow one
    /// instead of waiting for the hung request's timeout.
    #[tokio::test]
    async fn a_replica_that_stops_answering_is_not_waited_for() {
        use crate::stub::{Reply, Rule, StubConfig, StubServer};
        let fast = StubServer::start(StubConfig {
            latency: Duration::from_millis(5),
            rules: vec![Rule::always("hang", Reply::Hang)],
            ..Default::default()
        })
        .await
        .unwrap();
        let slow = StubServer::start(StubConfig {
            latency: Duration::from_millis(300),
            ..Default::default()
        })
        .await
        .unwrap();
        let d = Dispatcher::new(
            ModelConfig {
                endpoints: vec![fast.url.clone(), slow.url.clone()],
                concurrency: 1,
                timeout_secs: 5.0,
                max_retries: 0,
                ..Default::default()
            },
            reqwest::Client::new(),
        );
        let body = |t: &str| serde_json::json!({"model": "m", "messages": [{"role": "user", "content": t}]});
        let cancel = CancelToken::new();
        let (q, q2) = (body("q"), body("q2"));
        let (a, b) = tokio::join!(d.call(&q, &cancel), d.call(&q, &cancel));
        assert!(matches!((&a, &b), (Outcome::Ok(_), Outcome::Ok(_))));
        assert_eq!((fast.requests(), slow.requests()), (1, 1));
        let hang = body("hang");
        let later = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            d.call(&q2, &cancel).await
        };
        let (hung, answered) = tokio::join!(d.call(&hang, &cancel), later);
        assert!(matches!(hung, Outcome::Failed(_)), "{hung:?}");
        assert!(matches!(answered, Outcome::Ok(_)), "{answered:?}");
        assert_eq!(
            (fast.requests(), slow.requests()),
            (2, 2),
            "the second request went to the slow replica"
        );
    }
}
