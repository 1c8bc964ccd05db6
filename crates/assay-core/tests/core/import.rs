use std::sync::Arc;

use assay_core::import::mapping::Mapping;
use assay_core::import::ImportOptions;
use assay_core::store::{Filter, Page, Sort, SortColumn};
use assay_core::Project;
use assay_core::{AnswerFormat, DistractorKind, RefType};

use crate::common::*;

#[test]
fn each_sample_layout_is_detected_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let layouts: Vec<_> = p
        .datasets()
        .unwrap()
        .into_iter()
        .map(|d| (d.name, d.layout, d.item_count))
        .collect();
    assert_eq!(
        layouts,
        vec![
            ("jgraph-mini".into(), "llm-jp-eval-mm".into(), 12),
            ("vague-mini".into(), "vague".into(), 3),
            ("haerae-mini".into(), "haerae-vision".into(), 4),
            ("crag-mini".into(), "crag-mm-diagnostics".into(), 4),
        ]
    );
    // VAGUE: option i gets the letter mcq.ordering[i] (ordering A, C, B, D here), kinds
    // attached, the correct letter is ordering[0]; the image is image_name + "_annot.jpg".
    let v = p
        .item(p.item_id_by_ext("vague-mini", "vg-002").unwrap())
        .unwrap()
        .content;
    assert_eq!(v.format, AnswerFormat::MultipleChoice);
    assert_eq!(v.correct_option, Some(0));
    assert_eq!(v.options[1].kind, Some(DistractorKind::Superficial));
    assert_eq!(v.options[2].kind, Some(DistractorKind::FakeScene));
    assert_eq!(v.options[3].kind, Some(DistractorKind::NonExistent));
    assert_eq!(v.images[0].name.as_deref(), Some("vg-002_annot.jpg"));
    assert_eq!(
        v.direct_request.as_deref(),
        Some("Hey, person1, close the window.")
    );
    assert_eq!(v.images[0].person_boxes.len(), 2);
    assert_eq!(
        v.images[0].person_boxes[0].label.as_deref(),
        Some("person1")
    );
    assert!(
        v.metadata.contains_key("solution"),
        "unmapped fields are kept"
    );
    // HAERAE: checklist, explicit rewrite, several images.
    let h = p
        .item(p.item_id_by_ext("haerae-mini", "104").unwrap())
        .unwrap()
        .content;
    assert_eq!(h.format, AnswerFormat::Checklist);
    assert_eq!(h.checklist.len(), 2);
    assert!(h.explicit_question.unwrap().contains("STOP"));
    assert_eq!(h.images.len(), 2);
    // CRAG: box in image pixels; the published label "not enough cue (ambiguous)"; variants.
    let c = p
        .item(p.item_id_by_ext("crag-mini", "cr-001").unwrap())
        .unwrap()
        .content;
    assert_eq!(c.ref_type, Some(RefType::Ambiguous));
    assert_eq!((c.images[0].width, c.images[0].height), (512, 384));
    let b = c.images[0].target_boxes[0].bbox;
    assert_eq!(
        (b.x_min, b.y_min, b.x_max, b.y_max),
        (200.0, 280.0, 310.0, 342.0)
    );
    assert!(c.disambiguated_question.unwrap().contains("red car"));
    // The same image used by several items is stored once.
    assert_eq!(p.image_count().unwrap(), 12);
}

