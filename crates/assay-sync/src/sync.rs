//! One sync of a replica: push what is new here, then pull what is new there.

use assay_core::Project;

use crate::connect::{connect_with, is_deadlock, is_lock_timeout, lock_holders};
use crate::pull::pull;
use crate::push::{push_batch, push_runs, RunOutcome};
use crate::{Result, SyncError};

/// What a sync did.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct SyncReport {
    pub pushed: usize,
    /// Local rows the team refused (kept here, listed by `Project::refused_rows`).
    pub refused: usize,
    pub pulled: usize,
    pub conflicts: usize,
}

/// Pushes what is new here, then pulls what is new there. Safe to kill and run again.
pub fn sync(url: &str, project: &mut Project) -> Result<SyncReport> {
    sync_with(url, None, project)
}

pub fn sync_with(url: &str, password: Option<&str>, project: &mut Project) -> Result<SyncReport> {
    let mut db = connect_with(url, password)?;
    crate::schema::require_current(&mut db)?;
    // Who this replica is to the team (a member's login; none for the owner), for the rules
    // the store applies locally (a run another member published is theirs to rescore).
    let me: Option<String> = db.query_one("SELECT assay_me()", &[])?.get(0);
    if let Some(me) = &me {
        project.sync_set("member", me)?;
    }
    let conflicts_before = project.open_conflict_count()?;
    let mut report = SyncReport::default();
    let mut pushed = push_all(&mut db, project, &mut report);
    // Two members writing the same items in opposite orders can deadlock on the items' locks;
    // PostgreSQL ends one of the two transactions, whose batch is simply pushed again.
    for attempt in 1..=5u64 {
        match &pushed {
            Err(SyncError::Db(e)) if is_deadlock(e) => {
                std::thread::sleep(std::time::Duration::from_millis(20 * attempt));
                pushed = push_all(&mut db, project, &mut report);
            }
            _ => break,
        }
    }
    // A member who took the push lock and left their transaction idle loses that session (the
    // team's assay_break_stale_lock), and the push is tried once more.
    if matches!(&pushed, Err(SyncError::Db(e)) if is_lock_timeout(e)) {
        let broken: String = db
            .query_one("SELECT assay_break_stale_lock($1)", &[&stale_lock_secs()])?
            .get(0);
        if !broken.is_empty() {
            pushed = push_all(&mut db, project, &mut report);
        }
    }
    // Someone holding the push lock blocks pushing, never pulling: take the team's rows anyway
    // and say who holds it.
    let blocked = match pushed {
        Err(SyncError::Db(e)) if is_lock_timeout(&e) => Some(lock_holders(&mut db)),
        other => {
            other?;
            None
        }
    };
    report.pulled = pull(&mut db, project)?;
    report.conflicts = (project.open_conflict_count()? - conflicts_before).max(0) as usize;
    if let Some(holder) = blocked {
        return Err(SyncError::Blocked(holder));
    }
    project.sync_set("last_sync", &assay_core::store::now())?;
    Ok(report)
}

/// How long a member's idle transaction may hold the push lock before a blocked pusher ends it
/// (`ASSAY_TEAM_STALE_LOCK_SECS`, default 30).
fn stale_lock_secs() -> i32 {
    std::env::var("ASSAY_TEAM_STALE_LOCK_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

fn push_all(
    db: &mut postgres::Client,
    project: &mut Project,
    report: &mut SyncReport,
) -> Result<()> {
    let me: Option<String> = db.query_one("SELECT assay_me()", &[])?.get(0);
    loop {
        let mut tx = db.transaction()?;
        let batch = push_batch(&mut tx, project)?;
        tx.commit()?;
        if batch.is_empty() {
            break;
        }
        report.pushed += batch.done.len();
        report.refused += batch.refused.len();
        project.mark_pushed(&batch.done)?;
        project.mark_refused(&batch.refused)?;
    }
    let mut tx = db.transaction()?;
    let runs = push_runs(&mut tx, project, me.as_deref())?;
    tx.commit()?;
    let taken = mark_runs(project, &runs, me.as_deref())?;
    report.pushed += taken;
    report.refused += runs.len() - taken;
    Ok(())
}

/// Marks the run snapshots the team took, and sets aside the ones it refused; returns how many
/// it took.
pub(crate) fn mark_runs(
    project: &mut Project,
    runs: &[RunOutcome],
    me: Option<&str>,
) -> Result<usize> {
    let mut taken = 0;
    for (origin, finished_at, outcome) in runs {
        match outcome {
            Ok(seq) => {
                project.mark_run_pushed(origin, finished_at, *seq, me)?;
                taken += 1;
            }
            Err(why) => project.mark_run_refused(origin, finished_at, why)?,
        }
    }
    Ok(taken)
}

/// Syncs with the team database the project was published to or joined from.
pub fn sync_stored(project: &mut Project, password: Option<&str>) -> Result<SyncReport> {
    let url = team_url(project)?;
    if crate::service::is_service_url(&url) {
        return crate::service::sync_service(project, &crate::service::Keyring::default_path()?);
    }
    sync_with(&url, password, project)
}

/// The team database this replica was published to or joined from (stored without password).
pub(crate) fn team_url(project: &Project) -> Result<String> {
    project.sync_get("team")?.ok_or_else(|| {
        SyncError::Invalid("this project is not part of a team (assay team init / join)".into())
    })
}
