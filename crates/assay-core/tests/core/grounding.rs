//! Boxes: metrics kept with each edit, filters and histograms over them, the ambiguity rule,
//! and box files from other tools applied as revisions.

use assay_core::grounding::formats::{self, BoxFormat};
use assay_core::store::{Filter, Page, Range};
use assay_core::{BBox, Error, ItemStatus, LabeledBox, RefType};

use crate::common::*;

fn crag(p: &mut assay_core::Project) -> i64 {
    import(
        p,
        &sample_dir().join("crag-mini/crag-mini.jsonl"),
        &Default::default(),
    )
    .unwrap();
    p.dataset_by_name("crag-mini").unwrap().id
}

#[test]
fn metrics_follow_the_stored_box_and_filter_with_the_ref_type() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    crag(&mut p);
    let id = p.item_id_by_ext("crag-mini", "cr-001").unwrap();
    // cr-001: [200, 280, 310, 342] on 512x384 → 110*62 / (512*384).
    let small = Filter {
        size_ratio: Some(Range {
            min: None,
            max: Some(0.05),
        }),
        ref_types: vec![RefType::Ambiguous],
        ..Default::default()
    };
    assert_eq!(ids(&p, &small), vec!["cr-001"]);
    let facets = p.facets(&Filter::default()).unwrap();
    let boxed: i64 = facets.boxes.size_ratio.iter().map(|b| b.count).sum();
    assert_eq!(
        boxed,
        p.query(
            &Filter {
                has_box: Some(true),
                ..Default::default()
            },
            Page::default()
        )
        .unwrap()
        .total
    );
    let bin = facets
        .boxes
        .size_ratio
        .iter()
        .find(|b| b.lo <= 6820.0 / 196608.0 && 6820.0 / 196608.0 < b.hi)
        .unwrap();
    assert!(bin.count >= 1);
    // Under a size range, the size histogram ignores its own range (all bars stay) and the
    // other histograms count only the items in range.
    let ranged = p.facets(&small).unwrap();
    let mut no_size_range = small.clone();
    no_size_range.size_ratio = None;
    let reference = p.facets(&no_size_range).unwrap();
    assert_eq!(ranged.boxes.size_ratio, reference.boxes.size_ratio);
    let in_range: i64 = ranged.boxes.center_distance.iter().map(|b| b.count).sum();
    assert_eq!(in_range, 1);

    // Growing the box to half the image takes it out of the small-box filter.
    let a = author(&p, "aiko");
    let mut e = edit_of(&p, id);
    e.content.images[0].target_boxes = vec![LabeledBox::plain(BBox {
        x_min: 0.0,
        y_min: 0.0,
        x_max: 256.0,
        y_max: 384.0,
    })];
    p.save_edit(id, &e, &a).unwrap();
    assert!(ids(&p, &small).is_empty());
    let half = Filter {
        size_ratio: Some(Range {
            min: Some(0.49),
            max: Some(0.51),
        }),
        ..Default::default()
    };
    assert_eq!(ids(&p, &half), vec!["cr-001"]);
    // Undo (restore the original) brings the metric back with the box.
    p.restore_revision(id, 0, &a).unwrap();
    assert_eq!(ids(&p, &small), vec!["cr-001"]);
}

#[test]
fn an_ambiguous_type_needs_a_disambiguated_question() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    crag(&mut p);
    let a = author(&p, "aiko");
    let id = p.item_id_by_ext("crag-mini", "cr-002").unwrap();
    let mut e = edit_of(&p, id);
    assert_ne!(e.content.ref_type, Some(RefType::Ambiguous));
    e.content.ref_type = Some(RefType::Ambiguous);
    e.content.disambiguated_question = Some("  ".into());
    let err = p.save_edit(id, &e, &a).unwrap_err();
    assert!(
        matches!(err, Error::Invalid(ref m) if m.contains("disambiguated")),
        "{err}"
    );
    assert_eq!(p.item(id).unwrap().rev, 0, "nothing written");
    e.content.disambiguated_question =
        Some("How many doors does the red car on the left have?".into());
    assert_eq!(p.save_edit(id, &e, &a).unwrap(), 1);
    assert_eq!(p.item(id).unwrap().status, ItemStatus::Edited);
}