#[test]
fn cvqa_style_options_with_integer_answer() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("a.png");
    std::fs::write(&img, png(8, 8, 1)).unwrap();
    let data = dir.path().join("cvqa.jsonl");
    std::fs::write(
        &data,
        r#"{"id": "c1", "question": "この料理は何ですか？", "options": ["寿司", "ラーメン", "天ぷら", "うどん"], "answer": 2, "image": "a.png"}
{"id": "c2", "question": "Which?", "options": ["x", "y"], "answer": "B", "image": "a.png"}
"#,
    )
    .unwrap();
    let mut p = new_project(dir.path());
    let r = import(&mut p, &data, &ImportOptions::default()).unwrap();
    assert_eq!(r.layout, "jammeval");
    let c1 = p
        .item(p.item_id_by_ext("cvqa", "c1").unwrap())
        .unwrap()
        .content;
    assert_eq!(c1.correct_option, Some(2));
    assert_eq!(c1.reference_text().as_deref(), Some("天ぷら"));
    assert_eq!(c1.answer, None);
    let c2 = p
        .item(p.item_id_by_ext("cvqa", "c2").unwrap())
        .unwrap()
        .content;
    assert_eq!(c2.correct_option, Some(1));
}

#[test]
fn csv_with_json_list_cells() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.png"), png(8, 8, 2)).unwrap();
    let data = dir.path().join("set.csv");
    std::fs::write(
        &data,
        "id,question,answer,images,category\nk1,이 사진에 있는 건물은?,남대문,\"[\"\"a.png\"\"]\",scene\nk2,\"두 줄\n질문\",답,a.png,scene\n",
    )
    .unwrap();
    let mut p = new_project(dir.path());
    let r = import(&mut p, &data, &ImportOptions::default()).unwrap();
    assert_eq!(r.items, 2);
    let k2 = p
        .item(p.item_id_by_ext("set", "k2").unwrap())
        .unwrap()
        .content;
    assert_eq!(k2.question, "두 줄\n질문");
    assert_eq!(k2.images.len(), 1);
}

fn write_hf_parquet(path: &std::path::Path, rows: &[(&str, &str, &str, Vec<Vec<u8>>)]) {
    use arrow_array::{ArrayRef, BinaryArray, ListArray, RecordBatch, StringArray, StructArray};
    use arrow_schema::{DataType, Field, Fields, Schema};
    let fields = Fields::from(vec![
        Field::new("bytes", DataType::Binary, true),
        Field::new("path", DataType::Utf8, true),
    ]);
    let all: Vec<&Vec<u8>> = rows.iter().flat_map(|r| r.3.iter()).collect();
    let names: Vec<String> = (0..all.len()).map(|i| format!("img{i}.png")).collect();
    let structs = StructArray::new(
        fields.clone(),
        vec![
            Arc::new(BinaryArray::from_iter_values(
                all.iter().map(|b| b.as_slice()),
            )) as ArrayRef,
            Arc::new(StringArray::from_iter_values(names.iter())) as ArrayRef,
        ],
        None,
    );
    let item = Arc::new(Field::new("item", DataType::Struct(fields), true));
    let list = ListArray::new(
        item.clone(),
        arrow_buffer::OffsetBuffer::from_lengths(rows.iter().map(|r| r.3.len())),
        Arc::new(structs),
        None,
    );
    let schema = Arc::new(Schema::new(vec![
        Field::new("question_id", DataType::Utf8, false),
        Field::new("question", DataType::Utf8, false),
        Field::new("answer", DataType::Utf8, false),
        Field::new("images", DataType::List(item), true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.1))),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.2))),
            Arc::new(list),
        ],
    )
    .unwrap();
    // Row groups of 100 rows, so that a longer file has several (as published shards do).
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(100))
        .build();
    let mut w = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(path).unwrap(),
        schema,
        Some(props),
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn hugging_face_parquet_with_image_structs() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("ja-multi.parquet");
    write_hf_parquet(
        &data,
        &[
            (
                "m1",
                "2枚の画像の違いは？",
                "色",
                vec![png(10, 6, 1), png(10, 6, 2)],
            ),
            ("m2", "What color?", "blue", vec![png(4, 4, 3)]),
        ],
    );
    let mut p = new_project(dir.path());
    let r = import(&mut p, &data, &ImportOptions::default()).unwrap();
    assert_eq!((r.items, r.new_images), (2, 3));
    let m1 = p
        .item(p.item_id_by_ext("ja-multi", "m1").unwrap())
        .unwrap()
        .content;
    assert_eq!(m1.images.len(), 2);
    assert_eq!(m1.images[1].name.as_deref(), Some("img1.png"));
    assert_eq!((m1.images[0].width, m1.images[0].height), (10, 6));
}

