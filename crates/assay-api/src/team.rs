//! The app's side of team replicas: publish the open project, join a team as a new replica,
//! sync in the background (on its own connection, so browsing and editing never wait for it),
//! and the sync state people see. A typed password lives in the session's memory only.

use crate::types::ItemDetail;
use assay_core::store::Edit;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use crate::Session;
use assay_core::Project;
use assay_sync::SyncError;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TeamStatus {
    /// The team database (URL without password); None: a project of one.
    pub team: Option<String>,
    /// Local rows not in the team database yet.
    pub pending: i64,
    pub conflicts: i64,
    /// Local rows the team refused (row-level security): kept here, not pushed.
    pub refused: i64,
    pub last_sync: Option<String>,
    /// The last sync could not reach the database: work goes on locally.
    pub offline: bool,
    pub error: Option<String>,
    pub pushed: usize,
    pub pulled: usize,
}

impl From<SyncError> for ApiError {
    fn from(e: SyncError) -> Self {
        match e {
            SyncError::Core(c) => c.into(),
            SyncError::Offline(m) => ApiError::new("offline", m),
            SyncError::Invalid(m) => ApiError::new("invalid", m),
            SyncError::Tls(m) => ApiError::new("tls", m),
            e @ SyncError::Blocked(_) => ApiError::new("blocked", e.to_string()),
            SyncError::Service { status, message } => ApiError::new(
                if status == 401 || status == 403 {
                    "unauthorized"
                } else {
                    "team"
                },
                message,
            ),
            SyncError::Db(d) => ApiError::new(
                "team",
                d.as_db_error()
                    .map(|x| x.message().to_string())
                    .unwrap_or_else(|| d.to_string()),
            ),
        }
    }
}

fn status_of(p: &Project) -> ApiResult<TeamStatus> {
    let s = p.sync_status()?;
    Ok(TeamStatus {
        team: s.team,
        pending: s.pending,
        conflicts: s.conflicts,
        refused: s.refused,
        last_sync: s.last_sync,
        ..Default::default()
    })
}

pub fn team_status(project: &Path) -> ApiResult<TeamStatus> {
    status_of(&Project::open(project)?)
}

/// One sync of the project at `project`. Unreachable is not an error: the status says offline.
pub fn team_sync(project: &Path, password: Option<&str>) -> ApiResult<TeamStatus> {
    let mut p = Project::open(project)?;
    if p.sync_get("team")?.is_none() {
        return status_of(&p);
    }
    match assay_sync::sync_stored(&mut p, password) {
        Ok(r) => Ok(TeamStatus {
            pushed: r.pushed,
            pulled: r.pulled,
            ..status_of(&p)?
        }),
        Err(SyncError::Offline(m)) => Ok(TeamStatus {
            offline: true,
            error: Some(m),
            ..status_of(&p)?
        }),
        Err(e) => Err(e.into()),
    }
}

/// The one connection image fetches share: requests wait their turn on the lock (the queue), so
/// a page of thumbnails opens one session, not one per image.
static IMAGE_SOURCE: std::sync::Mutex<Option<assay_sync::ImageSource>> =
    std::sync::Mutex::new(None);

/// Fetches an image of a team replica on first view; false when the project is not in a team
/// or the team has no such image.
pub fn fetch_image(project: &Path, hash: &str, password: Option<&str>) -> ApiResult<bool> {
    let mut p = Project::open(project)?;
    let Some(url) = p.sync_get("team")? else {
        return Ok(false);
    };
    let mut source = IMAGE_SOURCE.lock().unwrap_or_else(|e| e.into_inner());
    let s = match &mut *source {
        Some(s) if s.serves(&url) => s,
        slot => slot.insert(assay_sync::ImageSource::new(&url, password)),
    };
    Ok(s.fetch(&mut p, hash)?)
}

/// Publishes the project at `project` to an empty database (`url` as its owner).
pub fn team_publish(project: &Path, url: &str, password: Option<&str>) -> ApiResult<TeamStatus> {
    let mut p = Project::open(project)?;
    let url = with_password(url, password)?;
    let r = assay_sync::init(&url, &mut p)?;
    Ok(TeamStatus {
        pushed: r.pushed,
        ..status_of(&p)?
    })
}

