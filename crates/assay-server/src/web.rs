//! The team page in a browser, for a team's leads without the app: progress per person and round,
//! agreement on the refinement operation, where items stand (waiting for review or sign-off),
//! and the latest before/after table. Read-only, from the service's replica, behind the same
//! member credential as the app (a session cookie: HttpOnly, Secure, SameSite=Strict, eight
//! hours). Every text from the team is escaped; the page runs no script.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Form;

use crate::api::AppState;
use crate::error::{Result, ServiceError};
use crate::members;

const SESSION_COOKIE: &str = "assay_team";
const SESSION_HOURS: u64 = 8;

/// Browser sessions: cookie value -> (credential ID, when it ends).
#[derive(Default)]
pub struct Sessions {
    open: Mutex<HashMap<String, (String, Instant)>>,
}

impl Sessions {
    fn start(&self, credential_id: &str) -> String {
        let (token, _, _) = crate::credentials::issue();
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        open.retain(|_, (_, until)| *until > now);
        open.insert(
            token.clone(),
            (
                credential_id.to_string(),
                now + Duration::from_secs(SESSION_HOURS * 3600),
            ),
        );
        token
    }

    fn credential(&self, token: &str) -> Option<String> {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.get(token)
            .filter(|(_, until)| *until > Instant::now())
            .map(|(id, _)| id.clone())
    }

    fn end(&self, token: &str) {
        self.open
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(token);
    }
}

/// Text from the team, safe in HTML text and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == SESSION_COOKIE)
        .map(|(_, v)| v.to_string())
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>",
        esc(title)
    );
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
            ),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        html,
    )
        .into_response()
}

const STYLE: &str =
    "body{font-family:system-ui,sans-serif;margin:1.5rem;color:#1b1b1b;background:#fff}\
main{max-width:70rem}table{border-collapse:collapse;margin:.4rem 0 1.2rem}\
th,td{border-bottom:1px solid #ccc;padding:.3rem .7rem;text-align:left}\
th{background:#f1f1f1}.muted{color:#555}label{display:block;margin:.6rem 0}\
input{font:inherit;padding:.3rem;min-width:24rem}button{font:inherit;padding:.3rem .9rem}\
.error{color:#a00000}";

fn login_page(status: StatusCode, error: Option<&str>) -> Response {
    let error = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", esc(e)))
        .unwrap_or_default();
    page(
        status,
        "Assay team: sign in",
        &format!(
            "<h1>Assay team</h1>{error}\
             <form method=\"post\" action=\"/team/login\">\
             <label for=\"credential\">Your team credential (from your keyring file,\
             <code>teams.json</code>)</label>\
             <input id=\"credential\" name=\"credential\" type=\"password\" autocomplete=\"current-password\" required>\
             <p><button type=\"submit\">Sign in</button></p></form>"
        ),
    )
}

#[derive(serde::Deserialize)]
pub struct Login {
    credential: String,
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ServiceError::Internal(format!("a request's task failed: {e}")))?
}

pub async fn login(State(state): State<Arc<AppState>>, Form(form): Form<Login>) -> Response {
    let r = blocking(move || {
        // Counted before a pool connection or an argon2 check is spent on the attempt.
        let (id, _) = crate::credentials::split(&form.credential).ok_or_else(|| {
            ServiceError::Unauthorized("this credential is not one of this team's".into())
        })?;
        state.rate.allow(&format!("sign-in {id}"))?;
        state.rate.allow(crate::api::SIGN_INS)?;
        let mut db = state.pool.get()?;
        let m = members::authenticate(&mut *db, &form.credential)?;
        if !m.lead {
            return Err(ServiceError::Unauthorized(format!(
                "{} is not a lead of this team: the team page is for its leads",
                m.name
            )));
        }
        let (id, _) = crate::credentials::split(&form.credential)
            .ok_or_else(|| ServiceError::Unauthorized("not a credential".into()))?;
        Ok(state.sessions.start(id))
    })
    .await;
    match r {
        Ok(token) => (
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, "/team".to_string()),
                (
                    header::SET_COOKIE,
                    format!(
                        "{SESSION_COOKIE}={token}; Path=/team; HttpOnly; Secure; SameSite=Strict; Max-Age={}",
                        SESSION_HOURS * 3600
                    ),
                ),
            ],
        )
            .into_response(),
        Err(e @ ServiceError::Unauthorized(_)) => {
            login_page(StatusCode::UNAUTHORIZED, Some(&e.to_string()))
        }
        Err(e) => login_page(e.status(), Some(&e.to_string())),
    }
}

