//! Integration tests of assay-core; modules mirror src/.

mod blind;
mod bulk;
mod common;
mod export;
mod facet_columns;
mod filtering;
mod formats;
mod grounding;
mod import;
mod import_preview;
mod judge_ratings;
mod packed;
mod query;
mod replica_join;
mod review;
mod revisions;
mod stats;
mod users;
mod write_path;
