//! Evaluation commands: models and templates, runs, recorded predictions, tables, panels and
//! people's ratings of a judge.

pub mod judge_ratings;
pub mod models;
pub mod predictions;
pub mod runs;
pub mod tables;

pub use models::*;
pub use predictions::*;
pub use runs::*;
pub use tables::*;
