//! The service's HTTP API. Every route but `/health` and `/v1/join` needs a member's credential
//! (`Authorization: Bearer ID.SECRET`); each request is one transaction of the team database run
//! as that member. Bodies are parsed here, bounded first; rows are checked by the write path on
//! the service's replica before anything is written (`checks`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use assay_core::store::team::runs::SyncRun;
use assay_sync::push::{Pending, RunOutcome};
use assay_sync::service::wire::{
    Health, InviteRequest, Invited, JoinRequest, Joined, Me, PullPage, PullRequest, RevokeRequest,
    Revoked, RoleRequest,
};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

use crate::checks::Replica;
use crate::error::{Result, ServiceError};
use crate::limits::{Limits, RateLimiter};
use crate::members::{self, Member};
use crate::pool::{as_member, Conn, Pool};
use crate::push_groups::{self, Outcome, PushQueue};

pub struct AppState {
    pub pool: Pool,
    /// The service's replica; holding it is holding the right to push (one check at a time).
    pub replica: Mutex<Replica>,
    /// The pushes waiting for the replica, which the next to get it writes as one group.
    pub pushes: PushQueue,
    /// Credentials verified once (SHA-256 of the token -> credential ID and member name):
    /// argon2 is slow on purpose, and a member's role and revocation are read afresh on every
    /// request anyway. The name counts the member's rate before a pool connection is taken.
    verified: Mutex<HashMap<String, (String, String)>>,
    pub limits: Limits,
    pub(crate) rate: RateLimiter,
    /// Where members reach the service, and its certificate's pin: what a join link names.
    pub url: String,
    pub pin: String,
    pub(crate) sessions: crate::web::Sessions,
}

impl AppState {
    pub fn new(pool: Pool, replica: Replica, limits: Limits, url: &str, pin: &str) -> Self {
        Self {
            pool,
            replica: Mutex::new(replica),
            pushes: PushQueue::default(),
            verified: Mutex::new(HashMap::new()),
            rate: RateLimiter::new(limits.requests_per_minute),
            limits,
            url: url.to_string(),
            pin: pin.to_string(),
            sessions: Default::default(),
        }
    }

