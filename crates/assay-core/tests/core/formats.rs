//! Importing the real published layouts (tests/fixtures/formats): each test pins a quirk that
//! SOURCE.md documents for that upstream.

use assay_core::import::ImportOptions;
use assay_core::{AnswerFormat, DistractorKind, ItemContent, Project, RefType};

use crate::common::{formats_dir, import, new_project};

fn imported(rel: &str, name: &str) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let opts = ImportOptions {
        name: Some(name.into()),
        ..Default::default()
    };
    import(&mut p, &formats_dir().join(rel), &opts).unwrap();
    (dir, p)
}

fn item(p: &Project, ds: &str, id: &str) -> ItemContent {
    p.item(p.item_id_by_ext(ds, id).unwrap()).unwrap().content
}

fn ids(p: &Project) -> Vec<String> {
    p.query(&Default::default(), Default::default())
        .unwrap()
        .rows
        .into_iter()
        .map(|r| r.ext_id)
        .collect()
}

#[test]
fn vague_letters_follow_ordering_and_images_get_the_annot_suffix() {
    let (_d, p) = imported("vague/data/vague_sample.json", "vague");
    // ordering[0] is the correct letter: C, B, D, C for the four records.
    let want = [
        (
            "0013_Halloween_00.15.15.492-00.15.17.652@0",
            2,
            ["A", "B", "C", "D"],
        ),
        (
            "3015_CHARLIE_ST_CLOUD_00.23.57.935-00.24.00.783@0",
            1,
            ["B", "D", "A", "C"],
        ),
        (
            "1041_This_is_40_01.31.12.204-01.31.16.091@2",
            3,
            ["D", "A", "C", "B"],
        ),
        (
            "0027_Les_Miserables_00.41.08.362-00.41.10.771@1",
            2,
            ["C", "B", "D", "A"],
        ),
    ];
    for (id, correct, _) in want {
        let c = item(&p, "vague", id);
        assert_eq!(c.correct_option, Some(correct), "{id}");
        assert!(
            c.options[correct].kind.is_none(),
            "{id}: correct option has no kind"
        );
        assert_eq!(
            c.images[0].name.as_deref(),
            Some(format!("{id}_annot.jpg").as_str())
        );
    }
    // Record 0: ordering C, A, B, D -> fake scene A, surface B, wrong entity D.
    let c = item(&p, "vague", want[0].0);
    assert_eq!(c.options[0].kind, Some(DistractorKind::FakeScene));
    assert_eq!(c.options[1].kind, Some(DistractorKind::Superficial));
    assert_eq!(c.options[3].kind, Some(DistractorKind::NonExistent));
    assert!(c.options[2].text.contains("handicapped parking spot"));
    // The trailing spaces of `indirect` are kept byte-exact; person1 is person_bbox[0].
    assert!(c.question.ends_with("isn't it?  "));
    assert_eq!(
        c.images[0].person_boxes[0].label.as_deref(),
        Some("person1")
    );
}

#[test]
fn vague_ordering_that_is_not_a_permutation_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(formats_dir().join("vague/data/vague_sample.json"))
        .unwrap()
        .replacen("\"C\",", "\"E\",", 1);
    let f = dir.path().join("bad.json");
    std::fs::write(&f, text).unwrap();
    let mut p = new_project(dir.path());
    let opts = ImportOptions {
        image_root: Some(formats_dir().join("vague/images")),
        ..Default::default()
    };
    let err = import(&mut p, &f, &opts).unwrap_err().to_string();
    assert!(
        err.contains("bad.json:2") && err.contains("not a letter A-D"),
        "{err}"
    );
}

#[test]
fn crag_mm_labels_as_published_are_read_and_kept_verbatim() {
    for file in ["data/test.jsonl", "data/test-00000-of-00001.parquet"] {
        let (_d, p) = imported(&format!("crag-mm-diagnostics/{file}"), "crag");
        let amb = item(&p, "crag", "8c41d0b2-7e3f-4a95-b2d6-91f0e3a5c724");
        assert_eq!(amb.ref_type, Some(RefType::Ambiguous), "{file}");
        assert_eq!(amb.metadata["ref_type_label"], "not enough cue (ambiguous)");
        let k = item(&p, "crag", "b7e05a93-2c18-4f6d-8e4a-5d3c9f1b06e2");
        assert_eq!(k.ref_type, Some(RefType::KnowledgeCue), "{file}");
        let s = item(&p, "crag", "3f2a9c1e-5b7d-4e08-9a61-0c4d2b7e8f13");
        assert_eq!(s.ref_type, Some(RefType::Salient));
        assert_eq!((s.images[0].width, s.images[0].height), (3024, 4032));
        let b = s.images[0].target_boxes[0].bbox;
        assert_eq!(
            (b.x_min, b.y_min, b.x_max, b.y_max),
            (643.0, 1610.0, 2854.0, 2388.0)
        );
        assert_eq!(s.entity_name.as_deref(), Some("Ford Fusion (Americas)"));
    }
}