#[test]
fn coco_and_label_studio_files_round_trip_through_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let ds = crag(&mut p);
    let before = p.box_sets(ds).unwrap();
    let a = author(&p, "aiko");
    for format in [BoxFormat::Coco, BoxFormat::LabelStudio] {
        // Move every box by a known amount in the file, apply it, and read the stored pixels.
        let mut moved = before.clone();
        for s in &mut moved {
            for b in &mut s.targets {
                b.bbox.x_min += 3.0;
                b.bbox.x_max += 3.0;
            }
        }
        let path = dir.path().join(format!("boxes-{}.json", format.as_str()));
        std::fs::write(&path, formats::write(format, &moved)).unwrap();
        let sets = formats::read(format, &path).unwrap();
        let report = p
            .apply_box_sets(ds, &sets, &a, "boxes moved in another tool", "f")
            .unwrap();
        assert_eq!(report.matched, sets.len());
        let after = p.box_sets(ds).unwrap();
        for (x, y) in after.iter().zip(&moved) {
            assert_eq!(x.targets.len(), y.targets.len());
            for (b, c) in x.targets.iter().zip(&y.targets) {
                let (b, c) = (&b.bbox, &c.bbox);
                assert!((b.x_min - c.x_min).abs() < 1e-9 && (b.y_max - c.y_max).abs() < 1e-9);
            }
        }
        let changed = before.iter().filter(|s| !s.targets.is_empty()).count();
        assert_eq!(report.changed, changed);
        // Applying the same file again changes nothing.
        let again = p.apply_box_sets(ds, &sets, &a, "again", "f").unwrap();
        assert_eq!(again.changed, 0);
        p.apply_box_sets(ds, &before, &a, "back", "f").unwrap();
    }
}

#[test]
fn boxes_for_a_resized_frame_are_scaled_and_unknown_items_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let ds = crag(&mut p);
    let a = author(&p, "aiko");
    // A box given on a resized frame of the 512x384 image maps back to its pixels.
    let line =
        r#"{"id": "cr-001", "target_roi_bbox": [96, 128, 192, 256], "image_size": [1024, 768]}"#;
    let sets = formats::from_crag_mm("b.jsonl", line).unwrap();
    p.apply_box_sets(ds, &sets, &a, "from CRAG-MM", "b.jsonl")
        .unwrap();
    let id = p.item_id_by_ext("crag-mini", "cr-001").unwrap();
    let b = p.item(id).unwrap().content.images[0].target_boxes[0].bbox;
    assert_eq!(
        (b.x_min, b.y_min, b.x_max, b.y_max),
        (48.0, 64.0, 96.0, 128.0)
    );
    // A frame of another shape is another picture: refused, not stretched.
    let portrait =
        r#"{"id": "cr-001", "target_roi_bbox": [96, 128, 192, 256], "image_size": [960, 1280]}"#;
    let sets = formats::from_crag_mm("b.jsonl", portrait).unwrap();
    let err = p.apply_box_sets(ds, &sets, &a, "x", "b.jsonl").unwrap_err();
    assert!(err.to_string().contains("another aspect ratio"), "{err}");

    let two = format!(
        "{line}\n{}",
        r#"{"id": "nope", "target_roi_bbox": [1, 1, 2, 2]}"#
    );
    let sets = formats::from_crag_mm("b.jsonl", &two).unwrap();
    let rev = p.item(id).unwrap().rev;
    let err = p.apply_box_sets(ds, &sets, &a, "x", "b.jsonl").unwrap_err();
    assert!(
        err.to_string()
            .contains("item \"nope\" is not in this dataset"),
        "{err}"
    );
    assert_eq!(p.item(id).unwrap().rev, rev, "all or nothing");
}