    fn forget_credentials(&self) {
        self.verified
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

type Shared = Arc<AppState>;

pub fn router(state: Shared) -> Router {
    let push_limit = state.limits.push_bytes;
    let run_limit = state.limits.run_bytes;
    Router::new()
        .route("/health", get(health))
        .route("/v1/join", post(join))
        .route("/v1/me", get(me))
        .route("/v1/items", get(items))
        .route("/v1/pull", post(pull).layer(DefaultBodyLimit::max(1 << 20)))
        .route(
            "/v1/push",
            post(push).layer(DefaultBodyLimit::max(push_limit)),
        )
        .route(
            "/v1/runs",
            post(push_run).layer(DefaultBodyLimit::max(run_limit)),
        )
        .route("/v1/images", get(image_list))
        .route("/v1/images/{hash}", get(image))
        .route("/team", get(crate::web::team))
        .route("/team/login", post(crate::web::login))
        .route("/team/logout", post(crate::web::logout))
        .route("/v1/members", get(member_list))
        .route("/v1/members/invite", post(member_invite))
        .route("/v1/members/role", post(member_role))
        .route("/v1/members/revoke", post(member_revoke))
        .layer(DefaultBodyLimit::max(1 << 20))
        .layer(axum::middleware::from_fn_with_state(state.clone(), admit))
        .layer(axum::middleware::from_fn(log))
        .with_state(state)
}

/// Large bodies (pushes and runs) read at once, across all members.
const BODIES_AT_ONCE: usize = 8;
/// How long a request with a large body may take, reading included.
const BODY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);

static BODIES: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(BODIES_AT_ONCE);

/// Before a push or a run's body is read: a member's credential (no one else makes the
/// service read megabytes), one of a few places for large bodies, and a deadline on the whole
/// request, so a body sent slowly cannot hold the service.
async fn admit(
    State(state): State<Shared>,
    req: Request<axum::body::Body>,
    next: Next,
) -> Response {
    let path = req.uri().path();
    if path != "/v1/push" && path != "/v1/runs" {
        return next.run(req).await;
    }
    let headers = req.headers().clone();
    let st = state.clone();
    let checked = blocking(move || {
        let token = credential(&st, &headers)?;
        let mut db = st.pool.get()?;
        signed_in(&st, &mut db, &token).map(|_| ())
    })
    .await;
    if let Err(e) = checked {
        return respond::<()>(None, Err(e));
    }
    let permit =
        match tokio::time::timeout(std::time::Duration::from_secs(30), BODIES.acquire()).await {
            Ok(Ok(p)) => p,
            _ => {
                return respond::<()>(
                    None,
                    Err(ServiceError::TooMany(
                        "the team service is taking in other pushes: try again in a moment".into(),
                    )),
                )
            }
        };
    let res = match tokio::time::timeout(BODY_DEADLINE, next.run(req)).await {
        Ok(res) => res,
        Err(_) => (
            StatusCode::REQUEST_TIMEOUT,
            Json(serde_json::json!({"error": "the request took longer than 300 s; the next sync finds out what the team took"})),
        )
            .into_response(),
    };
    drop(permit);
    res
}

/// Who a request was for, for the log line.
#[derive(Clone)]
struct Who(String);

/// One JSON line per request on stderr: time, member, method, path, status, milliseconds, and
/// the refusal if any.
async fn log(req: Request<axum::body::Body>, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().to_string();
    let path = req.uri().path().to_string();
    let res = next.run(req).await;
    let who = res.extensions().get::<Who>().map(|w| w.0.clone());
    let error = res.extensions().get::<Refused>().map(|r| r.0.clone());
    let line = serde_json::json!({
        "time": assay_core::store::now(),
        "member": who,
        "method": method,
        "path": path,
        "status": res.status().as_u16(),
        "ms": started.elapsed().as_secs_f64() * 1000.0,
        "error": error,
    });
    eprintln!("{line}");
    res
}

#[derive(Clone)]
struct Refused(String);

/// A handler's result as a response: the value as JSON, or the refusal (remembered for the log).
fn respond<T: Serialize>(who: Option<String>, r: Result<T>) -> Response {
    let mut res = match r {
        Ok(v) => Json(v).into_response(),
        Err(e) => {
            let why = e.to_string();
            let mut res = e.into_response();
            res.extensions_mut().insert(Refused(why));
            res
        }
    };
    if let Some(w) = who {
        res.extensions_mut().insert(Who(w));
    }
    res
}

/// Runs `work` off the async threads (the database and the replica block).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ServiceError::Internal(format!("a request's task failed: {e}")))?
}

fn bearer(headers: &HeaderMap) -> Result<String> {
    let v = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or_else(|| {
            ServiceError::Unauthorized("sign in first: this request carries no credential".into())
        })?;
    Ok(v.trim().to_string())
}

/// The rate key all sign-ins with a credential not yet verified share.
pub(crate) const SIGN_INS: &str = "sign-in, any credential not yet verified";

/// The key the service remembers a verified credential by (never the credential itself).
fn credential_key(token: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// The request's credential, its sign-in attempt counted before anything is spent on it: a
/// credential the service has not verified yet takes no pool connection and no argon2 check
/// once its ID is past the sign-in rate, and one that is not a credential's shape is refused
/// at once. Called before a connection is taken from the pool.
fn credential(state: &AppState, headers: &HeaderMap) -> Result<String> {
    let token = bearer(headers)?;
    let known = state
        .verified
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&credential_key(&token))
        .map(|(_, name)| name.clone());
    if let Some(name) = known {
        // A member past their rate is told so before a connection is taken for them.
        state.rate.allow(&name)?;
    } else {
        let (id, _) = crate::credentials::split(&token).ok_or_else(|| {
            ServiceError::Unauthorized("this credential is not one of this team's".into())
        })?;
        // Counted before the argon2 check, per credential ID: guessing costs the guesser;
        // and all unverified attempts together, so a guesser who makes up a new ID each time
        // cannot queue for the pool's connections ahead of the members either.
        state.rate.allow(&format!("sign-in {id}"))?;
        state.rate.allow(SIGN_INS)?;
    }
    Ok(token)
}

