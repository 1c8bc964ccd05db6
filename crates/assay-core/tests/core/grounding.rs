//! Boxes: metrics kept with each edit, filters and histograms over them, the ambiguity rule,
//! and box files from other tools applied as revisions.

use assay_core::grounding::formats::{self, BoxFormat};
use assay_core::store::{Filter, Page, Range};
use assay_core::{BBox, Error, ItemStatus, RefType};

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
    e.content.images[0].target_boxes = vec![BBox {
        x_min: 0.0,
        y_min: 0.0,
        x_max: 256.0,
        y_max: 384.0,
    }];
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
                b.x_min += 3.0;
                b.x_max += 3.0;
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
    // CRAG-MM-Diagnostics' code works on a 960x1280 frame: a box given there maps back.
    let line =
        r#"{"id": "cr-001", "target_roi_bbox": [96, 128, 192, 256], "image_size": [960, 1280]}"#;
    let sets = formats::from_crag_mm("b.jsonl", line).unwrap();
    p.apply_box_sets(ds, &sets, &a, "from CRAG-MM", "b.jsonl")
        .unwrap();
    let id = p.item_id_by_ext("crag-mini", "cr-001").unwrap();
    let b = p.item(id).unwrap().content.images[0].target_boxes[0];
    assert_eq!(
        (b.x_min, b.y_min, b.x_max, b.y_max),
        (51.2, 38.4, 102.4, 76.8)
    );

    let two = format!(
        "{line}\n{}",
        r#"{"id": "nope", "target_roi_bbox": [1, 1, 2, 2]}"#
    );
    let sets = formats::from_crag_mm("b.jsonl", &two).unwrap();
    let rev = p.item(id).unwrap().rev;
    let err = p.apply_box_sets(ds, &sets, &a, "x", "b.jsonl").unwrap_err();
    assert!(
        err.to_string().contains("\"nope\" matches no item"),
        "{err}"
    );
    assert_eq!(p.item(id).unwrap().rev, rev, "all or nothing");
}