/// Rows are read a batch at a time and each carries its own image bytes: every item, across
/// batches, row groups and shards, gets the image of its own row.
#[test]
fn parquet_shards_are_read_row_by_row_each_with_its_own_images() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("hf-set");
    std::fs::create_dir_all(data.join("data")).unwrap();
    let image = |i: usize| png(2 + (i / 251) as u32, 3, (i % 251) as u8);
    let ids: Vec<String> = (0..330).map(|i| format!("r{i:03}")).collect();
    let questions: Vec<String> = (0..330)
        .map(|i| format!("Which colour is picture {i}?"))
        .collect();
    for (shard, range) in [(0, 0..170), (1, 170..330)] {
        let rows: Vec<_> = range
            .map(|i| {
                (
                    ids[i].as_str(),
                    questions[i].as_str(),
                    "grey",
                    vec![image(i)],
                )
            })
            .collect();
        write_hf_parquet(
            &data.join(format!("data/train-{shard:05}-of-00002.parquet")),
            &rows,
        );
    }
    let mut p = new_project(dir.path());
    let r = import(&mut p, &data, &ImportOptions::default()).unwrap();
    assert_eq!((r.items, r.new_images), (330, 330), "{:?}", r.problems);
    for i in [0, 63, 64, 99, 100, 169, 170, 233, 234, 329] {
        let item = p
            .item(p.item_id_by_ext("hf-set", &ids[i]).unwrap())
            .unwrap()
            .content;
        assert_eq!(item.question, questions[i]);
        assert_eq!(item.images.len(), 1, "row {i}");
        assert_eq!(
            item.images[0].hash,
            assay_core::imaging::sha256_hex(&image(i)),
            "row {i} has another row's image"
        );
    }
    let order: Vec<String> = p
        .query(&Default::default(), Default::default())
        .unwrap()
        .rows
        .into_iter()
        .map(|r| r.ext_id)
        .take(3)
        .collect();
    assert_eq!(order, vec!["r000", "r001", "r002"], "shards in path order");
}

