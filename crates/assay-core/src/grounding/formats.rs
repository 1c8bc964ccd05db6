//! Boxes in the formats people already have, to and from Assay's pixel boxes
//! (`x_min, y_min, x_max, y_max` in the original image's pixels):
//! - COCO JSON: `bbox` is `[x, y, width, height]` in pixels, one `images` entry per image;
//! - Label Studio: rectangle results in percent of the image (`value.x/y/width/height`), with
//!   `original_width/height` saying which image they describe;
//! - CRAG-MM-Diagnostics: `target_roi_bbox` `[x1, y1, x2, y2]` with `image_size` `[w, h]`, one
//!   JSON object per line.
//!
//! Reading returns [`BoxSet`]s keyed by whatever the file names (an item id, an image file
//! name); [`Project::apply_box_sets`](crate::Project) matches them to items.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::error::{Error, Problem, Result};
use crate::model::{BBox, LabeledBox};

/// The boxes of one image of one item.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoxSet {
    /// The item's id in its dataset, when the file names it.
    pub item: Option<String>,
    /// The image as the file refers to it: a file name, a path, a Label Studio upload or
    /// local-files reference, a URL, or an image hash.
    pub image: Option<String>,
    /// SHA-256 of the referenced image's bytes, when the reference is a file next to the box
    /// file (or an absolute path) that could be read.
    pub image_hash: Option<String>,
    /// The image's numeric id in the file (COCO `images[].id`).
    pub image_id: Option<i64>,
    /// How the file names this entry, for messages ("images[3] (id 7)", "task 12").
    pub origin: Option<String>,
    /// Which image of the item (0 unless the file says).
    pub image_index: usize,
    /// The size the file gives the image (0 when it gives none).
    pub width: u32,
    pub height: u32,
    /// Target boxes, with the category the file gave each (None for Assay's plain "target").
    pub targets: Vec<LabeledBox>,
    pub persons: Vec<LabeledBox>,
    /// Annotations whose segmentation (polygon or RLE) was read as its box only.
    pub segmentations_dropped: usize,
}

crate::named_enum! {
    pub enum BoxFormat {
        Coco = "coco",
        LabelStudio = "label-studio",
        CragMm = "crag-mm",
    }
}

/// The category of a target box without a label of its own or an entity name.
pub const TARGET: &str = "target";
const PERSON: &str = "person";

fn problem(file: &str, line: Option<usize>, message: impl Into<String>) -> Error {
    let location = match line {
        Some(l) => format!("{file}:{l}"),
        None => file.to_string(),
    };
    Error::Import(vec![Problem::new(location, message)])
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .filter(|x| x.is_finite())
}

fn four(v: &Value) -> Option<[f64; 4]> {
    let a = v.as_array()?;
    if a.len() != 4 {
        return None;
    }
    let mut out = [0.0; 4];
    for (o, x) in out.iter_mut().zip(a) {
        *o = num(x)?;
    }
    Some(out)
}

/// An image side as a file gives it: a whole number from 1 to u32::MAX, read without wrapping
/// (an `original_width` of 2^32 must not become 0 and skip the size check).
fn side(v: Option<&Value>, what: &str) -> std::result::Result<Option<u32>, String> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let x = num(v).ok_or_else(|| format!("{what} {v} is not a number"))?;
    if x.fract() != 0.0 || x < 1.0 || x > f64::from(u32::MAX) {
        return Err(format!("{what} {v} is not an image size in pixels"));
    }
    Ok(Some(x as u32))
}

/// Refuses an empty, inverted or non-finite box, and one outside a `w`x`h` image (0: unknown).
pub fn check(b: BBox, w: u32, h: u32) -> std::result::Result<BBox, String> {
    if !b.is_valid() {
        return Err(format!(
            "box [{}, {}, {}, {}] is empty or inverted",
            b.x_min, b.y_min, b.x_max, b.y_max
        ));
    }
    let tol = 0.5;
    if w > 0
        && h > 0
        && (b.x_min < -tol
            || b.y_min < -tol
            || b.x_max > f64::from(w) + tol
            || b.y_max > f64::from(h) + tol)
    {
        return Err(format!(
            "box [{}, {}, {}, {}] lies outside the {w}x{h} image",
            b.x_min, b.y_min, b.x_max, b.y_max
        ));
    }
    Ok(b)
}

