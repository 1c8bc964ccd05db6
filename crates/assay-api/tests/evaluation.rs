//! Evaluation through the app's session: a model added from the form, its test request, a
//! background run with progress, the dashboard, and an answer fix re-scored with no request.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use assay_api::evaluation::{check_model, EvalForm, EvalJobs, ModelForm};
use assay_api::session::{import_into, Session};
use assay_api::types::ImportRequest;
use assay_core::store::Edit;
use assay_core::Role;
use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};

fn session(dir: &Path) -> Session {
    let path = dir.join("p.assay");
    let mut s = Session::new(dir.join("prefs.json"));
    s.create_project(path.clone()).unwrap();
    let req = ImportRequest {
        path: Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/sample/jgraph-mini/jgraph-mini.jsonl")
            .display()
            .to_string(),
        name: None,
        layout: None,
        mapping: None,
        link_images: false,
        dry_run: false,
    };
    import_into(&path, &req, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    s.set_user("rin".into(), Role::Researcher).unwrap();
    s
}

fn form(url: &str) -> ModelForm {
    ModelForm {
        name: "qwen".into(),
        endpoints: vec![url.into()],
        model: "Qwen2.5-VL-7B".into(),
        api_key_env: None,
        concurrency: 4,
        rate_per_minute: None,
        box_convention: "auto".into(),
        price_input: Some(0.5),
        price_output: Some(1.5),
        max_tokens: 64,
        accepted: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_from_the_app_then_an_answer_fix_rescored_without_a_request() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    // The stub answers 171 to jg-006's question ("...降水量は何mm...") and OK otherwise.
    let stub = StubServer::start(StubConfig {
        rules: vec![Rule::always("降水量は何mm", Reply::Text("171".into()))],
        ..Default::default()
    })
    .await
    .unwrap();
    let saved = s.save_model(form(&stub.url).clone()).unwrap();
    assert_eq!(saved.endpoints, vec![stub.url.clone()]);
    assert_eq!(s.models().unwrap().len(), 1);

    let check = check_model(s.model_config("qwen").unwrap()).await;
    assert!(check.ok, "{}", check.message);
    assert_eq!(check.message, "OK");
    let mut down = form("http://127.0.0.1:9/v1");
    down.name = "down".into();
    s.save_model(down.clone()).unwrap();
    let bad = check_model(s.model_config("down").unwrap()).await;
    assert!(
        !bad.ok && bad.message.contains("127.0.0.1:9"),
        "{}",
        bad.message
    );

    let run = EvalForm {
        models: vec!["qwen".into()],
        datasets: vec!["jgraph-mini".into()],
        versions: vec!["before".into(), "after".into()],
        variants: vec!["original".into()],
        runs: 1,
        scorer: None,
        template: None,
        judge: None,
        protocol: None,
    };
    let est = s.estimate_eval(run.clone()).unwrap();
    assert_eq!(est.requests, 24, "12 items x 2 versions, before any cache");
    assert_eq!(est.cost, None, "no stored responses to price yet");
    s.remove_model("down".into()).unwrap();
    assert_eq!(s.models().unwrap().len(), 1);

    s.remember_eval(&run).unwrap();
    let mut again = Session::new(dir.path().join("prefs.json"));
    again.open_project(&dir.path().join("p.assay")).unwrap();
    assert_eq!(
        again.last_eval(),
        Some(run.clone()),
        "kept for after a restart"
    );

    let jobs = Arc::new(EvalJobs::default());
    let path = dir.path().join("p.assay");
    let work = jobs.start(path.clone(), run.clone()).unwrap();
    assert!(
        jobs.start(path.clone(), run.clone()).is_err(),
        "one at a time"
    );
    work.await;
    let st = jobs.status();
    assert!(!st.running && st.error.is_none(), "{st:?}");
    assert_eq!((st.total, st.done), (24, 24));
    // Before and after ask the same questions: 12 distinct requests, the rest from the cache.
    assert_eq!(stub.requests(), 13, "12 prompts + the test request");
    assert!(st.cost.is_some());
    // The stub reports token counts: now the estimate can price a run.
    assert!(s.estimate_eval(run.clone()).unwrap().cost.unwrap() > 0.0);
    let err = s.remove_model("qwen".into()).unwrap_err();
    assert!(err.message.contains("runs"), "{}", err.message);

    let dash = s.dashboard(None, None).unwrap();
    let row = &dash.rows[0];
    assert_eq!(row.dataset, "jgraph-mini");
    assert!((row.accuracy_before - 1.0 / 12.0).abs() < 1e-12);
    assert!((row.accuracy_after - 1.0 / 12.0).abs() < 1e-12);
    assert!(dash.markdown.contains("jgraph-mini"));
    assert!(dash.latex.contains("\\\\"));
    let ops: i64 = dash
        .operations
        .iter()
        .filter(|o| o.0 == "jgraph-mini")
        .map(|o| o.2)
        .sum();
    assert_eq!(ops, 12, "every item counted once in the operations chart");
    // A person tags why jg-001 failed; the dashboard counts it per model.
    let first = s.item_ids(Default::default()).unwrap()[0];
    let run_id = st.run_ids[0];
    s.tag_failure(run_id, first, "OCR".into(), true).unwrap();
    s.tag_failure(run_id, first, "reasoning".into(), true)
        .unwrap();
    s.tag_failure(run_id, first, "reasoning".into(), false)
        .unwrap();
    let tags = s.dashboard(None, None).unwrap().failure_tags;
    assert_eq!(tags, vec![("qwen".to_string(), "ocr".to_string(), 1)]);
    assert!(s.tag_failure(run_id, first, "  ".into(), true).is_err());
    // The no-image variant was not run: no model has a result on that side.
    let vs = s.dashboard(None, Some("no_image".into())).unwrap();
    assert!(
        vs.rows
            .iter()
            .all(|r| r.models.iter().all(|m| m.after.is_nan())),
        "{vs:?}"
    );
    assert!(s.dashboard(None, Some("sideways".into())).is_err());
    let by_op = s.dashboard(Some("op".into()), None).unwrap();
    assert!(!by_op.rows.is_empty());
    assert!(
        by_op.rows.iter().all(|r| r.group.is_some()),
        "one row per operation"
    );
    assert!(s.dashboard(Some("colour".into()), None).is_err());

    // Fix jg-006's answer to 117: the after side loses its one hit, no request is sent.
    let id = s
        .item_ids(Default::default())
        .unwrap()
        .into_iter()
        .find(|i| s.item_detail(*i).unwrap().item.ext_id == "jg-006")
        .unwrap();
    let d = s.item_detail(id).unwrap();
    let mut content = d.item.content.clone();
    content.answer = Some("117".into());
    s.save_item(
        id,
        Edit {
            base_rev: Some(d.item.rev),
            content,
            op: Some(assay_core::RefinementOp::AnswerCorrection),
            tags: vec![],
            status: assay_core::ItemStatus::Edited,
            note: None,
        },
    )
    .unwrap();
    jobs.start(path, run).unwrap().await;
    assert_eq!(stub.requests(), 13, "re-scored from the cache");
    let row = &s.dashboard(None, None).unwrap().rows[0];
    assert!((row.accuracy_before - 1.0 / 12.0).abs() < 1e-12);
    assert_eq!(row.accuracy_after, 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_breaks_grounding_and_distractors_down() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.assay");
    let mut s = Session::new(dir.path().join("prefs.json"));
    s.create_project(path.clone()).unwrap();
    for f in ["vague-mini/vague-mini.json", "crag-mini/crag-mini.jsonl"] {
        let req = ImportRequest {
            path: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../assets/sample")
                .join(f)
                .display()
                .to_string(),
            name: None,
            layout: None,
            mapping: None,
            link_images: false,
            dry_run: false,
        };
        import_into(&path, &req, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    }
    s.set_user("rin".into(), Role::Researcher).unwrap();
    // Every multiple-choice answer is "A"; cr-001 is answered with its car's box (original
    // pixels), the other CRAG items with no box at all.
    let stub = StubServer::start(StubConfig {
        rules: vec![Rule::always(
            "What brand is this car",
            Reply::Text("[200, 280, 310, 342]".into()),
        )],
        default_reply: Some(Reply::Text("A".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    let mut m = form(&stub.url);
    m.box_convention = "original-pixels".into();
    s.save_model(m.clone()).unwrap();
    let choice = EvalForm {
        models: vec!["qwen".into()],
        datasets: vec!["vague-mini".into()],
        versions: vec!["after".into()],
        variants: vec!["original".into()],
        runs: 1,
        scorer: None,
        template: None,
        judge: None,
        protocol: None,
    };
    let boxes = EvalForm {
        datasets: vec!["crag-mini".into()],
        scorer: Some("grounding".into()),
        ..choice.clone()
    };
    let jobs = Arc::new(EvalJobs::default());
    jobs.start(path.clone(), choice.clone()).unwrap().await;
    assert!(jobs.status().error.is_none(), "{:?}", jobs.status());
    jobs.start(path.clone(), boxes.clone()).unwrap().await;
    assert!(jobs.status().error.is_none(), "{:?}", jobs.status());
    // Identification with a judge, from the window's form: the estimate counts the judge.
    let named = EvalForm {
        scorer: Some("identification".into()),
        template: Some("crag-mm/object_identification_easy_query".into()),
        variants: vec!["highlight".into()],
        judge: Some("qwen".into()),
        ..boxes.clone()
    };
    let est = s.estimate_eval(named.clone()).unwrap();
    assert_eq!(est.judge_requests, est.requests);
    assert!(est.requests > 0);
    let needs = EvalForm {
        scorer: Some("judge".into()),
        ..choice.clone()
    };
    assert!(s
        .estimate_eval(needs.clone())
        .unwrap_err()
        .message
        .contains("judge model"));
    // A form that names a protocol follows it, or is refused with what differs.
    let departs = EvalForm {
        protocol: Some("vague".into()),
        runs: 2,
        ..choice.clone()
    };
    let why = s.estimate_eval(departs).unwrap_err().message;
    assert!(
        why.contains("vague protocol") && why.contains("1 run"),
        "{why}"
    );
    let unknown = EvalForm {
        protocol: Some("mmbench".into()),
        ..choice.clone()
    };
    assert!(s
        .estimate_eval(unknown)
        .unwrap_err()
        .message
        .contains("unknown protocol"));
    let follows = EvalForm {
        protocol: Some("vague".into()),
        scorer: Some("choice".into()),
        ..choice.clone()
    };
    assert!(s.estimate_eval(follows).unwrap().requests > 0);
    jobs.start(path, named).unwrap().await;
    assert!(jobs.status().error.is_none(), "{:?}", jobs.status());
    let stages = s.stage_table("after".into()).unwrap();
    assert_eq!(
        stages.columns,
        vec![
            "Grounding".to_string(),
            "Identification (crag-mm/object_identification_easy_query, identification+qwen)"
                .to_string(),
            // The multiple-choice run on the VAGUE set answers.
            "Answer".to_string(),
        ]
    );
    assert!(stages
        .rows
        .iter()
        .any(|r| r.variant == "highlight" && r.breakdown == "all" && r.cells[1].is_some()));
    assert!(stages.markdown.contains("Spearman"));
    assert_eq!(s.stage_table("later".into()).unwrap_err().code, "invalid");
    let d = s.dashboard(None, None).unwrap();

    // VAGUE: option A is whatever kind each item's ordering put first; three items, one pick each.
    let picks: u64 = d.distractors.iter().map(|x| x.n).sum();
    assert_eq!(picks, 3, "{:?}", d.distractors);
    assert!(d
        .distractors
        .iter()
        .all(|x| ["correct", "FSU", "SU", "NE"].contains(&x.group.as_str())));

    // CRAG: per referring-expression type and size bin, every result counted once.
    let by_ref: u64 = d.grounding_by_ref.iter().map(|x| x.n).sum();
    let by_size: u64 = d.grounding_by_size.iter().map(|x| x.n).sum();
    assert_eq!((by_ref, by_size), (4, 4), "{:?}", d.grounding_by_ref);
    let ambiguous = d
        .grounding_by_ref
        .iter()
        .find(|x| x.group == "ambiguous")
        .unwrap();
    assert_eq!(
        (ambiguous.hits, ambiguous.n),
        (1, 1),
        "cr-001's box is that car"
    );
}
