use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use assay_core::store::{Author, Edit};
use assay_core::{ItemStatus, Project, RefinementOp, Role};
use assay_eval::engine::Version;
use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
use assay_eval::{run_eval, CancelToken};

use crate::common::*;

#[tokio::test]
async fn every_fault_is_retried_or_recorded_and_counts_add_up() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 10, 0);
    let stub = StubServer::start(StubConfig {
        rules: vec![
            Rule::first(
                2,
                "q1 ",
                Reply::Status {
                    code: 429,
                    retry_after: Some(1),
                },
            ),
            Rule::first(
                1,
                "q2 ",
                Reply::Status {
                    code: 500,
                    retry_after: None,
                },
            ),
            Rule::first(1, "q3 ", Reply::Malformed),
            Rule::first(1, "q4 ", Reply::Truncated),
            Rule::always(
                "q5 ",
                Reply::Status {
                    code: 400,
                    retry_after: None,
                },
            ),
            Rule::always("q6 ", Reply::Hang),
            Rule::always("", Reply::Text("a-answer".into())),
        ],
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| {
        c.timeout_secs = 0.3;
        c.max_retries = 2;
    });
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    let t = Instant::now();
    let s = eval(&path, &req).await;
    assert!(
        t.elapsed() >= Duration::from_secs(2),
        "two Retry-After: 1 waits were honoured"
    );
    assert_eq!(s.progress.total, 10);
    assert_eq!(s.progress.done, 10);
    assert_eq!(
        s.progress.errors, 2,
        "400 and the hang are recorded per item"
    );
    // 10 items: 8 answered first or after retries; q5 once (400 is final); q6 three timeouts.
    assert_eq!(stub.requests(), 10 + 2 + 1 + 1 + 1 + 2);
    assert_eq!(s.http_attempts, stub.requests());
    assert_eq!(
        outcomes(&path),
        vec![("error".into(), 2), ("scored".into(), 8)]
    );
    let p = Project::open(&path).unwrap();
    let err: String = p.connection().query_row(
        "SELECT error FROM run_items ri JOIN items i ON i.id = ri.item_id WHERE i.ext_id = 'q6'", [], |r| r.get(0)).unwrap();
    assert!(
        err.contains("timed out") && err.contains("attempt 3 of 3"),
        "{err}"
    );
    let status: String = p
        .connection()
        .query_row("SELECT status FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "incomplete");
}

#[tokio::test]
async fn after_editing_k_items_only_k_requests_per_run_are_sent() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 200, 0);
    let stub = StubServer::start(StubConfig::default()).await.unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| c.concurrency = 16);
    let req = request(&["m"], 3);
    let first = eval(&path, &req).await;
    // Before and after are identical until someone edits: the after runs reuse every answer.
    assert_eq!(first.progress.sent, 600);
    assert_eq!(first.progress.cached, 600);
    assert_eq!(stub.requests(), 600);
    // What each run paid for: the before runs sent everything, the after runs nothing.
    let summaries = Project::open(&path).unwrap().run_summaries().unwrap();
    for s in &summaries {
        let paid = s.run.version == "before";
        assert_eq!(s.items - s.from_cache, if paid { 200 } else { 0 }, "{s:?}");
        assert_eq!(s.prompt_tokens > 0, paid, "{s:?}");
        assert_eq!(s.completion_tokens > 0, paid, "{s:?}");
        assert!(s.duration_secs.is_some_and(|d| d >= 0.0), "{s:?}");
    }

    let mut p = Project::open(&path).unwrap();
    let u = p.ensure_user("aiko", Role::Annotator).unwrap();
    let author = Author {
        user_id: u.id,
        role: Role::Annotator,
        round: 1,
    };
    for i in 0..10 {
        let id = p.item_id_by_ext("set", &format!("q{i}")).unwrap();
        let mut c = p.item(id).unwrap().content;
        c.question = format!("q{i} what exactly is shown?");
        p.save_edit(
            id,
            &Edit {
                base_rev: None,
                content: c,
                op: Some(RefinementOp::Disambiguation),
                tags: vec![],
                status: ItemStatus::Edited,
                note: None,
            },
            &author,
        )
        .unwrap();
    }
    let second = eval(&path, &req).await;
    assert_eq!(second.progress.sent, 30, "k = 10 edited items x 3 runs");
    assert_eq!(
        second.progress.total, 30,
        "unchanged items are already scored"
    );
    assert_eq!(stub.requests(), 630);
    // A third pass has nothing to do.
    let third = eval(&path, &req).await;
    assert_eq!((third.progress.total, third.progress.sent), (0, 0));
}