fn percent_decode(s: &str) -> String {
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(hi), Some(lo)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push(hi * 16 + lo);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// The path part of an image reference: the `d=` of a Label Studio local-files URL, else the
/// reference without its query and fragment, percent-decoded.
fn reference_path(reference: &str) -> String {
    let r = reference.trim();
    if let Some((_, query)) = r.split_once('?') {
        if let Some(d) = query.split('&').find_map(|kv| kv.strip_prefix("d=")) {
            return percent_decode(d);
        }
    }
    let r = r.split(['?', '#']).next().unwrap_or(r);
    percent_decode(r)
}

/// The last segment of a path, with either separator.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// A file name without its extension.
pub(crate) fn stem(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

/// The names an image reference may match, most specific first: the file name, the name
/// without the 8-hex prefix Label Studio gives uploads (`/data/upload/1/c44d2f77-x.png`),
/// then each without its extension (Label Studio tasks may name `/image1`).
pub fn reference_names(reference: &str) -> Vec<String> {
    let path = reference_path(reference);
    let base = file_name(&path).to_string();
    if base.is_empty() {
        return Vec::new();
    }
    let mut out = vec![base.clone()];
    if let Some((prefix, rest)) = base.split_once('-') {
        if prefix.len() == 8 && prefix.bytes().all(|c| c.is_ascii_hexdigit()) && !rest.is_empty() {
            out.push(rest.to_string());
        }
    }
    for n in out.clone() {
        let s = stem(&n);
        if !s.is_empty() && s != n {
            out.push(s.to_string());
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|n| seen.insert(n.clone()));
    out
}

/// Hashes the file an image reference points at, when it is an absolute path or lies beside
/// the box file (by its path, its local-files `d=` path or its file name).
fn local_image_hash(reference: &str, dir: &std::path::Path) -> Option<String> {
    let path = reference_path(reference);
    if path.contains("://") {
        return None;
    }
    let rel = path.trim_start_matches(['/', '\\']);
    let candidates = [
        std::path::PathBuf::from(&path),
        dir.join(rel),
        dir.join(reference_names(reference).first()?),
    ];
    candidates
        .iter()
        .filter(|p| p.is_file())
        .find_map(|p| std::fs::read(p).ok())
        .map(|bytes| crate::imaging::sha256_hex(&bytes))
}

// ---------------------------------------------------------------- COCO

/// COCO JSON. Target boxes go under their label's category (or "target"), person boxes under
/// "person" with their indicator in `attributes.label`; `iscrowd` and a file's own `area` are
/// written back; images keep the id they were read with where it is free.
pub fn to_coco(sets: &[BoxSet]) -> Value {
    let mut categories: Vec<(String, &str)> = Vec::new();
    let mut cat_id = |name: &str, supercategory: &'static str| -> usize {
        match categories.iter().position(|(n, _)| n == name) {
            Some(i) => i + 1,
            None => {
                categories.push((name.to_string(), supercategory));
                categories.len()
            }
        }
    };
    let taken: std::collections::HashSet<i64> = {
        let mut seen = std::collections::HashSet::new();
        let mut dup = std::collections::HashSet::new();
        for id in sets.iter().filter_map(|s| s.image_id) {
            if !seen.insert(id) {
                dup.insert(id);
            }
        }
        seen.difference(&dup).copied().collect()
    };
    let mut next_free = 1i64;
    let mut images = Vec::new();
    let mut anns = Vec::new();
    for s in sets {
        let image_id = match s.image_id.filter(|id| taken.contains(id)) {
            Some(id) => id,
            None => {
                while taken.contains(&next_free) {
                    next_free += 1;
                }
                next_free += 1;
                next_free - 1
            }
        };
        images.push(json!({
            "id": image_id,
            "file_name": s.image.clone().unwrap_or_default(),
            "width": s.width,
            "height": s.height,
            "assay_item": s.item,
            "assay_image_index": s.image_index,
        }));
        let mut push = |b: &LabeledBox, cat: usize, person: bool| {
            let bb = &b.bbox;
            let (w, h) = (bb.x_max - bb.x_min, bb.y_max - bb.y_min);
            let mut a = json!({
                "id": anns.len() + 1,
                "image_id": image_id,
                "category_id": cat,
                "bbox": [bb.x_min, bb.y_min, w, h],
                "area": b.area.unwrap_or(w * h),
                "iscrowd": u8::from(b.crowd),
                "segmentation": [],
            });
            if let (true, Some(l)) = (person, &b.label) {
                a["attributes"] = json!({ "label": l });
            }
            anns.push(a);
        };
        for b in &s.targets {
            let cat = cat_id(b.label.as_deref().unwrap_or(TARGET), "object");
            push(b, cat, false);
        }
        for p in &s.persons {
            let cat = cat_id(PERSON, PERSON);
            push(p, cat, true);
        }
    }
    let categories: Vec<Value> = categories
        .iter()
        .enumerate()
        .map(|(i, (name, sup))| json!({ "id": i + 1, "name": name, "supercategory": sup }))
        .collect();
    json!({
        "images": images,
        "annotations": anns,
        "categories": categories,
    })
}

/// Reads a COCO file. Annotations of the category named "person" become person boxes (with
/// `attributes.label` kept), every other category a target box labelled with its category's
/// name ("target" stays unlabelled). `iscrowd` is kept, `area` kept where it is not the box's
/// own, a segmentation is read as its box only (counted in `segmentations_dropped`).
pub fn from_coco(file: &str, v: &Value) -> Result<Vec<BoxSet>> {
    let images = v
        .get("images")
        .and_then(Value::as_array)
        .ok_or_else(|| problem(file, None, "not a COCO file: no \"images\" list"))?;
    let mut problems = Vec::new();
    let mut category: HashMap<i64, String> = HashMap::new();
    for (i, c) in v
        .get("categories")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        match (
            c.get("id").and_then(Value::as_i64),
            c.get("name").and_then(Value::as_str),
        ) {
            (Some(id), Some(name)) if !name.trim().is_empty() => {
                category.insert(id, name.trim().to_string());
            }
            _ => problems.push(Problem::new(
                file,
                format!("categories[{i}] needs a numeric id and a name"),
            )),
        }
    }
    let has_categories = v.get("categories").is_some_and(Value::is_array);
    let mut sets: Vec<BoxSet> = Vec::new();
    let mut by_id = HashMap::new();
    for (i, img) in images.iter().enumerate() {
        let at = |m: String| Problem::new(file, format!("images[{i}]: {m}"));
        let Some(id) = img.get("id").and_then(Value::as_i64) else {
            problems.push(at("has no numeric id".into()));
            continue;
        };
        if by_id.insert(id, sets.len()).is_some() {
            problems.push(at(format!("id {id} is used by an earlier image")));
            continue;
        }
        let (width, height) = match (
            side(img.get("width"), "width"),
            side(img.get("height"), "height"),
        ) {
            (Ok(w), Ok(h)) => (w.unwrap_or(0), h.unwrap_or(0)),
            (Err(e), _) | (_, Err(e)) => {
                problems.push(at(e));
                (0, 0)
            }
        };
        sets.push(BoxSet {
            item: img
                .get("assay_item")
                .and_then(Value::as_str)
                .map(str::to_string),
            image: img
                .get("file_name")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
            // Ids in Assay's own export are the ones it assigned or already keeps.
            image_id: Some(id).filter(|_| img.get("assay_item").is_none()),
            origin: Some(format!("images[{i}] (id {id})")),
            image_index: img
                .get("assay_image_index")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize,
            width,
            height,
            ..Default::default()
        });
    }
    let anns = v
        .get("annotations")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, a) in anns.iter().enumerate() {
        let at = |m: String| Problem::new(file, format!("annotations[{i}]: {m}"));
        let Some(&k) = a
            .get("image_id")
            .and_then(Value::as_i64)
            .and_then(|id| by_id.get(&id))
        else {
            problems.push(at("image_id names no image".into()));
            continue;
        };
        let Some([x, y, w, h]) = a.get("bbox").and_then(four) else {
            problems.push(at("bbox is not [x, y, width, height]".into()));
            continue;
        };
        let s = &mut sets[k];
        let b = BBox {
            x_min: x,
            y_min: y,
            x_max: x + w,
            y_max: y + h,
        };
        let b = match check(b, s.width, s.height) {
            Ok(b) => b,
            Err(e) => {
                problems.push(at(e));
                continue;
            }
        };
        let crowd = match a.get("iscrowd") {
            None | Some(Value::Null) => false,
            Some(v) => match v.as_i64().or_else(|| v.as_bool().map(i64::from)) {
                Some(0) => false,
                Some(1) => true,
                _ => {
                    problems.push(at(format!("iscrowd {v} is neither 0 nor 1")));
                    continue;
                }
            },
        };
        let area = match a.get("area") {
            None | Some(Value::Null) => None,
            Some(v) => match num(v) {
                Some(x) if x >= 0.0 => {
                    Some(x).filter(|x| (x - w * h).abs() > 1e-6 * (w * h).max(1.0))
                }
                _ => {
                    problems.push(at(format!("area {v} is not a non-negative number")));
                    continue;
                }
            },
        };
        let has_segmentation = match a.get("segmentation") {
            Some(Value::Array(p)) => !p.is_empty(),
            Some(Value::Object(_)) => true,
            _ => false,
        };
        s.segmentations_dropped += usize::from(has_segmentation);
        let cat = a.get("category_id").and_then(Value::as_i64);
        let name = match cat {
            None => None,
            // A file without a categories list names none: its boxes are plain targets.
            Some(_) if !has_categories => None,
            Some(c) => match category.get(&c) {
                Some(n) => Some(n.as_str()),
                None => {
                    problems.push(at(format!("category_id {c} is not in categories")));
                    continue;
                }
            },
        };
        if name.is_some_and(|n| n.eq_ignore_ascii_case(PERSON)) {
            let label = a
                .pointer("/attributes/label")
                .and_then(Value::as_str)
                .map(str::to_string);
            s.persons.push(LabeledBox {
                label,
                bbox: b,
                crowd,
                area,
            });
        } else {
            s.targets.push(LabeledBox {
                label: name.filter(|n| *n != TARGET).map(str::to_string),
                bbox: b,
                crowd,
                area,
            });
        }
    }
    if !problems.is_empty() {
        return Err(Error::Import(problems));
    }
    Ok(sets)
}

