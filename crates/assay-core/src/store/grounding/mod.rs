//! Grounding: target boxes read from box files.

pub mod boxes;
