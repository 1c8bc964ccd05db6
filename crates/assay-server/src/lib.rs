//! The team service, `assay serve`: the only holder of the team database's login (the owner's).
//! Members sign in with a credential they got from a one-time invitation and sync their local
//! replicas through it over HTTPS; every row they push is checked by the same write path that
//! checks a local edit and a pulled row (`checks`), on the service's own replica of the team,
//! and stored in its canonical form. docs/SECURITY.md says which rule lives where.

pub mod api;
pub mod cert;
pub mod checks;
pub mod credentials;
pub mod error;
pub mod limits;
pub mod members;
pub mod pool;
pub mod push_groups;
pub mod serve;
pub mod web;

pub use error::ServiceError;
pub use serve::{start, Config, Running};
