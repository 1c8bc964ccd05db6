//! The `assay` binary end to end: real processes, real project files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn assay(project: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_assay"))
        .arg("--project")
        .arg(project)
        .args(args)
        .output()
        .unwrap()
}

fn ok_json(project: &Path, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = assay(project, &a);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Nobody makes themselves an auditor: `name` asking for it is refused, and the project's owner
/// (its first person) assigns it.
fn make_auditor(p: &Path, name: &str) {
    assert!(!assay(p, &["user", "add", name, "--role", "auditor"])
        .status
        .success());
    let users = ok_json(p, &["user", "list"]);
    let owner = users
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["owner"] == true)
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    ok_json(p, &["user", "set-role", name, "auditor", "--by", &owner]);
}

fn sample(f: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/sample")
        .join(f);
    p.display().to_string()
}

#[test]
fn import_list_edit_show_export_stats() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.assay");
    ok_json(&p, &["new"]);
    let r = ok_json(&p, &["import", &sample("jgraph-mini/jgraph-mini.jsonl")]);
    assert_eq!(r["items"], 12);
    let dry = ok_json(
        &p,
        &["import", &sample("crag-mini/crag-mini.jsonl"), "--dry-run"],
    );
    assert_eq!(dry["dry_run"], true);
    assert_eq!(ok_json(&p, &["stats"])["items"], 12);

    let l = ok_json(&p, &["list", "--text", "降水量"]);
    assert_eq!(l["total"], 2);
    let e = ok_json(
        &p,
        &[
            "edit",
            "jgraph-mini",
            "jg-006",
            "--user",
            "aiko",
            "--answer",
            "117",
            "--op",
            "answer_correction",
            "--tag",
            "wrong_answer",
        ],
    );
    assert_eq!(e["rev"], 1);
    // The same edit again changes nothing and writes no revision.
    let again = ok_json(
        &p,
        &[
            "edit",
            "jgraph-mini",
            "jg-006",
            "--user",
            "aiko",
            "--answer",
            "117",
            "--op",
            "answer_correction",
            "--tag",
            "wrong_answer",
        ],
    );
    assert_eq!(again["rev"], 1);
    // An edit decided on revision 0 after someone saved revision 1 is refused: a conflict.
    let late = assay(
        &p,
        &[
            "edit",
            "jgraph-mini",
            "jg-006",
            "--user",
            "minjun",
            "--answer",
            "171mm",
            "--base-rev",
            "0",
            "--json",
        ],
    );
    assert!(!late.status.success());
    let err: serde_json::Value = serde_json::from_slice(&late.stdout).unwrap();
    assert_eq!(err["error"]["code"], "conflict", "{err}");
    let s = ok_json(&p, &["show", "jgraph-mini", "jg-006"]);
    assert_eq!(s["item"]["content"]["answer"], "117");
    assert_eq!(s["item"]["original"]["answer"], "171");
    assert_eq!(s["history"][1]["author"], "aiko");
    assert_eq!(
        ok_json(&p, &["list", "--op", "answer_correction"])["total"],
        1
    );
    assert_eq!(ok_json(&p, &["list", "--op", "none"])["total"], 11);

    let out = dir.path().join("out");
    let x = ok_json(
        &p,
        &["export", "jgraph-mini", "--out", out.to_str().unwrap()],
    );
    assert_eq!(x["export"]["items"], 12);
    assert_eq!(x["changed_items"], 1);
    assert!(out.join("jgraph-mini-Refined/data.jsonl").exists());
    assert!(out.join("jgraph-mini-Refined.changelog.csv").exists());
    let pq = ok_json(
        &p,
        &[
            "export",
            "jgraph-mini",
            "--out",
            out.to_str().unwrap(),
            "--format",
            "parquet",
        ],
    );
    assert!(pq["export"]["path"]
        .as_str()
        .unwrap()
        .ends_with("jgraph-mini-Refined.parquet"));
}

