//! Rescoring stored responses with the current rules: nothing sent, versions recorded, the
//! table telling which rules made each number.

use assay_core::Project;
use assay_eval::engine::Version;
use assay_eval::predictions::{import_predictions, PredictionImport};
use assay_eval::rescore::{rescore_all, rescore_run};
use assay_eval::table::{before_after_table, TableOptions};
use assay_eval::Variant;

use crate::common::{project, recorded};

/// (outcome, score, parsed, scorer version) of each result.
type Stored = (String, Option<f64>, Option<String>, Option<i64>);

fn outcomes(p: &Project, run: i64) -> Vec<Stored> {
    let mut st = p
        .connection()
        .prepare("SELECT outcome, score, parsed, scorer_version FROM run_items WHERE run_id = ?1 ORDER BY item_id")
        .unwrap();
    st.query_map([run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn import(p: &mut Project, dir: &std::path::Path, version: Version, texts: &[&str]) -> i64 {
    let f = dir.join(format!("pred-{}.jsonl", version.as_str()));
    let body: String = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            serde_json::json!({"question_id": format!("m{i}"), "text": t}).to_string() + "\n"
        })
        .collect();
    std::fs::write(&f, body).unwrap();
    import_predictions(
        p,
        &f,
        &PredictionImport {
            version,
            text_field: "text".into(),
            ..recorded("M", "set")
        },
    )
    .unwrap()
    .run_id
}

#[test]
fn a_rescore_applies_the_current_rules_to_stored_responses_and_records_their_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 3);
    let mut p = Project::open(&path).unwrap();
    let texts = ["maybe B or C", "Not C.", "The answer is (B)."];
    let before = import(&mut p, dir.path(), Version::Before, &texts);
    let after = import(&mut p, dir.path(), Version::After, &texts);
    let current = assay_eval::scorers::ScorerKind::Choice.version();
    assert_eq!(
        outcomes(&p, before),
        vec![
            (
                "hedged".into(),
                Some(0.0),
                Some("B|C".into()),
                Some(current)
            ),
            ("unparsed".into(), None, None, Some(current)),
            ("scored".into(), Some(1.0), Some("B".into()), Some(current)),
        ]
    );
    // What version 1 stored for the same responses: the hedge read as B, the denied C as C.
    p.connection()
        .execute_batch(&format!(
            "UPDATE run_items SET outcome = 'scored', score = 1, parsed = 'B', scorer_version = NULL WHERE run_id = {before} AND item_id = (SELECT id FROM items WHERE ext_id = 'm0');
             UPDATE run_items SET outcome = 'scored', score = 0, parsed = 'C', scorer_version = NULL WHERE run_id = {before} AND item_id = (SELECT id FROM items WHERE ext_id = 'm1');"
        ))
        .unwrap();
    let versions = |p: &Project, run: i64| {
        let all = p.run_summaries().unwrap();
        all.into_iter()
            .find(|r| r.run.id == run)
            .unwrap()
            .scorer_versions
    };
    assert_eq!(versions(&p, before), vec![1, current]);
    let rows = before_after_table(
        &p,
        &["set".to_string()],
        Variant::Original,
        &TableOptions::default(),
    )
    .unwrap();
    assert_eq!(
        rows[0].scorer_versions,
        vec![1, current],
        "the table says two rule versions made it"
    );
    assert!((rows[0].before.accuracy - 2.0 / 3.0).abs() < 1e-9);
    let finished: String = p
        .connection()
        .query_row(
            "SELECT finished_at FROM runs WHERE id = ?1",
            [before],
            |r| r.get(0),
        )
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));

    let r = rescore_run(&mut p, before).unwrap();
    assert_eq!(
        (r.rescored, r.changed, r.kept, r.version),
        (3, 2, 0, current)
    );
    assert_eq!(outcomes(&p, before), outcomes(&p, after));
    let rows = before_after_table(
        &p,
        &["set".to_string()],
        Variant::Original,
        &TableOptions::default(),
    )
    .unwrap();
    assert_eq!(rows[0].scorer_versions, vec![current]);
    assert!((rows[0].before.accuracy - 1.0 / 3.0).abs() < 1e-9);
    assert_eq!((rows[0].before.hedged, rows[0].before.unparsed), (1, 1));
    let moved: String = p
        .connection()
        .query_row(
            "SELECT finished_at FROM runs WHERE id = ?1",
            [before],
            |r| r.get(0),
        )
        .unwrap();
    assert_ne!(
        finished, moved,
        "a team sees the rescored run as its next snapshot"
    );
    // No response was added: the stored ones were read again.
    let responses: i64 = p
        .connection()
        .query_row("SELECT count(*) FROM responses", [], |r| r.get(0))
        .unwrap();
    assert_eq!(responses, 6);

    // Rescoring again changes nothing.
    let again = rescore_all(&mut p).unwrap();
    assert!(again
        .iter()
        .all(|r| r.as_ref().is_ok_and(|r| r.changed == 0)));
}

