//! The import's preview: what a file's first records become, before anything is written, with
//! the same mapping and the same code as the import that follows.

use std::io::Write;

use assay_core::import::mapping::Mapping;
use assay_core::import::preview::preview_import;
use assay_core::import::ImportOptions;

use crate::common::{formats_dir, import, new_project};

/// A published layout is told from its fields; the preview's items are, field for field, what
/// the import then writes, images read (their sizes known), and the file's fields say what
/// reads each.
#[test]
fn a_published_file_previews_as_the_import_then_writes_it() {
    let path = formats_dir().join("haerae-vision/data/train.jsonl");
    let opts = ImportOptions::default();
    let preview = preview_import(&path, &opts, 3).unwrap();
    assert_eq!(preview.layout.as_deref(), Some("haerae-vision"));
    assert!(preview.mapping_error.is_none());
    assert!(preview.known_layouts.iter().any(|l| l == "vague"));
    assert_eq!(preview.records.len(), 3);
    let fields: Vec<(&str, &[String])> = preview
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.read_as.as_slice()))
        .collect();
    let read_as = |name: &str| {
        fields
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no field {name} in {fields:?}"))
            .1
            .to_vec()
    };
    assert!(read_as("checklist").contains(&"checklist".to_string()));
    assert!(read_as("images").contains(&"images".to_string()));

    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import(&mut p, &path, &opts).unwrap();
    for r in &preview.records {
        assert!(r.problems.is_empty(), "{}: {:?}", r.location, r.problems);
        assert!(r.location.contains("train.jsonl:"), "{}", r.location);
        let id = r.ext_id.as_deref().unwrap();
        let written = p.item(p.item_id_by_ext("train", id).unwrap()).unwrap();
        let previewed = r.item.as_ref().unwrap();
        assert_eq!(previewed, &written.content, "record {id}");
        assert!(previewed.images.iter().all(|i| i.width > 0 && i.height > 0));
    }
}

/// A file whose layout cannot be told still shows its fields and records, with the reason the
/// import would give; a mapping made from those fields drafts items, keeps the rest as
/// metadata, and imports the same items.
#[test]
fn an_unknown_layout_is_mapped_by_hand_from_its_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("survey.csv");
    std::fs::write(
        &path,
        "uid,prompt,gold,annotator\nq1,What colour is the sky?,blue,ann\nq2,<b>How many</b> legs?,4,bo\n",
    )
    .unwrap();
    let preview = preview_import(&path, &ImportOptions::default(), 5).unwrap();
    assert_eq!(preview.layout, None);
    let why = preview.mapping_error.as_deref().unwrap();
    assert!(why.contains("cannot tell the layout"), "{why}");
    let names: Vec<&str> = preview.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["annotator", "gold", "prompt", "uid"]);
    assert_eq!(preview.fields[2].example, "What colour is the sky?");
    assert_eq!(preview.records.len(), 2);
    assert!(preview.records[1].raw.contains("<b>How many</b> legs?"));
    assert!(preview.records.iter().all(|r| r.item.is_none()));

    let mapping = Mapping {
        id: Some("uid".into()),
        question: Some("prompt".into()),
        answer: Some("gold".into()),
        ..Default::default()
    };
    let opts = ImportOptions {
        mapping: Some(mapping),
        ..Default::default()
    };
    let preview = preview_import(&path, &opts, 5).unwrap();
    assert_eq!(preview.layout.as_deref(), Some("custom"));
    let field = |n: &str| preview.fields.iter().find(|f| f.name == n).unwrap();
    assert_eq!(field("prompt").read_as, ["question"]);
    assert!(field("annotator").read_as.is_empty(), "kept as metadata");
    let second = preview.records[1].item.as_ref().unwrap();
    assert_eq!(second.question, "<b>How many</b> legs?");
    assert_eq!(second.answer.as_deref(), Some("4"));
    assert_eq!(second.metadata["annotator"], "bo");

    let mut p = new_project(dir.path());
    import(&mut p, &path, &opts).unwrap();
    let written = p.item(p.item_id_by_ext("survey", "q2").unwrap()).unwrap();
    assert_eq!(&written.content, second);
}

