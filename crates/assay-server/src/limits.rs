//! What one member may send: bytes per request, rows per batch, bytes per row, and requests per
//! minute. Checked before anything is parsed into the replica or written to the team.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use assay_core::store::team::runs::SyncRun;
use assay_sync::push::Pending;

use crate::error::{Result, ServiceError};

#[derive(Debug, Clone)]
pub struct Limits {
    /// Bytes of one push request (a batch of rows).
    pub push_bytes: usize,
    /// Bytes of one run snapshot with its results and responses.
    pub run_bytes: usize,
    /// Rows of one push batch.
    pub batch_rows: usize,
    /// Bytes of any one row's text but an item's content and a run's results.
    pub row_text_bytes: usize,
    /// Requests one member may make in a minute.
    pub requests_per_minute: u32,
    /// Bytes of pushes and runs one member may send in a day (UTC): a member who stays within
    /// every other bound can still fill the team's disk, a day's quota at a time.
    pub bytes_per_day: u64,
    /// Connections to the team database the service holds at once: a crowd of requests waits
    /// for one instead of using up the database server's connections.
    pub connections: usize,
    /// How long a request waits for a connection before it is told to come back.
    pub connection_wait: Duration,
    /// How long one statement of a request may run. Set by the service on its own connections;
    /// no member holds a login that could raise it.
    pub statement_timeout: Duration,
    /// How long a session of the earlier design (a member's own login, in a team not yet
    /// migrated) may sit idle holding a lock of the team before a push that waits for it ends
    /// that session: the team's `assay_break_stale_lock`, as the direct sync does.
    pub stale_lock: Duration,
}

/// Bytes of a uid, a dataset or item id, or a person's name.
pub const KEY_BYTES: usize = 512;

/// A run's results and responses: the team's bound on each (0004_trust.sql).
pub const RESULT_BYTES: usize = 16 << 20;

impl Default for Limits {
    fn default() -> Self {
        Self {
            push_bytes: 64 << 20,
            run_bytes: 256 << 20,
            batch_rows: 20_000,
            row_text_bytes: 256 << 10,
            requests_per_minute: 600,
            bytes_per_day: 4 << 30,
            connections: 64,
            connection_wait: Duration::from_secs(15),
            statement_timeout: Duration::from_secs(30),
            stale_lock: Duration::from_secs(30),
        }
    }
}

