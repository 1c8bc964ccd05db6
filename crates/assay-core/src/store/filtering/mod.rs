//! Filtering: the stages of a funnel, phase-1 flags and their overrides.

pub mod stages;
