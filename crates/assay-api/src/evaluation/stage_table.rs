//! CRAG-MM-Diagnostics' stage table for the window.

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use assay_core::{Project, Version};
use assay_eval::table::TableFormat;

use super::eval_err;
use crate::Session;

/// One accuracy in the stage table: `accuracy` over `items` items.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageCell {
    pub accuracy: f64,
    pub items: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageViewRow {
    pub dataset: String,
    pub model: String,
    pub variant: String,
    /// "all", "ref_type", "size" or "saliency".
    pub breakdown: String,
    pub group: String,
    /// One per column; null where the model has no such runs.
    pub cells: Vec<Option<StageCell>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageViewCorrelation {
    pub dataset: String,
    pub model: String,
    pub variant: String,
    pub column: String,
    pub popularity_rho: Option<f64>,
    pub popularity_items: u64,
    pub saliency_r_pb: Option<f64>,
    pub saliency_items: u64,
    pub size_r_pb: Option<f64>,
    pub size_items: u64,
    pub distance_r_pb: Option<f64>,
    pub distance_items: u64,
    pub crowdedness_r_pb: Option<f64>,
    pub crowdedness_items: u64,
}

/// CRAG-MM-Diagnostics' stage table for the window, with its renderings for copying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StageView {
    pub version: String,
    /// Column labels: "Grounding", "Identification (crag-mm/object_identification_easy_query)".
    pub columns: Vec<String>,
    pub rows: Vec<StageViewRow>,
    pub correlations: Vec<StageViewCorrelation>,
    pub markdown: String,
    pub csv: String,
    pub latex: String,
}

pub fn stage_view(project: &Project, version: &str) -> ApiResult<StageView> {
    use assay_eval::stage_table::{render_stages, stage_table, StageOptions};
    let v = Version::parse(version).ok_or_else(|| {
        ApiError::new(
            "invalid",
            format!("version {version:?}? one of {}", Version::NAMES.join(", ")),
        )
    })?;
    let datasets: Vec<String> = project.datasets()?.into_iter().map(|d| d.name).collect();
    let opts = StageOptions {
        version: v,
        ..Default::default()
    };
    let t = stage_table(project, &datasets, &opts).map_err(eval_err)?;
    let columns: Vec<String> = t.columns.iter().map(|c| c.label()).collect();
    let render = |f| render_stages(&t, f).map_err(eval_err);
    Ok(StageView {
        version: v.as_str().into(),
        markdown: render(TableFormat::Markdown)?,
        csv: render(TableFormat::Csv)?,
        latex: render(TableFormat::Latex)?,
        rows: t
            .rows
            .iter()
            .map(|r| StageViewRow {
                dataset: r.dataset.clone(),
                model: r.model.clone(),
                variant: r.variant.clone(),
                breakdown: r.breakdown.clone(),
                group: r.group.clone(),
                cells: r
                    .cells
                    .iter()
                    .map(|c| {
                        c.map(|c| StageCell {
                            accuracy: c.accuracy,
                            items: c.items as u64,
                        })
                    })
                    .collect(),
            })
            .collect(),
        correlations: t
            .correlations
            .iter()
            .map(|c| StageViewCorrelation {
                dataset: c.dataset.clone(),
                model: c.model.clone(),
                variant: c.variant.clone(),
                column: columns[c.column].clone(),
                popularity_rho: c.popularity_rho,
                popularity_items: c.popularity_items as u64,
                saliency_r_pb: c.saliency_r_pb,
                saliency_items: c.saliency_items as u64,
                size_r_pb: c.size_r_pb,
                size_items: c.size_items as u64,
                distance_r_pb: c.distance_r_pb,
                distance_items: c.distance_items as u64,
                crowdedness_r_pb: c.crowdedness_r_pb,
                crowdedness_items: c.crowdedness_items as u64,
            })
            .collect(),
        columns,
    })
}

impl Session {
    /// The before/after table, optionally one row per category or refinement operation.
    pub fn stage_table(&self, version: String) -> ApiResult<crate::evaluation::StageView> {
        crate::evaluation::stage_view(self.project()?, &version)
    }
}
