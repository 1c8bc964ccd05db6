use assay_core::export::{export_jsonl, export_parquet, write_changelog};
use assay_core::import::ImportOptions;
use assay_core::store::Edit;
use assay_core::{ItemStatus, RefinementOp};

use crate::common::*;

fn edited_project(dir: &std::path::Path) -> assay_core::Project {
    let mut p = new_project(dir);
    import_sample(&mut p);
    let a = author(&p, "aiko");
    let fix = |p: &mut assay_core::Project,
               ds: &str,
               id: &str,
               f: &dyn Fn(&mut assay_core::ItemContent),
               op| {
        let iid = p.item_id_by_ext(ds, id).unwrap();
        let mut c = p.item(iid).unwrap().content;
        f(&mut c);
        p.save_edit(
            iid,
            &Edit {
                base_rev: None,
                content: c,
                op: Some(op),
                tags: vec![],
                status: ItemStatus::Edited,
                note: None,
            },
            &a,
        )
        .unwrap();
    };
    fix(
        &mut p,
        "jgraph-mini",
        "jg-006",
        &|c| c.answer = Some("117".into()),
        RefinementOp::AnswerCorrection,
    );
    fix(
        &mut p,
        "jgraph-mini",
        "jg-005",
        &|_| {},
        RefinementOp::Remove,
    );
    fix(
        &mut p,
        "crag-mini",
        "cr-001",
        &|c| c.question = "What brand is the red car in the middle?".into(),
        RefinementOp::Disambiguation,
    );
    fix(
        &mut p,
        "vague-mini",
        "vg-001",
        &|c| c.options[1].text = "Person2 should cook something tastier.".into(),
        RefinementOp::MinorEdit,
    );
    p
}

fn contents(p: &assay_core::Project, ds: &str) -> Vec<(String, assay_core::ItemContent)> {
    let d = p.dataset_by_name(ds).unwrap();
    let f = assay_core::store::Filter {
        datasets: vec![d.id],
        ..Default::default()
    };
    p.query_ids(&f)
        .unwrap()
        .into_iter()
        .map(|id| {
            let it = p.item(id).unwrap();
            let mut c = it.content;
            for img in &mut c.images {
                img.name = None; // exported files are named by hash
            }
            (it.ext_id, c)
        })
        .collect()
}

fn current_without_removed(
    p: &assay_core::Project,
    ds: &str,
) -> Vec<(String, assay_core::ItemContent)> {
    contents(p, ds)
        .into_iter()
        .filter(|(id, _)| {
            let iid = p.item_id_by_ext(ds, id).unwrap();
            p.item(iid).unwrap().op != Some(RefinementOp::Remove)
        })
        .collect()
}

