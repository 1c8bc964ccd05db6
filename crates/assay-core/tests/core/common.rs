use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use assay_core::import::{import_path, ImportOptions, ImportReport};
use assay_core::store::{Author, Edit, Filter, Page};
use assay_core::{Project, Role};

pub fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/sample")
}

pub fn new_project(dir: &Path) -> Project {
    Project::create(dir.join("t.assay")).unwrap()
}

pub fn import(
    p: &mut Project,
    path: &Path,
    opts: &ImportOptions,
) -> assay_core::Result<ImportReport> {
    import_path(p, path, opts, &mut |_| {}, &AtomicBool::new(false))
}

pub fn import_sample(p: &mut Project) {
    for f in [
        "jgraph-mini/jgraph-mini.jsonl",
        "vague-mini/vague-mini.json",
        "haerae-mini/haerae-mini.jsonl",
        "crag-mini/crag-mini.jsonl",
    ] {
        import(p, &sample_dir().join(f), &ImportOptions::default()).unwrap();
    }
}

pub fn author(p: &Project, name: &str) -> Author {
    let u = p.ensure_user(name, Role::Annotator).unwrap();
    Author {
        user_id: u.id,
        role: Role::Annotator,
        round: 1,
    }
}

/// A person in a given stored role (a new one is created in it).
pub fn person(p: &Project, name: &str, role: Role) -> Author {
    let u = p.ensure_user(name, role).unwrap();
    Author {
        user_id: u.id,
        role,
        round: 1,
    }
}

pub fn png(w: u32, h: u32, seed: u8) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(w, h, image::Rgb([seed, 100, 200]));
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

pub fn item_count(p: &Project) -> i64 {
    p.connection()
        .query_row("SELECT count(*) FROM items", [], |r| r.get(0))
        .unwrap()
}

/// The published-format samples (tests/fixtures/formats, each with a SOURCE.md).
pub fn formats_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/formats")
}

/// The source ids of the first page of items matching `f`.
pub fn ids(p: &Project, f: &Filter) -> Vec<String> {
    p.query(
        f,
        Page {
            offset: 0,
            limit: 1000,
        },
    )
    .unwrap()
    .rows
    .into_iter()
    .map(|r| r.ext_id)
    .collect()
}

/// An edit that changes nothing yet, made on the item's current revision.
pub fn edit_of(p: &Project, id: i64) -> Edit {
    let it = p.item(id).unwrap();
    Edit {
        base_rev: Some(it.rev),
        content: it.content,
        op: it.op,
        tags: it.tags,
        status: it.status,
        note: None,
    }
}

/// `n` JGraph items made from the sample's twelve, each with its own id and question.
pub fn jgraph_items(dir: &std::path::Path, n: usize, name: &str) -> std::path::PathBuf {
    let sample =
        std::fs::read_to_string(sample_dir().join("jgraph-mini/jgraph-mini.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = sample
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut out = String::new();
    for k in 0..n {
        let mut v = lines[k % lines.len()].clone();
        v["question_id"] = format!("jg-{k:05}").into();
        v["question"] = format!("{} ({k}番)", v["question"].as_str().unwrap()).into();
        out.push_str(&serde_json::to_string(&v).unwrap());
        out.push('\n');
    }
    let path = dir.join(name);
    std::fs::write(&path, out).unwrap();
    path
}
