//! Assay's exports read back by the tools people hand them to: Hugging Face `datasets`,
//! `pycocotools` and Label Studio's converter (label-studio-sdk), installed from PyPI into a
//! virtual environment cached under target/ (tests/interop/requirements.txt pins them). The
//! checks themselves are in tests/interop/check.py; each fails naming the first difference.

use std::path::{Path, PathBuf};
use std::process::Command;

use assay_core::store::Version;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The interpreter of target/interop-venv, made (or re-made when the pins change) on first use.
fn python() -> PathBuf {
    let venv = root().join("target/interop-venv");
    let requirements = root().join("tests/interop/requirements.txt");
    let wanted = std::fs::read_to_string(&requirements).unwrap();
    let stamp = venv.join("assay-requirements.txt");
    let py = venv.join("bin/python");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) || !py.exists() {
        let _ = std::fs::remove_dir_all(&venv);
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
        run(Command::new(&py)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-r",
            ])
            .arg(&requirements));
        std::fs::write(&stamp, wanted).unwrap();
    }
    py
}

fn check(py: &Path, args: &[&Path]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    run(Command::new(py)
        .arg(root().join("tests/interop/check.py"))
        .args(args)
        // Nothing from a cache of another run, and never the network.
        .env("HF_DATASETS_CACHE", tmp.path().join("hf-cache"))
        .env("HF_HUB_OFFLINE", "1")
        .env("HF_DATASETS_OFFLINE", "1"))
}

fn assay(project: &Path, args: &[&str]) -> String {
    run(Command::new(env!("CARGO_BIN_EXE_assay"))
        .arg("--project")
        .arg(project)
        .args(args))
}

/// What each split must hold, from the project itself.
fn expected(project: &Path, dataset: &str) -> Value {
    let p = assay_core::Project::open(project).unwrap();
    let ds = p.dataset_by_name(dataset).unwrap();
    let items = p.current_items(ds.id).unwrap();
    let row = |ext: &str, c: &assay_core::ItemContent, op: Option<assay_core::RefinementOp>| {
        json!({
            "id": ext,
            "question": c.question,
            "answer": c.reference_text(),
            "options": c.options.iter().map(|o| o.text.clone()).collect::<Vec<_>>(),
            "category": c.category,
            "operation": op.map(|o| o.as_str()),
            "images": c.images.iter().map(|i| [i.width, i.height]).collect::<Vec<_>>(),
        })
    };
    json!({
        "original": items.iter().map(|i| row(&i.ext_id, &i.original, i.op)).collect::<Vec<_>>(),
        "refined": items
            .iter()
            .filter(|i| Version::After.includes(i.op, i.kept))
            .map(|i| row(&i.ext_id, &i.content, i.op))
            .collect::<Vec<_>>(),
    })
}

#[test]
fn the_ecosystems_own_tools_read_what_assay_writes() {
    let py = python();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let project = d.join("p.assay");
    assay(&project, &["new"]);
    let sample = root().join("assets/sample");
    let formats = root().join("tests/fixtures/formats");
    let mut datasets: Vec<String> = Vec::new();
    for file in [
        "jgraph-mini.jsonl",
        "haerae-mini.jsonl",
        "crag-mini.jsonl",
        "vague-mini.json",
    ] {
        let name = file.split('.').next().unwrap();
        let file = sample.join(name).join(file);
        assay(&project, &["import", file.to_str().unwrap()]);
        datasets.push(name.into());
    }
    for (name, file) in [
        (
            "crag-fixture",
            "crag-mm-diagnostics/data/test-00000-of-00001.parquet",
        ),
        ("haerae-fixture", "haerae-vision/data/train.jsonl"),
        ("jammeval-cvqa", "jammeval/CVQA-JA-Refined/test.jsonl"),
    ] {
        let path = formats.join(file);
        assay(
            &project,
            &["import", path.to_str().unwrap(), "--name", name],
        );
        datasets.push(name.into());
    }
    // Refinements in Japanese and Korean, and a removal, so the splits differ.
    let edit = |args: &[&str]| {
        let mut a = vec!["edit"];
        a.extend_from_slice(args);
        a.extend_from_slice(&["--user", "aiko"]);
        assay(&project, &a);
    };
    edit(&[
        "jgraph-mini",
        "jg-006",
        "--answer",
        "117ミリ",
        "--op",
        "answer_correction",
    ]);
    edit(&["jgraph-mini", "jg-005", "--op", "remove"]);
    edit(&[
        "haerae-mini",
        "101",
        "--question",
        "이 표지판은 무슨 뜻인가요? 어디로 가야 하나요?",
        "--op",
        "minor_edit",
    ]);

    // Hugging Face: the folder as a DatasetDict, the single Parquet file, both with PIL images.
    for name in &datasets {
        let out = d.join(format!("hf-{name}"));
        let parquet = d.join(format!("{name}.parquet"));
        assay(
            &project,
            &[
                "export",
                name,
                "--format",
                "hf",
                "--out",
                out.to_str().unwrap(),
            ],
        );
        assay(
            &project,
            &[
                "export",
                name,
                "--format",
                "parquet",
                "--out",
                d.to_str().unwrap(),
                "--name",
                name,
            ],
        );
        let want = d.join(format!("{name}.expected.json"));
        std::fs::write(&want, expected(&project, name).to_string()).unwrap();
        let said = check(&py, &[Path::new("hf"), &out, &parquet, &want]);
        assert!(said.contains("rows read back"), "{said}");
    }

    // Label Studio's own export (its converter's test data, images named /image1 and /image2
    // without extension), imported into a folder of images of the size it names.
    let images = d.join("ls-images");
    run(Command::new(&py)
        .arg(root().join("tests/interop/check.py"))
        .args([
            "make-images",
            images.to_str().unwrap(),
            "image1.png:2800x2800",
            "image2.png:2800x2800",
        ]));
    assay(
        &project,
        &["import", images.to_str().unwrap(), "--name", "ls-fixture"],
    );
    let fixture = formats.join("label-studio/export_rectangles.json");
    assay(
        &project,
        &[
            "boxes",
            "import",
            "ls-fixture",
            fixture.to_str().unwrap(),
            "--format",
            "label-studio",
            "--user",
            "aiko",
        ],
    );

    // COCO: pycocotools reads the export and evaluates it against itself at AP 1; Label Studio's
    // converter turns Assay's Label Studio export into the same boxes as Assay's COCO.
    for name in ["crag-mini", "crag-fixture", "ls-fixture"] {
        let file = |format: &str, ext: &str| {
            let path = d.join(format!("{name}.{ext}.json"));
            let out = path.to_str().unwrap();
            assay(
                &project,
                &["boxes", "export", name, "--format", format, "--out", out],
            );
            path
        };
        let coco = file("coco", "coco");
        let ls = file("label-studio", "ls");
        let config = ls.with_extension("label_config.xml");
        let said = check(&py, &[Path::new("coco"), &coco]);
        assert!(said.contains("AP 1.0"), "{said}");
        if name == "ls-fixture" {
            assert!(said.contains("'parasites', 'white'"), "{said}");
            // The boxes Assay stored are those the converter reads from the same file.
            let said = check(
                &py,
                &[Path::new("label-studio-fixture"), &fixture, &config, &coco],
            );
            assert!(said.contains("agree with the converter"), "{said}");
        }
        let said = check(&py, &[Path::new("label-studio"), &ls, &config, &coco]);
        assert!(said.contains("match Assay's COCO"), "{said}");
    }
}