#[test]
fn a_running_run_is_not_rescored_and_judged_results_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 2);
    let mut p = Project::open(&path).unwrap();
    let run = import(&mut p, dir.path(), Version::Before, &["B", "C"]);
    p.connection()
        .execute("UPDATE runs SET status = 'running' WHERE id = ?1", [run])
        .unwrap();
    let err = rescore_run(&mut p, run).unwrap_err().to_string();
    assert!(err.contains("running"), "{err}");
    p.connection()
        .execute_batch(&format!(
            "UPDATE runs SET status = 'complete' WHERE id = {run};
             UPDATE run_items SET scorer = 'judge', score = 1 WHERE run_id = {run};"
        ))
        .unwrap();
    let r = rescore_run(&mut p, run).unwrap();
    assert_eq!((r.rescored, r.kept), (0, 2));
    assert!(r.why_kept.unwrap().contains("judge"));
    let kept: f64 = p
        .connection()
        .query_row(
            "SELECT sum(score) FROM run_items WHERE run_id = ?1",
            [run],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, 2.0, "a judge's verdicts stay as they were");
}

/// The hybrid scorer on a stored run: only the verdict the rules were unsure of goes to the
/// judge (a local stub), its verdict replaces the score, both readings stay in the evidence,
/// the cost is reported per 1,000 replies, and a second pass sends nothing.
#[tokio::test]
async fn a_judge_decides_only_the_verdicts_the_rules_are_unsure_of() {
    use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 3);
    let mut p = Project::open(&path).unwrap();
    let texts = [
        "I would describe it as the middle thing in the row.",
        "The answer is (B).",
        "(B)",
    ];
    let run = import(&mut p, dir.path(), Version::Before, &texts);
    let summary = |p: &Project| {
        p.run_summaries()
            .unwrap()
            .into_iter()
            .find(|s| s.run.id == run)
            .unwrap()
    };
    assert_eq!(summary(&p).unsure, 1, "one reply the rules cannot read");
    assert!((summary(&p).accuracy.unwrap() - 2.0 / 3.0).abs() < 1e-9);

    let judge = StubServer::start(StubConfig {
        rules: vec![Rule::always(
            "middle thing",
            Reply::Text("correct: yes".into()),
        )],
        ..Default::default()
    })
    .await
    .unwrap();
    assay_eval::model::save_model(
        &p,
        &assay_eval::ModelConfig {
            name: "judge".into(),
            model: "gpt-4o".into(),
            endpoints: vec![judge.url.clone()],
            ..Default::default()
        },
    )
    .unwrap();
    let cancel = assay_eval::CancelToken::new();
    let r = assay_eval::rescore::judge_unsure(&mut p, run, "judge", cancel.clone())
        .await
        .unwrap();
    assert_eq!(
        (
            r.replies,
            r.unsure_before,
            r.judged,
            r.errors,
            r.unsure_after
        ),
        (3, 1, 1, 0, 0)
    );
    assert!((r.judge_calls_per_1000 - 1000.0 / 3.0).abs() < 1e-9);
    let prompts = judge.prompts();
    assert_eq!(prompts.len(), 1, "the sure verdicts were not sent");
    assert!(prompts[0].contains("(B) y"), "{}", prompts[0]);
    assert!((summary(&p).accuracy.unwrap() - 1.0).abs() < 1e-9);
    let evidence: String = p
        .connection()
        .query_row(
            "SELECT evidence FROM run_items WHERE run_id = ?1 AND item_id = (SELECT id FROM items WHERE ext_id = 'm0')",
            [run],
            |r| r.get(0),
        )
        .unwrap();
    let e: serde_json::Value = serde_json::from_str(&evidence).unwrap();
    assert_eq!(e["decided_by"], "judge");
    assert_eq!(e["rules_unsure"], "no answer the rules can read");
    assert!(e["rule_score"].is_null(), "the rules read no answer: {e}");
    assert_eq!(e["judge_model"], "judge");

    let again = assay_eval::rescore::judge_unsure(&mut p, run, "judge", cancel)
        .await
        .unwrap();
    assert_eq!((again.unsure_before, again.judged), (0, 0));
    assert_eq!(judge.prompts().len(), 1);
    // Rescoring with the rules keeps what the judge decided.
    let kept = rescore_run(&mut p, run).unwrap();
    assert_eq!(kept.kept, 1);
    assert!((summary(&p).accuracy.unwrap() - 1.0).abs() < 1e-9);
}

/// The hybrid scorer in a live run: `--judge` given to choice rules outside a protocol sends
/// only the unsure verdicts to the judge, and the judge is part of the run's key.
#[tokio::test]
async fn a_live_run_with_a_judge_sends_only_unsure_verdicts_to_it() {
    use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 3);
    let model = StubServer::start(StubConfig {
        rules: vec![Rule::always(
            "m0 which one",
            Reply::Text("I would describe it as the middle thing in the row.".into()),
        )],
        default_reply: Some(Reply::Text("The answer is (B).".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    let judge = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text("correct: yes".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    crate::common::add_model(&path, "m", vec![model.url.clone()], |_| {});
    crate::common::add_model(&path, "j", vec![judge.url.clone()], |_| {});
    let mut req = crate::common::request(&["m"], 1);
    req.versions = vec![Version::Before];
    req.scorer = Some(assay_eval::ScorerKind::Choice);
    req.judge = Some("j".into());
    crate::common::eval(&path, &req).await;
    assert_eq!(
        judge.prompts().len(),
        1,
        "only the unsure verdict is judged"
    );
    let p = Project::open(&path).unwrap();
    let s = &p.run_summaries().unwrap()[0];
    assert_eq!(s.run.scorer, "choice+j");
    assert_eq!((s.unsure, s.items), (0, 3));
    assert!((s.accuracy.unwrap() - 1.0).abs() < 1e-9);
}
