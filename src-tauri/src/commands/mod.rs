//! Commands by domain; each body is a few lines over assay-api. `generated` declares them to
//! Tauri, from the one list in assay-api.

pub mod evaluation;
pub mod filtering;
pub mod generated;
pub mod import;
pub mod items;
pub mod selection;
pub mod session;
pub mod suggestions;
pub mod team;

// One flat namespace of bodies, which the generated commands call.
pub use evaluation::*;
pub use filtering::*;
pub use import::*;
pub use items::*;
pub use selection::*;
pub use session::*;
pub use suggestions::*;
pub use team::*;