#[test]
fn errors_are_clear_and_coded() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.assay");
    ok_json(&p, &["new"]);
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\": 1, \"question\": \"ok\", \"answer\": \"a\"}\nnot json\n",
    )
    .unwrap();
    let out = assay(&p, &["import", bad.to_str().unwrap(), "--json"]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "import_failed");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .contains("bad.jsonl:2: malformed JSON"));
    let missing = assay(&dir.path().join("nope.assay"), &["stats"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not found: project file"));
}

/// Killing the process while it writes leaves the project as it was before the import: one
/// with items (the import writes through the log) and an empty one (a rollback journal).
#[test]
fn killing_an_import_mid_write_changes_nothing() {
    kill_mid_import(true);
    kill_mid_import(false);
}

fn kill_mid_import(with_items: bool) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.assay");
    ok_json(&p, &["new"]);
    if with_items {
        ok_json(&p, &["import", &sample("jgraph-mini/jgraph-mini.jsonl")]);
    }
    let big = dir.path().join("big.jsonl");
    let body: String = (0..300_000)
        .map(|i| format!("{{\"id\": \"{i}\", \"question\": \"質問 {i} これは長めの質問文です\", \"answer\": \"答え\"}}\n"))
        .collect();
    std::fs::write(&big, body).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_assay"))
        .arg("--project")
        .arg(&p)
        .arg("import")
        .arg(&big)
        .arg("--json")
        .spawn()
        .unwrap();
    let size = |name: &str| std::fs::metadata(dir.path().join(name)).map(|m| m.len());
    let before = size("p.assay").unwrap();
    let start = Instant::now();
    // Once the import's transaction writes pages: into the log (WAL), or, where the process
    // has the file to itself and the import leaves the log, into the file with a rollback
    // journal beside it.
    let writing = || match with_items {
        true => size("p.assay-wal").unwrap_or(0) >= 4 << 20,
        false => size("p.assay-journal").is_ok() && size("p.assay").unwrap() >= before + (4 << 20),
    };
    while !writing() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "import never started writing"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "import finished before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let stats = ok_json(&p, &["stats"]);
    assert_eq!(stats["items"], if with_items { 12 } else { 0 });
    let datasets = stats["datasets"].as_array().unwrap().len();
    assert_eq!(datasets, with_items as usize);
    let project = assay_core::Project::open(&p).unwrap();
    let (check, mode): (String, String) = project
        .connection()
        .query_row(
            "SELECT (SELECT * FROM pragma_integrity_check), (SELECT * FROM pragma_journal_mode)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((check.as_str(), mode.as_str()), ("ok", "wal"));
    assert!(
        size("p.assay-journal").is_err(),
        "the hot journal was rolled back"
    );
}

#[test]
fn boxes_export_import_and_filter_by_size() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.assay");
    ok_json(&p, &["new"]);
    ok_json(&p, &["import", &sample("crag-mini/crag-mini.jsonl")]);
    let small = ok_json(
        &p,
        &["list", "--size-ratio", "..0.05", "--ref-type", "ambiguous"],
    );
    assert_eq!(small["total"], 1);

    let coco = dir.path().join("boxes.json");
    let out = ok_json(
        &p,
        &[
            "boxes",
            "export",
            "crag-mini",
            "--format",
            "coco",
            "--out",
            coco.to_str().unwrap(),
        ],
    );
    assert!(out["boxes"].as_u64().unwrap() >= 1);
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&coco).unwrap()).unwrap();
    // Another tool made the first box cover the whole 512x384 image.
    v["annotations"][0]["bbox"] = serde_json::json!([0, 0, 512, 384]);
    std::fs::write(&coco, v.to_string()).unwrap();
    let r = ok_json(
        &p,
        &[
            "boxes",
            "import",
            "crag-mini",
            coco.to_str().unwrap(),
            "--format",
            "coco",
            "--user",
            "aiko",
        ],
    );
    assert_eq!(r["changed"], 1);
    let whole = ok_json(&p, &["list", "--size-ratio", "0.99.."]);
    assert_eq!(whole["total"], 1);

    // A model's Qwen2.5-VL style answer for cr-002, in pixels of the original.
    let lines = dir.path().join("model.jsonl");
    std::fs::write(
        &lines,
        "{\"id\": \"cr-002\", \"response\": \"```json\\n[{\\\"bbox_2d\\\": [10, 20, 110, 220]}]\\n```\"}\n",
    )
    .unwrap();
    ok_json(
        &p,
        &[
            "boxes",
            "import",
            "crag-mini",
            lines.to_str().unwrap(),
            "--format",
            "model-output",
            "--user",
            "aiko",
        ],
    );
    let show = ok_json(&p, &["show", "crag-mini", "cr-002"]);
    let b = &show["item"]["content"]["images"][0]["target_boxes"][0];
    assert_eq!(
        (b["x_min"].as_f64(), b["y_max"].as_f64()),
        (Some(10.0), Some(220.0)),
        "{show}"
    );

    let bad = assay(&p, &["list", "--size-ratio", "small"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a range"));
}

#[test]
fn stages_flags_funnel_and_the_auditors_override() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.assay");
    ok_json(&p, &["new"]);
    ok_json(&p, &["import", &sample("haerae-mini/haerae-mini.jsonl")]);
    let stages = ok_json(&p, &["stages", "list"]);
    assert_eq!(stages.as_array().unwrap().len(), 6);
    let d = ok_json(
        &p,
        &[
            "decide",
            "haerae-mini",
            "102",
            "--stage",
            "3",
            "--drop",
            "--reason",
            "solved by all three models",
            "--user",
            "minjun",
        ],
    );
    assert_eq!(d["dropped_stage"], 3);
    let f = ok_json(
        &p,
        &[
            "flag",
            "haerae-mini",
            "103",
            "--dimension",
            "qa_quality",
            "--user",
            "minjun",
        ],
    );
    assert_eq!(f["kept"], false);
    let funnel = ok_json(&p, &["funnel", "--by", "category"]);
    let survivors: Vec<i64> = funnel
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["survivors"].as_i64().unwrap())
        .collect();
    assert_eq!(survivors, vec![4, 4, 4, 3, 3, 3, 3, 2]);
    assert_eq!(ok_json(&p, &["list", "--dropped-at", "3"])["total"], 1);
    assert_eq!(ok_json(&p, &["list", "--kept", "true"])["total"], 2);

    // A non-auditor cannot keep a flagged item through the CLI; an auditor can.
    let refused = assay(
        &p,
        &["keep", "haerae-mini", "103", "--user", "minjun", "--json"],
    );
    assert!(!refused.status.success());
    let err: serde_json::Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(err["error"]["code"], "forbidden");
    make_auditor(&p, "seoyeon");
    let kept = ok_json(&p, &["keep", "haerae-mini", "103", "--user", "seoyeon"]);
    assert_eq!(kept["kept"], true);

    let out = dir.path().join("out");
    ok_json(
        &p,
        &[
            "export",
            "haerae-mini",
            "--format",
            "haerae-vision",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let lines = std::fs::read_to_string(out.join("haerae-mini-Refined/train.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 3, "102 was dropped");
}

#[test]
fn review_queue_sign_off_and_agreement_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.assay");
    ok_json(&p, &["new"]);
    ok_json(&p, &["import", &sample("jgraph-mini/jgraph-mini.jsonl")]);
    ok_json(
        &p,
        &[
            "edit",
            "jgraph-mini",
            "jg-006",
            "--user",
            "aiko",
            "--answer",
            "117",
        ],
    );
    let mine = ok_json(&p, &["queue", "--user", "aiko"]);
    assert_eq!(mine.as_array().unwrap().len(), 0, "never her own work");
    let theirs = ok_json(&p, &["queue", "--user", "minjun"]);
    assert_eq!(theirs[0]["ext_id"], "jg-006");
    let own = assay(
        &p,
        &[
            "review",
            "jgraph-mini",
            "jg-006",
            "--decision",
            "approve",
            "--user",
            "aiko",
            "--json",
        ],
    );
    assert!(!own.status.success());
    ok_json(
        &p,
        &[
            "review",
            "jgraph-mini",
            "jg-006",
            "--decision",
            "approve",
            "--user",
            "minjun",
        ],
    );
    // A non-auditor cannot sign off through the CLI.
    let refused = assay(
        &p,
        &[
            "sign-off",
            "jgraph-mini",
            "jg-006",
            "--user",
            "minjun",
            "--json",
        ],
    );
    assert!(!refused.status.success());
    let err: serde_json::Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(err["error"]["code"], "forbidden");
    make_auditor(&p, "seoyeon");
    ok_json(
        &p,
        &["sign-off", "jgraph-mini", "jg-006", "--user", "seoyeon"],
    );
    let locked = assay(
        &p,
        &[
            "edit",
            "jgraph-mini",
            "jg-006",
            "--user",
            "aiko",
            "--answer",
            "118",
            "--json",
        ],
    );
    assert!(!locked.status.success(), "a signed-off item is locked");
    let ag = ok_json(&p, &["agreement", "--field", "op"]);
    assert_eq!(ag["field"], "op");
    // CRAG-MM's annotation check: the experts named against the others' majority; nobody
    // typed an expression here, so nothing is compared and no kappa is made up.
    let check = ok_json(
        &p,
        &["agreement", "--field", "ref_type", "--experts", "seoyeon"],
    );
    assert_eq!(
        (check["items"].as_u64(), check["crowd"].as_u64()),
        (Some(0), Some(3))
    );
    assert_eq!(check["binary_label"], "ambiguous");
    assert!(check["kappa"].is_null());
    let boxes = assay(
        &p,
        &[
            "agreement",
            "--field",
            "box",
            "--experts",
            "seoyeon",
            "--json",
        ],
    );
    assert!(!boxes.status.success(), "boxes are not voted on");
    let out = dir.path().join("out");
    let one = ok_json(
        &p,
        &[
            "export",
            "jgraph-mini",
            "--signed-off-only",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(one["export"]["items"], 1, "only the signed-off item");
    let all = ok_json(
        &p,
        &["sign-off", "jgraph-mini", "--all", "--user", "seoyeon"],
    );
    assert_eq!(all["signed_off"], 11, "the rest of the dataset");
}

#[test]
fn compact_gives_free_pages_back_and_keeps_the_items() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.assay");
    ok_json(&p, &["new"]);
    ok_json(&p, &["import", &sample("jgraph-mini/jgraph-mini.jsonl")]);
    // Pages freed the way a migration frees them: a table grown, then cut.
    assay_core::Project::open(&p)
        .unwrap()
        .connection()
        .execute_batch(
            "CREATE TABLE scratch (x BLOB);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
             INSERT INTO scratch SELECT randomblob(4000) FROM n;
             DROP TABLE scratch;",
        )
        .unwrap();
    let before = ok_json(&p, &["stats"]);
    let r = ok_json(&p, &["compact"]);
    let (b, a) = (
        r["bytes_before"].as_u64().unwrap(),
        r["bytes_after"].as_u64().unwrap(),
    );
    assert!(b - a >= 1_900_000, "{r}");
    assert!(r["free_pages_before"].as_i64().unwrap() >= 480, "{r}");
    assert_eq!(std::fs::metadata(&p).unwrap().len(), a);
    assert_eq!(ok_json(&p, &["stats"]), before);
    let text = assay(&p, &["compact"]);
    assert!(text.status.success());
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("(0 free pages given back)"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );
}