/// The member a request is from, their rate counted (here for a credential just verified,
/// by [`credential`] before the connection for one verified before). `token` comes through
/// [`credential`].
fn signed_in(state: &AppState, db: &mut postgres::Client, token: &str) -> Result<Member> {
    let key = credential_key(token);
    let known = state
        .verified
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key)
        .cloned();
    let member = match known {
        // Their rate was counted by `credential`, before the connection.
        Some((id, _)) => match members::member_of_credential(db, &id) {
            Ok(Some((_, m))) => return Ok(m),
            Ok(None) => {
                return Err(ServiceError::Unauthorized(
                    "this credential is not one of this team's".into(),
                ))
            }
            Err(e) => {
                state
                    .verified
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&key);
                return Err(e);
            }
        },
        None => {
            let m = members::authenticate(db, token)?;
            if let Some((id, _)) = crate::credentials::split(token) {
                state
                    .verified
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(key, (id.to_string(), m.name.clone()));
            }
            m
        }
    };
    state.rate.allow(&member.name)?;
    Ok(member)
}

/// Parses a JSON body, saying where it is malformed.
fn parse<T: for<'de> Deserialize<'de>>(
    body: std::result::Result<Bytes, BytesRejection>,
) -> Result<T> {
    let bytes = body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => {
            ServiceError::TooLarge(format!("the request is too large: {e}"))
        }
        _ => ServiceError::BadRequest(e.to_string()),
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ServiceError::BadRequest(format!("the request's JSON: {e}")))
}

/// A member's request: signed in with their credential, run off the async threads with one of
/// the pool's connections, answered as JSON, and logged under their name.
async fn signed_request<T: Serialize + Send + 'static>(
    state: Shared,
    headers: HeaderMap,
    work: impl FnOnce(&AppState, &Member, &mut Conn<'_>) -> Result<T> + Send + 'static,
) -> Response {
    let who = Arc::new(Mutex::new(None));
    let w = who.clone();
    let r = blocking(move || {
        let token = credential(&state, &headers)?;
        let mut db = state.pool.get()?;
        let m = signed_in(&state, &mut db, &token)?;
        *w.lock().unwrap_or_else(|p| p.into_inner()) = Some(m.name.clone());
        work(&state, &m, &mut db)
    })
    .await;
    let who = who.lock().unwrap_or_else(|p| p.into_inner()).clone();
    respond(who, r)
}

/// Runs `work` as `member` in one transaction of the team database, and commits it.
pub(crate) fn as_member_tx<T>(
    db: &mut postgres::Client,
    member: &Member,
    work: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<T>,
) -> Result<T> {
    let mut tx = db.transaction()?;
    as_member(&mut tx, member)?;
    let out = work(&mut tx)?;
    tx.commit()?;
    Ok(out)
}

async fn health(State(state): State<Shared>) -> Response {
    let r = blocking(move || {
        // Anyone may ask, so everyone's asks share one rate before a connection is taken.
        state.rate.allow("health, anyone")?;
        let mut db = state.pool.get()?;
        let schema: String = db
            .query_one("SELECT value FROM assay_meta WHERE key = 'schema'", &[])?
            .get(0);
        Ok(Health {
            status: "ok".into(),
            schema: schema.parse().unwrap_or(0),
        })
    })
    .await;
    respond(None, r)
}

async fn join(
    State(state): State<Shared>,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    let r = blocking(move || {
        let req: JoinRequest = parse(Ok(
            body.map_err(|e| ServiceError::BadRequest(e.to_string()))?
        ))?;
        let id = crate::credentials::split(&req.invitation)
            .map(|(id, _)| id.to_string())
            .unwrap_or_default();
        state.rate.allow(&format!("invitation {id}"))?;
        state.rate.allow("joins, any invitation")?;
        let mut db = state.pool.get()?;
        let (member, credential) = members::redeem(&mut db, &req.invitation)?;
        Ok(Joined {
            member: member.name,
            role: member.role.as_str().to_string(),
            credential,
        })
    })
    .await;
    respond(None, r)
}

async fn me(State(state): State<Shared>, headers: HeaderMap) -> Response {
    signed_request(state, headers, |_, m, _| {
        Ok(Me {
            name: m.name.clone(),
            role: m.role.as_str().to_string(),
        })
    })
    .await
}

