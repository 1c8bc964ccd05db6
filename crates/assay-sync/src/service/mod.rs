//! A replica's side of the team service (`assay serve`): joining with a one-time invitation,
//! syncing through the service, and fetching images from it. The service's certificate is
//! pinned at join and the member's credential kept in the person's own keyring file, never in
//! the project file: a project file handed over by someone else that names another server, or
//! the same server with another certificate, is refused, and no credential is sent to it.

mod client;
mod keyring;
mod link;
mod sync;
pub mod wire;

pub use client::ServiceClient;
pub use keyring::{Keyring, KeyringEntry};
pub use link::JoinLink;
pub use sync::{
    fetch_image, fetch_images, invite, join_service, members, revoke, set_role, sync_service,
};

/// Whether a team address is a team service's (else it is a database URL of the earlier design).
pub fn is_service_url(url: &str) -> bool {
    url.starts_with("https://")
}
