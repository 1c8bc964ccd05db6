//! The CLI's commands, one module per domain (the same names as the store's and the app's).

pub mod evaluation;
pub mod filtering;
pub mod grounding;
pub mod items;
pub mod project;
pub mod review;
pub mod serve;
pub mod suggestions;
pub mod team;

use std::path::PathBuf;

use anyhow::Context;
use assay_core::Project;

/// A clap value parser for an enum declared with `assay_core::named_enum!`: its names listed in
/// `--help` and in the error for a wrong value, the typed value out. The names come from the
/// enum, so the CLI keeps no list of its own.
pub fn named<T>(names: &'static [&'static str]) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names).map(|s| match s.parse::<T>() {
        Ok(v) => v,
        Err(_) => unreachable!("{s} is one of the enum's own names"),
    })
}

pub struct Ctx {
    pub project: Option<PathBuf>,
    pub json: bool,
}

impl Ctx {
    pub fn path(&self) -> anyhow::Result<&PathBuf> {
        self.project
            .as_ref()
            .context("no project: pass --project FILE or set ASSAY_PROJECT")
    }
    pub fn open(&self) -> anyhow::Result<Project> {
        Ok(Project::open(self.path()?)?)
    }
}
