//! Boxes in the store: the metric columns kept with each item's current state, and boxes read
//! from other tools' files applied to items as new revisions (one transaction per file).

use std::collections::HashMap;

use rusqlite::{params, Connection, TransactionBehavior};
use serde::{Deserialize, Serialize};

use super::items::{apply_edit, current_content, Author, Edit};
use super::Project;
use crate::error::{Error, Problem, Result};
use crate::grounding::formats::BoxSet;
use crate::grounding::metrics;
use crate::model::{BBox, ItemContent, LabeledBox};

/// Writes an item's box metrics (NULL without a box); called wherever its content changes.
pub(crate) fn write_metrics(conn: &Connection, item_id: i64, c: &ItemContent) -> Result<()> {
    let m = metrics::of_item(c);
    conn.prepare_cached(
        "UPDATE items SET size_ratio = ?2, center_distance = ?3, saliency = ?4 WHERE id = ?1",
    )?
    .execute(params![
        item_id,
        m.map(|m| m.size_ratio),
        m.map(|m| m.center_distance),
        m.map(|m| m.saliency)
    ])?;
    Ok(())
}

/// Fills the metric columns of items that have a box (migration 0005).
pub(crate) fn backfill_metrics(conn: &Connection) -> Result<()> {
    let mut st = conn.prepare(
        "SELECT i.id, r.content FROM items i
         JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev WHERE i.has_box = 1",
    )?;
    let rows: Vec<(i64, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<std::result::Result<_, _>>()?;
    for (id, json) in rows {
        write_metrics(conn, id, &super::items::parse_content(&json)?)?;
    }
    Ok(())
}

/// What applying a box file did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BoxApplyReport {
    /// Box sets that found their item and image.
    pub matched: usize,
    /// Items given a new revision (the others already had these boxes).
    pub changed: usize,
}

fn scale_box(b: BBox, sx: f64, sy: f64) -> BBox {
    BBox {
        x_min: b.x_min * sx,
        y_min: b.y_min * sy,
        x_max: b.x_max * sx,
        y_max: b.y_max * sy,
    }
}

fn stem(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

impl Project {
    /// Applies boxes read from a file to the items of a dataset, all or nothing. A set finds its
    /// item by id, or else by the file name of one of the item's images (or its hash); boxes
    /// given for another size of the image are scaled per axis to its original pixels. The
    /// kinds a set carries (targets, persons) replace that image's boxes of the same kind.
    pub fn apply_box_sets(
        &mut self,
        dataset_id: i64,
        sets: &[BoxSet],
        author: &Author,
        note: &str,
        file: &str,
    ) -> Result<BoxApplyReport> {
        let items = self.current_items(dataset_id)?;
        let by_ext: HashMap<&str, usize> = items
            .iter()
            .enumerate()
            .map(|(i, it)| (it.ext_id.as_str(), i))
            .collect();
        let mut by_image: HashMap<String, (usize, usize)> = HashMap::new();
        for (i, it) in items.iter().enumerate() {
            for (k, img) in it.content.images.iter().enumerate() {
                by_image.insert(img.hash.clone(), (i, k));
                if let Some(n) = &img.name {
                    let base = n.rsplit(['/', '\\']).next().unwrap_or(n);
                    by_image.entry(base.to_string()).or_insert((i, k));
                }
            }
        }
        let mut problems = Vec::new();
        let mut edits: Vec<Option<ItemContent>> = vec![None; items.len()];
        let mut matched = 0;
        for (n, set) in sets.iter().enumerate() {
            let found = match (&set.item, &set.image) {
                (Some(id), _) if by_ext.contains_key(id.as_str()) => {
                    Some((by_ext[id.as_str()], set.image_index))
                }
                (_, Some(name)) => by_image
                    .get(name)
                    .or_else(|| by_image.get(stem(name)))
                    .copied(),
                _ => None,
            };
            let Some((i, k)) = found else {
                let what = set
                    .item
                    .as_deref()
                    .map(|s| format!("item {s:?}"))
                    .or_else(|| set.image.as_deref().map(|s| format!("image {s:?}")))
                    .unwrap_or_else(|| format!("entry {}", n + 1));
                problems.push(Problem::new(
                    file,
                    format!("{what} matches no item of this dataset"),
                ));
                continue;
            };
            let content = edits[i].get_or_insert_with(|| items[i].content.clone());
            let Some(img) = content.images.get_mut(k) else {
                problems.push(Problem::new(
                    file,
                    format!("item {:?} has no image {}", items[i].ext_id, k + 1),
                ));
                continue;
            };
            let (sx, sy) = if set.width > 0 && set.height > 0 {
                (
                    f64::from(img.width) / f64::from(set.width),
                    f64::from(img.height) / f64::from(set.height),
                )
            } else {
                (1.0, 1.0)
            };
            if !set.targets.is_empty() {
                img.target_boxes = set.targets.iter().map(|b| scale_box(*b, sx, sy)).collect();
            }
            if !set.persons.is_empty() {
                img.person_boxes = set
                    .persons
                    .iter()
                    .map(|p| LabeledBox {
                        label: p.label.clone(),
                        bbox: scale_box(p.bbox, sx, sy),
                    })
                    .collect();
            }
            matched += 1;
        }
        if !problems.is_empty() {
            return Err(Error::Import(problems));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut changed = 0;
        for (it, content) in items.iter().zip(edits) {
            let Some(content) = content else { continue };
            if current_content(&tx, it.id)? == content {
                continue;
            }
            let edit = Edit {
                base_rev: None,
                content,
                op: it.op,
                tags: it.tags.clone(),
                status: it.status,
                note: Some(note.to_string()),
            };
            apply_edit(&tx, it.id, &edit, author)?;
            changed += 1;
        }
        tx.commit()?;
        Ok(BoxApplyReport { matched, changed })
    }

    /// The boxes of every image of a dataset's current items, for export.
    pub fn box_sets(&self, dataset_id: i64) -> Result<Vec<BoxSet>> {
        let mut out = Vec::new();
        for it in self.current_items(dataset_id)? {
            for (k, img) in it.content.images.iter().enumerate() {
                out.push(BoxSet {
                    item: Some(it.ext_id.clone()),
                    image: Some(img.name.clone().unwrap_or_else(|| img.hash.clone())),
                    image_index: k,
                    width: img.width,
                    height: img.height,
                    targets: img.target_boxes.clone(),
                    persons: img.person_boxes.clone(),
                });
            }
        }
        Ok(out)
    }
}
