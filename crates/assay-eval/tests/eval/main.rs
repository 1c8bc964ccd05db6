//! Integration tests of the evaluation engine against the local stub server.

mod checklist;
mod common;
mod corpus;
mod engine;
mod formats;
mod panel;
mod predictions;
mod reference;
mod rescore;
mod scorers;
mod stages;
mod suggest;
mod table;
