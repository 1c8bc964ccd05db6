//! Label Studio: rectangle results in percent of the image (`value.x/y/width/height`), with
//! `original_width/height` saying which image they describe.

use serde_json::{json, Value};

use super::*;
use crate::error::{Error, Problem, Result};
use crate::model::{BBox, LabeledBox};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::formats::test_support::{close, sample};

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