/// Planning streams a chunk of items at a time while the first requests are out: before and
/// after of an item still share one request, and a prompt met again in a later chunk (another
/// item edited to ask the very same thing) is not paid twice.
#[tokio::test]
async fn requests_planned_in_chunks_are_each_paid_once() {
    let dir = tempfile::tempdir().unwrap();
    let n = 700;
    let path = project(dir.path(), n, 0);
    let stub = StubServer::start(StubConfig::default()).await.unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| c.concurrency = 32);
    let req = request(&["m"], 1);
    let first = eval(&path, &req).await;
    assert_eq!(
        (
            first.progress.total,
            first.progress.sent,
            first.progress.cached
        ),
        (2 * n, n, n)
    );
    assert_eq!(stub.requests(), n);

    let mut p = Project::open(&path).unwrap();
    let u = p.ensure_user("aiko", Role::Annotator).unwrap();
    let author = Author {
        user_id: u.id,
        role: Role::Annotator,
        round: 1,
    };
    let edit = |p: &mut Project, ext: &str, question: Option<String>, op| {
        let id = p.item_id_by_ext("set", ext).unwrap();
        let mut c = p.item(id).unwrap().content;
        if let Some(q) = question {
            c.question = q;
        }
        p.save_edit(
            id,
            &Edit {
                base_rev: None,
                content: c,
                op: Some(op),
                tags: vec![],
                status: ItemStatus::Edited,
                note: None,
            },
            &author,
        )
        .unwrap();
    };
    // Two new questions in the first and second chunk; item 600 now asks what item 1 asks
    // (its request was made in the first chunk); item 650 leaves the after version.
    edit(
        &mut p,
        "q0",
        Some("q0 what exactly?".into()),
        RefinementOp::MinorEdit,
    );
    edit(
        &mut p,
        "q300",
        Some("q300 what exactly?".into()),
        RefinementOp::MinorEdit,
    );
    edit(
        &mut p,
        "q600",
        Some("q1 what is it?".into()),
        RefinementOp::MinorEdit,
    );
    edit(&mut p, "q650", None, RefinementOp::Remove);
    let second = eval(&path, &req).await;
    assert_eq!(
        (
            second.progress.total,
            second.progress.sent,
            second.progress.cached
        ),
        (3, 2, 1),
        "{:?}",
        second.progress
    );
    assert_eq!(stub.requests(), n + 2);
    let summaries = Project::open(&path).unwrap().run_summaries().unwrap();
    let after = summaries.iter().find(|s| s.run.version == "after").unwrap();
    assert_eq!(after.items, n as i64 - 1, "{after:?}");
    assert_eq!(outcomes(&path), vec![("scored".into(), 2 * n as i64 - 1)]);
}

#[tokio::test]
async fn a_cancelled_run_resumes_without_paying_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 100, 0);
    let stub = StubServer::start(StubConfig {
        latency: Duration::from_millis(20),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| c.concurrency = 4);
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    let cancel = CancelToken::new();
    let c2 = cancel.clone();
    let s = run_eval(
        &path,
        &req,
        Arc::new(move |p| {
            if p.done >= 50 {
                c2.cancel()
            }
        }),
        cancel,
    )
    .await
    .unwrap();
    assert!(s.cancelled);
    let done_first = s.progress.done;
    assert!((50..100).contains(&done_first), "{done_first}");
    let s2 = eval(&path, &req).await;
    assert_eq!(s2.progress.total, 100 - done_first);
    assert_eq!(outcomes(&path), vec![("scored".into(), 100)]);
    // Only requests cut off in flight at the moment of cancelling can be paid twice.
    assert!(stub.requests() <= 100 + 4, "{}", stub.requests());
}

#[tokio::test]
async fn requests_spread_over_replicas_and_a_dead_one_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 60, 0);
    let a = StubServer::start(StubConfig::default()).await.unwrap();
    let b = StubServer::start(StubConfig::default()).await.unwrap();
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    add_model(&path, "m", vec![a.url.clone(), dead, b.url.clone()], |c| {
        c.concurrency = 2
    });
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    let s = eval(&path, &req).await;
    assert_eq!(s.progress.errors, 0);
    assert_eq!(a.requests() + b.requests(), 60);
    assert!(
        a.requests() >= 15 && b.requests() >= 15,
        "{} / {}",
        a.requests(),
        b.requests()
    );
    // The dead replica was taken out after its first refusals and not tried for every item.
    let dead = &s.replicas[1];
    assert!(dead.taken_out >= 1 && dead.requests < 10, "{dead:?}");
    assert_eq!(dead.failures, dead.requests);
}

