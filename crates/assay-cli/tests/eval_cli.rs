//! `assay model/eval/runs/predictions/table` against a stub server, and killing an eval.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use assay_eval::stub::{StubConfig, StubServer};

fn assay(project: &Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_assay"))
        .arg("--project")
        .arg(project)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn setup(dir: &Path, n: usize) -> std::path::PathBuf {
    let p = dir.join("p.assay");
    assay(&p, &["new"]);
    let body: String = (0..n)
        .map(|i| {
            format!("{{\"id\": \"q{i}\", \"question\": \"q{i} 何ですか？\", \"answer\": \"OK\"}}\n")
        })
        .collect();
    let data = dir.join("set.jsonl");
    std::fs::write(&data, body).unwrap();
    assay(&p, &["import", data.to_str().unwrap()]);
    p
}

/// The run the kill test interrupts and then resumes.
const RESUMABLE_EVAL: &[&str] = &[
    "eval",
    "--model",
    "slow",
    "--dataset",
    "set",
    "--runs",
    "1",
    "--version",
    "before",
];

fn scored_rows(p: &Path) -> i64 {
    let project = assay_core::Project::open(p).unwrap();
    project
        .connection()
        .query_row(
            "SELECT count(*) FROM run_items WHERE outcome = 'scored'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eval_then_table() {
    let dir = tempfile::tempdir().unwrap();
    let p = setup(dir.path(), 20);
    let stub = StubServer::start(StubConfig::default()).await.unwrap();
    let url = stub.url.clone();
    let p2 = p.clone();
    let summary = tokio::task::spawn_blocking(move || {
        assay(
            &p2,
            &[
                "model",
                "add",
                "stubby",
                "--endpoint",
                &url,
                "--api-key-env",
                "STUB_API_KEY",
            ],
        );
        assay(
            &p2,
            &[
                "eval",
                "--model",
                "stubby",
                "--dataset",
                "set",
                "--runs",
                "2",
            ],
        )
    })
    .await
    .unwrap();
    assert_eq!(summary["progress"]["sent"], 40);
    assert_eq!(summary["progress"]["cached"], 40);
    assert_eq!(stub.requests(), 40);
    let runs = assay(&p, &["runs"]);
    assert_eq!(runs.as_array().unwrap().len(), 4);
    assert_eq!(runs[0]["accuracy"], 1.0);
    let table = assay(&p, &["table"]);
    assert_eq!(table[0]["dataset"], "set");
    assert_eq!(table[0]["before"]["accuracy"], 1.0);
    // A researcher decides one answer was wrong after all: the table follows the person.
    let first_run = runs[0]["id"].to_string();
    assay(
        &p,
        &[
            "overrule",
            &first_run,
            "set",
            "q0",
            "0",
            "--user",
            "rin",
            "--note",
            "answer is too vague",
        ],
    );
    let table = assay(&p, &["table"]);
    assert!((table[0]["before"]["accuracy"].as_f64().unwrap() - (1.0 - 0.05 / 2.0)).abs() < 1e-9);
    // Every number traces back: the prompt sent, the raw response, the rule, the overrule.
    let t = assay(&p, &["trace", &first_run, "--item", "q0"]);
    let row = &t["items"][0];
    assert_eq!(t["items"].as_array().unwrap().len(), 1);
    assert!(
        row["prompt"]["text"]
            .as_str()
            .unwrap()
            .starts_with("q0 何ですか？"),
        "{row}"
    );
    assert_eq!(row["response"], "OK");
    assert_eq!(row["scorer"], "soft_match");
    assert_eq!(row["score"], 1.0);
    assert_eq!(row["overruled"], 0.0);
    assert_eq!(row["evidence"]["rule"], "exact after normalisation");
    assert_eq!(
        assay(&p, &["trace", &first_run])["items"]
            .as_array()
            .unwrap()
            .len(),
        20
    );
    let tpl = dir.path().join("t.txt");
    std::fs::write(&tpl, "Q: {question}\nA:").unwrap();
    assert_eq!(
        assay(
            &p,
            &["template", "set", "terse", "--file", tpl.to_str().unwrap()]
        )["template"],
        "terse@1"
    );
    std::fs::write(&tpl, "Question: {question}\nAnswer:").unwrap();
    assert_eq!(
        assay(
            &p,
            &["template", "set", "terse", "--file", tpl.to_str().unwrap()]
        )["template"],
        "terse@2"
    );
    let p3 = p.clone();
    let s2 = tokio::task::spawn_blocking(move || {
        assay(
            &p3,
            &[
                "eval",
                "--model",
                "stubby",
                "--dataset",
                "set",
                "--runs",
                "1",
                "--version",
                "before",
                "--template",
                "terse@1",
            ],
        )
    })
    .await
    .unwrap();
    assert_eq!(s2["progress"]["sent"], 20, "a new template is a new prompt");
    assert!(stub.prompts().iter().any(|p| p.starts_with("Q: q0 ")));
    let listed = assay(&p, &["model", "list"]);
    assert_eq!(listed[0]["config"]["api_key_env"], "STUB_API_KEY");
    let raw = std::fs::read(&p).unwrap();
    assert!(
        !String::from_utf8_lossy(&raw).contains("sk-"),
        "no key material in the project"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_eval_resumes_and_never_pays_twice() {
    let dir = tempfile::tempdir().unwrap();
    let p = setup(dir.path(), 100);
    let stub = StubServer::start(StubConfig {
        latency: Duration::from_millis(40),
        ..Default::default()
    })
    .await
    .unwrap();
    let url = stub.url.clone();
    let p2 = p.clone();
    tokio::task::spawn_blocking(move || {
        assay(
            &p2,
            &[
                "model",
                "add",
                "slow",
                "--endpoint",
                &url,
                "--concurrency",
                "2",
            ],
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_assay"))
            .arg("--project")
            .arg(&p2)
            .args(RESUMABLE_EVAL)
            .arg("--json")
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while scored_rows(&p2) < 20 {
            assert!(start.elapsed() < Duration::from_secs(60));
            assert!(
                child.try_wait().unwrap().is_none(),
                "eval finished before the kill"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let before_resume = scored_rows(&p2);
        assert!(before_resume < 100);
        let s = assay(&p2, RESUMABLE_EVAL);
        assert_eq!(
            s["progress"]["total"].as_i64().unwrap(),
            100 - before_resume
        );
        assert_eq!(scored_rows(&p2), 100);
    })
    .await
    .unwrap();
    // At most the requests in flight when the process died are paid twice.
    assert!(stub.requests() <= 100 + 2, "{}", stub.requests());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_over_a_filter_then_accept_edit_reject_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let p = setup(dir.path(), 12);
    let stub = StubServer::start(StubConfig {
        default_reply: Some(assay_eval::stub::Reply::Text(
            "- 答えがOKであること\n- 理由を述べること".into(),
        )),
        ..Default::default()
    })
    .await
    .unwrap();
    let url = stub.url.clone();
    let p2 = p.clone();
    let (estimate, summary, again) = tokio::task::spawn_blocking(move || {
        assay(&p2, &["model", "add", "drafter", "--endpoint", &url]);
        // Items q1 and q10, q11: the filter decides what is asked.
        let filter = ["--dataset", "set", "--text", "q1"];
        let mut est = vec!["suggest", "checklist", "--model", "drafter", "--estimate"];
        est.extend(filter);
        let mut run = vec!["suggest", "checklist", "--model", "drafter"];
        run.extend(filter);
        (assay(&p2, &est), assay(&p2, &run), assay(&p2, &run))
    })
    .await
    .unwrap();
    assert_eq!(estimate["todo"], 3);
    assert_eq!(estimate["requests"], 3);
    assert_eq!(stub.requests(), 3);
    assert_eq!(summary["progress"]["parsed"], 3);
    assert_eq!(again["already"], 3);
    let list = assay(
        &p,
        &["suggestion", "list", "--dataset", "set", "--id", "q1"],
    );
    let id = list[0]["id"].as_i64().unwrap().to_string();
    assert_eq!(list[0]["value"]["criteria"][1], "理由を述べること");
    let a = assay(&p, &["suggestion", "accept", &id, "--user", "aiko"]);
    assert_eq!(a["decision"], "accepted");
    let shown = assay(&p, &["show", "set", "q1"]);
    assert_eq!(
        shown["item"]["content"]["checklist"][0],
        "答えがOKであること"
    );
    let l10 = assay(
        &p,
        &["suggestion", "list", "--dataset", "set", "--id", "q10"],
    );
    let id10 = l10[0]["id"].as_i64().unwrap().to_string();
    let edited = r#"{"kind": "checklist", "criteria": ["答えがOKであること"]}"#;
    let e = assay(
        &p,
        &[
            "suggestion",
            "accept",
            &id10,
            "--user",
            "aiko",
            "--value",
            edited,
        ],
    );
    assert_eq!(e["decision"], "edited");
    let l11 = assay(
        &p,
        &["suggestion", "list", "--dataset", "set", "--id", "q11"],
    );
    let id11 = l11[0]["id"].as_i64().unwrap().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_assay"))
        .args([
            "--project",
            p.to_str().unwrap(),
            "suggestion",
            "reject",
            &id11,
        ])
        .args(["--user", "ben", "--reason", ""])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a reason"));
    Command::new(env!("CARGO_BIN_EXE_assay"))
        .args([
            "--project",
            p.to_str().unwrap(),
            "suggestion",
            "reject",
            &id11,
        ])
        .args(["--user", "ben", "--reason", "not grounded in the image"])
        .output()
        .unwrap();
    let r = assay(&p, &["suggestion", "report"]);
    let row = &r["rows"][0];
    assert_eq!(
        (
            &row["accepted"],
            &row["edited"],
            &row["rejected"],
            &row["pending"]
        ),
        (&1.into(), &1.into(), &1.into(), &0.into())
    );
}
