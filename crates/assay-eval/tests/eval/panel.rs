//! Judge panels: three judges on one run's stored responses (no model request sent again),
//! their agreement, and the numbers checked against SciPy and krippendorff.

use std::path::Path;

use assay_core::Project;
use assay_eval::engine::Version;
use assay_eval::panel::{judge_panel, panel_report, panel_stats};
use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
use assay_eval::{CancelToken, ScorerKind};

use crate::common::*;

#[tokio::test]
async fn three_judges_score_the_same_responses_and_their_disagreement_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 6, 0);
    let model = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text("it is a1".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    let yes = || Reply::Text("reasoning: fine\ncorrect: yes".into());
    let no = || Reply::Text("reasoning: wrong\ncorrect: no".into());
    let lenient = StubServer::start(StubConfig {
        default_reply: Some(yes()),
        ..Default::default()
    })
    .await
    .unwrap();
    // The strict judge rejects q1 and q2, the third only q3.
    let strict = StubServer::start(StubConfig {
        rules: vec![
            Rule::always("[question]: q1 ", no()),
            Rule::always("[question]: q2 ", no()),
        ],
        default_reply: Some(yes()),
        ..Default::default()
    })
    .await
    .unwrap();
    let third = StubServer::start(StubConfig {
        rules: vec![Rule::always("[question]: q3 ", no())],
        default_reply: Some(yes()),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![model.url.clone()], |_| {});
    for (name, s) in [
        ("lenient", &lenient),
        ("strict", &strict),
        ("third", &third),
    ] {
        add_model(&path, name, vec![s.url.clone()], |_| {});
    }
    let mut req = request(&["m"], 1);
    req.versions = vec![Version::Before];
    req.scorer = Some(ScorerKind::SoftMatch);
    let s = eval(&path, &req).await;
    let run = s.run_ids[0];
    assert_eq!(model.requests(), 6);

    let p = Project::open(&path).unwrap();
    let own = assay_eval::table::run_score(&p, run).unwrap();
    let judges: Vec<String> = ["lenient", "strict", "third"].map(String::from).to_vec();
    let done = judge_panel(&p, run, ScorerKind::Judge, &judges, CancelToken::new())
        .await
        .unwrap();
    assert!(
        done.iter().all(|(_, s)| s.judged == 6 && s.errors == 0),
        "{done:?}"
    );
    assert_eq!(model.requests(), 6, "the model is not asked again");
    assert_eq!(
        (lenient.requests(), strict.requests(), third.requests()),
        (6, 6, 6)
    );

    let r = panel_report(&p, run, ScorerKind::Judge, 10).unwrap();
    assert_eq!(r.judges, judges);
    assert_eq!(r.items, 6);
    let listed: Vec<&str> = r.disagreements.iter().map(|d| d.ext_id.as_str()).collect();
    assert_eq!(listed, ["q1", "q2", "q3"]);
    assert_eq!(
        r.disagreements[0].scores,
        vec![Some(1.0), Some(0.0), Some(1.0)]
    );
    // lenient gives 1 everywhere: no correlation is defined with a constant.
    let lp = &r.pairs[0];
    assert_eq!(
        (lp.a.as_str(), lp.b.as_str(), lp.items),
        ("lenient", "strict", 6)
    );
    assert_eq!(lp.pearson, None);
    let st = r
        .pairs
        .iter()
        .find(|x| x.a == "strict" && x.b == "third")
        .unwrap();
    // strict = [0,0,1,1,1,1], third = [1,1,0,1,1,1]: Pearson -0.3162277660168379 (SciPy).
    assert!(
        (st.pearson.unwrap() + 0.316_227_766_016_837_9).abs() < 1e-9,
        "{st:?}"
    );
    // The run's own results are untouched by the panel.
    assert_eq!(assay_eval::table::run_score(&p, run).unwrap(), own);

    // Asking again sends nothing: every verdict is stored.
    judge_panel(&p, run, ScorerKind::Judge, &judges, CancelToken::new())
        .await
        .unwrap();
    assert_eq!(
        (lenient.requests(), strict.requests(), third.requests()),
        (6, 6, 6)
    );
    // The reference of q1 is corrected: the run scores the stored answer at the new
    // revision, and each judge is asked again about q1 alone (its prompt holds the reference).
    let correct = |answer: &str| {
        edit_item(
            &path,
            "set",
            "q1",
            assay_core::RefinementOp::AnswerCorrection,
            |c| c.answer = Some(answer.into()),
        )
    };
    correct("a-new");
    let mut after = req.clone();
    after.versions = vec![Version::After];
    let s2 = eval(&path, &after).await;
    let run2 = s2.run_ids[0];
    assert_eq!(s2.progress.sent, 0, "the stored answers are reused");
    let before_asks = (lenient.requests(), strict.requests(), third.requests());
    judge_panel(&p, run2, ScorerKind::Judge, &judges, CancelToken::new())
        .await
        .unwrap();
    // The after run shares every response; five verdicts are the cached ones, q1 is new.
    assert_eq!(
        (lenient.requests(), strict.requests(), third.requests()),
        (before_asks.0 + 1, before_asks.1 + 1, before_asks.2 + 1)
    );
    assert_eq!(
        panel_report(&p, run2, ScorerKind::Judge, 10).unwrap().items,
        6
    );
    // On the same run, a verdict made against an older revision no longer counts.
    let id = p.item_id_by_ext("set", "q1").unwrap();
    p.forget_run_item(run, id).unwrap();
    assert_eq!(
        panel_report(&p, run, ScorerKind::Judge, 10).unwrap().items,
        5
    );

    assert!(
        judge_panel(&p, run, ScorerKind::SoftMatch, &judges, CancelToken::new())
            .await
            .unwrap_err()
            .to_string()
            .contains("does not use a judge")
    );
}

#[test]
fn panel_agreement_matches_scipy_and_krippendorff() {
    let f: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/stats/panels.json"),
        )
        .unwrap(),
    )
    .unwrap();
    for case in f["cases"].as_array().unwrap() {
        let scores: Vec<Vec<Option<f64>>> = case["scores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row.as_array().unwrap().iter().map(|v| v.as_f64()).collect())
            .collect();
        let names: Vec<String> = (0..scores.len()).map(|i| format!("j{i}")).collect();
        let (pairs, alpha) = panel_stats(&names, &scores);
        assert!((alpha.unwrap() - case["alpha_interval"].as_f64().unwrap()).abs() < 1e-9);
        for (got, want) in pairs.iter().zip(case["pairs"].as_array().unwrap()) {
            assert_eq!(got.items as u64, want["n"].as_u64().unwrap());
            assert!((got.pearson.unwrap() - want["pearson"].as_f64().unwrap()).abs() < 1e-9);
            assert!((got.spearman.unwrap() - want["spearman"].as_f64().unwrap()).abs() < 1e-9);
        }
    }
}
