//! Evaluation: models and templates, runs and their results, judge panels and ratings.

pub mod judge_ratings;
pub mod models;
pub mod panels;
pub mod run_detail;
pub mod runs;
