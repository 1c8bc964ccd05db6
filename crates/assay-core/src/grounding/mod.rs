//! Target boxes and what is computed from them: CRAG-MM-Diagnostics' visual-complexity metrics
//! and the box formats people exchange (COCO, Label Studio, CRAG-MM-Diagnostics lists).

pub mod formats;
pub mod metrics;

pub use metrics::BoxMetrics;
