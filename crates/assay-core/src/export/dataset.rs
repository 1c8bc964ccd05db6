//! One dataset exported in a chosen format, with its changelog: what `assay export` and the
//! app's export both call, so they write the same files.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::changelog::write_changelog_metered;
use super::haerae::export_haerae_metered;
use super::hf::export_hf_metered;
use super::jsonl::export_jsonl_metered;
use super::parquet_hf::export_parquet_metered;
use super::{refined_name, Meter, Scope};
use crate::error::{Error, Result};
use crate::import::Progress;
use crate::store::Project;

crate::named_enum! {
    /// The formats a dataset is exported in.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum ExportFormat {
        /// Assay's own: JSONL with an images folder.
        Jsonl = "jsonl",
        /// Hugging Face style Parquet of the refined set.
        Parquet = "parquet",
        /// A Hugging Face dataset folder: original and refined splits, a card, the changelog
        /// (`datasets.load_dataset(folder)` opens it).
        Hf = "hf",
        /// HAERAE-Vision's published layout: train.jsonl, images/, filtering.csv.
        HaeraeVision = "haerae-vision",
    }
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DatasetExport {
    pub dataset: String,
    pub format: ExportFormat,
    /// Items written (the refined split's, for `hf`).
    pub items: usize,
    /// `hf` only: the original split's items.
    pub original: Option<usize>,
    /// Items marked remove, left out of the refined set.
    pub removed_left_out: usize,
    pub images: usize,
    /// The file or folder written.
    pub path: String,
    /// Items changed since import, and the changelog listing them.
    pub changed: usize,
    pub changelog: String,
}

/// Exports `dataset` into the folder `out` (made if missing) as `format`; `name` names the
/// exported set (default: the dataset's name with -Refined). `hf` writes the folder itself.
pub fn export_dataset(
    project: &Project,
    dataset: &str,
    out: &Path,
    format: ExportFormat,
    scope: Scope,
    name: Option<&str>,
) -> Result<DatasetExport> {
    export_dataset_metered(project, dataset, out, format, scope, name, &mut |_| {})
}

/// [`export_dataset`], telling `progress` how far it is: the items read (stage `items`), then
/// the changelog's pass over them (`changelog`), of the dataset's items, and `done` at the
/// end. Every pass reads one snapshot, so the files and the changelog agree while others edit.
pub fn export_dataset_metered(
    project: &Project,
    dataset: &str,
    out: &Path,
    format: ExportFormat,
    scope: Scope,
    name: Option<&str>,
    progress: &mut dyn FnMut(Progress),
) -> Result<DatasetExport> {
    project.in_read_snapshot(|| {
        let total = project.dataset_by_name(dataset)?.item_count.max(0) as usize;
        let mut meter = Meter::new(total, progress);
        let name = name.map_or_else(|| refined_name(dataset), str::to_string);
        let one_name = matches!(
            Path::new(&name).components().collect::<Vec<_>>().as_slice(),
            [std::path::Component::Normal(_)]
        );
        if !one_name || name.contains(['/', '\\']) {
            return Err(Error::Invalid(format!(
                "{name:?} cannot name an exported set: a file name without a folder"
            )));
        }
        std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
        if format == ExportFormat::Hf {
            let r = export_hf_metered(project, dataset, out, scope, &mut meter)?;
            let written = DatasetExport {
                dataset: r.dataset,
                format,
                items: r.refined,
                original: Some(r.original),
                removed_left_out: r.removed,
                images: r.images,
                path: r.path,
                changed: r.changed,
                changelog: out.join("changelog.csv").display().to_string(),
            };
            meter.finish(written.items);
            return Ok(written);
        }
        let report = match format {
            ExportFormat::Parquet => export_parquet_metered(
                project,
                dataset,
                &out.join(format!("{name}.parquet")),
                scope,
                &mut meter,
            )?,
            ExportFormat::HaeraeVision => {
                export_haerae_metered(project, dataset, &out.join(&name), scope, &mut meter)?
            }
            _ => export_jsonl_metered(project, dataset, &out.join(&name), scope, &mut meter)?,
        };
        let changelog = out.join(format!("{name}.changelog.csv"));
        meter.stage("changelog");
        let changed = write_changelog_metered(project, dataset, &changelog, &mut meter)?;
        let written = DatasetExport {
            dataset: report.dataset,
            format,
            items: report.items,
            original: None,
            removed_left_out: report.removed_left_out,
            images: report.images,
            path: report.path,
            changed,
            changelog: changelog.display().to_string(),
        };
        meter.finish(written.items);
        Ok(written)
    })
}