/// Three items with one image each (a.png 200x100, b.jpg 64x64, c.png 64x64), no boxes.
fn three_images(p: &mut assay_core::Project, dir: &std::path::Path) -> i64 {
    let src = dir.join("three");
    std::fs::create_dir_all(src.join("img")).unwrap();
    for (name, w, h, seed) in [
        ("a.png", 200, 100, 1),
        ("b.jpg", 64, 64, 2),
        ("c.png", 64, 64, 3),
    ] {
        std::fs::write(src.join("img").join(name), png(w, h, seed)).unwrap();
    }
    let lines: String = [("q1", "a.png"), ("q2", "b.jpg"), ("q3", "c.png")]
        .iter()
        .map(|(id, img)| {
            format!(r#"{{"id": "{id}", "question": "Where is it?", "answer": "there", "image": "img/{img}"}}"#) + "\n"
        })
        .collect();
    std::fs::write(src.join("three.jsonl"), lines).unwrap();
    import(p, &src.join("three.jsonl"), &Default::default()).unwrap();
    p.dataset_by_name("three").unwrap().id
}

fn ls_task(id: u32, image: &str, w: u64, h: u64, boxes: &[(&str, [f64; 4])]) -> serde_json::Value {
    let results: Vec<serde_json::Value> = boxes
        .iter()
        .map(|(label, [x, y, bw, bh])| {
            serde_json::json!({"type": "rectanglelabels", "from_name": "label", "to_name": "image",
                "original_width": w, "original_height": h,
                "value": {"x": x, "y": y, "width": bw, "height": bh, "rotation": 0, "rectanglelabels": [label]}})
        })
        .collect();
    serde_json::json!({"id": id, "data": {"image": image}, "annotations": [{"id": id, "result": results}]})
}

fn targets_of(p: &assay_core::Project, ext: &str) -> Vec<LabeledBox> {
    let id = p.item_id_by_ext("three", ext).unwrap();
    p.item(id).unwrap().content.images[0].target_boxes.clone()
}

#[test]
fn label_studio_references_of_every_kind_find_their_items_and_tasks_on_one_image_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let ds = three_images(&mut p, dir.path());
    let a = author(&p, "aiko");
    let tasks = serde_json::json!([
        ls_task(
            1,
            "/data/upload/1/c44d2f77-a.png",
            200,
            100,
            &[("car", [10.0, 10.0, 20.0, 20.0])]
        ),
        // A second task on the same image: its boxes are added, not dropped.
        ls_task(
            2,
            "/data/local-files/?d=img/a.png",
            200,
            100,
            &[("bus", [50.0, 50.0, 10.0, 10.0])]
        ),
        ls_task(
            3,
            "https://cdn.example/b?sig=1",
            64,
            64,
            &[("target", [0.0, 0.0, 50.0, 50.0])]
        ),
        ls_task(
            4,
            "s3://bucket/datasets/c.png",
            640,
            640,
            &[("dog", [25.0, 25.0, 50.0, 50.0])]
        ),
    ]);
    let path = dir.path().join("export.json");
    std::fs::write(&path, tasks.to_string()).unwrap();
    let sets = formats::read(BoxFormat::LabelStudio, &path).unwrap();
    let report = p
        .apply_box_sets(ds, &sets, &a, "from Label Studio", "export.json")
        .unwrap();
    assert_eq!((report.matched, report.changed, report.merged), (4, 3, 1));
    let a_boxes = targets_of(&p, "q1");
    let labels: Vec<_> = a_boxes.iter().map(|b| b.label.as_deref()).collect();
    assert_eq!(labels, vec![Some("car"), Some("bus")]);
    assert_eq!(
        a_boxes[0].bbox,
        BBox {
            x_min: 20.0,
            y_min: 10.0,
            x_max: 60.0,
            y_max: 30.0
        }
    );
    assert_eq!(targets_of(&p, "q2")[0].label, None);
    // Given for a 640x640 copy, stored in the image's own 64x64 pixels.
    assert_eq!(
        targets_of(&p, "q3")[0].bbox,
        BBox {
            x_min: 16.0,
            y_min: 16.0,
            x_max: 48.0,
            y_max: 48.0
        }
    );
}