#[derive(Deserialize)]
struct ItemsAfter {
    #[serde(default)]
    dataset: String,
    #[serde(default)]
    seq: Option<i64>,
}

/// The team's items with their originals, a page at a time in (dataset, seq) order.
async fn items(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(after): Query<ItemsAfter>,
) -> Response {
    signed_request(state, headers, move |_, m, db| {
        let after = after.seq.map(|seq| (after.dataset.clone(), seq));
        as_member_tx(db, m, |tx| {
            Ok(assay_sync::items_page(
                tx,
                after.as_ref().map(|(d, s)| (d.as_str(), *s)),
            )?)
        })
    })
    .await
}

async fn pull(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    signed_request(state, headers, move |_, m, db| {
        let req: PullRequest = parse(body)?;
        // One snapshot, as the member: row-level security hides what they may not read yet.
        // Ended whatever happens in it, a panic too: the connection goes back to the pool
        // outside the member's transaction.
        let page =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<PullPage> {
                crate::pool::begin_read_as_member(db, m)?;
                let members = assay_sync::pull::read_members(&mut **db)?
                    .into_iter()
                    .map(|(n, r)| (n, r.as_str().to_string()))
                    .collect();
                let mut page = assay_sync::pull::read_page(db, &req.positions)?;
                if let Some(p) = &mut page {
                    withhold_unreadable(m, &mut p.rows)?;
                }
                Ok(PullPage {
                    members,
                    last: page.as_ref().is_some_and(|p| p.last),
                    rows: page.map(|p| p.rows),
                })
            }));
        let ended = db.batch_execute(if matches!(page, Ok(Ok(_))) {
            "COMMIT"
        } else {
            "ROLLBACK"
        });
        let page = page.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // A connection whose transaction could not be ended is not given to the next request.
        if ended.is_err() {
            db.discard();
        }
        page
    })
    .await
}

/// The blind hold and private views, checked on each page before it is sent: a row the member
/// may not read (a colleague's judgement before every assignee's is in, a colleague's private
/// view) fails the whole pull, loudly, rather than reach them. The database's row-level
/// security hides such rows first; this holds if it ever does not. A row of those tables that
/// cannot be read shows nobody whose it is, so it goes out as its position alone.
fn withhold_unreadable(m: &Member, rows: &mut [assay_sync::pull::PulledRow]) -> Result<()> {
    use assay_sync::pull::Pulled;
    let log = |r: &assay_sync::pull::PulledRow, event: &str, why: &str| {
        eprintln!(
            "{}",
            serde_json::json!({"time": assay_core::store::now(), "event": event,
                               "member": m.name, "table": r.table, "seq": r.seq,
                               "uid": r.uid, "why": why})
        );
    };
    for r in rows.iter_mut() {
        let unreadable = match &r.row {
            Ok(Pulled::Blind(b)) => !b.readable_by(&m.name),
            Ok(Pulled::SavedView(v)) => !v.readable_by(&m.name),
            Err(why) if r.holds_reading() => {
                log(r, "row redacted", why);
                *r = r.withheld();
                false
            }
            _ => false,
        };
        if unreadable {
            log(
                r,
                "row withheld",
                "the database let through a row this member may not read; is row-level security on?",
            );
            return Err(ServiceError::Internal(
                "the team database returned a row you may not read; the service withheld the \
                 page (tell the team's owner: row-level security may be off)"
                    .into(),
            ));
        }
    }
    Ok(())
}

async fn push(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    signed_request(state, headers, move |state, m, db| {
        // Counted once the batch is one the service takes in: a malformed or oversized body
        // is refused without counting (the rate and the body's bound hold those).
        let sent = body.as_ref().map_or(0, Bytes::len);
        let pending: Pending = parse(body)?;
        state.limits.check_batch(&pending)?;
        state.limits.charge(db, &m.name, sent)?;
        // No connection is held while waiting for the replica: a queue of pushes must not
        // take every connection from the pulls.
        db.give_back();
        let Outcome {
            pushed: outcome,
            committed,
        } = push_groups::push(state, m, pending, sent);
        refund_unless(state, m, sent, committed, &outcome);
        outcome
    })
    .await
}