#[test]
fn jsonl_export_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let p = edited_project(dir.path());
    let mut q = assay_core::Project::create(dir.path().join("other.assay")).unwrap();
    for ds in ["jgraph-mini", "vague-mini", "haerae-mini", "crag-mini"] {
        let out = dir.path().join(format!("{ds}-Refined"));
        let r = export_jsonl(&p, ds, &out, Default::default()).unwrap();
        let back = crate::common::import(
            &mut q,
            &out.join("data.jsonl"),
            &ImportOptions {
                name: Some(ds.into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(back.layout, "assay");
        assert_eq!(back.items, r.items);
        assert_eq!(contents(&q, ds), current_without_removed(&p, ds), "{ds}");
    }
    assert_eq!(q.image_count().unwrap(), p.image_count().unwrap());
}

#[test]
fn parquet_export_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let p = edited_project(dir.path());
    let mut q = assay_core::Project::create(dir.path().join("other.assay")).unwrap();
    for ds in ["jgraph-mini", "vague-mini", "haerae-mini", "crag-mini"] {
        let out = dir.path().join(format!("{ds}-Refined.parquet"));
        let r = export_parquet(&p, ds, &out, Default::default()).unwrap();
        let back = crate::common::import(
            &mut q,
            &out,
            &ImportOptions {
                name: Some(ds.into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(back.items, r.items);
        let expect: Vec<_> = current_without_removed(&p, ds);
        let got = contents(&q, ds);
        assert_eq!(got, expect, "{ds}");
    }
    let jg = export_parquet(
        &p,
        "jgraph-mini",
        &dir.path().join("x.parquet"),
        Default::default(),
    )
    .unwrap();
    assert_eq!((jg.items, jg.removed_left_out), (11, 1));
}

#[test]
fn changelog_has_one_row_per_changed_item() {
    let dir = tempfile::tempdir().unwrap();
    let p = edited_project(dir.path());
    let path = dir.path().join("log.csv");
    assert_eq!(write_changelog(&p, "jgraph-mini", &path).unwrap(), 2);
    let mut rdr = csv::Reader::from_path(&path).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let fix = rows.iter().find(|r| &r[0] == "jg-006").unwrap();
    assert_eq!(&fix[col("op")], "answer_correction");
    assert_eq!(&fix[col("answer_before")], "171");
    assert_eq!(&fix[col("answer_after")], "117");
    assert!(rows
        .iter()
        .any(|r| &r[0] == "jg-005" && &r[col("op")] == "remove"));
}

#[test]
fn the_hf_folder_has_both_splits_and_a_card_that_says_what_was_done() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = edited_project(dir.path());
    let seo = p.ensure_user("seoyeon", assay_core::Role::Auditor).unwrap();
    let auditor = assay_core::store::Author {
        user_id: seo.id,
        role: assay_core::Role::Auditor,
        round: 1,
    };
    let jg6 = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    p.sign_off(jg6, true, None, &auditor).unwrap();
    let out = dir.path().join("hf");
    let r = assay_core::export::export_hf(&p, "jgraph-mini", &out, Default::default()).unwrap();
    assert_eq!((r.original, r.refined, r.removed), (12, 11, 1));
    assert_eq!(r.changed, 2, "jg-006 edited, jg-005 removed");
    for (_, file) in assay_core::export::HF_SPLITS {
        assert!(out.join(file).is_file(), "{file}");
    }
    assert!(out.join("changelog.csv").is_file());
    let card = std::fs::read_to_string(out.join("README.md")).unwrap();
    let header = card.split("\n---\n").next().unwrap();
    for want in [
        "pretty_name: \"jgraph-mini-Refined\"",
        "license: unknown",
        "- ja",
        "  - split: refined\n    path: data/refined-*.parquet",
        "    sequence: image",
        "          '5': \"remove\"",
        "  - name: original\n",
        "    num_examples: 12",
        "    num_examples: 11",
    ] {
        assert!(header.contains(want), "{want:?} in\n{header}");
    }
    assert!(card.contains("| answer_correction | 1 |"), "{card}");
    assert!(card.contains("| remove | 1 |"), "{card}");
    assert!(card.contains("| none recorded | 10 |"), "{card}");
    assert!(card.contains("1 items were removed:\n- `jg-005`"), "{card}");
    assert!(card.contains("- `seoyeon`: 1"), "{card}");
}

/// A large export is written a batch at a time: several row groups, and every row read back
/// with its own image (one batch of a million rows overflowed Arrow's offsets and held every
/// item in memory).
#[test]
fn a_large_parquet_export_is_written_in_row_groups_that_read_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let n = 2_500;
    for i in 0..3 {
        std::fs::write(dir.path().join(format!("p{i}.png")), png(4 + i, 3, i as u8)).unwrap();
    }
    let text: String = (0..n)
        .map(|i| {
            format!(
                "{{\"id\": \"x{i}\", \"question\": \"What is shown in picture {i}?\", \"answer\": \"a{i}\", \"image\": \"p{}.png\"}}\n",
                i % 3
            )
        })
        .collect();
    let data = dir.path().join("big.jsonl");
    std::fs::write(&data, text).unwrap();
    let mut p = new_project(dir.path());
    import(&mut p, &data, &ImportOptions::default()).unwrap();
    let out = dir.path().join("big-Refined.parquet");
    let r = export_parquet(&p, "big", &out, Default::default()).unwrap();
    assert_eq!((r.items, r.images), (n, n));
    let meta = parquet::file::reader::FileReader::metadata(
        &parquet::file::serialized_reader::SerializedFileReader::new(
            std::fs::File::open(&out).unwrap(),
        )
        .unwrap(),
    )
    .num_row_groups();
    assert!(meta >= 3, "{meta} row groups");
    let mut q = assay_core::Project::create(dir.path().join("back.assay")).unwrap();
    let back = import(
        &mut q,
        &out,
        &ImportOptions {
            name: Some("big".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(back.items, n);
    assert_eq!(contents(&q, "big"), contents(&p, "big"));
    // JSONL and the changelog stream the same items.
    let jsonl = export_jsonl(&p, "big", &dir.path().join("j"), Default::default()).unwrap();
    assert_eq!((jsonl.items, jsonl.images), (n, 3));
    let lines = std::fs::read_to_string(dir.path().join("j/data.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), n);
    assert!(lines.lines().last().unwrap().contains("\"x2499\""));
}

/// A Parquet export that fails halfway (here a linked image gone from disk) leaves no broken
/// file, and an earlier export at the same path as it was.
#[test]
fn a_failed_parquet_export_leaves_the_earlier_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("a.png");
    std::fs::write(&img, png(5, 4, 9)).unwrap();
    let data = dir.path().join("linked.jsonl");
    std::fs::write(
        &data,
        "{\"id\": \"1\", \"question\": \"Q?\", \"answer\": \"A\", \"image\": \"a.png\"}\n",
    )
    .unwrap();
    let mut p = new_project(dir.path());
    import(
        &mut p,
        &data,
        &ImportOptions {
            link_images: true,
            ..Default::default()
        },
    )
    .unwrap();
    let out = dir.path().join("linked-Refined.parquet");
    export_parquet(&p, "linked", &out, Default::default()).unwrap();
    let good = std::fs::read(&out).unwrap();
    std::fs::remove_file(&img).unwrap();
    assert!(export_parquet(&p, "linked", &out, Default::default()).is_err());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        good,
        "the earlier export is untouched"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".partial"))
        .collect();
    assert!(left.is_empty(), "no partial file left");
}

/// An export tells how far it is, in every format: each item read is counted once, first as
/// the items are written and then in the changelog's pass, up to the dataset's item count,
/// never past it, and a stage never counts back.
#[test]
fn an_export_counts_every_item_read_in_each_stage() {
    use assay_core::export::{export_dataset_metered, ExportFormat, Scope};
    let dir = tempfile::tempdir().unwrap();
    let p = edited_project(dir.path());
    let total = p.dataset_by_name("jgraph-mini").unwrap().item_count as usize;
    assert!(total > 3);
    for format in [
        ExportFormat::Jsonl,
        ExportFormat::Parquet,
        ExportFormat::Hf,
        ExportFormat::HaeraeVision,
    ] {
        let mut seen: Vec<(&'static str, usize, usize)> = Vec::new();
        let out = dir.path().join(format!("out-{}", format.as_str()));
        let done = export_dataset_metered(
            &p,
            "jgraph-mini",
            &out,
            format,
            Scope::SignedOff,
            None,
            &mut |pr| seen.push((pr.stage, pr.done, pr.total)),
        )
        .unwrap();
        assert_eq!(
            seen.pop(),
            Some(("done", done.items, done.items)),
            "{format:?}"
        );
        assert!(
            seen.iter().all(|&(_, d, t)| d <= t && t == total),
            "{format:?}: {seen:?}"
        );
        let stages: Vec<&str> = seen.iter().map(|s| s.0).fold(Vec::new(), |mut v, s| {
            if v.last() != Some(&s) {
                v.push(s);
            }
            v
        });
        assert_eq!(stages, ["items", "changelog"], "{format:?}");
        for stage in ["items", "changelog"] {
            let counts: Vec<usize> = seen.iter().filter(|s| s.0 == stage).map(|s| s.1).collect();
            assert!(
                counts.windows(2).all(|w| w[1] >= w[0]),
                "{format:?} {stage}: {counts:?}"
            );
            assert_eq!(counts.last(), Some(&total), "{format:?} {stage}");
        }
        // Signed-off only: nothing is signed off, yet every item was read to decide that.
        assert_eq!(done.items, 0, "{format:?}");
    }
}
