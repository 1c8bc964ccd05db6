//! Exports of the current set (removed items left out): JSONL + images folder, Hugging Face
//! style Parquet, a Hugging Face dataset folder (both splits and a card), and a changelog CSV
//! with one row per changed item.

mod changelog;
mod dataset;
mod haerae;
mod hf;
mod jsonl;
mod parquet_hf;

use serde::{Deserialize, Serialize};

pub use changelog::write_changelog;
pub use dataset::{export_dataset, export_dataset_metered, DatasetExport, ExportFormat};
pub use haerae::export_haerae;
pub use hf::{export_hf, HfReport, SPLITS as HF_SPLITS};
pub use jsonl::{export_jsonl, export_selection};
pub use parquet_hf::{export_parquet, ITEM_COLUMN};

use crate::error::Result;
use crate::import::Progress;
use crate::store::{CurrentItem, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExportReport {
    pub dataset: String,
    pub items: usize,
    pub removed_left_out: usize,
    pub images: usize,
    pub path: String,
}

/// The default name of a refined set: JAMMEval keeps the seed name with `-Refined`.
pub fn refined_name(dataset: &str) -> String {
    if dataset.ends_with("-Refined") {
        dataset.to_string()
    } else {
        format!("{dataset}-Refined")
    }
}

/// Which items an export writes, beyond the after set's rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Scope {
    /// Every item of the after set.
    #[default]
    All,
    /// Only items an auditor signed off (the final pass).
    SignedOff,
}

impl Scope {
    pub(crate) fn includes(self, item: &CurrentItem) -> bool {
        self == Scope::All || item.signed_off
    }
}

/// How far an export has read: items read of the dataset's items, in a named stage (the
/// items, then the changelog's pass), for the app's progress bar. The CLI's meter is silent.
pub struct Meter<'a> {
    stage: &'static str,
    done: usize,
    total: usize,
    report: Option<&'a mut dyn FnMut(Progress)>,
}

impl<'a> Meter<'a> {
    pub fn silent() -> Self {
        Self {
            stage: "items",
            done: 0,
            total: 0,
            report: None,
        }
    }

    pub fn new(total: usize, report: &'a mut dyn FnMut(Progress)) -> Self {
        Self {
            stage: "items",
            done: 0,
            total,
            report: Some(report),
        }
    }

    /// Starts a stage over the same items, counted from 0.
    pub(crate) fn stage(&mut self, stage: &'static str) {
        self.stage = stage;
        self.done = 0;
        self.send();
    }

    /// The end: `items` written.
    pub(crate) fn finish(&mut self, items: usize) {
        self.stage = "done";
        self.done = items;
        self.total = items;
        self.send();
    }

    pub(crate) fn tick(&mut self) {
        self.done += 1;
        self.send();
    }

    fn send(&mut self) {
        let p = Progress {
            stage: self.stage,
            done: self.done,
            total: self.total.max(self.done),
        };
        if let Some(report) = self.report.as_mut() {
            report(p);
        }
    }
}

/// The items an export reads, one at a time: the dataset's current items, limited by `scope`,
/// each counted on `meter` as it is read.
pub(crate) fn each_item(
    project: &Project,
    dataset_id: i64,
    scope: Scope,
    meter: &mut Meter,
    each: &mut dyn FnMut(CurrentItem) -> Result<()>,
) -> Result<()> {
    project.each_current_item(dataset_id, &mut |item| {
        meter.tick();
        if scope.includes(&item) {
            each(item)
        } else {
            Ok(())
        }
    })
}

fn image_ext(format: &str) -> &'static str {
    match format {
        "jpeg" => "jpg",
        "webp" => "webp",
        "gif" => "gif",
        _ => "png",
    }
}

/// Writes an image into `dir` the first time it is met (`written`: hash to file name) and
/// returns its file name; an image met again is not read again (a million items that share a
/// few images read each once, not a million times).
pub(crate) fn write_image_once(
    project: &Project,
    hash: &str,
    dir: &std::path::Path,
    written: &mut std::collections::HashMap<String, String>,
) -> Result<String> {
    if let Some(name) = written.get(hash) {
        return Ok(name.clone());
    }
    let (bytes, format) = project.image_bytes(hash)?;
    let name = image_file_name(hash, &format);
    let p = dir.join(&name);
    std::fs::write(&p, &bytes).map_err(|e| crate::error::Error::io(&p, e))?;
    written.insert(hash.to_string(), name.clone());
    Ok(name)
}

/// File name an exported image gets: its hash, so identical images are written once.
pub(crate) fn image_file_name(hash: &str, format: &str) -> String {
    format!("{hash}.{}", image_ext(format))
}
