//! Assay's core: domain types, the project store, importers, exporters and statistics.
//! No UI and no network: everything a person can do to a project is a function here.

pub mod allocator;
pub mod error;
pub mod export;
pub mod grounding;
pub mod imaging;
pub mod import;
pub mod model;
pub mod names;
pub mod stats;
pub mod store;
pub mod suggestion;

pub use error::{Error, Problem, Result};
pub use model::*;
pub use store::{Project, Version};
pub use suggestion::{SuggestionKind, SuggestionValue};
