//! Exports of the current set (removed items left out): JSONL + images folder, Hugging Face
//! style Parquet, a Hugging Face dataset folder (both splits and a card), and a changelog CSV
//! with one row per changed item.

mod changelog;
mod haerae;
mod hf;
mod jsonl;
mod parquet_hf;

use serde::{Deserialize, Serialize};

pub use changelog::write_changelog;
pub use haerae::export_haerae;
pub use hf::{export_hf, HfReport, SPLITS as HF_SPLITS};
pub use jsonl::{export_jsonl, export_selection};
pub use parquet_hf::{export_parquet, ITEM_COLUMN};

use crate::error::Result;
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

/// The items an export reads: the dataset's current items, limited by `scope`.
pub(crate) fn current_items(
    project: &Project,
    dataset_id: i64,
    scope: Scope,
) -> Result<Vec<CurrentItem>> {
    let mut items = project.current_items(dataset_id)?;
    items.retain(|i| scope.includes(i));
    Ok(items)
}

fn image_ext(format: &str) -> &'static str {
    match format {
        "jpeg" => "jpg",
        "webp" => "webp",
        "gif" => "gif",
        _ => "png",
    }
}

/// File name an exported image gets: its hash, so identical images are written once.
pub(crate) fn image_file_name(hash: &str, format: &str) -> String {
    format!("{hash}.{}", image_ext(format))
}
