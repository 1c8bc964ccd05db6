//! Drives the real Assay window through independent scenarios, each on its own copy of the
//! sample project: browsing, editing and a restart; drawing a target box; refining a checklist
//! and filtering; evaluating before and after against a stub model server; review by two people
//! and an auditor; a team through PostgreSQL; drawing a box the way a machine without a GPU
//! draws. Every wait is on the window's or the project's
//! state, never on a pause tuned to an idle machine. Saves screenshots of the main views.
//!
//! Needs: the app built with `--features custom-protocol`, `tauri-driver` and `WebKitWebDriver`
//! on PATH, and a display (Xvfb). `cargo xtask e2e` arranges all of it.
//!
//! One module per scenario group; `common` holds what they share (the driver, the waits and
//! the window's inputs, the sample project and a scenario's world). One test binary, `app`,
//! so that the scenarios take turns (see `common::fixtures::Scenario`).

mod common;

mod bench;
mod browse;
mod evaluation;
mod filtering;
mod grounding;
mod identification;
mod import;
mod review;
mod suggestions;
mod team;
mod team_service;
mod views;
