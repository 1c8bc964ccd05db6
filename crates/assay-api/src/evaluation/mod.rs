//! Evaluation in the app: models, a background run with live progress, and the before/after
//! table. The engine is assay-eval's, the same one the CLI runs; this module only shapes its
//! inputs and outputs for the window and keeps the state of the run in progress.

pub mod dashboard;
pub mod models;
pub mod panel;
pub mod predictions;
pub mod runs;
pub mod stage_table;
pub mod templates;

pub use dashboard::*;
pub use models::*;
pub use panel::*;
pub use predictions::*;
pub use runs::*;
pub use stage_table::*;
pub use templates::*;

use crate::error::ApiError;

pub(crate) fn eval_err(e: impl std::fmt::Display) -> ApiError {
    ApiError::new("invalid", e.to_string())
}
