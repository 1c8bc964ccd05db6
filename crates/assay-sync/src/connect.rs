//! Connecting to the team database: the password from the URL, the app or the environment
//! (never stored), TLS when asked, and bounds on every wait so a stalled server or a member
//! holding a lock cannot hang a replica.

use std::time::Duration;

use postgres::{Client, NoTls};

use crate::{Result, SyncError};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Milliseconds a statement may run, and a lock may be waited for (`ASSAY_TEAM_LOCK_TIMEOUT_MS`
/// overrides the second, for tests and slow links).
const STATEMENT_TIMEOUT_MS: u64 = 120_000;
const LOCK_TIMEOUT_MS: u64 = 10_000;

fn lock_timeout_ms() -> u64 {
    std::env::var("ASSAY_TEAM_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(LOCK_TIMEOUT_MS)
}

/// Connects with the URL's password, or else `ASSAY_TEAM_PASSWORD`, or else libpq's
/// `PGPASSWORD`: the project file keeps the URL without it.
pub fn connect(url: &str) -> Result<Client> {
    connect_with(url, None)
}

/// Connects with `password` when the URL has none (the app keeps a typed password in memory).
/// `sslmode=require|verify-ca|verify-full` (with `sslrootcert=FILE`, or `ASSAY_TEAM_CA`) connects
/// over TLS and always verifies the server's chain and host name, i.e. verify-full.
pub(crate) fn connect_with(url: &str, password: Option<&str>) -> Result<Client> {
    let (plain, tls) = crate::tls::split(url)?;
    let mut config: postgres::Config = plain
        .parse()
        .map_err(|e| SyncError::Invalid(format!("{}: {e}", redact(url))))?;
    if let (None, Some(pw)) = (config.get_password(), password) {
        config.password(pw);
    }
    if config.get_password().is_none() {
        if let Some(pw) = ["ASSAY_TEAM_PASSWORD", "PGPASSWORD"]
            .iter()
            .find_map(|k| std::env::var(k).ok())
        {
            config.password(pw);
        }
    }
    config.connect_timeout(CONNECT_TIMEOUT);
    config.keepalives(true);
    config.keepalives_idle(Duration::from_secs(30));
    let connected = match tls {
        Some(tls) => {
            config.ssl_mode(postgres::config::SslMode::Require);
            config.connect(tls)
        }
        None => config.connect(NoTls),
    };
    let mut db = connected.map_err(|e| crate::tls::classify(e, url))?;
    db.batch_execute(&format!(
        "SET statement_timeout = {STATEMENT_TIMEOUT_MS}; SET lock_timeout = {};
         SET idle_in_transaction_session_timeout = {STATEMENT_TIMEOUT_MS}",
        lock_timeout_ms()
    ))?;
    Ok(db)
}

/// Connects and tells whether the session is encrypted (the app's "test connection").
pub fn check_connection(url: &str, password: Option<&str>) -> Result<bool> {
    let mut db = connect_with(url, password)?;
    Ok(db
        .query_one(
            "SELECT coalesce((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)",
            &[],
        )?
        .get(0))
}

/// The URL without any password (in the user part or as a `password=` parameter, in URL or
/// key=value form), for showing and storing in the project file.
pub fn redact(url: &str) -> String {
    let Some(scheme) = url.find("://") else {
        // libpq's key=value form.
        return url
            .split_whitespace()
            .filter(|kv| !kv.to_ascii_lowercase().starts_with("password="))
            .collect::<Vec<_>>()
            .join(" ");
    };
    let (main, query) = match url.split_once('?') {
        Some((m, q)) => (m, Some(q)),
        None => (url, None),
    };
    let mut out = match main.rfind('@') {
        Some(at) if at > scheme => {
            let creds = &main[scheme + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}{}", &main[..scheme + 3], &main[at..]),
                None => main.to_string(),
            }
        }
        _ => main.to_string(),
    };
    if let Some(q) = query {
        let kept: Vec<&str> = q
            .split('&')
            .filter(|kv| !kv.is_empty() && !kv.to_ascii_lowercase().starts_with("password="))
            .collect();
        if !kept.is_empty() {
            out.push('?');
            out.push_str(&kept.join("&"));
        }
    }
    out
}

/// Whether an error is the lock wait running out (someone holds a lock this session needs).
pub(crate) fn is_lock_timeout(e: &postgres::Error) -> bool {
    e.code() == Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE)
}

/// Whether PostgreSQL ended this transaction to break a deadlock (or a serialization failure):
/// the transaction is to be tried again.
pub(crate) fn is_deadlock(e: &postgres::Error) -> bool {
    use postgres::error::SqlState;
    e.code().is_some_and(|c| {
        *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE
    })
}

/// Who holds the team's locks (the team lock, an item's, the commit lock): the member behind
/// each session that has one, those idle in their transaction first (the likely reason a push
/// waited), else every holder.
pub fn lock_holders(db: &mut Client) -> String {
    let who = db.query(
        "WITH h AS (
             SELECT DISTINCT coalesce(m.name, a.usename::text, 'an unknown session') AS who,
                    a.pid, coalesce(to_char(a.xact_start, 'YYYY-MM-DD HH24:MI:SS'), '?') AS since,
                    a.state LIKE 'idle%' AS idle
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             LEFT JOIN members m ON m.db_role = a.usename::text
             WHERE l.locktype = 'advisory' AND l.granted AND a.pid <> pg_backend_pid()
               AND ((l.objsubid = 1 AND l.objid IN (7412, 7414))
                    OR (l.objsubid = 2 AND l.classid IN (7413, 7415))))
         SELECT who, pid, since FROM h WHERE idle OR NOT EXISTS (SELECT 1 FROM h WHERE idle)
         ORDER BY pid",
        &[],
    );
    match who {
        Ok(rows) if !rows.is_empty() => rows
            .iter()
            .map(|r| {
                format!(
                    "{} (session {}, since {})",
                    r.get::<_, String>(0),
                    r.get::<_, i32>(1),
                    r.get::<_, String>(2)
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        _ => "another session".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_never_reach_the_project_file() {
        assert_eq!(
            redact("postgres://aiko:s3cret@db.example:5432/team"),
            "postgres://aiko@db.example:5432/team"
        );
        assert_eq!(redact("postgres://db/team"), "postgres://db/team");
        assert_eq!(
            redact("postgres://aiko@db/team?password=s3cret&sslmode=require"),
            "postgres://aiko@db/team?sslmode=require"
        );
        assert_eq!(
            redact("postgresql://aiko@db/team?PASSWORD=s3cret"),
            "postgresql://aiko@db/team"
        );
        assert_eq!(
            redact("host=db user=aiko password=s3cret dbname=team"),
            "host=db user=aiko dbname=team"
        );
        for url in [
            "postgres://a:s3cret@db/t?password=s3cret",
            "postgres://a@db/t?sslmode=require&password=s3cret&x=1",
        ] {
            assert!(!redact(url).contains("s3cret"), "{url}");
        }
    }
}
