//! Integration tests of the evaluation engine against the local stub server.

mod common;
mod engine;
mod predictions;
mod scorers;