// ---------------------------------------------------------------- Label Studio

/// The name of the labelling config's control and object tags in Assay's Label Studio files.
const LS_FROM: &str = "label";
const LS_TO: &str = "image";

fn ls_result(b: &LabeledBox, w: u32, h: u32, label: &str, id: usize) -> Value {
    let (fw, fh) = (f64::from(w.max(1)), f64::from(h.max(1)));
    let bb = &b.bbox;
    json!({
        "id": format!("b{id}"),
        "type": "rectanglelabels",
        "from_name": LS_FROM,
        "to_name": LS_TO,
        "original_width": w,
        "original_height": h,
        "image_rotation": 0,
        "origin": "manual",
        "value": {
            "x": bb.x_min / fw * 100.0,
            "y": bb.y_min / fh * 100.0,
            "width": (bb.x_max - bb.x_min) / fw * 100.0,
            "height": (bb.y_max - bb.y_min) / fh * 100.0,
            "rotation": 0,
            "rectanglelabels": [label],
        },
    })
}

/// Each box of a set with the label it carries in Label Studio: a target's category (or
/// "target"), a person's indicator (or "person").
fn ls_boxes(s: &BoxSet) -> impl Iterator<Item = (&LabeledBox, String)> {
    let label = |b: &LabeledBox, default: &str| b.label.clone().unwrap_or_else(|| default.into());
    (s.targets.iter().map(move |b| (b, label(b, TARGET))))
        .chain(s.persons.iter().map(move |b| (b, label(b, PERSON))))
}

