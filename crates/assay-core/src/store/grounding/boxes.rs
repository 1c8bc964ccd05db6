//! Boxes in the store: the metric columns kept with each item's current state, and boxes read
//! from other tools' files applied to items as new revisions (one transaction per file).

use std::collections::HashMap;

use rusqlite::{params, Connection, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Problem, Result};
use crate::grounding::formats::{self, BoxSet};
use crate::grounding::metrics;
use crate::model::{ItemContent, LabeledBox};
use crate::store::items::{current_content, Author, Edit};
use crate::store::write_path::{self, revision::Made};
use crate::store::{CurrentItem, Project};

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

/// Fills the metric columns of items that have a box (migrations 0005 and 0037), 10,000 items
/// at a time, so a million-item project is never held whole while its metrics are computed.
pub(crate) fn backfill_metrics(conn: &Connection) -> Result<()> {
    let mut st = conn.prepare(
        "SELECT i.id, revision_json(r.content) FROM items i
         JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
         WHERE i.has_box = 1 AND i.id > ?1 ORDER BY i.id LIMIT 10000",
    )?;
    let mut after = 0i64;
    loop {
        let rows: Vec<(i64, String)> = st
            .query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<std::result::Result<_, _>>()?;
        let Some(last) = rows.last().map(|r| r.0) else {
            return Ok(());
        };
        for (id, json) in rows {
            write_metrics(conn, id, &crate::store::items::parse_content(&json)?)?;
        }
        after = last;
    }
}

/// What applying a box file did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BoxApplyReport {
    /// Box sets that found their item and image.
    pub matched: usize,
    /// Items given a new revision (the others already had these boxes).
    pub changed: usize,
    /// Sets for an image an earlier set of the file already gave boxes (several Label Studio
    /// tasks on one image): their boxes were added to the earlier ones.
    pub merged: usize,
    /// Annotations whose segmentation was kept as its box only.
    pub segmentations_dropped: usize,
}

fn scale_box(b: &LabeledBox, sx: f64, sy: f64) -> LabeledBox {
    LabeledBox {
        label: b.label.clone(),
        bbox: b.bbox.scaled(sx, sy),
        crowd: b.crowd,
        area: b.area.map(|a| a * sx * sy),
    }
}

/// Where an image of the dataset is: (item index, image index).
type ImageAt = (usize, usize);

/// The dataset's images by every name a file may use for them: the hash, the file name it was
/// imported with (whole and base), and the base without extension, each with every place the
/// name occurs.
fn image_index(items: &[CurrentItem]) -> HashMap<String, Vec<ImageAt>> {
    let mut by_name: HashMap<String, Vec<ImageAt>> = HashMap::new();
    for (i, it) in items.iter().enumerate() {
        for (k, img) in it.content.images.iter().enumerate() {
            let mut keys = vec![img.hash.as_str()];
            if let Some(n) = &img.name {
                let base = formats::file_name(n);
                keys.extend([n.as_str(), base, formats::stem(base)]);
            }
            keys.sort_unstable();
            keys.dedup();
            for key in keys.into_iter().filter(|k| !k.is_empty()) {
                by_name.entry(key.to_string()).or_default().push((i, k));
            }
        }
    }
    by_name
}

/// Finds the item and image a set is for: by item id, else by the image's content hash, else
/// by each name its reference may stand for. An image that several items share cannot say
/// which item's target it is: refused, so that the file names the item.
fn locate(
    set: &BoxSet,
    items: &[CurrentItem],
    by_ext: &HashMap<&str, usize>,
    by_image: &HashMap<String, Vec<ImageAt>>,
) -> std::result::Result<ImageAt, String> {
    if let Some(&i) = set.item.as_deref().and_then(|id| by_ext.get(id)) {
        return Ok((i, set.image_index));
    }
    let reference = set.image.as_deref().unwrap_or_default();
    let keys = set
        .image_hash
        .iter()
        .cloned()
        .chain(formats::reference_names(reference));
    for key in keys {
        match by_image.get(&key).map(Vec::as_slice) {
            Some([at]) => return Ok(*at),
            Some(several) if !several.is_empty() => {
                let names: Vec<&str> = several
                    .iter()
                    .map(|(i, _)| items[*i].ext_id.as_str())
                    .collect();
                return Err(format!(
                    "image {reference:?} is in several items ({}): the file must name the item (assay_item)",
                    names.join(", ")
                ));
            }
            _ => {}
        }
    }
    Err(match (&set.item, &set.image) {
        (Some(id), None) => format!("item {id:?} is not in this dataset"),
        (_, Some(r)) => format!("image {r:?} matches no image of this dataset"),
        _ => "an entry names neither an item nor an image".to_string(),
    })
}

