//! Team: what a replica pushes and pulls, table by table.

pub mod ratings;
pub mod runs;
pub mod sync;
pub mod threads;
pub mod views;