/// Label Studio's JSON export: one task per image, with a task `id`, `data` (the image
/// reference and Assay's item), and the boxes as one completed annotation, so that Label
/// Studio imports it and its converter turns it into COCO or YOLO.
pub fn to_label_studio(sets: &[BoxSet]) -> Value {
    let mut annotation_id = 0;
    let tasks: Vec<Value> = sets
        .iter()
        .enumerate()
        .map(|(t, s)| {
            let results: Vec<Value> = ls_boxes(s)
                .enumerate()
                .map(|(n, (b, label))| ls_result(b, s.width, s.height, &label, n + 1))
                .collect();
            annotation_id += 1;
            json!({
                "id": t + 1,
                "data": {
                    "image": s.image.clone().unwrap_or_default(),
                    "assay_item": s.item,
                    "assay_image_index": s.image_index,
                },
                "annotations": [{
                    "id": annotation_id,
                    "result": results,
                    "was_cancelled": false,
                    "ground_truth": false,
                    "result_count": s.targets.len() + s.persons.len(),
                    "task": t + 1,
                }],
                "predictions": [],
            })
        })
        .collect();
    Value::Array(tasks)
}

/// A labelling config for Label Studio that shows the exported tasks: the image and one
/// rectangle label per label the boxes use.
pub fn label_studio_config(sets: &[BoxSet]) -> String {
    let mut labels: Vec<String> = Vec::new();
    for s in sets {
        for (_, l) in ls_boxes(s) {
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
    }
    if labels.is_empty() {
        labels.push(TARGET.into());
    }
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut out = format!(
        "<View>\n  <Image name=\"{LS_TO}\" value=\"${LS_TO}\"/>\n  <RectangleLabels name=\"{LS_FROM}\" toName=\"{LS_TO}\">\n"
    );
    for l in labels {
        out.push_str(&format!("    <Label value=\"{}\"/>\n", escape(&l)));
    }
    out.push_str("  </RectangleLabels>\n</View>\n");
    out
}

/// Reads a Label Studio export (JSON list of tasks). Each task gives one set: its latest
/// annotation that was not cancelled, or its latest predictions when it has none.
/// Percentages are converted with the result's `original_width/height`; a label starting with
/// "person" makes a person box, any other label a target box of that category.
pub fn from_label_studio(file: &str, v: &Value) -> Result<Vec<BoxSet>> {
    let tasks = v.as_array().ok_or_else(|| {
        problem(
            file,
            None,
            "not a Label Studio export: expected a list of tasks",
        )
    })?;
    let mut sets = Vec::new();
    let mut problems = Vec::new();
    for (t, task) in tasks.iter().enumerate() {
        let task_name = match task.get("id") {
            Some(id) if !id.is_null() => format!("task {id}"),
            _ => format!("task [{t}]"),
        };
        let data = task.get("data").cloned().unwrap_or(Value::Null);
        let image = data
            .get("image")
            .or_else(|| {
                // A config may name its image variable otherwise ($img, $url): the one string.
                data.as_object().and_then(|m| {
                    let strings: Vec<&Value> = m
                        .iter()
                        .filter(|(k, v)| !k.starts_with("assay_") && v.is_string())
                        .map(|(_, v)| v)
                        .collect();
                    (strings.len() == 1).then(|| strings[0])
                })
            })
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string);
        let mut set = BoxSet {
            item: data
                .get("assay_item")
                .and_then(Value::as_str)
                .map(str::to_string),
            image,
            origin: Some(task_name.clone()),
            image_index: data
                .get("assay_image_index")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize,
            ..Default::default()
        };
        let pick = |key: &str| {
            let list = task.get(key).and_then(Value::as_array)?;
            let live: Vec<&Value> = list
                .iter()
                .filter(|a| {
                    !a.get("was_cancelled")
                        .and_then(Value::as_bool)
                        .unwrap_or(false)
                        && !a.get("skipped").and_then(Value::as_bool).unwrap_or(false)
                })
                .collect();
            // The latest by creation time where the file says; else the last listed.
            let latest = live
                .iter()
                .enumerate()
                .max_by(|(i, a), (j, b)| {
                    let at = |x: &Value| {
                        x.get("created_at")
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    };
                    at(a).cmp(&at(b)).then(i.cmp(j))
                })
                .map(|(_, a)| *a)?;
            latest.get("result").and_then(Value::as_array).cloned()
        };
        let results = pick("annotations").or_else(|| pick("predictions"));
        for (r, res) in results.unwrap_or_default().iter().enumerate() {
            if res.get("type").and_then(Value::as_str) != Some("rectanglelabels") {
                continue;
            }
            let at = |m: String| Problem::new(file, format!("{task_name}, result {r}: {m}"));
            let size = side(res.get("original_width"), "original_width")
                .and_then(|w| side(res.get("original_height"), "original_height").map(|h| (w, h)));
            let (w, h) = match size {
                Ok((Some(w), Some(h))) => (w, h),
                Ok(_) => {
                    problems.push(at(
                        "no original_width/original_height to convert percentages".into(),
                    ));
                    continue;
                }
                Err(e) => {
                    problems.push(at(e));
                    continue;
                }
            };
            if (set.width, set.height) != (0, 0) && (set.width, set.height) != (w, h) {
                problems.push(at(format!(
                    "the image is {w}x{h} here but {}x{} in an earlier result",
                    set.width, set.height
                )));
                continue;
            }
            let val = res.get("value").cloned().unwrap_or(Value::Null);
            let get = |k: &str| val.get(k).and_then(num);
            let (Some(x), Some(y), Some(bw), Some(bh)) =
                (get("x"), get("y"), get("width"), get("height"))
            else {
                problems.push(at("value needs x, y, width and height".into()));
                continue;
            };
            if get("rotation").unwrap_or(0.0).abs() > 1e-9 {
                problems.push(at("rotated rectangles cannot be stored as boxes".into()));
                continue;
            }
            let (fw, fh) = (f64::from(w), f64::from(h));
            let b = BBox {
                x_min: x / 100.0 * fw,
                y_min: y / 100.0 * fh,
                x_max: (x + bw) / 100.0 * fw,
                y_max: (y + bh) / 100.0 * fh,
            };
            let b = match check(b, w, h) {
                Ok(b) => b,
                Err(e) => {
                    problems.push(at(e));
                    continue;
                }
            };
            set.width = w;
            set.height = h;
            let label = val
                .pointer("/rectanglelabels/0")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .unwrap_or(TARGET);
            if label.to_lowercase().starts_with(PERSON) {
                set.persons
                    .push(LabeledBox::labelled(Some(label.to_string()), b));
            } else {
                set.targets.push(LabeledBox::labelled(
                    Some(label.to_string()).filter(|l| l != TARGET),
                    b,
                ));
            }
        }
        sets.push(set);
    }
    if !problems.is_empty() {
        return Err(Error::Import(problems));
    }
    Ok(sets)
}

