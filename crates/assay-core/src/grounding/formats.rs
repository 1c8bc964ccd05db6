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

use serde_json::{json, Value};

use crate::error::{Error, Problem, Result};
use crate::model::{BBox, LabeledBox};

/// The boxes of one image of one item.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BoxSet {
    /// The item's id in its dataset, when the file names it.
    pub item: Option<String>,
    /// The image's file name (or hash), when the file names it.
    pub image: Option<String>,
    /// Which image of the item (0 unless the file says).
    pub image_index: usize,
    pub width: u32,
    pub height: u32,
    pub targets: Vec<BBox>,
    pub persons: Vec<LabeledBox>,
}

crate::named_enum! {
    pub enum BoxFormat {
        Coco = "coco",
        LabelStudio = "label-studio",
        CragMm = "crag-mm",
    }
}

const TARGET: &str = "target";
const PERSON: &str = "person";

/// The last path segment of a file name or URL (Label Studio stores `/data/upload/3/x.jpg`).
fn base_name(s: &str) -> String {
    let s = s.split(['?', '#']).next().unwrap_or(s);
    s.rsplit(['/', '\\']).next().unwrap_or(s).to_string()
}

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

fn check(b: BBox, w: u32, h: u32) -> std::result::Result<BBox, String> {
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

// ---------------------------------------------------------------- COCO

pub fn to_coco(sets: &[BoxSet]) -> Value {
    let mut images = Vec::new();
    let mut anns = Vec::new();
    for (i, s) in sets.iter().enumerate() {
        let image_id = i + 1;
        images.push(json!({
            "id": image_id,
            "file_name": s.image.clone().unwrap_or_default(),
            "width": s.width,
            "height": s.height,
            "assay_item": s.item,
            "assay_image_index": s.image_index,
        }));
        let mut push = |b: &BBox, cat: u32, label: Option<&String>| {
            let (w, h) = (b.x_max - b.x_min, b.y_max - b.y_min);
            let mut a = json!({
                "id": anns.len() + 1,
                "image_id": image_id,
                "category_id": cat,
                "bbox": [b.x_min, b.y_min, w, h],
                "area": w * h,
                "iscrowd": 0,
            });
            if let Some(l) = label {
                a["attributes"] = json!({ "label": l });
            }
            anns.push(a);
        };
        for b in &s.targets {
            push(b, 1, None);
        }
        for p in &s.persons {
            push(&p.bbox, 2, p.label.as_ref());
        }
    }
    json!({
        "images": images,
        "annotations": anns,
        "categories": [
            { "id": 1, "name": TARGET, "supercategory": "object" },
            { "id": 2, "name": PERSON, "supercategory": "person" }
        ],
    })
}

/// Reads a COCO file. Annotations of the category named "person" become person boxes (with
/// `attributes.label` kept), every other category a target box.
pub fn from_coco(file: &str, v: &Value) -> Result<Vec<BoxSet>> {
    let images = v
        .get("images")
        .and_then(Value::as_array)
        .ok_or_else(|| problem(file, None, "not a COCO file: no \"images\" list"))?;
    let person_cats: Vec<i64> = v
        .get("categories")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter(|c| c.get("name").and_then(Value::as_str) == Some(PERSON))
                .filter_map(|c| c.get("id").and_then(Value::as_i64))
                .collect()
        })
        .unwrap_or_default();
    let mut sets: Vec<BoxSet> = Vec::new();
    let mut by_id = std::collections::HashMap::new();
    for (i, img) in images.iter().enumerate() {
        let id = img
            .get("id")
            .and_then(Value::as_i64)
            .ok_or_else(|| problem(file, None, format!("images[{i}] has no numeric id")))?;
        by_id.insert(id, sets.len());
        sets.push(BoxSet {
            item: img
                .get("assay_item")
                .and_then(Value::as_str)
                .map(str::to_string),
            image: img
                .get("file_name")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(base_name),
            image_index: img
                .get("assay_image_index")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize,
            width: img.get("width").and_then(Value::as_u64).unwrap_or(0) as u32,
            height: img.get("height").and_then(Value::as_u64).unwrap_or(0) as u32,
            ..Default::default()
        });
    }
    let anns = v
        .get("annotations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut problems = Vec::new();
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
        let cat = a.get("category_id").and_then(Value::as_i64).unwrap_or(1);
        if person_cats.contains(&cat) {
            let label = a
                .pointer("/attributes/label")
                .and_then(Value::as_str)
                .map(str::to_string);
            s.persons.push(LabeledBox { label, bbox: b });
        } else {
            s.targets.push(b);
        }
    }
    if !problems.is_empty() {
        return Err(Error::Import(problems));
    }
    Ok(sets)
}

// ---------------------------------------------------------------- Label Studio

fn ls_result(b: &BBox, w: u32, h: u32, label: &str, id: usize) -> Value {
    let (fw, fh) = (f64::from(w.max(1)), f64::from(h.max(1)));
    json!({
        "id": format!("b{id}"),
        "type": "rectanglelabels",
        "from_name": "label",
        "to_name": "image",
        "original_width": w,
        "original_height": h,
        "image_rotation": 0,
        "value": {
            "x": b.x_min / fw * 100.0,
            "y": b.y_min / fh * 100.0,
            "width": (b.x_max - b.x_min) / fw * 100.0,
            "height": (b.y_max - b.y_min) / fh * 100.0,
            "rotation": 0,
            "rectanglelabels": [label],
        },
    })
}