/// A JSON array is read an element at a time: each bad element is named at its line (not
/// only the first, as a whole-file parse did), and nothing is written.
#[test]
fn a_json_array_names_every_bad_element_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("set.json");
    std::fs::write(
        &data,
        "{\"version\": \"1.0\", \"data\": [\n{\"id\": \"a\", \"question\": \"Q [1]?\", \"answer\": \"x\"},\n{\"id\": \"b\", \"question\": tru},\n{\"id\": \"c\", \"question\": \"Q3\", \"answer\": \"z\"},\n[1, 2],\n{\"id\": \"e\", \"question\": \"Q5\", \"answer\": \"w\"}\n]}",
    )
    .unwrap();
    let mut p = new_project(dir.path());
    let err = import(&mut p, &data, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("set.json:3: malformed JSON"), "{err}");
    assert!(err.contains("set.json:5: expected a JSON object"), "{err}");
    assert!(!err.contains("set.json:4"), "{err}");
    assert_eq!(item_count(&p), 0);
    // The import's sorts went to files; the connection is given back as it was.
    let temp_store = |p: &Project| -> i64 {
        p.connection()
            .query_row("PRAGMA temp_store", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(temp_store(&p), 2, "MEMORY again after a failed import");
    // Mended, the same file imports whole.
    let text = std::fs::read_to_string(&data)
        .unwrap()
        .replace("tru}", "\"Q2\", \"answer\": \"y\"}")
        .replace("[1, 2],\n", "");
    std::fs::write(&data, text).unwrap();
    let r = import(&mut p, &data, &ImportOptions::default()).unwrap();
    assert_eq!(r.items, 4);
    assert_eq!(temp_store(&p), 2, "MEMORY again after an import");
    let a = p
        .item(p.item_id_by_ext("set", "a").unwrap())
        .unwrap()
        .content;
    assert_eq!(a.question, "Q [1]?");
}

/// A large file wrong throughout keeps the first 10,000 problems and counts the rest, rather
/// than holding one for every row.
#[test]
fn a_file_wrong_throughout_lists_ten_thousand_problems_and_counts_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("gone.jsonl");
    let text: String = (0..10_250)
        .map(|i| {
            format!(
                "{{\"id\": \"g{i}\", \"question\": \"Q{i}\", \"image\": \"missing-{i}.png\"}}\n"
            )
        })
        .collect();
    std::fs::write(&data, text).unwrap();
    let mut p = new_project(dir.path());
    let dry = import(
        &mut p,
        &data,
        &ImportOptions {
            dry_run: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(dry.problems.len(), 10_001);
    assert!(dry.problems[9_999]
        .to_string()
        .contains("gone.jsonl:10000: image not found"));
    assert!(
        dry.problems[10_000]
            .to_string()
            .contains("250 more problem(s) not listed"),
        "{}",
        dry.problems[10_000]
    );
    let err = import(&mut p, &data, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("250 more problem(s) not listed"), "{err}");
    assert_eq!(item_count(&p), 0);
}

#[test]
fn image_folders_plain_and_with_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("photos");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("b.png"), png(5, 5, 1)).unwrap();
    std::fs::write(plain.join("a.png"), png(5, 5, 2)).unwrap();
    std::fs::write(plain.join("notes.txt"), "ignored").unwrap();
    let hf = dir.path().join("hf");
    std::fs::create_dir(&hf).unwrap();
    std::fs::write(hf.join("x.png"), png(5, 5, 3)).unwrap();
    std::fs::write(
        hf.join("metadata.jsonl"),
        "{\"file_name\": \"x.png\", \"question\": \"何色？\", \"answer\": \"青\"}\n",
    )
    .unwrap();
    let mut p = new_project(dir.path());
    assert_eq!(
        import(&mut p, &plain, &ImportOptions::default())
            .unwrap()
            .items,
        2
    );
    let ids: Vec<_> = p
        .query(&Default::default(), Default::default())
        .unwrap()
        .rows
        .into_iter()
        .map(|r| r.ext_id)
        .collect();
    assert_eq!(ids, vec!["a", "b"]);
    let r = import(&mut p, &hf, &ImportOptions::default()).unwrap();
    assert_eq!(r.items, 1);
    let x = p
        .item(p.item_id_by_ext("hf", "0").unwrap())
        .unwrap()
        .content;
    assert_eq!((x.question.as_str(), x.images.len()), ("何色？", 1));
}

#[test]
fn unseen_layout_with_a_mapping_file_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("imgs")).unwrap();
    std::fs::write(dir.path().join("imgs/p.png"), png(100, 50, 1)).unwrap();
    let data = dir.path().join("odd.jsonl");
    std::fs::write(
        &data,
        r#"{"uid": 17, "prompt": {"text": "Where is the dog?"}, "gold": "left", "pics": ["imgs/p.png"], "roi": [1, 2, 30, 40], "topic": "animals", "extra": 5}
"#,
    )
    .unwrap();
    let map = dir.path().join("map.toml");
    std::fs::write(
        &map,
        "layout = \"odd\"\nid = \"uid\"\nquestion = \"prompt.text\"\nanswer = \"gold\"\nimages = \"pics\"\ntarget_box = \"roi\"\ncategory = \"topic\"\n",
    )
    .unwrap();
    let mut p = new_project(dir.path());
    let opts = ImportOptions {
        mapping: Some(Mapping::from_file(&map).unwrap()),
        ..Default::default()
    };
    let r = import(&mut p, &data, &opts).unwrap();
    assert_eq!(r.layout, "odd");
    assert_eq!(
        r.unmapped_fields,
        vec!["extra".to_string(), "prompt".to_string()]
    );
    let it = p
        .item(p.item_id_by_ext("odd", "17").unwrap())
        .unwrap()
        .content;
    assert_eq!(it.question, "Where is the dog?");
    assert_eq!(it.answer.as_deref(), Some("left"));
    assert_eq!(it.images[0].target_boxes.len(), 1);
    assert_eq!(it.category.as_deref(), Some("animals"));
    assert_eq!(it.metadata["extra"], serde_json::json!(5));
}