impl Limits {
    /// Refuses a batch with more rows than a push sends, or a row with more text than a person
    /// writes (a note, a comment, a view's filter); an item's content has the write path's
    /// own bound.
    pub fn check_batch(&self, p: &Pending) -> Result<()> {
        if p.len() > self.batch_rows || p.revisions.len() > assay_sync::push::BATCH as usize {
            return Err(ServiceError::TooLarge(format!(
                "a push batch holds at most {} rows ({} revisions); this one holds {}",
                self.batch_rows,
                assay_sync::push::BATCH,
                p.len()
            )));
        }
        let over = |what: &str, uid: &str, text: &str| -> Result<()> {
            if text.len() > self.row_text_bytes {
                return Err(ServiceError::TooLarge(format!(
                    "{what} {uid}: {} bytes of text, over the bound of {} KiB",
                    text.len(),
                    self.row_text_bytes >> 10
                )));
            }
            Ok(())
        };
        // Keys and names are short: a long one would only make an index entry too large.
        let keys = p
            .revisions
            .iter()
            .flat_map(|r| {
                [
                    Some(&r.uid),
                    Some(&r.dataset),
                    Some(&r.ext_id),
                    r.base_uid.as_ref(),
                    r.author.as_ref(),
                ]
            })
            .chain(p.reviews.iter().flat_map(|d| {
                [
                    Some(&d.uid),
                    Some(&d.revision_uid),
                    d.made_uid.as_ref(),
                    Some(&d.author),
                ]
            }))
            .chain(
                p.signoffs
                    .iter()
                    .flat_map(|g| [Some(&g.uid), Some(&g.revision_uid), Some(&g.author)]),
            )
            .chain(
                p.comments
                    .iter()
                    .flat_map(|c| [Some(&c.uid), Some(&c.revision_uid), Some(&c.author)]),
            )
            .chain(
                p.rounds
                    .iter()
                    .flat_map(|r| [Some(&r.uid), Some(&r.created_by), None, None]),
            )
            .chain(p.blind.iter().flat_map(|b| {
                [
                    Some(&b.uid),
                    Some(&b.round_uid),
                    Some(&b.revision_uid),
                    Some(&b.author),
                ]
            }))
            .chain(
                p.ratings
                    .iter()
                    .flat_map(|g| [Some(&g.uid), Some(&g.snapshot), Some(&g.author), None]),
            )
            .chain(
                p.views
                    .iter()
                    .flat_map(|v| [Some(&v.uid), Some(&v.author), None, None]),
            )
            .flatten();
        for k in keys {
            if k.len() > KEY_BYTES {
                return Err(ServiceError::TooLarge(format!(
                    "a key or name of {} bytes (at most {KEY_BYTES}): {}…",
                    k.len(),
                    k.chars().take(40).collect::<String>()
                )));
            }
        }
        for r in &p.revisions {
            over("revision", &r.uid, r.note.as_deref().unwrap_or(""))?;
            if r.content.len() > assay_core::store::MAX_CONTENT_BYTES {
                return Err(ServiceError::TooLarge(format!(
                    "revision {}: its content is {} bytes, over the bound of {} MiB",
                    r.uid,
                    r.content.len(),
                    assay_core::store::MAX_CONTENT_BYTES >> 20
                )));
            }
        }
        for d in &p.reviews {
            over("review", &d.uid, d.comment.as_deref().unwrap_or(""))?;
        }
        for g in &p.signoffs {
            over("sign-off", &g.uid, g.note.as_deref().unwrap_or(""))?;
        }
        for c in &p.comments {
            over("comment", &c.uid, &c.body)?;
            over("comment", &c.uid, &c.mentions.concat())?;
        }
        for r in &p.rounds {
            over("round", &r.uid, &r.name)?;
            over("round", &r.uid, &r.purpose)?;
            let assigned: usize = r.assignments.iter().map(|(a, b)| a.len() + b.len()).sum();
            if assigned > self.row_text_bytes * 64 {
                return Err(ServiceError::TooLarge(format!(
                    "round {}: {assigned} bytes of assignments",
                    r.uid
                )));
            }
        }
        for b in &p.blind {
            over("judgement", &b.uid, &b.judgement)?;
        }
        for g in &p.ratings {
            over("rating", &g.uid, g.note.as_deref().unwrap_or(""))?;
        }
        for v in &p.views {
            over("view", &v.uid, &v.filter)?;
            over("view", &v.uid, &v.name)?;
            over("view", &v.uid, &v.columns)?;
        }
        Ok(())
    }

    /// Counts `bytes` that `member` sent against their quota for today, or refuses them (and
    /// counts nothing) when they would go over it. On the owner's connection, outside any
    /// member's transaction: the count stands whatever becomes of the rows.
    pub fn charge(&self, db: &mut postgres::Client, member: &str, bytes: usize) -> Result<()> {
        let bytes = bytes as i64;
        let quota = i64::try_from(self.bytes_per_day).unwrap_or(i64::MAX);
        let taken = bytes <= quota
            && db
                .query_opt(
                    "INSERT INTO service_usage AS u (member, day, bytes)
                     VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2)
                     ON CONFLICT (member, day) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes
                     WHERE u.bytes + EXCLUDED.bytes <= $3
                     RETURNING bytes",
                    &[&member, &bytes, &quota],
                )?
                .is_some();
        if taken {
            return Ok(());
        }
        let used: i64 = db
            .query_opt(
                "SELECT bytes FROM service_usage
                 WHERE member = $1 AND day = (now() AT TIME ZONE 'UTC')::date",
                &[&member],
            )?
            .map_or(0, |r| r.get(0));
        Err(ServiceError::TooMany(format!(
            "{member} has sent {} today and this request would add {}: the team's quota is {} \
             a day per member; the rest waits for tomorrow (UTC) or for the owner to raise it \
             (`assay serve --quota-mib`)",
            size(used as u64),
            size(bytes as u64),
            size(self.bytes_per_day)
        )))
    }

    /// Gives back what `charge` counted for a request that then wrote nothing (the database
    /// timed out or the service failed before the write committed).
    pub fn refund(&self, db: &mut postgres::Client, member: &str, bytes: usize) -> Result<()> {
        db.execute(
            "UPDATE service_usage SET bytes = greatest(bytes - $2, 0)
             WHERE member = $1 AND day = (now() AT TIME ZONE 'UTC')::date",
            &[&member, &(bytes as i64)],
        )?;
        Ok(())
    }

    /// Refuses a run whose results or responses are over the team's bound.
    pub fn check_run(&self, run: &SyncRun) -> Result<()> {
        // Texts every colleague's pull carries with each of the model's runs.
        for (what, text) in [
            ("model configuration", &run.model_config),
            ("template", &run.template),
            ("source", &run.source),
            ("model", &run.model),
        ] {
            if text.len() > self.row_text_bytes {
                return Err(ServiceError::TooLarge(format!(
                    "run {}: its {what} is {} bytes, over the bound of {} KiB",
                    run.origin,
                    text.len(),
                    self.row_text_bytes >> 10
                )));
            }
        }
        let big = |n: usize| n > RESULT_BYTES;
        for it in &run.items {
            let n = [&it.parsed, &it.evidence, &it.error]
                .iter()
                .map(|s| s.as_deref().map_or(0, str::len))
                .sum::<usize>();
            if big(n) {
                return Err(ServiceError::TooLarge(format!(
                    "run {}: the result of {} is {n} bytes, over the bound of {} MiB",
                    run.origin,
                    it.ext_id,
                    RESULT_BYTES >> 20
                )));
            }
        }
        for r in &run.responses {
            let n = r.text.len() + r.prompt.as_deref().map_or(0, str::len);
            if big(n) {
                return Err(ServiceError::TooLarge(format!(
                    "run {}: a response is {n} bytes, over the bound of {} MiB",
                    run.origin,
                    RESULT_BYTES >> 20
                )));
            }
        }
        Ok(())
    }
}