#[test]
fn boxes_are_checked_against_the_projects_image_size_and_named_when_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let ds = three_images(&mut p, dir.path());
    let a = author(&p, "aiko");
    // The file gives no size, so only the project knows a.png is 200x100.
    let coco = serde_json::json!({
        "images": [{"id": 5, "file_name": "a.png"}, {"id": 6, "file_name": "b.jpg"}],
        "categories": [{"id": 1, "name": "car"}],
        "annotations": [
            {"id": 1, "image_id": 5, "category_id": 1, "bbox": [150, 50, 60, 40]},
            {"id": 2, "image_id": 6, "category_id": 1, "bbox": [10, 10, 5, 5]},
            {"id": 3, "image_id": 6, "category_id": 1, "bbox": [60, 10, 30, 5]}
        ]
    });
    let path = dir.path().join("coco.json");
    std::fs::write(&path, coco.to_string()).unwrap();
    let sets = formats::read(BoxFormat::Coco, &path).unwrap();
    let err = p
        .apply_box_sets(ds, &sets, &a, "x", "coco.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("item \"q1\", image 1, target box 1"), "{err}");
    assert!(err.contains("outside the 200x100 image"), "{err}");
    assert!(err.contains("item \"q2\", image 1, target box 2"), "{err}");
    assert!(err.contains("images[0] (id 5)"), "{err}");
    assert!(targets_of(&p, "q2").is_empty(), "all or nothing");

    // Inside the image: applied, and the COCO image ids come back out of the export.
    let mut fixed = coco.clone();
    fixed["annotations"][0]["bbox"] = serde_json::json!([150, 50, 40, 40]);
    fixed["annotations"][2]["bbox"] = serde_json::json!([30, 10, 30, 5]);
    std::fs::write(&path, fixed.to_string()).unwrap();
    let sets = formats::read(BoxFormat::Coco, &path).unwrap();
    p.apply_box_sets(ds, &sets, &a, "x", "coco.json").unwrap();
    let out = formats::to_coco(&p.box_sets(ds).unwrap());
    let id_of = |name: &str| {
        out["images"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["file_name"].as_str().unwrap().ends_with(name))
            .unwrap()["id"]
            .clone()
    };
    assert_eq!(
        (id_of("a.png"), id_of("b.jpg")),
        (serde_json::json!(5), serde_json::json!(6))
    );
    assert_ne!(id_of("c.png"), id_of("a.png"));
    assert_ne!(id_of("c.png"), id_of("b.jpg"));
}

#[test]
fn an_image_found_by_content_or_shared_by_items_is_handled_explicitly() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let ds = three_images(&mut p, dir.path());
    let a = author(&p, "aiko");
    // A renamed copy beside the file: matched by its bytes, not its name.
    let here = dir.path().join("ls");
    std::fs::create_dir_all(&here).unwrap();
    std::fs::copy(dir.path().join("three/img/c.png"), here.join("renamed.png")).unwrap();
    let tasks = serde_json::json!([ls_task(
        1,
        "renamed.png",
        64,
        64,
        &[("cat", [0.0, 0.0, 10.0, 10.0])]
    )]);
    std::fs::write(here.join("export.json"), tasks.to_string()).unwrap();
    let sets = formats::read(BoxFormat::LabelStudio, &here.join("export.json")).unwrap();
    p.apply_box_sets(ds, &sets, &a, "x", "export.json").unwrap();
    assert_eq!(targets_of(&p, "q3")[0].label.as_deref(), Some("cat"));

    // street.png is the image of two CRAG items: a task that names only the image is refused.
    let crag_ds = crag(&mut p);
    let tasks = serde_json::json!([ls_task(
        1,
        "/data/upload/2/0badc0de-street.png",
        512,
        384,
        &[("car", [1.0, 1.0, 5.0, 5.0])]
    )]);
    let sets = formats::from_label_studio("s.json", &tasks).unwrap();
    let err = p
        .apply_box_sets(crag_ds, &sets, &a, "x", "s.json")
        .unwrap_err()
        .to_string();
    assert!(err.contains("several items (cr-001, cr-002)"), "{err}");
    assert!(err.contains("task 1"), "{err}");
}

/// A project made before schema 37 kept Assay's per-axis distance; opening it computes every
/// boxed item's metrics again, as CRAG-MM-Diagnostics' `calculate_distance` defines the
/// distance.
#[test]
fn opening_a_project_from_before_schema_37_computes_the_distances_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.assay");
    {
        let mut p = assay_core::Project::create(&path).unwrap();
        crag(&mut p);
        let c = p.connection();
        let stale = c
            .execute(
                "UPDATE items SET center_distance = -1, saliency = -1 WHERE has_box = 1",
                [],
            )
            .unwrap();
        assert!(stale >= 3, "{stale} boxed items");
        c.pragma_update(None, "user_version", 36).unwrap();
    }
    let p = assay_core::Project::open(&path).unwrap();
    let ds = p.dataset_by_name("crag-mini").unwrap().id;
    let mut checked = 0;
    for (id, _) in p.item_ext_ids(ds).unwrap() {
        let content = p.item(id).unwrap().content;
        let Some(want) = assay_core::grounding::metrics::of_item(&content) else {
            continue;
        };
        let (d, s): (f64, f64) = p
            .connection()
            .query_row(
                "SELECT center_distance, saliency FROM items WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(d, want.center_distance);
        assert_eq!(s, want.saliency);
        checked += 1;
    }
    assert!(checked >= 3);
}
