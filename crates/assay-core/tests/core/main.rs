//! Integration tests of assay-core; modules mirror src/.

mod common;
mod export;
mod formats;
mod import;
mod query;
mod revisions;
mod stats;