/// A byte count as a person reads it: "61.4 KiB", "4.0 GiB".
fn size(bytes: u64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

/// Requests per member per minute, counted in fixed one-minute windows.
pub struct RateLimiter {
    per_minute: u32,
    windows: Mutex<HashMap<String, (Instant, u32)>>,
}

impl RateLimiter {
    pub fn new(per_minute: u32) -> Self {
        Self {
            per_minute,
            windows: Mutex::new(HashMap::new()),
        }
    }

    pub fn allow(&self, member: &str) -> Result<()> {
        let mut w = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        // Keys a client makes up (sign-ins with invented credential IDs) would otherwise pile
        // up: windows over a minute old count nothing, so they go once there are many.
        if w.len() > 100_000 {
            w.retain(|_, (start, _)| now.duration_since(*start) < Duration::from_secs(60));
        }
        let entry = w.entry(member.to_string()).or_insert((now, 0));
        if now.duration_since(entry.0) >= Duration::from_secs(60) {
            *entry = (now, 0);
        }
        entry.1 += 1;
        if entry.1 > self.per_minute {
            let wait = 60 - now.duration_since(entry.0).as_secs();
            return Err(ServiceError::TooMany(format!(
                "{member}: more than {} requests in a minute; try again in {wait} s",
                self.per_minute
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_texts_that_travel_with_every_pull_are_bounded() {
        let run = |config: String| SyncRun {
            origin: "o".into(),
            model: "m".into(),
            model_config: config,
            dataset: "d".into(),
            version: "before".into(),
            variant: "original".into(),
            run_index: 0,
            template: "default".into(),
            scorer: "choice".into(),
            source: "recorded".into(),
            status: "complete".into(),
            created_at: "t".into(),
            finished_at: "t".into(),
            author: None,
            protocol: None,
            items: vec![],
            responses: vec![],
        };
        let limits = Limits::default();
        limits.check_run(&run("{}".into())).unwrap();
        let e = limits.check_run(&run("x".repeat(300 << 10))).unwrap_err();
        assert!(
            matches!(&e, ServiceError::TooLarge(m) if m.contains("model configuration")),
            "{e}"
        );
    }

    #[test]
    fn sizes_read_as_a_person_writes_them() {
        assert_eq!(size(900), "900 bytes");
        assert_eq!(size(62_900), "61.4 KiB");
        assert_eq!(size(4 << 30), "4.0 GiB");
    }

    #[test]
    fn a_member_over_the_rate_is_refused_and_others_are_not() {
        let r = RateLimiter::new(3);
        for _ in 0..3 {
            r.allow("aiko").unwrap();
        }
        assert!(matches!(r.allow("aiko"), Err(ServiceError::TooMany(_))));
        r.allow("seo").unwrap();
    }
}
