//! Commands by domain; each is a few lines over assay-api.

pub mod evaluation;
pub mod filtering;
pub mod import;
pub mod items;
pub mod session;
pub mod team;
