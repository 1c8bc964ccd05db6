//! A dataset's boxes written to a file, or read from one and saved as revisions: what
//! `assay boxes export|import` and the app's Grounding export do, in one place.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{label_studio_config, read, write, BoxFormat};
use crate::error::{Error, Result};
use crate::store::{Author, BoxApplyReport, Project};

/// What a box export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BoxExport {
    pub path: String,
    /// Images with boxes, and the boxes written (targets and people).
    pub images: u64,
    pub boxes: u64,
    /// Label Studio's labelling config beside the tasks (it needs one to open them).
    pub label_config: Option<String>,
}

/// The file a dataset's boxes go to in a folder: `<dataset>.<format>.json` (JSON lines for
/// CRAG-MM's layout).
pub fn file_in(dir: &Path, dataset: &str, format: BoxFormat) -> PathBuf {
    let safe: String = dataset
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let ext = if format == BoxFormat::CragMm {
        "jsonl"
    } else {
        "json"
    };
    dir.join(format!("{safe}.boxes.{}.{ext}", format.as_str()))
}

/// Writes `dataset`'s boxes (current state, original pixels) in `format` to `out`.
pub fn export_boxes(
    p: &Project,
    dataset: &str,
    format: BoxFormat,
    out: &Path,
) -> Result<BoxExport> {
    let ds = p.dataset_by_name(dataset)?;
    let sets = p.box_sets(ds.id)?;
    if let Some(parent) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    std::fs::write(out, write(format, &sets)).map_err(|e| Error::io(out, e))?;
    let label_config = if format == BoxFormat::LabelStudio {
        let path = out.with_extension("label_config.xml");
        std::fs::write(&path, label_studio_config(&sets)).map_err(|e| Error::io(&path, e))?;
        Some(path.display().to_string())
    } else {
        None
    };
    Ok(BoxExport {
        path: out.display().to_string(),
        images: sets.len() as u64,
        boxes: sets
            .iter()
            .map(|s| (s.targets.len() + s.persons.len()) as u64)
            .sum(),
        label_config,
    })
}

/// Reads the boxes of `file` in `format` and saves them to `dataset`'s matching items as new
/// revisions by `author`, all or nothing.
pub fn import_boxes(
    p: &mut Project,
    dataset: &str,
    format: BoxFormat,
    file: &Path,
    author: &Author,
) -> Result<BoxApplyReport> {
    let ds = p.dataset_by_name(dataset)?;
    let sets = read(format, file)?;
    apply(p, ds.id, &sets, author, format.as_str(), file)
}

/// Saves box sets read from `file` (in the format named `format`) to a dataset's items, each
/// changed item's revision noting where its boxes came from.
pub fn apply(
    p: &mut Project,
    dataset_id: i64,
    sets: &[super::BoxSet],
    author: &Author,
    format: &str,
    file: &Path,
) -> Result<BoxApplyReport> {
    let name = file.display().to_string();
    let note = format!("boxes from {name} ({format})");
    p.apply_box_sets(dataset_id, sets, author, &note, &name)
}
