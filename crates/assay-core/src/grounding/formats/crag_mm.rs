//! CRAG-MM-Diagnostics: `target_roi_bbox` `[x1, y1, x2, y2]` with `image_size` `[w, h]`, one
//! JSON object per line.

use serde_json::{json, Value};

use super::*;
use crate::error::{Error, Problem, Result};
use crate::model::{BBox, LabeledBox};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::formats::test_support::{close, sample};

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
}