// ---------------------------------------------------------------- CRAG-MM-Diagnostics

/// One JSON object per line: `{"id", "target_roi_bbox": [x1, y1, x2, y2], "image_size": [w, h]}`,
/// the keys the benchmark's `metadata` uses. Only the first target box of the first image fits.
pub fn to_crag_mm(sets: &[BoxSet]) -> String {
    let mut out = String::new();
    for s in sets {
        let Some(b) = s.targets.first().map(|t| &t.bbox) else {
            continue;
        };
        let line = json!({
            "id": s.item,
            "target_roi_bbox": [b.x_min, b.y_min, b.x_max, b.y_max],
            "image_size": [s.width, s.height],
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// Reads CRAG-MM-Diagnostics box lines; the keys may sit at the top or under `metadata`.
pub fn from_crag_mm(file: &str, text: &str) -> Result<Vec<BoxSet>> {
    let mut sets = Vec::new();
    let mut problems = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |m: String| Problem::new(format!("{file}:{}", i + 1), m);
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                problems.push(at(format!("not JSON: {e}")));
                continue;
            }
        };
        let get = |k: &str| v.get(k).or_else(|| v.pointer(&format!("/metadata/{k}")));
        let item = match v.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                problems.push(at("no id".into()));
                continue;
            }
        };
        let Some([x1, y1, x2, y2]) = get("target_roi_bbox").and_then(four) else {
            problems.push(at("target_roi_bbox is not [x1, y1, x2, y2]".into()));
            continue;
        };
        let size = match get("image_size").and_then(Value::as_array) {
            Some(a) if a.len() == 2 => side(Some(&a[0]), "image width")
                .and_then(|w| side(Some(&a[1]), "image height").map(|h| (w, h))),
            Some(_) => Err("image_size is not [width, height]".to_string()),
            None => Ok((None, None)),
        };
        let (w, h) = match size {
            Ok((w, h)) => (w.unwrap_or(0), h.unwrap_or(0)),
            Err(e) => {
                problems.push(at(e));
                continue;
            }
        };
        let b = BBox {
            x_min: x1,
            y_min: y1,
            x_max: x2,
            y_max: y2,
        };
        match check(b, w, h) {
            Ok(b) => sets.push(BoxSet {
                item: Some(item),
                width: w,
                height: h,
                targets: vec![LabeledBox::plain(b)],
                ..Default::default()
            }),
            Err(e) => problems.push(at(e)),
        }
    }
    if !problems.is_empty() {
        return Err(Error::Import(problems));
    }
    Ok(sets)
}

/// Reads a file in `format`. Image references that name a readable file (beside the box file,
/// or an absolute path) get the file's content hash, so they match an item's image by content.
pub fn read(format: BoxFormat, path: &std::path::Path) -> Result<Vec<BoxSet>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let file = path.display().to_string();
    let mut sets = parse(format, &file, &text)?;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    let mut hashed: HashMap<String, Option<String>> = HashMap::new();
    for s in &mut sets {
        if let Some(r) = &s.image {
            s.image_hash = hashed
                .entry(r.clone())
                .or_insert_with(|| local_image_hash(r, dir))
                .clone();
        }
    }
    Ok(sets)
}

/// Parses the text of a file in `format`; `file` names it in errors.
pub fn parse(format: BoxFormat, file: &str, text: &str) -> Result<Vec<BoxSet>> {
    match format {
        BoxFormat::CragMm => from_crag_mm(file, text),
        BoxFormat::Coco | BoxFormat::LabelStudio => {
            let v: Value = serde_json::from_str(text)
                .map_err(|e| problem(file, Some(e.line()), format!("not valid JSON: {e}")))?;
            if format == BoxFormat::Coco {
                from_coco(file, &v)
            } else {
                from_label_studio(file, &v)
            }
        }
    }
}