pub async fn logout(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if let Some(t) = cookie(&headers) {
        state.sessions.end(&t);
    }
    (
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, "/team".to_string()),
            (
                header::SET_COOKIE,
                format!(
                    "{SESSION_COOKIE}=; Path=/team; HttpOnly; Secure; SameSite=Strict; Max-Age=0"
                ),
            ),
        ],
    )
        .into_response()
}

pub async fn team(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let Some(token) = cookie(&headers) else {
        return login_page(StatusCode::OK, None);
    };
    let r = blocking(move || {
        let id = state.sessions.credential(&token).ok_or_else(|| {
            ServiceError::Unauthorized("your session ended: sign in again".into())
        })?;
        let mut db = state.pool.get()?;
        let (_, member) = members::member_of_credential(&mut *db, &id)?
            .ok_or_else(|| ServiceError::Unauthorized("sign in again".into()))?;
        // The page is the leads' (it reads the whole team under the replica's lock), and
        // counted against their rate like any request.
        if !member.lead {
            return Err(ServiceError::Unauthorized(format!(
                "{} is not a lead of this team: the team page is for its leads",
                member.name
            )));
        }
        state.rate.allow(&member.name)?;
        let mut replica = state.replica.lock().unwrap_or_else(|p| p.into_inner());
        replica.catch_up(&mut db)?;
        db.give_back();
        render(replica.project(), &member.name)
    })
    .await;
    match r {
        Ok(html) => page(StatusCode::OK, "Assay team", &html),
        Err(e @ ServiceError::Unauthorized(_)) => {
            login_page(StatusCode::UNAUTHORIZED, Some(&e.to_string()))
        }
        Err(e) => page(
            e.status(),
            "Assay team",
            &format!(
                "<h1>Assay team</h1><p class=\"error\" role=\"alert\">{}</p>",
                esc(&e.to_string())
            ),
        ),
    }
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".into(), |v| format!("{v:.3}"))
}

