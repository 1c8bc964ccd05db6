pub mod boxes;
pub mod eval;
pub mod export;
pub mod import;
pub mod items;
pub mod project;

use std::path::PathBuf;

use anyhow::Context;
use assay_core::Project;

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