#[test]
fn undetectable_layout_asks_for_a_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("x.jsonl");
    std::fs::write(&data, "{\"foo\": 1}\n").unwrap();
    let mut p = new_project(dir.path());
    let err = import(&mut p, &data, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("x.jsonl:1") && err.contains("--mapping"),
        "{err}"
    );
}

#[test]
fn link_mode_keeps_images_in_place_and_verifies_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.png"), png(6, 6, 9)).unwrap();
    let data = dir.path().join("l.jsonl");
    std::fs::write(
        &data,
        "{\"id\": \"1\", \"question\": \"q\", \"answer\": \"a\", \"image\": \"a.png\"}\n",
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
    let hash = p.item(1).unwrap().content.images[0].hash.clone();
    let stored: Option<Vec<u8>> = p
        .connection()
        .query_row("SELECT data FROM images", [], |r| r.get(0))
        .unwrap();
    assert!(stored.is_none());
    assert_eq!(p.image_bytes(&hash).unwrap().0, png(6, 6, 9));
    std::fs::write(dir.path().join("a.png"), png(6, 6, 10)).unwrap();
    let err = p.image_bytes(&hash).unwrap_err().to_string();
    assert!(err.contains("changed since import"), "{err}");
}

mod bad_input {
    use super::*;

    fn setup(lines: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ok.png"), png(8, 8, 1)).unwrap();
        let full = png(64, 64, 2);
        std::fs::write(dir.path().join("cut.png"), &full[..full.len() / 2]).unwrap();
        let data = dir.path().join("bad.jsonl");
        std::fs::write(&data, lines).unwrap();
        (dir, data)
    }

