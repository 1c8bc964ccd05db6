//! The desktop app's operations, independent of Tauri: each Tauri command is a thin wrapper
//! over a function here, so the behaviour is tested without a window.

pub mod background;
pub mod bindings;
pub mod commands;
pub mod error;
pub mod evaluation;
pub mod filtering;
pub mod items;
pub mod prefs;
pub mod review;
pub mod session;
pub mod suggestions;
pub mod team;
pub mod types;

pub use error::ApiError;
pub use session::Session;