/// A replica that dies mid-run, with requests in flight on it: those requests go to the
/// others, every item ends scored, and no answer is paid for twice (each answer written by a
/// replica is one stored result).
#[tokio::test]
async fn a_replica_killed_mid_run_loses_and_double_pays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 120, 0);
    let stub = || {
        StubServer::start(StubConfig {
            latency: Duration::from_millis(30),
            ..Default::default()
        })
    };
    let (victim, a, b) = (
        stub().await.unwrap(),
        stub().await.unwrap(),
        stub().await.unwrap(),
    );
    add_model(
        &path,
        "m",
        vec![victim.url.clone(), a.url.clone(), b.url.clone()],
        |c| c.concurrency = 4,
    );
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    let killer = async {
        // Once it has answered some and holds requests unanswered (a state, not a time, so a
        // busy machine changes nothing).
        let mut polls = 0;
        while victim.answered() < 5 || victim.requests() <= victim.answered() {
            polls += 1;
            assert!(polls < 30_000, "the replica never held requests in flight");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        victim.kill();
    };
    let (s, ()) = tokio::join!(eval(&path, &req), killer);
    assert_eq!(s.progress.errors, 0);
    assert_eq!(outcomes(&path), vec![("scored".into(), 120)]);
    let answered = victim.answered() + a.answered() + b.answered();
    assert_eq!(answered, 120, "each stored result paid once");
    assert!(victim.answered() > 0, "it worked before it died");
    assert!(
        victim.requests() > victim.answered(),
        "requests were in flight on it when it died: {} received, {} answered",
        victim.requests(),
        victim.answered()
    );
    let dead = &s.replicas[0];
    assert!(dead.failures >= 1 && dead.taken_out >= 1, "{dead:?}");
}

/// Least outstanding requests: a replica five times slower keeps only the share it answers,
/// where round robin would queue half of the work on it; the run's summary says what each
/// replica did.
#[tokio::test]
async fn a_slow_replica_gets_only_the_work_it_keeps_up_with() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 200, 0);
    let stub = |ms| {
        StubServer::start(StubConfig {
            latency: Duration::from_millis(ms),
            ..Default::default()
        })
    };
    let slow = stub(50).await.unwrap();
    let fast = stub(10).await.unwrap();
    add_model(&path, "m", vec![slow.url.clone(), fast.url.clone()], |c| {
        c.concurrency = 4
    });
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    let s = eval(&path, &req).await;
    assert_eq!(s.progress.errors, 0);
    assert_eq!(
        fast.requests() + slow.requests(),
        200,
        "nothing lost or sent twice"
    );
    assert!(
        fast.requests() >= 2 * slow.requests(),
        "fast {} / slow {}",
        fast.requests(),
        slow.requests()
    );
    let seen: Vec<(String, usize)> = s
        .replicas
        .iter()
        .map(|r| (r.url.clone(), r.requests))
        .collect();
    assert_eq!(
        seen,
        vec![
            (slow.url.clone(), slow.requests()),
            (fast.url.clone(), fast.requests())
        ]
    );
    let ms = |i: usize| s.replicas[i].mean_ms.unwrap();
    assert!(ms(0) > 2.0 * ms(1), "slow {} ms, fast {} ms", ms(0), ms(1));
    // The run's record keeps the same figures, and a second call adds to them.
    let p = Project::open(&path).unwrap();
    let kept = p.run_replicas(s.run_ids[0]).unwrap();
    let kept_counts: Vec<(String, u64)> =
        kept.iter().map(|r| (r.url.clone(), r.requests)).collect();
    assert_eq!(
        kept_counts,
        vec![
            (slow.url.clone(), slow.requests() as u64),
            (fast.url.clone(), fast.requests() as u64)
        ]
    );
    assert_eq!(kept[0].mean_ms, s.replicas[0].mean_ms);
    // One answer lost (its result and its cached response): the next call sends one request.
    let id = p.item_id_by_ext("set", "q0").unwrap();
    p.connection()
        .execute(
            "DELETE FROM responses WHERE cache_key IN
               (SELECT cache_key FROM run_items WHERE run_id = ?1 AND item_id = ?2)",
            [s.run_ids[0], id],
        )
        .unwrap();
    p.forget_run_item(s.run_ids[0], id).unwrap();
    let again = eval(&path, &req).await;
    assert_eq!(again.progress.sent, 1);
    let total: u64 = p
        .run_replicas(s.run_ids[0])
        .unwrap()
        .iter()
        .map(|r| r.requests)
        .sum();
    assert_eq!(total, 201);
}