#[test]
fn haerae_vision_ids_are_question_idx_and_checklists_lists() {
    for file in ["data/train.jsonl", "data/train-00000-of-00001.parquet"] {
        let (_d, p) = imported(&format!("haerae-vision/{file}"), "hv");
        assert_eq!(ids(&p), vec!["17", "203", "388", "512"], "{file}");
        let c = item(&p, "hv", "17");
        assert_eq!(c.format, AnswerFormat::Checklist);
        assert!((1..=5).contains(&c.checklist.len()));
        assert!(c.explicit_question.is_some());
        assert_eq!(c.images.len(), 2);
    }
}

#[test]
fn llm_jp_eval_mm_id_less_tasks_count_from_zero() {
    let (_d, p) = imported(
        "llm-jp-eval-mm/datasets/ja-vlm-bench-in-the-wild/test.jsonl",
        "w",
    );
    assert_eq!(ids(&p), vec!["0", "1", "2"]);
    let (_d, p) = imported("llm-jp-eval-mm/datasets/ja-multi-image-vqa", "m");
    assert_eq!(ids(&p), vec!["0", "1", "2"]);
    assert_eq!(item(&p, "m", "1").images.len(), 3);
}

#[test]
fn ja_vg_vqa_500_has_one_item_per_qa() {
    let (_d, p) = imported("llm-jp-eval-mm/datasets/ja-vg-vqa-500/test.jsonl", "vg");
    assert_eq!(
        ids(&p),
        vec!["1364620", "1364621", "1364622", "986221", "986222"]
    );
    let a = item(&p, "vg", "1364621");
    let b = item(&p, "vg", "1364620");
    assert_eq!(
        a.images[0].hash, b.images[0].hash,
        "the image row repeats per QA"
    );
    assert!(!a.metadata.contains_key("qas"));
}

#[test]
fn jmmmu_options_are_python_literals_and_images_numbered_fields() {
    // JMMMU is one folder per subject, each with Parquet shards.
    let (_d, p) = imported("llm-jp-eval-mm/datasets/jmmmu", "jmmmu");
    assert_eq!(ids(&p).len(), 8);
    let art = item(&p, "jmmmu", "test_Japanese_Art_77");
    assert_eq!(art.options.len(), 4);
    assert_eq!(art.options[1].text, "富嶽三十六景");
    assert_eq!(art.correct_option, Some(1));
    assert_eq!(art.images.len(), 1);
    // An open question has "[]" options and a text answer.
    let open = item(&p, "jmmmu", "validation_Math_30");
    assert!(open.options.is_empty());
    assert_eq!(open.answer.as_deref(), Some("13"));
}

#[test]
fn heron_bench_reference_is_gpt4s_answer() {
    let (_d, p) = imported(
        "llm-jp-eval-mm/datasets/japanese-heron-bench/train.jsonl",
        "heron",
    );
    let c = item(&p, "heron", "2");
    assert_eq!(c.answer.as_deref(), Some("鳥の羽の色は青色です。"));
    // The other models' answers are kept.
    assert!(c.metadata["answer"]["claude-3-opus-20240229"].is_string());
}

#[test]
fn cvqa_keeps_the_japanese_subset_numbered_after_the_filter() {
    for f in [
        "llm-jp-eval-mm/datasets/cvqa/test.jsonl",
        "llm-jp-eval-mm/datasets/cvqa",
    ] {
        let (_d, p) = imported(f, "cvqa");
        assert_eq!(
            ids(&p),
            vec!["0", "1", "2"],
            "{f}: the Korean row is filtered out"
        );
        let third = item(&p, "cvqa", "2");
        assert_eq!(third.metadata["ID"], "7040305786385738114_0");
        assert_eq!(third.correct_option, Some(0), "Label is 0-based");
        assert_eq!(item(&p, "cvqa", "0").correct_option, Some(2));
    }
}