/// Label Studio tasks, one per image, with the boxes as a completed annotation. Person boxes
/// keep their indicator as the label ("person3"); targets are labelled "target".
pub fn to_label_studio(sets: &[BoxSet]) -> Value {
    let tasks: Vec<Value> = sets
        .iter()
        .map(|s| {
            let mut results = Vec::new();
            for b in &s.targets {
                results.push(ls_result(b, s.width, s.height, TARGET, results.len() + 1));
            }
            for p in &s.persons {
                let label = p.label.clone().unwrap_or_else(|| PERSON.into());
                results.push(ls_result(
                    &p.bbox,
                    s.width,
                    s.height,
                    &label,
                    results.len() + 1,
                ));
            }
            json!({
                "data": {
                    "image": s.image.clone().unwrap_or_default(),
                    "assay_item": s.item,
                    "assay_image_index": s.image_index,
                },
                "annotations": [{ "result": results }],
            })
        })
        .collect();
    Value::Array(tasks)
}

/// Reads a Label Studio export (JSON list of tasks). The latest annotation of each task is
/// used, or its predictions when it has none. Percentages are converted with the task's
/// `original_width/height`; a label starting with "person" makes a person box.
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
        let data = task.get("data").cloned().unwrap_or(Value::Null);
        let mut set = BoxSet {
            item: data
                .get("assay_item")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| data.get("id").and_then(Value::as_str).map(str::to_string)),
            image: data
                .get("image")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(base_name),
            image_index: data
                .get("assay_image_index")
                .and_then(Value::as_u64)
                .unwrap_or(0) as usize,
            ..Default::default()
        };
        let pick = |key: &str| {
            task.get(key)
                .and_then(Value::as_array)
                .and_then(|a| a.last())
                .and_then(|a| a.get("result"))
                .and_then(Value::as_array)
                .cloned()
        };
        let results = pick("annotations").or_else(|| pick("predictions"));
        for (r, res) in results.unwrap_or_default().iter().enumerate() {
            if res.get("type").and_then(Value::as_str) != Some("rectanglelabels") {
                continue;
            }
            let at = |m: String| Problem::new(file, format!("task {t}, result {r}: {m}"));
            let (Some(w), Some(h)) = (
                res.get("original_width").and_then(Value::as_u64),
                res.get("original_height").and_then(Value::as_u64),
            ) else {
                problems.push(at(
                    "no original_width/original_height to convert percentages".into(),
                ));
                continue;
            };
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
            let (fw, fh) = (w as f64, h as f64);
            let b = BBox {
                x_min: x / 100.0 * fw,
                y_min: y / 100.0 * fh,
                x_max: (x + bw) / 100.0 * fw,
                y_max: (y + bh) / 100.0 * fh,
            };
            let b = match check(b, w as u32, h as u32) {
                Ok(b) => b,
                Err(e) => {
                    problems.push(at(e));
                    continue;
                }
            };
            set.width = w as u32;
            set.height = h as u32;
            let label = val
                .pointer("/rectanglelabels/0")
                .and_then(Value::as_str)
                .unwrap_or(TARGET);
            if label.to_lowercase().starts_with(PERSON) {
                set.persons.push(LabeledBox {
                    label: Some(label.to_string()),
                    bbox: b,
                });
            } else {
                set.targets.push(b);
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
        let Some(b) = s.targets.first() else { continue };
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
        let (w, h) = get("image_size")
            .and_then(Value::as_array)
            .filter(|a| a.len() == 2)
            .map(|a| {
                (
                    num(&a[0]).unwrap_or(0.0) as u32,
                    num(&a[1]).unwrap_or(0.0) as u32,
                )
            })
            .unwrap_or((0, 0));
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
                targets: vec![b],
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

/// Reads a file in `format`.
pub fn read(format: BoxFormat, path: &std::path::Path) -> Result<Vec<BoxSet>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let file = path.display().to_string();
    match format {
        BoxFormat::CragMm => from_crag_mm(&file, &text),
        BoxFormat::Coco | BoxFormat::LabelStudio => {
            let v: Value = serde_json::from_str(&text)
                .map_err(|e| problem(&file, Some(e.line()), format!("not valid JSON: {e}")))?;
            if format == BoxFormat::Coco {
                from_coco(&file, &v)
            } else {
                from_label_studio(&file, &v)
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
                targets: vec![BBox {
                    x_min: 643.0,
                    y_min: 1610.0,
                    x_max: 2854.0,
                    y_max: 2388.0,
                }],
                persons: vec![],
            },
            BoxSet {
                item: Some("scene-7".into()),
                image: Some("scene7.jpg".into()),
                image_index: 0,
                width: 640,
                height: 480,
                targets: vec![],
                persons: vec![
                    LabeledBox {
                        label: Some("person1".into()),
                        bbox: BBox {
                            x_min: 10.5,
                            y_min: 20.25,
                            x_max: 110.0,
                            y_max: 300.0,
                        },
                    },
                    LabeledBox {
                        label: Some("person2".into()),
                        bbox: BBox {
                            x_min: 300.0,
                            y_min: 40.0,
                            x_max: 420.0,
                            y_max: 470.0,
                        },
                    },
                ],
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
            let pairs = x.targets.iter().zip(&y.targets).chain(
                x.persons
                    .iter()
                    .zip(&y.persons)
                    .map(|(p, q)| (&p.bbox, &q.bbox)),
            );
            for (p, q) in pairs {
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
        assert_eq!(sets[0].image.as_deref(), Some("a1b2-scene7.jpg"));
        assert_eq!(
            sets[0].targets,
            vec![BBox {
                x_min: 160.0,
                y_min: 240.0,
                x_max: 480.0,
                y_max: 360.0
            }]
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
            sets[0].targets[0],
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
}