    const LINES: &str = r#"{"id": "1", "question": "fine", "answer": "a", "image": "ok.png"}
{"id": "2", "question": "broken", "answer":
{"id": "1", "question": "dup", "answer": "a", "image": "ok.png"}
{"id": "4", "question": "missing image", "answer": "a", "image": "nope.png"}
{"id": "5", "question": "escape", "answer": "a", "image": "../../etc/passwd"}
{"id": "6", "question": "truncated", "answer": "a", "image": "cut.png"}
{"id": "7", "question": "bad index", "options": ["a", "b"], "answer": 5}
"#;

    #[test]
    fn every_problem_is_named_and_nothing_is_written() {
        let (dir, data) = setup(LINES);
        let mut p = new_project(dir.path());
        let err = import(&mut p, &data, &ImportOptions::default()).unwrap_err();
        assert_eq!(err.code(), "import_failed");
        let assay_core::Error::Import(problems) = err else {
            panic!()
        };
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        let find = |line: usize, needle: &str| {
            assert!(
                text.iter()
                    .any(|t| t.contains(&format!("bad.jsonl:{line}: ")) && t.contains(needle)),
                "line {line} {needle:?} not in {text:#?}"
            )
        };
        find(2, "malformed JSON");
        find(3, "duplicate id \"1\"");
        find(4, "image not found: nope.png");
        find(5, "outside the data folder");
        find(6, "cannot decode");
        find(7, "out of range");
        assert_eq!(problems.len(), 6);
        assert_eq!(item_count(&p), 0);
        assert!(p.datasets().unwrap().is_empty());
    }

    #[test]
    fn dry_run_reports_without_writing() {
        let (dir, data) = setup(LINES);
        let mut p = new_project(dir.path());
        let r = import(
            &mut p,
            &data,
            &ImportOptions {
                dry_run: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(r.dry_run);
        assert_eq!(r.items, 1);
        assert_eq!(r.problems.len(), 6);
        assert_eq!(item_count(&p), 0);
        assert_eq!(p.image_count().unwrap(), 0);
    }

    #[test]
    fn cancelling_mid_import_leaves_the_project_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = new_project(dir.path());
        import_sample(&mut p);
        let before = item_count(&p);
        let data = dir.path().join("big.jsonl");
        let body: String = (0..5000)
            .map(|i| format!("{{\"id\": \"{i}\", \"question\": \"q{i}\", \"answer\": \"a\"}}\n"))
            .collect();
        std::fs::write(&data, body).unwrap();
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let err = assay_core::import::import_path(
            &mut p,
            &data,
            &ImportOptions::default(),
            &mut |pr| {
                if pr.stage == "write" && pr.done >= 2000 {
                    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            },
            &cancel,
        )
        .unwrap_err();
        assert_eq!(err.code(), "cancelled");
        assert_eq!(item_count(&p), before);
        assert_eq!(p.datasets().unwrap().len(), 4);
    }

    /// The import writes as it reads: a bad line after several thousand good ones (batches
    /// already written inside the transaction) still leaves nothing behind, and the report
    /// names that line and the duplicate's first line.
    #[test]
    fn a_problem_late_in_a_large_file_rolls_back_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = new_project(dir.path());
        import_sample(&mut p);
        let before = item_count(&p);
        let images_before = p.image_count().unwrap();
        let data = dir.path().join("late.jsonl");
        let mut body: String = (0..6000)
            .map(|i| format!("{{\"id\": \"{i}\", \"question\": \"q{i}\", \"answer\": \"a\"}}\n"))
            .collect();
        body.push_str("{\"id\": \"x\", \"question\": \n");
        body.push_str("{\"id\": \"17\", \"question\": \"again\", \"answer\": \"a\"}\n");
        std::fs::write(&data, body).unwrap();
        let mut writes = 0;
        let err = assay_core::import::import_path(
            &mut p,
            &data,
            &ImportOptions::default(),
            &mut |pr| writes += usize::from(pr.stage == "write"),
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap_err();
        assert!(
            writes >= 3,
            "batches were written before the problem: {writes}"
        );
        let assay_core::Error::Import(problems) = err else {
            panic!("{err}")
        };
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(text.len(), 2, "{text:#?}");
        assert!(
            text[0].contains("late.jsonl:6001: malformed JSON"),
            "{text:#?}"
        );
        assert!(
            text[1].contains("late.jsonl:6002: duplicate id \"17\" (first at ")
                && text[1].contains("late.jsonl:18)"),
            "{text:#?}"
        );
        assert_eq!(item_count(&p), before);
        assert_eq!(p.image_count().unwrap(), images_before);
        assert_eq!(p.datasets().unwrap().len(), 4);
    }

    /// The layout is told from the first record that reads: a broken first line is reported,
    /// not taken as "no layout" (which would misread every other line).
    #[test]
    fn a_broken_first_line_does_not_change_the_layout() {
        let dir = tempfile::tempdir().unwrap();
        let src = sample_dir().join("haerae-mini");
        let data = dir.path().join("haerae.jsonl");
        let body = std::fs::read_to_string(src.join("haerae-mini.jsonl")).unwrap();
        std::fs::write(&data, format!("{{\"broken\": \n{body}")).unwrap();
        let mut p = new_project(dir.path());
        let r = import(
            &mut p,
            &data,
            &ImportOptions {
                dry_run: true,
                image_root: Some(src.clone()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.layout, "haerae-vision");
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert!(r.problems[0]
            .to_string()
            .contains("haerae.jsonl:1: malformed JSON"));
        assert_eq!(r.items, 4);
    }

    /// A dry run reports its progress as it reads (it writes nothing, so no batch of items
    /// marks it), ending at the number of records read.
    #[test]
    fn a_dry_run_reports_progress() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = new_project(dir.path());
        let data = dir.path().join("dry.jsonl");
        let body: String = (0..2500)
            .map(|i| format!("{{\"id\": \"{i}\", \"question\": \"q{i}\", \"answer\": \"a\"}}\n"))
            .collect();
        std::fs::write(&data, body).unwrap();
        let mut seen = Vec::new();
        let r = assay_core::import::import_path(
            &mut p,
            &data,
            &ImportOptions {
                dry_run: true,
                ..Default::default()
            },
            &mut |pr| seen.push((pr.stage, pr.done, pr.total)),
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(r.items, 2500);
        assert!(seen.len() >= 3, "{seen:?}");
        assert!(seen.iter().all(|s| s.0 == "read"), "{seen:?}");
        assert_eq!(seen.last().map(|s| (s.1, s.2)), Some((2500, 2500)));
        assert_eq!(item_count(&p), 0);
    }

    /// A line that is not UTF-8 is a problem at that line, not the end of the read.
    #[test]
    fn a_line_that_is_not_utf8_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = new_project(dir.path());
        let data = dir.path().join("latin1.jsonl");
        let mut body = b"{\"id\": \"1\", \"question\": \"q\", \"answer\": \"a\"}\n".to_vec();
        body.extend_from_slice(b"{\"id\": \"2\", \"question\": \"caf\xe9\", \"answer\": \"a\"}\n");
        body.extend_from_slice(b"{\"id\": \"3\", \"question\": \"q\", \"answer\": \"a\"}\n");
        std::fs::write(&data, body).unwrap();
        let r = import(
            &mut p,
            &data,
            &ImportOptions {
                dry_run: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.items, 2);
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert!(r.problems[0]
            .to_string()
            .contains("latin1.jsonl:2: not UTF-8"));
    }

    #[test]
    fn a_second_dataset_with_the_same_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = new_project(dir.path());
        let f = sample_dir().join("jgraph-mini/jgraph-mini.jsonl");
        import(&mut p, &f, &ImportOptions::default()).unwrap();
        let err = import(&mut p, &f, &ImportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("already exists"), "{err}");
        assert_eq!(item_count(&p), 12);
    }

    #[test]
    fn unknown_ref_type_is_kept_as_a_label_and_bad_box_is_reported() {
        let (dir, data) = setup(
            r#"{"id": "1", "query": "q", "image": "ok.png", "metadata": {"referring_expression_category": "weird", "target_roi_bbox": "[5, 5, 1, 1]"}}
"#,
        );
        let mut p = new_project(dir.path());
        let err = import(&mut p, &data, &ImportOptions::default())
            .unwrap_err()
            .to_string();
        // CRAG-MM's label set is not fully published: other labels are kept, not refused.
        assert!(!err.contains("referring-expression"), "{err}");
        assert!(
            err.contains("bad.jsonl:1") && err.contains("inverted"),
            "{err}"
        );
    }
}

/// The indexes of items and their definitions, as the file holds them.
fn item_indexes(p: &Project) -> Vec<(String, Option<String>)> {
    let mut st = p
        .connection()
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'items' ORDER BY name")
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

fn integrity(p: &Project) -> String {
    p.connection()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap()
}

/// An import of more than 20,000 items builds the indexes kept in value order at its end
/// (dropped while it writes): they come back with their definitions and every entry, a failed
/// one leaves them as they were, and a small import into the large project keeps them up row
/// by row.
#[test]
fn a_large_import_builds_its_value_indexes_at_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let before = item_indexes(&p);
    assert!(before.iter().any(|(n, _)| n == "items_question_order"));
    let count = item_count(&p);
    let opts = ImportOptions {
        image_root: Some(sample_dir().join("jgraph-mini")),
        ..Default::default()
    };

    // Fails on its last line, after the writer passed 20,000 items (the reader hands batches of
    // 1,000 through a channel of four).
    let big = crate::common::jgraph_items(dir.path(), 30_000, "big.jsonl");
    let broken = dir.path().join("broken.jsonl");
    let mut text = std::fs::read_to_string(&big).unwrap();
    text.push_str("{\"question_id\": \"bad\", \"question\": \n");
    std::fs::write(&broken, text).unwrap();
    let err = import(&mut p, &broken, &opts).unwrap_err();
    let err = err.to_string();
    assert!(
        err.contains("broken.jsonl:30001"),
        "{}",
        &err[..err.len().min(300)]
    );
    assert_eq!(item_count(&p), count);
    assert_eq!(item_indexes(&p), before);
    assert_eq!(integrity(&p), "ok");

    let report = import(&mut p, &big, &opts).unwrap();
    assert_eq!(report.items, 30_000);
    assert_eq!(item_indexes(&p), before);
    assert_eq!(integrity(&p), "ok");
    let small = crate::common::jgraph_items(dir.path(), 50, "small.jsonl");
    import(&mut p, &small, &opts).unwrap();
    assert_eq!(item_indexes(&p), before);
    assert_eq!(integrity(&p), "ok");

    // A file whose stored index text carries another statement: the index is kept up row by
    // row instead, and the stored text is never run.
    {
        let c = p.connection();
        c.execute_batch("PRAGMA writable_schema = ON").unwrap();
        c.execute(
            "UPDATE sqlite_master SET sql = sql || '; CREATE TABLE crafted (x)' WHERE name = 'items_question_order'",
            [],
        )
        .unwrap();
        c.execute_batch("PRAGMA writable_schema = OFF").unwrap();
    }
    let crafted_before = item_indexes(&p);
    let again = crate::common::jgraph_items(dir.path(), 30_000, "again.jsonl");
    import(&mut p, &again, &opts).unwrap();
    assert_eq!(item_indexes(&p), crafted_before);
    let crafted: i64 = p
        .connection()
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'crafted'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(crafted, 0);
    assert_eq!(integrity(&p), "ok");

    // What the rebuilt indexes serve: a page sorted by question and facet counts.
    let sorted = Filter {
        sort: Some(Sort {
            column: SortColumn::Question,
            desc: false,
            run: None,
        }),
        ..Default::default()
    };
    let page = p
        .query(
            &sorted,
            Page {
                offset: 0,
                limit: 20,
            },
        )
        .unwrap();
    let all = p.query_ids(&sorted).unwrap();
    let ids: Vec<i64> = page.rows.iter().map(|r| r.id).collect();
    assert_eq!(ids, all[..20]);
    assert_eq!(
        p.facets(&Filter::default()).unwrap(),
        p.count_facets(&Filter::default()).unwrap()
    );
}

/// An item larger than any revision may be is refused at import, naming it, and the import
/// writes nothing: otherwise it could be imported but never edited, reviewed or restored.
#[test]
fn an_item_over_the_content_bound_is_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let f = dir.path().join("big.jsonl");
    let long = "x".repeat(5 << 20);
    std::fs::write(
        &f,
        format!(
            "{{\"id\": \"small\", \"question\": \"q\", \"answer\": \"a\"}}\n{{\"id\": \"huge\", \"question\": \"{long}\", \"answer\": \"a\"}}\n"
        ),
    )
    .unwrap();
    let err = import(&mut p, &f, &Default::default()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("\"huge\"") && msg.contains("at most 4096 KB"),
        "{msg}"
    );
    assert_eq!(item_count(&p), 0);
}
