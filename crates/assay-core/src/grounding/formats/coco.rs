//! COCO JSON: `bbox` is `[x, y, width, height]` in pixels, one `images` entry per image.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::*;
use crate::error::{Error, Problem, Result};
use crate::model::{BBox, LabeledBox};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::formats::test_support::{close, sample};
    use crate::grounding::formats::{write, BoxFormat};

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
}