/// A line that is not JSON is named by file and line in the preview, as the import names it,
/// and the good records around it are still drafted; a record the mapping cannot make an item
/// of says why.
#[test]
fn bad_lines_and_bad_records_are_named_in_the_preview() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("items.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, r#"{{"id":"a","question":"Q1","answer":"x"}}"#).unwrap();
    writeln!(f, r#"{{"id":"b","question":"#).unwrap();
    writeln!(f, r#"{{"id":"c","answer":"y"}}"#).unwrap();
    writeln!(f, r#"{{"id":"d","question":"Q4","answer":"z"}}"#).unwrap();
    drop(f);
    let opts = ImportOptions {
        layout: Some("jammeval".into()),
        ..Default::default()
    };
    let preview = preview_import(&path, &opts, 10).unwrap();
    let rows: Vec<(&str, bool, String)> = preview
        .records
        .iter()
        .map(|r| (r.location.as_str(), r.item.is_some(), r.problems.join("; ")))
        .collect();
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(
        rows[0].0.ends_with("items.jsonl:1") && rows[0].1,
        "{rows:?}"
    );
    assert!(
        rows[1].0.ends_with("items.jsonl:2") && !rows[1].1,
        "{rows:?}"
    );
    assert!(
        rows[2].0.ends_with("items.jsonl:3") && rows[2].2.contains("no question"),
        "{rows:?}"
    );
    assert!(rows[3].1, "{rows:?}");
}

/// Base64 image cells (VLMEvalKit's TSV) are shortened in the raw view with their length, and
/// the images they hold are decoded for the preview's items.
#[test]
fn inline_images_are_decoded_and_their_text_shortened() {
    let path = formats_dir().join("vlmevalkit/LMUData/JA_Culture_MCQ.tsv");
    let preview = preview_import(&path, &ImportOptions::default(), 2).unwrap();
    assert_eq!(preview.layout.as_deref(), Some("vlmevalkit"));
    let r = &preview.records[0];
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert!(
        r.raw.contains(" characters)"),
        "{}",
        &r.raw[..200.min(r.raw.len())]
    );
    assert!(r.raw.len() < 4000, "the base64 cell was shortened");
    let item = r.item.as_ref().unwrap();
    assert!(!item.options.is_empty());
    assert!(item.images[0].width > 0);
    assert_eq!(
        preview
            .fields
            .iter()
            .find(|f| f.name == "image")
            .unwrap()
            .read_as,
        ["images"]
    );
}

/// A mapping written by the app is one the CLI reads back (`--mapping FILE`), as it was.
#[test]
fn a_saved_mapping_reads_back_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let m = Mapping {
        layout: Some("survey".into()),
        question: Some("prompt|question".into()),
        options: Some("A+B+C".into()),
        index_base: 1,
        ignore: vec!["annotator".into()],
        ..Default::default()
    };
    let path = dir.path().join("survey.toml");
    m.save(&path).unwrap();
    assert_eq!(Mapping::from_file(&path).unwrap(), m);
    let json = dir.path().join("survey.json");
    m.save(&json).unwrap();
    assert_eq!(Mapping::from_file(&json).unwrap(), m);
}

/// A record whose list becomes one item per entry (JA-VG-VQA-500's `qas`) previews as those
/// items, located by entry, each as the import writes it; the fields shown are the entries'
/// (what the mapping reads), not only the outer record's.
#[test]
fn a_list_of_questions_previews_as_one_item_per_entry() {
    let path = formats_dir().join("llm-jp-eval-mm/datasets/ja-vg-vqa-500/test.jsonl");
    let preview = preview_import(&path, &ImportOptions::default(), 4).unwrap();
    assert_eq!(preview.layout.as_deref(), Some("ja-vg-vqa-500"));
    assert_eq!(preview.records.len(), 4, "capped at the records asked for");
    assert!(
        preview.records[0]
            .location
            .ends_with("test.jsonl:1 (entry 1)"),
        "{}",
        preview.records[0].location
    );
    let field = |n: &str| preview.fields.iter().find(|f| f.name == n);
    assert_eq!(field("question").unwrap().read_as, ["question"]);
    assert!(field("a_objects").unwrap().ignored);
    assert!(field("qas").is_none(), "the list itself becomes the items");

    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import(&mut p, &path, &ImportOptions::default()).unwrap();
    for r in &preview.records {
        let id = r.ext_id.as_deref().unwrap();
        let written = p.item(p.item_id_by_ext("test", id).unwrap()).unwrap();
        assert_eq!(r.item.as_ref().unwrap(), &written.content, "{id}");
    }
}

/// A file of which no line reads (pretty-printed JSON saved as JSONL) gives at most the records
/// asked for, each naming its line, not one per line of the file; an id seen twice is named as
/// the import names it.
#[test]
fn unreadable_lines_are_capped_and_repeated_ids_named() {
    let dir = tempfile::tempdir().unwrap();
    let pretty = dir.path().join("pretty.jsonl");
    let body: String = (0..500)
        .map(|i| format!("{{\n  \"id\": \"{i}\",\n  \"question\": \"q\"\n}}\n"))
        .collect();
    std::fs::write(&pretty, body).unwrap();
    let preview = preview_import(&pretty, &ImportOptions::default(), 5).unwrap();
    assert_eq!(preview.records.len(), 5);
    assert!(preview
        .records
        .iter()
        .all(|r| r.item.is_none() && !r.problems.is_empty()));
    assert!(preview.records[1].location.ends_with("pretty.jsonl:2"));

    let twice = dir.path().join("twice.jsonl");
    std::fs::write(
        &twice,
        "{\"id\":\"a\",\"question\":\"Q1\"}\n{\"id\":\"a\",\"question\":\"Q2\"}\n",
    )
    .unwrap();
    let preview = preview_import(&twice, &ImportOptions::default(), 5).unwrap();
    assert!(preview.records[0].item.is_some());
    let second = preview.records[1].problems.join(" ");
    assert!(
        second.contains("duplicate id \"a\"") && second.contains("twice.jsonl:1"),
        "{second}"
    );
}
