//! Team replicas: each person's project file is a full local replica that exchanges its
//! append-only rows (revisions, review decisions, sign-offs) with one PostgreSQL database.
//! PostgreSQL decides who may write what (row-level security, `migrations/postgres/`); a sync
//! pushes what is new locally and pulls what is new there, and can be killed and run again at any
//! point: rows are recognised by their global uid, so nothing is lost or doubled.

pub mod cluster;
mod team;
mod tls;

pub use team::{
    add_member, check_connection, fetch_image, fetch_images, fetch_images_at, init, join,
    join_with, sync, sync_stored, sync_with, SyncReport,
};

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error("team database: {0}")]
    Db(#[from] postgres::Error),
    #[error(transparent)]
    Core(#[from] assay_core::Error),
    #[error("{0}")]
    Invalid(String),
    /// The server's certificate is not trusted for this host (TLS).
    #[error("TLS: {0}")]
    Tls(String),
    /// The team database cannot be reached: work goes on locally and syncs later.
    #[error("offline: {0}")]
    Offline(String),
}

pub type Result<T> = std::result::Result<T, SyncError>;

/// The URL without its password, for showing and storing in the project file.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_never_reach_the_project_file() {
        assert_eq!(
            super::redact("postgres://aiko:s3cret@db.example:5432/team"),
            "postgres://aiko@db.example:5432/team"
        );
        assert_eq!(super::redact("postgres://db/team"), "postgres://db/team");
    }
}
