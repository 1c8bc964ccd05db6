//! Assay's evaluation engine: runs models over the original and the current version of a
//! project's datasets, scores the answers and feeds the before/after statistics.

pub mod cache;
pub mod cancel;
pub mod client;
pub mod crag_mm_prompts;
#[cfg(feature = "stub")]
pub mod demo;
pub mod dispatch;
pub mod engine;
pub mod error;
pub mod images;
pub mod judging;
pub mod model;
pub mod model_boxes;
pub mod panel;
pub mod predictions;
pub mod prompt;
pub mod protocol;
pub mod rescore;
pub mod scorers;
pub mod stage_table;
#[cfg(feature = "stub")]
pub mod stub;
pub mod suggest;
pub mod table;
pub mod trace;
pub mod triage;
pub mod trust;
pub mod vague_prompts;

pub use cancel::CancelToken;
pub use engine::{run_eval, EvalProgress, EvalRequest, EvalSummary, Version};
pub use error::{EvalError, Result};
pub use model::{ModelConfig, StoredModel};
pub use prompt::Variant;
pub use scorers::ScorerKind;
