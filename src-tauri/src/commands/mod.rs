//! Commands by domain; each is a few lines over assay-api.

pub mod evaluation;
pub mod filtering;
pub mod import;
pub mod items;
pub mod selection;
pub mod session;
mod signatures;
pub mod suggestions;
pub mod team;

// One flat namespace of handlers, which the signature check below names.
pub use evaluation::*;
pub use filtering::*;
pub use import::*;
pub use items::*;
pub use selection::*;
pub use session::*;
pub use suggestions::*;
pub use team::*;