#[tokio::test]
async fn the_rate_limit_spaces_requests() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 11, 0);
    let stub = StubServer::start(StubConfig::default()).await.unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| {
        c.rate_per_minute = Some(600);
        c.concurrency = 8;
    });
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    let t = Instant::now();
    eval(&path, &req).await;
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "{:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn a_choice_answer_without_a_letter_is_unparsed_not_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 3);
    let stub = StubServer::start(StubConfig {
        rules: vec![
            Rule::always("m0 ", Reply::Text("I cannot tell from the image.".into())),
            Rule::always("m1 ", Reply::Text("Answer: (A)".into())),
        ],
        default_reply: Some(Reply::Text("答えはBです".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |_| {});
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    eval(&path, &req).await;
    let p = Project::open(&path).unwrap();
    let rows: Vec<(String, String, Option<f64>)> = p
        .connection()
        .prepare("SELECT i.ext_id, ri.outcome, ri.score FROM run_items ri JOIN items i ON i.id = ri.item_id ORDER BY i.id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(
        rows,
        vec![
            ("m0".into(), "unparsed".into(), None),
            ("m1".into(), "scored".into(), Some(0.0)),
            ("m2".into(), "scored".into(), Some(1.0)),
        ]
    );
}

/// A one-item HAERAE-style checklist project with a stub model "m" that always gives the same
/// reply and a stub judge "judge" rating the two criteria met and partially met.
async fn checklist_with_a_judge() -> (
    tempfile::TempDir,
    std::path::PathBuf,
    StubServer,
    StubServer,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.assay");
    let mut p = Project::create(&path).unwrap();
    let data = dir.path().join("hv.jsonl");
    std::fs::write(&data, "{\"id\": \"1\", \"question_original\": \"이거 뭐야?\", \"question_explicit\": \"EXIT 표지판은 무슨 뜻?\", \"checklist\": [\"출구라고 설명\", \"방향 안내\"]}\n").unwrap();
    assay_core::import::import_path(
        &mut p,
        &data,
        &Default::default(),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let model = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text("출구라는 뜻입니다.".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    let judge = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text("[{\"criterion\":1,\"rating\":\"met\",\"evidence\":\"출구라는 뜻\",\"justification\":\"ok\"},{\"criterion\":2,\"rating\":\"partially_met\",\"evidence\":\"\",\"justification\":\"no direction\"}]".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![model.url.clone()], |_| {});
    add_model(&path, "judge", vec![judge.url.clone()], |_| {});
    (dir, path, model, judge)
}

/// JAMMEval runs each evaluation three times and CRAG-MM averages three judge runs: a model
/// that gives the same reply in every run still gets its judge asked once per run, so the
/// run-to-run spread of a judged score is the judge's as well as the model's.
#[tokio::test]
async fn a_judge_is_asked_in_every_run_even_about_the_same_reply() {
    let (_dir, path, model, judge) = checklist_with_a_judge().await;
    let mut req = request(&["m"], 3);
    req.datasets = vec!["hv".into()];
    req.versions = vec![Version::Before];
    req.judge = Some("judge".into());
    let s = eval(&path, &req).await;
    assert_eq!(s.progress.errors, 0);
    assert_eq!(model.requests(), 3, "one request per run");
    assert_eq!(
        judge.requests(),
        3,
        "the same reply judged once in each run"
    );
    // Each run's verdicts are cached for that run: evaluating again asks nothing.
    let again = eval(&path, &req).await;
    assert_eq!(again.progress.errors, 0);
    assert_eq!(judge.requests(), 3);
}

#[tokio::test]
async fn checklist_items_are_judged_and_judgements_cached() {
    let (_dir, path, _model, judge) = checklist_with_a_judge().await;
    let mut req = request(&["m"], 1);
    req.datasets = vec!["hv".into()];
    req.versions = vec![Version::Before];
    req.variants = vec![assay_eval::Variant::Original, assay_eval::Variant::Explicit];
    req.judge = Some("judge".into());
    let s = eval(&path, &req).await;
    assert_eq!(s.progress.errors, 0);
    let p = Project::open(&path).unwrap();
    let scores: Vec<f64> = p
        .connection()
        .prepare("SELECT score FROM run_items ORDER BY run_id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(scores, vec![0.75, 0.75]);
    // HAERAE-Vision's official prompt (the stub answers in Assay's earlier JSON form, which a
    // reply without a <score> tag is still read by).
    assert!(judge.prompts()[0].starts_with("[GOAL]") && judge.prompts()[0].contains("<score>"));
    // The judge sees the question as it was asked: each variant is judged on its own text.
    assert_eq!(judge.requests(), 2);
    let prompts = judge.prompts();
    assert!(prompts.iter().any(|p| p.contains("EXIT 표지판은 무슨 뜻?")));
    assert!(prompts
        .iter()
        .any(|p| p.contains("이거 뭐야?") && !p.contains("EXIT")));
    // A second evaluation re-uses every judgement.
    let again = eval(&path, &req).await;
    assert_eq!(again.progress.errors, 0);
    assert_eq!(judge.requests(), 2);
    let evidence: String = p
        .connection()
        .query_row("SELECT evidence FROM run_items LIMIT 1", [], |r| r.get(0))
        .unwrap();
    assert!(evidence.contains("no direction") && evidence.contains("judge_raw"));
}

#[tokio::test]
async fn items_with_images_are_sent_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.assay");
    let mut p = Project::create(&path).unwrap();
    let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/sample/haerae-mini/haerae-mini.jsonl");
    assay_core::import::import_path(
        &mut p,
        &sample,
        &Default::default(),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let stub = StubServer::start(StubConfig::default()).await.unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| {
        c.images.max_side = 64
    });
    let mut req = request(&["m"], 1);
    req.datasets = vec!["haerae-mini".into()];
    req.versions = vec![Version::Before];
    req.scorer = Some(assay_eval::ScorerKind::SoftMatch);
    let s = eval(&path, &req).await;
    assert_eq!((s.progress.errors, stub.requests()), (0, 4));
    // 5 images over 4 items (one item has two); each became a data URL part.
    assert_eq!(stub.images(), 5);
}

#[tokio::test]
async fn the_table_keeps_protocols_apart_counts_errors_and_leaves_out_partial_runs() {
    use assay_eval::table::{before_after_table, TableOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 10, 0);
    // Items q0..q9 answer "a{i}"; the model answers q0-q6 right, q7 wrong, q8 with an error
    // every time, q9 right.
    let mut rules = vec![
        Rule::always("q7 ", Reply::Text("wrong".into())),
        Rule::always(
            "q8 ",
            Reply::Status {
                code: 400,
                retry_after: None,
            },
        ),
    ];
    for i in 0..10 {
        rules.push(Rule::always(
            &format!("q{i} "),
            Reply::Text(format!("a{i}")),
        ));
    }
    let stub = StubServer::start(StubConfig {
        rules,
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| c.max_retries = 0);
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before, Version::After];
    req.scorer = Some(assay_eval::ScorerKind::SoftMatch);
    let s = eval(&path, &req).await;
    assert_eq!(s.progress.errors, 2);
    let p = Project::open(&path).unwrap();
    let statuses: Vec<String> = p
        .connection()
        .prepare("SELECT status FROM runs")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(statuses, vec!["incomplete", "incomplete"]);
    // Runs with an error are partial: left out unless asked for.
    let set = vec!["set".to_string()];
    assert!(before_after_table(
        &p,
        &set,
        assay_eval::Variant::Original,
        &TableOptions::default()
    )
    .unwrap()
    .is_empty());
    let partial = TableOptions {
        include_partial: true,
        ..Default::default()
    };
    let rows = before_after_table(&p, &set, assay_eval::Variant::Original, &partial).unwrap();
    assert_eq!(rows.len(), 1);
    // The error counts as a miss over all 10 items (8/10), not 8/9.
    assert!(
        (rows[0].before.accuracy - 0.8).abs() < 1e-12,
        "{}",
        rows[0].before.accuracy
    );
    assert_eq!((rows[0].before.errors, rows[0].before.items), (1, 10));

    // The same model under a second scorer is a second measurement, never pooled.
    drop(p);
    req.scorer = Some(assay_eval::ScorerKind::Judge);
    req.judge = Some("m".into());
    let _ = eval(&path, &req).await;
    let p = Project::open(&path).unwrap();
    let rows = before_after_table(&p, &set, assay_eval::Variant::Original, &partial).unwrap();
    let scorers: Vec<&str> = rows.iter().map(|r| r.protocol.scorer.as_str()).collect();
    assert_eq!(scorers, vec!["judge", "soft_match"]);
    assert!((rows[1].before.accuracy - 0.8).abs() < 1e-12);
}

#[tokio::test]
async fn a_cancelled_run_stays_cancelled_and_is_left_out_of_the_table() {
    use assay_eval::table::{before_after_table, TableOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 60, 0);
    let stub = StubServer::start(StubConfig {
        latency: Duration::from_millis(10),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| c.concurrency = 2);
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before, Version::After];
    let cancel = CancelToken::new();
    let c2 = cancel.clone();
    let s = run_eval(
        &path,
        &req,
        Arc::new(move |p| {
            if p.done >= 20 {
                c2.cancel()
            }
        }),
        cancel,
    )
    .await
    .unwrap();
    assert!(s.cancelled);
    let p = Project::open(&path).unwrap();
    let statuses: Vec<String> = p
        .connection()
        .prepare("SELECT status FROM runs ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert!(statuses.iter().all(|s| s == "cancelled"), "{statuses:?}");
    let set = vec!["set".to_string()];
    assert!(before_after_table(
        &p,
        &set,
        assay_eval::Variant::Original,
        &TableOptions::default()
    )
    .unwrap()
    .is_empty());
}

#[tokio::test]
async fn grounding_boxes_in_the_sent_image_map_back_to_the_original() {
    use assay_eval::scorers::grounding::BoxConvention;
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    // Item 3f2a9c1e: a 3024 x 4032 photo, target [643, 1610, 2854, 2388]. Sent at 768 x 1024
    // (scale 768/3024), the same box is [163, 409, 725, 607].
    let stub = StubServer::start(StubConfig {
        rules: vec![Rule::always(
            "ford focus",
            Reply::Text("[163, 409, 725, 607]".into()),
        )],
        default_reply: Some(Reply::Text("no idea".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| {
        c.images.max_side = 1024;
        c.box_convention = BoxConvention::SentPixels;
    });
    let mut req = request(&["m"], 1);
    req.datasets = vec!["crag".into()];
    req.versions = vec![Version::Before];
    req.scorer = Some(assay_eval::ScorerKind::Grounding);
    eval(&path, &req).await;
    let prompts = stub.prompts();
    let asked = prompts.iter().find(|x| x.contains("ford focus")).unwrap();
    assert!(
        asked.contains("768 pixels wide and 1024 pixels tall"),
        "{asked}"
    );
    let p = Project::open(&path).unwrap();
    let id = p
        .item_id_by_ext("crag", "3f2a9c1e-5b7d-4e08-9a61-0c4d2b7e8f13")
        .unwrap();
    let (score, evidence): (f64, String) = p
        .connection()
        .query_row(
            "SELECT score, evidence FROM run_items WHERE item_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let ev: serde_json::Value = serde_json::from_str(&evidence).unwrap();
    assert_eq!(score, 1.0, "{ev}");
    assert!(ev["iou"].as_f64().unwrap() > 0.99, "{ev}");
    assert_eq!(ev["sent_size"], serde_json::json!([768, 1024]));
    // The request record keeps the sent size for tracing.
    let t =
        assay_eval::trace::trace_run(&p, 1, Some("3f2a9c1e-5b7d-4e08-9a61-0c4d2b7e8f13")).unwrap();
    assert_eq!(
        t.items[0].prompt.as_ref().unwrap()["images"][0]["sent_size"],
        serde_json::json!([768, 1024])
    );
}

#[tokio::test]
async fn the_crag_mm_protocol_sends_its_system_prompt_and_reads_its_boxes() {
    use assay_eval::scorers::grounding::BoxConvention;
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    // In the 960 x 1280 frame the first item's target is [204, 511, 906, 758].
    let stub = StubServer::start(StubConfig {
        rules: vec![Rule::always(
            "ford focus",
            Reply::Text("[204, 511, 906, 758]".into()),
        )],
        default_reply: Some(Reply::Text("[0.5, 0.5, 0.9, 0.9]".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| {
        c.box_convention = BoxConvention::CragMm
    });
    let mut req = request(&["m"], 1);
    req.datasets = vec!["crag".into()];
    req.versions = vec![Version::Before];
    req.scorer = Some(assay_eval::ScorerKind::Grounding);
    eval(&path, &req).await;
    let t = assay_eval::trace::trace_run(&Project::open(&path).unwrap(), 1, None).unwrap();
    let first = t
        .items
        .iter()
        .find(|r| r.item.starts_with("3f2a9c1e"))
        .unwrap();
    assert_eq!(first.score, Some(1.0));
    let pr = first.prompt.as_ref().unwrap();
    assert!(pr["system"]
        .as_str()
        .unwrap()
        .contains("always 960 pixels wide and 1280 pixels tall"));
    assert_eq!(
        pr["text"],
        "# Question: \"which came out first, this model or the ford focus?\"\n"
    );
    assert_eq!(pr["images"][0]["sent_size"], serde_json::json!([960, 1280]));
    // Decimal boxes are not read by the official parser: the whole image is scored, a miss.
    let other = t
        .items
        .iter()
        .find(|r| !r.item.starts_with("3f2a9c1e"))
        .unwrap();
    assert_eq!(
        other.evidence.as_ref().unwrap()["no_box_fallback_full_image"],
        true
    );
    assert_eq!(other.score, Some(0.0));
}

#[tokio::test]
async fn a_failed_write_stops_the_run_instead_of_paying_for_lost_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 200, 0);
    // The database refuses results after the fifth (as a full disk would).
    Project::open(&path)
        .unwrap()
        .connection()
        .execute_batch(
            "CREATE TRIGGER full_disk BEFORE INSERT ON run_items
             WHEN (SELECT count(*) FROM run_items) >= 5
             BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
        )
        .unwrap();
    let stub = StubServer::start(StubConfig {
        latency: Duration::from_millis(5),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| c.concurrency = 2);
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    let e = run_eval(&path, &req, Arc::new(|_| {}), CancelToken::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("results could not be written") && e.contains("disk is full"),
        "{e}"
    );
    assert!(
        stub.requests() < 100,
        "kept paying: {} requests",
        stub.requests()
    );
    let p = Project::open(&path).unwrap();
    let status: String = p
        .connection()
        .query_row("SELECT status FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "incomplete");
}

#[tokio::test]
async fn cost_prices_each_models_tokens_at_its_own_rates() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 4, 0);
    let a = StubServer::start(StubConfig::default()).await.unwrap();
    let b = StubServer::start(StubConfig::default()).await.unwrap();
    add_model(&path, "cheap", vec![a.url.clone()], |c| {
        c.price_input = Some(1.0);
        c.price_output = Some(2.0);
    });
    add_model(&path, "dear", vec![b.url.clone()], |c| {
        c.price_input = Some(10.0);
        c.price_output = Some(20.0);
    });
    let mut req = request(&["cheap", "dear"], 1);
    req.versions = vec![Version::Before];
    let s = eval(&path, &req).await;
    let by = |m: &str| s.costs.iter().find(|c| c.model == m).unwrap().clone();
    let (cheap, dear) = (by("cheap"), by("dear"));
    assert!(cheap.prompt_tokens > 0 && dear.prompt_tokens > 0);
    let want = |c: &assay_eval::engine::ModelCost, pi: f64, po: f64| {
        (c.prompt_tokens as f64 * pi + c.completion_tokens as f64 * po) / 1e6
    };
    assert!((cheap.cost.unwrap() - want(&cheap, 1.0, 2.0)).abs() < 1e-12);
    assert!((dear.cost.unwrap() - want(&dear, 10.0, 20.0)).abs() < 1e-12);
    assert!((s.cost.unwrap() - cheap.cost.unwrap() - dear.cost.unwrap()).abs() < 1e-12);
}

/// A run made under a protocol records it; the table keeps it in its own row, counts unparsed
/// replies as that protocol does (VAGUE: over the valid replies), and a request that departs
/// from the protocol, or claims a run another protocol made, is refused.
#[tokio::test]
async fn a_protocol_is_recorded_with_its_runs_and_decides_how_the_table_counts() {
    use assay_core::EvalProtocol;
    use assay_eval::table::{before_after_table, protocol_label, TableOptions};
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 8);
    // Four letters right, two wrong, two that name no option at all.
    let mut rules = Vec::new();
    for i in 0..8 {
        let reply = match i {
            0..=3 => "B",
            4 | 5 => "A",
            _ => "I cannot tell from the picture.",
        };
        rules.push(Rule::always(&format!("m{i} "), Reply::Text(reply.into())));
    }
    let stub = StubServer::start(StubConfig {
        rules,
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |_| {});
    add_model(&path, "n", vec![stub.url.clone()], |_| {});

    // Departing from the preset is refused before anything is sent.
    let mut wrong =
        assay_eval::protocol::request(EvalProtocol::Vague, vec!["m".into()], vec!["set".into()]);
    wrong.runs = 3;
    let err = run_eval(&path, &wrong, Arc::new(|_| {}), CancelToken::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("vague protocol") && err.contains("1 run"),
        "{err}"
    );
    assert_eq!(stub.requests(), 0);

    let vague = assay_eval::protocol::request(
        EvalProtocol::Vague,
        vec!["m".into(), "n".into()],
        vec!["set".into()],
    );
    let s = eval(&path, &vague).await;
    assert_eq!(s.progress.errors, 0);
    // The same fields by hand (choice, one run) would add to the preset's runs: refused, so no
    // run holds results made two ways.
    let mut by_hand = request(&["m", "n"], 1);
    by_hand.scorer = Some(assay_eval::ScorerKind::Choice);
    by_hand.template = "default".into();
    let err = run_eval(&path, &by_hand, Arc::new(|_| {}), CancelToken::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("made under the vague protocol") && err.contains("request is by hand"),
        "{err}"
    );

    let p = Project::open(&path).unwrap();
    let recorded: Vec<Option<String>> = p
        .connection()
        .prepare("SELECT DISTINCT protocol FROM runs ORDER BY protocol")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(recorded, vec![Some("vague".to_string())]);

    let rows = before_after_table(
        &p,
        &["set".into()],
        assay_eval::Variant::Original,
        &TableOptions {
            bootstrap: 0,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(protocol_label(&row.protocol), "vague (unparsed left out)");
    // 4 right of 6 valid replies (the paper's denominator), not 4 of 8.
    assert!(
        (row.before.accuracy - 4.0 / 6.0).abs() < 1e-12,
        "{}",
        row.before.accuracy
    );
    assert_eq!(
        row.before.unparsed, 4,
        "two unparsed per model, still listed"
    );

    // Another protocol never takes over a run this one made.
    let mut jam =
        assay_eval::protocol::request(EvalProtocol::Jammeval, vec!["m".into()], vec!["set".into()]);
    jam.judge = Some("n".into());
    jam.runs = 3;
    // JAMMEval's label differs ("auto+n"), so its runs are its own, never vague's.
    let s = eval(&path, &jam).await;
    assert_eq!(s.progress.errors, 0);
    let p = Project::open(&path).unwrap();
    let jam_runs: i64 = p
        .connection()
        .query_row(
            "SELECT count(*) FROM runs WHERE protocol = 'jammeval' AND scorer = 'auto+n'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(jam_runs, 6, "three runs on each version");
    let key = assay_core::store::RunKey {
        model_id: p
            .connection()
            .query_row("SELECT id FROM models WHERE name = 'm'", [], |r| r.get(0))
            .unwrap(),
        dataset_id: p.dataset_by_name("set").unwrap().id,
        version: Version::Before,
        variant: "original".into(),
        run_index: 1,
        template: "default".into(),
        scorer: "choice".into(),
        source: "live".into(),
        protocol: Some(EvalProtocol::CragMm),
    };
    let err = p.ensure_run(&key).unwrap_err().to_string();
    assert!(err.contains("vague") && err.contains("crag-mm"), "{err}");
}

/// A run is never finished with answers asked another way than its first ones: once the
/// model's generation settings change (or a protocol sends its own), asking for the same run
/// again is refused with the run named, nothing sent; the model under another name, or the
/// run deleted, goes ahead.
#[tokio::test]
async fn a_run_whose_requests_changed_is_not_resumed_with_mixed_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 4, 0);
    let stub = StubServer::start(StubConfig::default()).await.unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |c| {
        c.params.temperature = 0.7
    });
    let req = request(&["m"], 1);
    let first = eval(&path, &req).await;
    assert_eq!(first.progress.errors, 0);
    let sent = stub.requests();
    assert!(sent > 0);
    // The same request again: every answer is there, nothing is sent.
    assert_eq!(eval(&path, &req).await.progress.sent, 0);

    add_model(&path, "m", vec![stub.url.clone()], |c| {
        c.params.temperature = 0.2
    });
    let err = run_eval(&path, &req, Arc::new(|_| {}), CancelToken::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("asked otherwise") && err.contains("run 1"),
        "{err}"
    );
    assert_eq!(stub.requests(), sent, "nothing was sent");
    add_model(&path, "m-cool", vec![stub.url.clone()], |c| {
        c.params.temperature = 0.2
    });
    let s = eval(&path, &request(&["m-cool"], 1)).await;
    assert_eq!(s.progress.errors, 0);
    assert!(stub.requests() > sent, "asked with the new settings");
    let mut p = Project::open(&path).unwrap();
    for r in p.run_summaries().unwrap() {
        if r.run.model == "m" {
            p.delete_run(r.run.id).unwrap();
        }
    }
    let again = eval(&path, &req).await;
    assert_eq!(again.progress.errors, 0);
}
