//! A refined set published beside its seed (JAMMEval's `<Name>-Refined` configs carry the
//! seed item's id in `original_id`) imported as the seed dataset's "after" version: each
//! refined record becomes a revision of the item it names, seed items the refined set leaves
//! out are recorded as removed, and unchanged items as identical. One transaction; any problem
//! (an unknown or repeated original id) changes nothing.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use rusqlite::TransactionBehavior;
use serde::{Deserialize, Serialize};

use super::{prepare, ImportOptions, Prepared, Progress};
use crate::error::{Error, Problem, Result};
use crate::model::{ItemStatus, RefinementOp};
use crate::store::{Author, Edit, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefinedReport {
    pub dataset: String,
    pub layout: String,
    /// Refined records matched to a seed item.
    pub matched: usize,
    /// Of those, items whose content changed (a new revision each).
    pub changed: usize,
    pub identical: usize,
    /// Seed items absent from the refined set, recorded as removed.
    pub removed: usize,
    pub dry_run: bool,
}

/// A field of an item: its own id for "id", else a field kept in its metadata.
fn field(ext_id: &str, content: &crate::model::ItemContent, name: &str) -> Option<String> {
    if name == "id" {
        return Some(ext_id.to_string());
    }
    content.metadata.get(name).and_then(|v| match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

#[allow(clippy::too_many_arguments)]
/// `align` is "refined_field" or "refined_field=seed_field": the refined record's field that
/// names its seed item, and the seed field it names ("id", the seed's own id, by default; CVQA-
/// JA-Refined's `original_id` names CVQA's `ID`, kept in the seed item's metadata).
pub fn import_refined(
    project: &mut Project,
    path: &Path,
    seed_dataset: &str,
    align: &str,
    opts: &ImportOptions,
    author: &Author,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> Result<RefinedReport> {
    let seed = project.dataset_by_name(seed_dataset)?;
    let (align, seed_field) = align.split_once('=').unwrap_or((align, "id"));
    let Prepared {
        layout,
        items,
        images,
        report,
        ..
    } = prepare(path, opts, progress, cancel)?;
    let mut problems = report.problems;
    // Seed items by their source id, with their current content.
    let seeds = project.item_ext_ids(seed.id)?;
    let mut by_ext: HashMap<String, i64> = HashMap::new();
    for (id, ext) in &seeds {
        let key = if seed_field == "id" {
            Some(ext.clone())
        } else {
            field(ext, &project.current_content(*id)?, seed_field)
        };
        if let Some(k) = key {
            by_ext.insert(k, *id);
        }
    }
    let mut claimed: HashMap<i64, String> = HashMap::new();
    let mut plan: Vec<(i64, &crate::store::NewItem)> = Vec::new();
    for item in &items {
        let loc = format!("{}: item {}", path.display(), item.ext_id);
        let Some(sid) = field(&item.ext_id, &item.content, align) else {
            problems.push(Problem::new(
                &loc,
                format!("no {align:?} field naming its seed item"),
            ));
            continue;
        };
        let Some(&item_id) = by_ext.get(sid.as_str()) else {
            problems.push(Problem::new(
                &loc,
                format!("{align} {sid:?} is not an item of {seed_dataset}"),
            ));
            continue;
        };
        if let Some(prev) = claimed.insert(item_id, item.ext_id.clone()) {
            problems.push(Problem::new(
                &loc,
                format!("{align} {sid:?} is already refined by item {prev}"),
            ));
            continue;
        }
        plan.push((item_id, item));
    }
    let mut out = RefinedReport {
        dataset: seed_dataset.into(),
        layout,
        matched: plan.len(),
        changed: 0,
        identical: 0,
        removed: seeds.len() - claimed.len(),
        dry_run: opts.dry_run,
    };
    if !problems.is_empty() {
        return Err(Error::Import(problems));
    }
    let tx = project
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)?;
    for img in &images {
        crate::store::items::images::put(&tx, img)?;
    }
    let note = format!("refined set {}", path.display());
    for (item_id, item) in &plan {
        let current = crate::store::items::current_content(&tx, *item_id)?;
        // Identical means the same item to a reader: extra columns (the alignment field, a
        // renamed metadata column) do not make it a change.
        let mut refined = item.content.clone();
        refined.metadata.clear();
        let mut base = current.clone();
        base.metadata.clear();
        for img in refined.images.iter_mut().chain(base.images.iter_mut()) {
            img.name = None;
        }
        // A changed item gets no operation: the refined set does not say which was applied.
        let changed = refined != base;
        if changed {
            out.changed += 1;
        } else {
            out.identical += 1;
        }
        let edit = Edit {
            base_rev: None,
            content: if changed {
                item.content.clone()
            } else {
                current
            },
            op: (!changed).then_some(RefinementOp::Identical),
            tags: vec![],
            status: ItemStatus::Edited,
            note: Some(note.clone()),
        };
        crate::store::write_path::revision::append(&tx, *item_id, &edit, author)
            .map_err(|e| e.context(&format!("{}: refined item {}", path.display(), item.ext_id)))?;
    }
    for (item_id, _) in &seeds {
        if claimed.contains_key(item_id) {
            continue;
        }
        let current = crate::store::items::current_content(&tx, *item_id)?;
        let edit = Edit {
            base_rev: None,
            content: current,
            op: Some(RefinementOp::Remove),
            tags: vec![],
            status: ItemStatus::Edited,
            note: Some(format!("{note}: absent from the refined set")),
        };
        crate::store::write_path::revision::append(&tx, *item_id, &edit, author)
            .map_err(|e| e.context(&format!("{}: seed item absent from it", path.display())))?;
    }
    if opts.dry_run {
        tx.rollback()?;
    } else {
        tx.commit()?;
    }
    Ok(out)
}