/// The page's body, from the replica's own read functions (the ones the app's views use).
fn render(p: &assay_core::Project, me: &str) -> Result<String> {
    let mut h = String::new();
    let _ = write!(
        h,
        "<h1>Assay team</h1><p class=\"muted\">Signed in as {}. Read-only; as of the team's latest sync.</p>\
         <form method=\"post\" action=\"/team/logout\"><button type=\"submit\">Sign out</button></form>",
        esc(me)
    );

    let summary = p.summary()?;
    h.push_str("<h2>Where items stand</h2><table><thead><tr><th scope=\"col\">Dataset</th><th scope=\"col\">Items</th><th scope=\"col\">To do</th><th scope=\"col\">Waiting for review (edited)</th><th scope=\"col\">Approved (waiting for sign-off or signed off)</th><th scope=\"col\">Flagged</th></tr></thead><tbody>");
    for d in &summary.datasets {
        let n = |s: &str| {
            d.statuses
                .iter()
                .find(|(k, _)| k == s)
                .map_or(0, |(_, c)| *c)
        };
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&d.dataset),
            d.items,
            n("todo"),
            n("edited"),
            n("approved"),
            n("flagged")
        );
    }
    h.push_str("</tbody></table>");

    h.push_str("<h2>People</h2><table><thead><tr><th scope=\"col\">Person</th><th scope=\"col\">Role</th><th scope=\"col\">Items edited</th><th scope=\"col\">Revisions</th><th scope=\"col\">Approved</th><th scope=\"col\">Sent back</th><th scope=\"col\">Reviews</th><th scope=\"col\">Sign-offs</th></tr></thead><tbody>");
    for s in p.people_stats()? {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.name),
            s.role.as_str(),
            s.items_edited,
            s.revisions,
            s.approved,
            s.sent_back,
            s.reviews,
            s.signoffs
        );
    }
    h.push_str("</tbody></table>");

    let rounds = p.rounds()?;
    h.push_str("<h2>Rounds</h2>");
    if rounds.is_empty() {
        h.push_str("<p class=\"muted\">No rounds yet: an auditor makes one in the app's Team view (or <code>assay round create</code>).</p>");
    }
    for r in &rounds {
        let _ = write!(
            h,
            "<h3>{}</h3><p class=\"muted\">{} items, {} of them with two or more people{}; led by {}</p>\
             <table><thead><tr><th scope=\"col\">Person</th><th scope=\"col\">Done</th><th scope=\"col\">Assigned</th><th scope=\"col\">Approved</th><th scope=\"col\">Sent back</th></tr></thead><tbody>",
            esc(&r.name),
            r.items,
            r.overlapping,
            if r.blind { ", blind" } else { "" },
            esc(&r.created_by)
        );
        for a in &r.people {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&a.name),
                a.done,
                a.assigned,
                a.approved,
                a.sent_back
            );
        }
        h.push_str("</tbody></table>");
    }

    h.push_str("<h2>Agreement on the refinement operation</h2>");
    let ag = p.agreement(assay_core::store::AgreementField::Op, None, None)?;
    if ag.items == 0 {
        h.push_str("<p class=\"muted\">No item has been refined by two people yet: a round with overlap deals items to several.</p>");
    } else {
        let _ = write!(
            h,
            "<table><thead><tr><th scope=\"col\">Items rated by two or more</th><th scope=\"col\">People</th><th scope=\"col\">Fleiss' kappa</th><th scope=\"col\">Krippendorff's alpha</th></tr></thead>\
             <tbody><tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr></tbody></table>",
            ag.items,
            esc(&ag.people.join(", ")),
            opt(ag.fleiss_kappa),
            opt(ag.krippendorff_alpha)
        );
    }

    h.push_str("<h2>Before and after refinement</h2>");
    let datasets: Vec<String> = p.datasets()?.into_iter().map(|d| d.name).collect();
    let rows = assay_eval::table::before_after_table(
        p,
        &datasets,
        assay_eval::prompt::Variant::Original,
        &assay_eval::table::TableOptions {
            bootstrap: 0,
            ..Default::default()
        },
    )
    .map_err(|e| ServiceError::Internal(e.to_string()))?;
    if rows.is_empty() {
        h.push_str("<p class=\"muted\">No model has complete runs on both the original and the edited set yet: run one from the app's Evaluation view (or <code>assay run</code>) on both.</p>");
    } else {
        h.push_str("<table><thead><tr><th scope=\"col\">Dataset</th><th scope=\"col\">Scorer</th><th scope=\"col\">Models</th><th scope=\"col\">Accuracy before</th><th scope=\"col\">Accuracy after</th><th scope=\"col\">Change</th></tr></thead><tbody>");
        for r in &rows {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:+.1} points</td></tr>",
                esc(&r.dataset),
                esc(&r.protocol.scorer),
                r.models,
                pct(r.before.accuracy),
                pct(r.after.accuracy),
                r.delta_accuracy * 100.0
            );
        }
        h.push_str("</tbody></table>");
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    #[test]
    fn team_text_cannot_become_markup() {
        assert_eq!(
            super::esc("<img src=x onerror=\"a()\">&'"),
            "&lt;img src=x onerror=&quot;a()&quot;&gt;&amp;&#39;"
        );
    }
}