/// A member of the team as its lead sees them in the Team view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TeamMember {
    pub name: String,
    pub role: assay_core::Role,
    /// Manages the team's members (made so by the owner).
    pub lead: bool,
    /// Credentials not revoked.
    pub active: u32,
    /// Invitations not used and not expired.
    pub invited: u32,
}

fn keyring() -> ApiResult<std::path::PathBuf> {
    Ok(assay_sync::service::Keyring::default_path()?)
}

/// The team's members, for a lead of a team service (refused for anyone else, by the service).
pub fn team_members(project: &Path) -> ApiResult<Vec<TeamMember>> {
    let p = Project::open(project)?;
    Ok(assay_sync::service::members(&p, &keyring()?)?
        .into_iter()
        .map(|m| TeamMember {
            role: assay_core::Role::parse(&m.role).unwrap_or(assay_core::Role::Annotator),
            name: m.name,
            lead: m.lead,
            active: m.active.clamp(0, u32::MAX as i64) as u32,
            invited: m.invited.clamp(0, u32::MAX as i64) as u32,
        })
        .collect())
}

/// A lead's invitation: the one-time join link to hand over.
pub fn team_invite(
    project: &Path,
    name: &str,
    role: assay_core::Role,
    days: Option<u32>,
) -> ApiResult<String> {
    let p = Project::open(project)?;
    Ok(assay_sync::service::invite(
        &p,
        &keyring()?,
        name,
        role,
        days.map(u64::from),
    )?)
}

pub fn team_set_role(project: &Path, name: &str, role: assay_core::Role) -> ApiResult<()> {
    let p = Project::open(project)?;
    Ok(assay_sync::service::set_role(&p, &keyring()?, name, role)?)
}

/// Ends a member's access: how many credentials were revoked.
pub fn team_revoke(project: &Path, name: &str) -> ApiResult<u32> {
    let p = Project::open(project)?;
    Ok(assay_sync::service::revoke(&p, &keyring()?, name)?.min(u32::MAX as u64) as u32)
}

/// Makes a new replica at `file` from a join link of the team service (`assay-join:…`, the
/// credential kept in the person's keyring), or from a team database of the earlier design.
pub fn team_join(url: &str, password: Option<&str>, file: &Path) -> ApiResult<()> {
    if file.exists() {
        return Err(ApiError::new(
            "invalid",
            format!("{} exists: join into a new file", file.display()),
        ));
    }
    if url.trim_start().starts_with("assay-join:") {
        let ring = assay_sync::service::Keyring::default_path()?;
        assay_sync::service::join_service(url.trim(), file, &ring)?;
        return Ok(());
    }
    assay_sync::join_with(url, password, file)?;
    Ok(())
}

fn with_password(url: &str, password: Option<&str>) -> ApiResult<String> {
    let Some(pw) = password.filter(|p| !p.is_empty()) else {
        return Ok(url.to_string());
    };
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| ApiError::new("invalid", "a PostgreSQL URL starts with postgres://"))?;
    let (creds, host) = rest
        .split_once('@')
        .ok_or_else(|| ApiError::new("invalid", "the URL needs a user: postgres://user@host/db"))?;
    let user = creds.split(':').next().unwrap_or(creds);
    let enc: String = pw
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    Ok(format!("{scheme}://{user}:{enc}@{host}"))
}

impl Session {
    pub fn sync_conflicts(&self) -> ApiResult<Vec<assay_core::store::team::sync::SyncConflict>> {
        Ok(self.project()?.sync_conflicts()?)
    }

    pub fn conflict_sides(
        &self,
        id: i64,
    ) -> ApiResult<Option<assay_core::store::team::sync::ConflictSides>> {
        Ok(self.project()?.conflict_sides(id)?)
    }

    /// Resolves an item's sync conflict with one side or a per-field merge, as a new revision.
    pub fn resolve_sync_conflict(&mut self, id: i64, edit: Edit) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?
            .resolve_conflict_with(id, &edit, &author)?;
        self.item_detail(id)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_typed_password_is_encoded_into_the_url() {
        assert_eq!(
            super::with_password("postgres://aiko@db:5432/team", Some("p@ss:w/rd")).unwrap(),
            "postgres://aiko:p%40ss%3Aw%2Frd@db:5432/team"
        );
        assert_eq!(
            super::with_password("postgres://aiko@db/team", None).unwrap(),
            "postgres://aiko@db/team"
        );
    }
}