/// A request that failed before its write committed gives back what it was charged (a refusal
/// that says nothing was written must not count against the day's quota either).
fn refund_unless<T>(
    state: &AppState,
    m: &Member,
    sent: usize,
    committed: bool,
    outcome: &Result<T>,
) {
    if outcome.is_err() && !committed {
        let refunded = state
            .pool
            .get()
            .and_then(|mut db| state.limits.refund(&mut db, &m.name, sent));
        if let Err(e) = refunded {
            eprintln!(
                "{}",
                serde_json::json!({"time": assay_core::store::now(), "event": "refund failed",
                                   "member": m.name, "bytes": sent, "error": e.to_string()})
            );
        }
    }
}

async fn push_run(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    signed_request(state, headers, move |state, m, db| {
        let sent = body.as_ref().map_or(0, Bytes::len);
        let run: SyncRun = parse(body)?;
        state.limits.check_run(&run)?;
        let named = assay_sync::push::referenced_response_bytes(&mut **db, &m.name, &run)?;
        let charged = sent.saturating_add(usize::try_from(named).unwrap_or(usize::MAX));
        state.limits.charge(db, &m.name, charged)?;
        // No connection is held while waiting for the replica: a queue of pushes must not
        // take every connection from the pulls.
        db.give_back();
        let mut committed = false;
        let outcome = (|| {
            let mut replica = state.replica.lock().unwrap_or_else(|p| p.into_inner());
            let mut db = state.pool.get()?;
            replica.catch_up(&mut db)?;
            let outcome: RunOutcome = match replica.check_run(m, &run)? {
                Err(why) => (run.origin.clone(), run.finished_at.clone(), Err(why)),
                Ok(run) => {
                    let mut done = with_retries(|| {
                        as_member_tx(&mut db, m, |tx| {
                            Ok(assay_sync::push::write_runs(
                                tx,
                                std::slice::from_ref(&run),
                                Some(&m.name),
                            )?)
                        })
                    })?;
                    committed = true;
                    done.pop()
                        .ok_or_else(|| ServiceError::Internal("a run without an outcome".into()))?
                }
            };
            Ok(outcome)
        })();
        refund_unless(state, m, charged, committed, &outcome);
        outcome
    })
    .await
}

/// A write the team database ended to break a deadlock (with the owner's own sync) is tried
/// again, a few times.
pub(crate) fn with_retries<T>(work: impl FnMut() -> Result<T>) -> Result<T> {
    retrying(work, is_deadlock)
}

/// Runs `work` again, a few times and a little later each time, while its error is one `again`
/// says may pass.
pub(crate) fn retrying<T, E>(
    mut work: impl FnMut() -> std::result::Result<T, E>,
    again: impl Fn(&E) -> bool,
) -> std::result::Result<T, E> {
    let mut attempt = 0;
    loop {
        match work() {
            Err(e) if attempt < 4 && again(&e) => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(20 * attempt));
            }
            other => return other,
        }
    }
}

/// The team database ended the write to break a deadlock: nothing of it was written.
pub(crate) fn is_deadlock(e: &ServiceError) -> bool {
    matches!(e, ServiceError::Internal(why) if why.contains("deadlock"))
}

async fn image_list(State(state): State<Shared>, headers: HeaderMap) -> Response {
    signed_request(state, headers, |_, m, db| {
        as_member_tx(db, m, |tx| {
            Ok(tx
                .query("SELECT hash FROM images ORDER BY hash", &[])?
                .iter()
                .map(|r| r.get::<_, String>(0))
                .collect::<Vec<_>>())
        })
    })
    .await
}

async fn image(
    State(state): State<Shared>,
    headers: HeaderMap,
    Path(hash): Path<String>,
) -> Response {
    let r = blocking(move || {
        let token = credential(&state, &headers)?;
        let mut db = state.pool.get()?;
        let m = signed_in(&state, &mut db, &token)?;
        let bytes: Option<Vec<u8>> = as_member_tx(&mut db, &m, |tx| {
            Ok(tx
                .query_opt("SELECT bytes FROM images WHERE hash = $1", &[&hash])?
                .map(|r| r.get(0)))
        })?;
        Ok(bytes)
    })
    .await;
    match r {
        Ok(Some(bytes)) => {
            ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response()
        }
        Ok(None) => (
            StatusCode::NOT_FOUND,
            Json(serde_json::json!({"error": "the team has no such image"})),
        )
            .into_response(),
        Err(e) => e.into_response(),
    }
}

