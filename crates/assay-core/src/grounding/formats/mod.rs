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

mod coco;
mod crag_mm;
pub mod files;
mod label_studio;

pub use coco::{from_coco, to_coco};
pub use crag_mm::{from_crag_mm, to_crag_mm};
pub use label_studio::{from_label_studio, label_studio_config, to_label_studio};

use std::collections::HashMap;

use serde_json::Value;

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
pub(crate) mod test_support {
    use super::*;

    pub(crate) fn sample() -> Vec<BoxSet> {
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

    pub(crate) fn close(a: &[BoxSet], b: &[BoxSet]) {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