impl Project {
    /// Applies boxes read from a file to the items of a dataset, all or nothing. A set finds its
    /// item by id, or else its image by content hash or by any name Label Studio or COCO may
    /// use for it (see [`formats::reference_names`]). Boxes given for another size of the
    /// image are scaled per axis to its original pixels; every box is then checked against the
    /// image's real size as the project knows it, and a box outside it refuses the file with the
    /// item and box named. The kinds a set carries (targets, persons) replace that image's boxes
    /// of the same kind; a later set for the same image adds to them.
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
        let by_image = image_index(&items);
        let mut problems = Vec::new();
        let mut edits: Vec<Option<ItemContent>> = vec![None; items.len()];
        let mut touched: HashMap<ImageAt, (bool, bool)> = HashMap::new();
        let mut report = BoxApplyReport::default();
        for (n, set) in sets.iter().enumerate() {
            let entry = set
                .origin
                .clone()
                .unwrap_or_else(|| format!("entry {}", n + 1));
            let (i, k) = match locate(set, &items, &by_ext, &by_image) {
                Ok(at) => at,
                Err(e) => {
                    problems.push(Problem::new(file, format!("{entry}: {e}")));
                    continue;
                }
            };
            let ext = &items[i].ext_id;
            let content = edits[i].get_or_insert_with(|| items[i].content.clone());
            let Some(img) = content.images.get_mut(k) else {
                problems.push(Problem::new(
                    file,
                    format!("{entry}: item {ext:?} has no image {}", k + 1),
                ));
                continue;
            };
            let (sx, sy) = if set.width > 0 && set.height > 0 {
                let (fw, fh) = (f64::from(set.width), f64::from(set.height));
                let (iw, ih) = (f64::from(img.width), f64::from(img.height));
                // A file that gives another shape of picture is about another image.
                if ((fw / fh) / (iw / ih) - 1.0).abs() > 0.02 {
                    problems.push(Problem::new(
                        file,
                        format!(
                            "{entry}: the file gives image {} of item {ext:?} as {}x{}, but it is {}x{} (another aspect ratio: another image?)",
                            k + 1,
                            set.width,
                            set.height,
                            img.width,
                            img.height
                        ),
                    ));
                    continue;
                }
                (iw / fw, ih / fh)
            } else {
                (1.0, 1.0)
            };
            let scaled = |bs: &[LabeledBox]| bs.iter().map(|b| scale_box(b, sx, sy)).collect();
            let targets: Vec<LabeledBox> = scaled(&set.targets);
            let persons: Vec<LabeledBox> = scaled(&set.persons);
            let mut bad = false;
            for (kind, list) in [("target", &targets), ("person", &persons)] {
                for (j, b) in list.iter().enumerate() {
                    if let Err(e) = formats::check(b.bbox, img.width, img.height) {
                        bad = true;
                        problems.push(Problem::new(
                            file,
                            format!(
                                "{entry}: item {ext:?}, image {}, {kind} box {}: {e}",
                                k + 1,
                                j + 1
                            ),
                        ));
                    }
                }
            }
            if bad {
                continue;
            }
            let seen = touched.entry((i, k)).or_insert((false, false));
            let mut merged = false;
            for (list, done, slot) in [
                (targets, &mut seen.0, &mut img.target_boxes),
                (persons, &mut seen.1, &mut img.person_boxes),
            ] {
                if list.is_empty() {
                    continue;
                }
                if *done {
                    merged = true;
                    for b in list {
                        if !slot.contains(&b) {
                            slot.push(b);
                        }
                    }
                } else {
                    *slot = list;
                    *done = true;
                }
            }
            if set.image_id.is_some() && img.source_id.is_none() {
                img.source_id = set.image_id;
            }
            report.merged += usize::from(merged);
            report.segmentations_dropped += set.segmentations_dropped;
            report.matched += 1;
        }
        if !problems.is_empty() {
            return Err(Error::Import(problems));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        for (it, content) in items.iter().zip(edits) {
            let Some(mut content) = content else { continue };
            // A target labelled with the item's own entity says nothing more than the entity.
            if let Some(entity) = content.entity_name.clone() {
                for img in &mut content.images {
                    for b in &mut img.target_boxes {
                        if b.label.as_deref() == Some(entity.as_str()) {
                            b.label = None;
                        }
                    }
                }
            }
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
            write_path::revision::edit(&tx, it.id, &edit, author, Made::ByHand)?;
            report.changed += 1;
        }
        tx.commit()?;
        Ok(report)
    }

    /// The boxes of every image of a dataset's current items, for export. A target without a
    /// label of its own is labelled with the item's entity, where the item names one.
    pub fn box_sets(&self, dataset_id: i64) -> Result<Vec<BoxSet>> {
        let mut out = Vec::new();
        for it in self.current_items(dataset_id)? {
            let entity = it.content.entity_name.clone();
            for (k, img) in it.content.images.iter().enumerate() {
                let targets = img
                    .target_boxes
                    .iter()
                    .map(|b| LabeledBox {
                        label: b.label.clone().or_else(|| entity.clone()),
                        ..b.clone()
                    })
                    .collect();
                out.push(BoxSet {
                    item: Some(it.ext_id.clone()),
                    image: Some(img.name.clone().unwrap_or_else(|| img.hash.clone())),
                    image_hash: Some(img.hash.clone()),
                    image_id: img.source_id,
                    origin: None,
                    image_index: k,
                    width: img.width,
                    height: img.height,
                    targets,
                    persons: img.person_boxes.clone(),
                    segmentations_dropped: 0,
                });
            }
        }
        Ok(out)
    }
}
