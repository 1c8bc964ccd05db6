//! Filtering in the app: stages, stage decisions, phase-1 flags, overrides and the funnel.

use crate::error::ApiResult;
use crate::Session;
use assay_core::store::{DecidedBy, Filtering, FunnelStep, Stage};
use assay_core::Phase1Dimension;

impl Session {
    pub fn stages(&self) -> ApiResult<Vec<Stage>> {
        Ok(self.project()?.stages()?)
    }

    /// Replaces the project's stages: `(name, description)` in order.
    pub fn set_stages(&mut self, stages: Vec<(String, String)>) -> ApiResult<Vec<Stage>> {
        Ok(self.project_mut()?.set_stages(&stages)?)
    }

    pub fn filtering(&self, id: i64) -> ApiResult<Filtering> {
        Ok(self.project()?.filtering(id)?)
    }

    /// The current user keeps or drops an item at a stage.
    pub fn decide_stage(
        &mut self,
        id: i64,
        stage_id: i64,
        keep: bool,
        reason: Option<String>,
    ) -> ApiResult<Filtering> {
        let author = self.author()?;
        Ok(self.project_mut()?.decide_stage(
            id,
            stage_id,
            keep,
            reason.as_deref(),
            DecidedBy::Person(&author),
        )?)
    }

    pub fn flag_phase1(
        &mut self,
        id: i64,
        dimension: Phase1Dimension,
        flagged: bool,
        note: Option<String>,
    ) -> ApiResult<Filtering> {
        let author = self.author()?;
        Ok(self
            .project_mut()?
            .flag_phase1(id, dimension, flagged, note.as_deref(), &author)?)
    }

    /// Core refuses this unless the current user is an auditor.
    pub fn override_phase1(
        &mut self,
        id: i64,
        keep: bool,
        note: Option<String>,
    ) -> ApiResult<Filtering> {
        let author = self.author()?;
        Ok(self
            .project_mut()?
            .override_phase1(id, keep, note.as_deref(), &author)?)
    }

    pub fn funnel(&self, datasets: Vec<i64>, group: String) -> ApiResult<Vec<FunnelStep>> {
        Ok(self.project()?.funnel(&datasets, &group)?)
    }
}