/// A member who manages the team's members, or a refusal that says so. `token` comes
/// through [`credential`].
fn lead(state: &AppState, db: &mut postgres::Client, token: &str) -> Result<Member> {
    let m = signed_in(state, db, token)?;
    if !m.lead {
        return Err(ServiceError::Forbidden(format!(
            "{} is not a lead of this team: only a lead (made by its owner) manages members",
            m.name
        )));
    }
    Ok(m)
}

/// A lead manages other members, never themselves or another lead (the owner's to manage).
fn not_a_lead_or_self(db: &mut postgres::Client, by: &Member, name: &str) -> Result<()> {
    if name == by.name {
        return Err(ServiceError::Forbidden(
            "a lead does not change their own role or access: ask the team's owner".into(),
        ));
    }
    let lead: Option<bool> = db
        .query_opt("SELECT lead FROM members WHERE name = $1", &[&name])?
        .map(|r| r.get(0));
    if lead == Some(true) {
        return Err(ServiceError::Forbidden(format!(
            "{name} is a lead: only the team's owner manages leads"
        )));
    }
    Ok(())
}

fn role_named(role: &str) -> Result<assay_core::Role> {
    assay_core::Role::parse(role).ok_or_else(|| {
        ServiceError::BadRequest(format!(
            "{role:?} is not a role (annotator, auditor or researcher)"
        ))
    })
}

/// The team's members, their roles and open invitations: for leads.
async fn member_list(State(state): State<Shared>, headers: HeaderMap) -> Response {
    let r = blocking(move || {
        let token = credential(&state, &headers)?;
        let mut db = state.pool.get()?;
        lead(&state, &mut db, &token)?;
        let list = members::list(&mut *db)?;
        Ok(list)
    })
    .await;
    respond(None, r)
}

async fn member_invite(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    let r = blocking(move || {
        let token = credential(&state, &headers)?;
        let mut db = state.pool.get()?;
        let by = lead(&state, &mut db, &token)?;
        let req: InviteRequest = parse(body)?;
        let role = role_named(&req.role)?;
        let days = req.days.unwrap_or(7);
        let code = members::invite_by_lead(
            &mut *db,
            &by.name,
            &req.name,
            role,
            std::time::Duration::from_secs(days.saturating_mul(86_400)),
        )?;
        log_event("invited", &by.name, &req.name);
        Ok(Invited {
            link: assay_sync::service::JoinLink {
                url: state.url.clone(),
                invitation: code,
                pin: state.pin.clone(),
            }
            .format(),
        })
    })
    .await;
    respond(None, r)
}

async fn member_role(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    let r = blocking(move || {
        let token = credential(&state, &headers)?;
        let mut db = state.pool.get()?;
        let by = lead(&state, &mut db, &token)?;
        let req: RoleRequest = parse(body)?;
        not_a_lead_or_self(&mut db, &by, &req.name)?;
        members::set_role(&mut *db, &req.name, role_named(&req.role)?)?;
        log_event("role", &by.name, &req.name);
        Ok(serde_json::json!({"name": req.name, "role": req.role}))
    })
    .await;
    respond(None, r)
}

async fn member_revoke(
    State(state): State<Shared>,
    headers: HeaderMap,
    body: std::result::Result<Bytes, BytesRejection>,
) -> Response {
    let r = blocking(move || {
        let token = credential(&state, &headers)?;
        let mut db = state.pool.get()?;
        let by = lead(&state, &mut db, &token)?;
        let req: RevokeRequest = parse(body)?;
        not_a_lead_or_self(&mut db, &by, &req.name)?;
        let credentials = members::revoke(&mut *db, &req.name)?;
        state.forget_credentials();
        log_event("revoked", &by.name, &req.name);
        Ok(Revoked { credentials })
    })
    .await;
    respond(None, r)
}

/// A line in the log for a change to the team's members: who did what to whom.
fn log_event(event: &str, by: &str, member: &str) {
    eprintln!(
        "{}",
        serde_json::json!({"time": assay_core::store::now(), "event": event, "by": by,
                           "member": member})
    );
}