#[test]
fn jammeval_refined_configs_carry_original_id() {
    for f in [
        "jammeval/CVQA-JA-Refined",
        "jammeval/JA-Multi-Image-VQA-Refined",
        "jammeval/CC-OCR-JA-Refined/test.jsonl",
    ] {
        let (_d, p) = imported(f, "j");
        let rows = p
            .query(&Default::default(), Default::default())
            .unwrap()
            .rows;
        assert_eq!(rows.len(), 3, "{f}");
        let c = p.item(rows[0].id).unwrap().content;
        assert!(c.metadata.contains_key("original_id"), "{f}");
    }
}

fn refine(
    p: &mut Project,
    rel: &std::path::Path,
    seed: &str,
    align: &str,
    opts: &ImportOptions,
) -> assay_core::Result<assay_core::import::refined::RefinedReport> {
    let u = p
        .ensure_user("import", assay_core::Role::Annotator)
        .unwrap();
    let author = assay_core::store::Author {
        user_id: u.id,
        role: assay_core::Role::Annotator,
        round: 1,
    };
    assay_core::import::refined::import_refined(
        p,
        rel,
        seed,
        align,
        opts,
        &author,
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )
}

#[test]
fn a_refined_set_aligns_to_its_seed_by_original_id() {
    let (dir, mut p) = imported("llm-jp-eval-mm/datasets/cvqa", "cvqa");
    // CVQA-JA-Refined's original_id is CVQA's ID, kept in the seed item's metadata.
    let r = refine(
        &mut p,
        &formats_dir().join("jammeval/CVQA-JA-Refined"),
        "cvqa",
        "original_id=ID",
        &ImportOptions::default(),
    )
    .unwrap();
    assert_eq!((r.matched, r.identical, r.changed, r.removed), (3, 2, 1, 0));
    let v = p.item(p.item_id_by_ext("cvqa", "1").unwrap()).unwrap();
    assert_eq!(v.op, Some(assay_core::RefinementOp::Identical));
    // A refined file that drops a seed item and edits another.
    let (_d2, mut q) = imported(
        "llm-jp-eval-mm/datasets/ja-vlm-bench-in-the-wild/test.jsonl",
        "w",
    );
    let seed0 = item(&q, "w", "0");
    let seed2 = item(&q, "w", "2");
    let f = dir.path().join("refined.jsonl");
    let img = formats_dir().join("llm-jp-eval-mm/datasets/ja-vlm-bench-in-the-wild");
    let line = |orig: usize, c: &ItemContent, answer: &str| {
        serde_json::json!({"original_id": orig, "question": c.question, "answer": answer, "image": c.images[0].name}).to_string()
    };
    std::fs::write(
        &f,
        format!(
            "{}\n{}\n",
            line(0, &seed0, seed0.answer.as_deref().unwrap()),
            line(2, &seed2, "a corrected answer")
        ),
    )
    .unwrap();
    let opts = ImportOptions {
        image_root: Some(img),
        ..Default::default()
    };
    let r = refine(&mut q, &f, "w", "original_id", &opts).unwrap();
    assert_eq!((r.matched, r.identical, r.changed, r.removed), (2, 1, 1, 1));
    let removed = q.item(q.item_id_by_ext("w", "1").unwrap()).unwrap();
    assert_eq!(removed.op, Some(assay_core::RefinementOp::Remove));
    let edited = q.item(q.item_id_by_ext("w", "2").unwrap()).unwrap();
    assert_eq!(edited.content.answer.as_deref(), Some("a corrected answer"));
    assert_eq!(
        edited.original.answer, seed2.answer,
        "the seed stays as revision 0"
    );
}

#[test]
fn a_refined_item_naming_no_seed_item_changes_nothing() {
    let (_d, mut p) = imported("llm-jp-eval-mm/datasets/ja-multi-image-vqa", "mi");
    let before = p.summary().unwrap();
    let e = refine(
        &mut p,
        &formats_dir().join("jammeval/JA-Multi-Image-VQA-Refined"),
        "mi",
        "original_id",
        &ImportOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("original_id \"4\" is not an item of mi"), "{e}");
    assert_eq!(p.summary().unwrap(), before);
}