/// Writes `sets` in `format` as the file's text.
pub fn write(format: BoxFormat, sets: &[BoxSet]) -> String {
    match format {
        BoxFormat::Coco => serde_json::to_string_pretty(&to_coco(sets)).unwrap_or_default(),
        BoxFormat::LabelStudio => {
            serde_json::to_string_pretty(&to_label_studio(sets)).unwrap_or_default()
        }
        BoxFormat::CragMm => to_crag_mm(sets),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<BoxSet> {
        vec![
            BoxSet {
                item: Some("3f2a9c1e".into()),
                image: Some("ford.png".into()),
                image_index: 0,
                width: 3024,
                height: 4032,
                targets: vec![LabeledBox::plain(BBox {
                    x_min: 643.0,
                    y_min: 1610.0,
                    x_max: 2854.0,
                    y_max: 2388.0,
                })],
                ..Default::default()
            },
            BoxSet {
                item: Some("scene-7".into()),
                image: Some("scene7.jpg".into()),
                image_index: 0,
                width: 640,
                height: 480,
                targets: vec![],
                persons: vec![
                    LabeledBox::labelled(
                        Some("person1".into()),
                        BBox {
                            x_min: 10.5,
                            y_min: 20.25,
                            x_max: 110.0,
                            y_max: 300.0,
                        },
                    ),
                    LabeledBox::labelled(
                        Some("person2".into()),
                        BBox {
                            x_min: 300.0,
                            y_min: 40.0,
                            x_max: 420.0,
                            y_max: 470.0,
                        },
                    ),
                ],
                ..Default::default()
            },
        ]
    }

    fn close(a: &[BoxSet], b: &[BoxSet]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert_eq!(x.item, y.item);
            assert_eq!((x.width, x.height), (y.width, y.height));
            assert_eq!(x.targets.len(), y.targets.len());
            assert_eq!(x.persons.len(), y.persons.len());
            let pairs = x
                .targets
                .iter()
                .zip(&y.targets)
                .chain(x.persons.iter().zip(&y.persons));
            for (p, q) in pairs {
                assert_eq!((&p.label, p.crowd, p.area), (&q.label, q.crowd, q.area));
                let (p, q) = (&p.bbox, &q.bbox);
                for (u, v) in [
                    (p.x_min, q.x_min),
                    (p.y_min, q.y_min),
                    (p.x_max, q.x_max),
                    (p.y_max, q.y_max),
                ] {
                    assert!((u - v).abs() < 1e-9, "{u} vs {v}");
                }
            }
            let labels = |s: &BoxSet| {
                s.persons
                    .iter()
                    .map(|p| p.label.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(labels(x), labels(y));
        }
    }

    #[test]
    fn coco_round_trips_exact_pixels() {
        let text = write(BoxFormat::Coco, &sample());
        let v: Value = serde_json::from_str(&text).unwrap();
        // COCO's bbox is x, y, width, height.
        assert_eq!(
            v["annotations"][0]["bbox"],
            json!([643.0, 1610.0, 2211.0, 778.0])
        );
        close(&from_coco("x.json", &v).unwrap(), &sample());
    }

    #[test]
    fn label_studio_round_trips_through_percentages() {
        let v = to_label_studio(&sample());
        let r = &v[0]["annotations"][0]["result"][0];
        assert!((r["value"]["x"].as_f64().unwrap() - 643.0 / 3024.0 * 100.0).abs() < 1e-12);
        assert_eq!(r["original_width"], 3024);
        close(&from_label_studio("x.json", &v).unwrap(), &sample());
    }

    #[test]
    fn label_studio_reads_an_export_from_the_tool() {
        // The shape Label Studio writes (JSON export), with its upload path and a prediction-only task.
        let v = json!([
          {"id": 7, "data": {"image": "/data/upload/3/a1b2-scene7.jpg"},
           "annotations": [{"id": 1, "result": [
             {"original_width": 640, "original_height": 480, "image_rotation": 0,
              "value": {"x": 25.0, "y": 50.0, "width": 50.0, "height": 25.0, "rotation": 0,
                        "rectanglelabels": ["Car"]},
              "id": "x1", "from_name": "label", "to_name": "image", "type": "rectanglelabels"}]}]},
          {"id": 8, "data": {"image": "s3://bucket/b.png"}, "annotations": [],
           "predictions": [{"result": [
             {"original_width": 100, "original_height": 200,
              "value": {"x": 10, "y": 10, "width": 10, "height": 10, "rectanglelabels": ["person4"]},
              "type": "rectanglelabels"}]}]}
        ]);
        let sets = from_label_studio("export.json", &v).unwrap();
        assert_eq!(
            sets[0].image.as_deref(),
            Some("/data/upload/3/a1b2-scene7.jpg")
        );
        assert_eq!(sets[0].origin.as_deref(), Some("task 7"));
        assert_eq!(
            sets[0].targets,
            vec![LabeledBox::labelled(
                Some("Car".into()),
                BBox {
                    x_min: 160.0,
                    y_min: 240.0,
                    x_max: 480.0,
                    y_max: 360.0
                }
            )]
        );
        assert_eq!(sets[1].persons[0].label.as_deref(), Some("person4"));
        assert_eq!(sets[1].persons[0].bbox.y_max, 40.0);
    }

    #[test]
    fn crag_mm_lines_round_trip_and_name_bad_lines() {
        let first = vec![sample().remove(0)];
        let text = to_crag_mm(&first);
        close(&from_crag_mm("b.jsonl", &text).unwrap(), &first);
        let bad = format!("{text}{{\"id\": \"x\", \"target_roi_bbox\": [5, 5, 1, 1]}}\n");
        let Err(Error::Import(ps)) = from_crag_mm("b.jsonl", &bad) else {
            panic!("an inverted box must be refused")
        };
        assert_eq!(ps[0].location, "b.jsonl:2");
        assert!(ps[0].message.contains("inverted"), "{}", ps[0].message);
    }

    #[test]
    fn reads_the_published_crag_mm_records() {
        let root = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/formats/crag-mm-diagnostics/data/test.jsonl"
        );
        let text = std::fs::read_to_string(root).unwrap();
        let sets = from_crag_mm("test.jsonl", &text).unwrap();
        assert_eq!(sets.len(), 5);
        assert_eq!(
            sets[0].targets[0].bbox,
            BBox {
                x_min: 643.0,
                y_min: 1610.0,
                x_max: 2854.0,
                y_max: 2388.0
            }
        );
        assert_eq!((sets[0].width, sets[0].height), (3024, 4032));
    }

    #[test]
    fn a_box_outside_its_image_is_refused() {
        let v = json!({"images": [{"id": 1, "file_name": "a.jpg", "width": 100, "height": 100}],
                       "annotations": [{"id": 1, "image_id": 1, "bbox": [90, 90, 20, 5], "category_id": 1}]});
        let Err(Error::Import(ps)) = from_coco("a.json", &v) else {
            panic!("refused")
        };
        assert!(ps[0].message.contains("outside"), "{}", ps[0].message);
    }

    #[test]
    fn image_references_in_every_form_label_studio_writes() {
        let names = |r: &str| reference_names(r);
        assert_eq!(
            names("/data/upload/1/c44d2f77-image1.png"),
            vec![
                "c44d2f77-image1.png",
                "image1.png",
                "c44d2f77-image1",
                "image1"
            ]
        );
        assert_eq!(
            names("/data/local-files/?d=images/sub%20dir/image1.png"),
            vec!["image1.png", "image1"]
        );
        assert_eq!(
            names("s3://bucket/key/image1.png"),
            vec!["image1.png", "image1"]
        );
        assert_eq!(
            names("https://host/a/image1.jpg?X-Amz-Signature=abc#frag"),
            vec!["image1.jpg", "image1"]
        );
        assert_eq!(names("/image1"), vec!["image1"]);
        assert_eq!(names("C:\\data\\写真.png"), vec!["写真.png", "写真"]);
        // A hyphen after something that is not an 8-hex upload prefix stays part of the name.
        assert_eq!(
            names("/data/upload/1/my-photo.png"),
            vec!["my-photo.png", "my-photo"]
        );
        assert!(names("").is_empty());
    }

    #[test]
    fn sizes_are_read_without_wrapping() {
        let v = json!([{"id": 1, "data": {"image": "/image1"}, "annotations": [{"result": [
            {"original_width": 4294967296u64, "original_height": 100, "type": "rectanglelabels",
             "value": {"x": 10, "y": 10, "width": 10, "height": 10, "rectanglelabels": ["car"]}}]}]}]);
        let Err(Error::Import(ps)) = from_label_studio("ls.json", &v) else {
            panic!("2^32 is no width")
        };
        assert!(
            ps[0].message.contains("original_width 4294967296"),
            "{}",
            ps[0].message
        );
        assert!(ps[0].location.contains("ls.json"));
        assert!(ps[0].message.contains("task 1"), "{}", ps[0].message);
        for bad in [json!(-3), json!(12.5), json!(0), json!("wide")] {
            assert!(side(Some(&bad), "width").is_err(), "{bad}");
        }
        assert_eq!(
            side(Some(&json!(4294967295u64)), "width"),
            Ok(Some(u32::MAX))
        );
        let coco = json!({"images": [{"id": 1, "file_name": "a.jpg", "width": 4294967296u64, "height": 10}],
                          "annotations": [], "categories": []});
        assert!(from_coco("c.json", &coco).is_err());
    }

    #[test]
    fn coco_keeps_categories_crowds_areas_and_image_ids() {
        let v = json!({
            "images": [{"id": 42, "file_name": "images/a.jpg", "width": 100, "height": 80},
                       {"id": 7, "file_name": "b.jpg", "width": 50, "height": 50}],
            "categories": [{"id": 3, "name": "car"}, {"id": 9, "name": "person"}, {"id": 1, "name": "target"}],
            "annotations": [
                {"id": 1, "image_id": 42, "category_id": 3, "bbox": [10, 10, 20, 10], "area": 150.5,
                 "iscrowd": 0, "segmentation": [[10, 10, 30, 10, 30, 20]]},
                {"id": 2, "image_id": 42, "category_id": 3, "bbox": [40, 40, 50, 30], "area": 1500,
                 "iscrowd": 1, "segmentation": {"counts": "abc", "size": [80, 100]}},
                {"id": 3, "image_id": 7, "category_id": 9, "bbox": [1, 1, 10, 10], "attributes": {"label": "person2"}},
                {"id": 4, "image_id": 7, "category_id": 1, "bbox": [5, 5, 10, 10], "area": 100}
            ]
        });
        let sets = from_coco("c.json", &v).unwrap();
        let a = &sets[0];
        assert_eq!(
            (a.image_id, a.image.as_deref()),
            (Some(42), Some("images/a.jpg"))
        );
        assert_eq!(a.targets[0].label.as_deref(), Some("car"));
        assert_eq!(
            a.targets[0].area,
            Some(150.5),
            "the segmentation's area is kept"
        );
        assert!(!a.targets[0].crowd && a.targets[1].crowd);
        assert_eq!(
            a.targets[1].area, None,
            "an area equal to the box's is not stored"
        );
        assert_eq!(a.segmentations_dropped, 2);
        let b = &sets[1];
        assert_eq!(b.persons[0].label.as_deref(), Some("person2"));
        assert_eq!(
            b.targets[0].label, None,
            "Assay's own \"target\" is no label"
        );
        // Written back: the same ids, categories by name, crowd and area as read.
        let out = to_coco(&sets);
        assert_eq!(out["images"][0]["id"], 42);
        assert_eq!(out["images"][1]["id"], 7);
        let cat = |id: &Value| {
            out["categories"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| &c["id"] == id)
                .unwrap()["name"]
                .clone()
        };
        let anns = out["annotations"].as_array().unwrap();
        assert_eq!(cat(&anns[0]["category_id"]), "car");
        assert_eq!(anns[0]["area"], 150.5);
        assert_eq!(anns[1]["iscrowd"], 1);
        assert_eq!(cat(&anns[2]["category_id"]), "target");
        assert_eq!(cat(&anns[3]["category_id"]), "person");
        assert_eq!(from_coco("again.json", &out).unwrap()[0].targets, a.targets);
    }

    #[test]
    fn coco_refuses_what_it_cannot_read_by_annotation() {
        let base = |ann: Value| {
            json!({"images": [{"id": 1, "file_name": "a.jpg", "width": 100, "height": 100}],
                   "categories": [{"id": 1, "name": "car"}], "annotations": [ann]})
        };
        for (ann, says) in [
            (
                json!({"image_id": 1, "category_id": 1, "bbox": [10, 10, 0, 5]}),
                "empty",
            ),
            (
                json!({"image_id": 1, "category_id": 5, "bbox": [10, 10, 5, 5]}),
                "category_id 5",
            ),
            (
                json!({"image_id": 1, "category_id": 1, "bbox": [10, 10, 5, 5], "iscrowd": 2}),
                "iscrowd",
            ),
            (
                json!({"image_id": 2, "category_id": 1, "bbox": [10, 10, 5, 5]}),
                "names no image",
            ),
            (
                json!({"image_id": 1, "category_id": 1, "bbox": [10, 10, 5]}),
                "bbox",
            ),
        ] {
            let Err(Error::Import(ps)) = from_coco("c.json", &base(ann)) else {
                panic!("refused: {says}")
            };
            assert!(
                ps[0].message.starts_with("annotations[0]"),
                "{}",
                ps[0].message
            );
            assert!(ps[0].message.contains(says), "{says}: {}", ps[0].message);
        }
        let bare = json!({"images": [{"id": 1, "file_name": "a.jpg"}],
                          "annotations": [{"image_id": 1, "category_id": 4, "bbox": [1, 1, 2, 2]}]});
        assert_eq!(
            from_coco("c.json", &bare).unwrap()[0].targets[0].label,
            None,
            "no categories list: plain targets"
        );
        let dup = json!({"images": [{"id": 1}, {"id": 1}], "annotations": []});
        assert!(from_coco("c.json", &dup).is_err(), "two images with one id");
    }

    #[test]
    fn label_studio_tasks_carry_ids_and_skip_cancelled_annotations() {
        let out = to_label_studio(&sample());
        assert_eq!(out[0]["id"], 1);
        assert_eq!(out[1]["id"], 2);
        assert_eq!(
            out[1]["annotations"][0]["result"][0]["value"]["rectanglelabels"][0],
            "person1"
        );
        assert!(out[0]["predictions"].as_array().unwrap().is_empty());
        let config = label_studio_config(&sample());
        for l in ["target", "person1", "person2"] {
            assert!(
                config.contains(&format!("<Label value=\"{l}\"/>")),
                "{config}"
            );
        }
        let v = json!([{"id": 3, "data": {"img": "/data/local-files/?d=x/a.png"}, "annotations": [
            {"id": 1, "created_at": "2024-01-02T00:00:00Z", "result": [
                {"original_width": 100, "original_height": 100, "type": "rectanglelabels",
                 "value": {"x": 10, "y": 10, "width": 10, "height": 10, "rectanglelabels": ["old"]}}]},
            {"id": 2, "created_at": "2024-01-03T00:00:00Z", "was_cancelled": true, "result": [
                {"original_width": 100, "original_height": 100, "type": "rectanglelabels",
                 "value": {"x": 50, "y": 50, "width": 10, "height": 10, "rectanglelabels": ["cancelled"]}}]}
        ]}]);
        let sets = from_label_studio("ls.json", &v).unwrap();
        assert_eq!(
            sets[0].image.as_deref(),
            Some("/data/local-files/?d=x/a.png")
        );
        assert_eq!(sets[0].targets[0].label.as_deref(), Some("old"));
    }
}
