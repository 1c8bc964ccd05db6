//! Team replicas: each person's project file is a full local replica that exchanges its
//! append-only rows (revisions, review decisions, sign-offs, comments, rounds, run snapshots)
//! with one PostgreSQL database. PostgreSQL decides who may write what (row-level security and
//! triggers, `migrations/postgres/`); a replica takes nothing it pulls on trust either (rows it
//! cannot accept are set aside). A sync pushes what is new locally and pulls what is new there,
//! and can be killed and run again at any point: rows are recognised by their global uid.
//! docs/SECURITY.md says which rule lives where.

pub mod cluster;
mod connect;
mod images;
mod join;
mod members;
mod publish;
pub mod pull;
pub mod push;
mod schema;
pub mod service;
mod sync;
mod tls;

pub use connect::{check_connection, connect as connect_admin, lock_holders, redact};
pub use images::{fetch_image, fetch_images, fetch_images_at, FetchReport, ImageSource};
pub use join::{items_page, join, join_with};
pub use members::add_member;
pub use publish::init;
pub use schema::{
    fill_content_bytes, finish_size_fill, require_current as require_current_schema, upgrade,
    upgrade_to, SCHEMA as TEAM_SCHEMA,
};
pub use sync::{sync, sync_stored, sync_with, SyncReport};

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
    /// Someone holds the team's push lock longer than this replica waits: nothing was pushed.
    #[error("the team's push lock is held by {0}; nothing was pushed (try again later)")]
    Blocked(String),
    /// The team service refused a request (its status and its reason).
    #[error("the team service refused ({status}): {message}")]
    Service { status: u16, message: String },
}

pub type Result<T> = std::result::Result<T, SyncError>;
