//! Integration tests of assay-core; modules mirror src/.

mod common;
mod export;
mod import;
mod query;
mod revisions;
mod stats;
