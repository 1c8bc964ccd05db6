use std::path::Path;

use assay_core::store::{Author, Edit};
use assay_core::{ItemStatus, Project, RefinementOp, Role};
use assay_eval::engine::Version;
use assay_eval::predictions::{import_predictions, PredictionFormat, PredictionImport};
use assay_eval::table::{before_after_table, overrule, render, Spread, TableFormat, TableOptions};
use assay_eval::Variant;

use crate::common::{project, recorded};

const BEFORE: [(&str, [&[usize]; 3]); 3] = [
    ("X", [&[0, 1], &[0, 1, 2], &[0, 1]]),
    ("Y", [&[0], &[0], &[0]]),
    ("Z", [&[0, 1, 2, 3], &[0, 1, 2, 3], &[0, 1, 2]]),
];
const AFTER: [(&str, [&[usize]; 3]); 3] = [
    ("X", [&[0, 1], &[0, 1], &[0, 1]]),
    ("Y", [&[0], &[0, 1], &[0]]),
    ("Z", [&[0, 1, 2], &[0, 1, 2], &[0, 1, 2]]),
];

fn answer(correct: &[usize], i: usize, model: &str, run: usize, version: Version) -> String {
    if correct.contains(&i) {
        "The answer is (B).".into()
    } else if model == "Y" && run == 0 && i == 1 && version == Version::Before {
        "I don't know.".into()
    } else {
        "C".into()
    }
}

/// Writes one run's predictions in the layout of the tool each model "came from".
fn write(
    dir: &Path,
    model: &str,
    run: usize,
    version: Version,
    n: usize,
    correct: &[usize],
) -> std::path::PathBuf {
    let name = format!("{model}-{}-{run}", version.as_str());
    match model {
        "X" => {
            let p = dir.join(format!("{name}.jsonl"));
            let body: String = (0..n).map(|i| serde_json::json!({"question_id": format!("m{i}"), "text": answer(correct, i, model, run, version)}).to_string() + "\n").collect();
            std::fs::write(&p, body).unwrap();
            p
        }
        "Y" => {
            let p = dir.join(format!("{name}.jsonl"));
            let body: String = (0..n).map(|i| serde_json::json!({"doc_id": i, "resps": [["raw"]], "filtered_resps": [answer(correct, i, model, run, version)]}).to_string() + "\n").collect();
            std::fs::write(&p, body).unwrap();
            p
        }
        _ => {
            let p = dir.join(format!("{name}.tsv"));
            let mut body = String::from("index\tquestion\tprediction\n");
            for i in 0..n {
                body.push_str(&format!(
                    "m{i}\tq\t{}\n",
                    answer(correct, i, model, run, version)
                ));
            }
            std::fs::write(&p, body).unwrap();
            p
        }
    }
}

#[test]
fn before_after_table_from_recorded_predictions_matches_hand_checked_values() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 4);
    let mut p = Project::open(&path).unwrap();
    let u = p.ensure_user("aiko", Role::Annotator).unwrap();
    let m3 = p.item_id_by_ext("set", "m3").unwrap();
    let c = p.item(m3).unwrap().content;
    p.save_edit(
        m3,
        &Edit {
            base_rev: None,
            content: c,
            op: Some(RefinementOp::Remove),
            tags: vec![],
            status: ItemStatus::Edited,
            note: None,
        },
        &Author {
            user_id: u.id,
            role: Role::Annotator,
            round: 1,
        },
    )
    .unwrap();

    for (version, table, n) in [(Version::Before, BEFORE, 4), (Version::After, AFTER, 3)] {
        for (model, runs) in table {
            for (run, correct) in runs.iter().enumerate() {
                let f = write(dir.path(), model, run, version, n, correct);
                let r = import_predictions(
                    &mut p,
                    &f,
                    &PredictionImport {
                        model: model.into(),
                        dataset: "set".into(),
                        version,
                        variant: Variant::Original,
                        run_index: run as u32 + 1,
                        scorer: None,
                        format: None,
                        box_convention: Default::default(),
                        max_side: None,
                        id_field: "id".into(),
                        text_field: "text".into(),
                        filter: None,
                    },
                )
                .unwrap();
                assert_eq!((r.matched, r.missing), (n, 0));
                let expect = match model {
                    "X" => PredictionFormat::LlmJpEvalMm,
                    "Y" => PredictionFormat::LmmsEval,
                    _ => PredictionFormat::Vlmevalkit,
                };
                assert_eq!(r.format, expect);
            }
        }
    }
    let pop = TableOptions {
        spread: Spread::PopulationStd,
        ..Default::default()
    };
    let rows = before_after_table(&p, &["set".into()], Variant::Original, &pop).unwrap();
    assert_eq!(rows.len(), 1, "one protocol: recorded, auto scorer");
    let r = &rows[0];
    let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    close(r.before.accuracy, 7.0 / 12.0);
    close(
        r.before.run_spread.unwrap(),
        2.0 * (1.0f64 / 72.0).sqrt() / 3.0,
    );
    close(r.before.gap, 2.0 / 3.0);
    close(r.after.accuracy, 19.0 / 27.0);
    close(r.after.run_spread.unwrap(), (2.0f64 / 81.0).sqrt() / 3.0);
    close(r.after.gap, 5.0 / 9.0);
    close(r.delta_accuracy, 19.0 / 27.0 - 7.0 / 12.0);
    close(
        r.delta_run_spread.unwrap(),
        r.after.run_spread.unwrap() - r.before.run_spread.unwrap(),
    );
    close(r.rank_correlation.unwrap(), 1.0);
    assert_eq!((r.before.unparsed, r.after.unparsed), (1, 0));
    assert_eq!((r.before.items, r.after.items), (4, 3));
    let ci = r.ci.unwrap();
    assert!(ci.delta.0 <= r.delta_accuracy && r.delta_accuracy <= ci.delta.1);
    // Sample std (n - 1) is the default: X before has runs 0.5, 0.75, 0.5.
    let rows_s =
        before_after_table(&p, &["set".into()], Variant::Original, &Default::default()).unwrap();
    let x = &rows_s[0]
        .before
        .models
        .iter()
        .find(|m| m.model == "X")
        .unwrap();
    close(
        x.spread.unwrap(),
        (((0.5f64 - 7.0 / 12.0).powi(2) * 2.0 + (0.75f64 - 7.0 / 12.0).powi(2)) / 2.0).sqrt(),
    );
    // By operation: the removed item has no "after", so only the untouched items form a row,
    // scored on the same three items on both sides.
    let by_op = TableOptions {
        by: Some(assay_eval::table::Breakdown::Op),
        ..pop.clone()
    };
    let ops = before_after_table(&p, &["set".into()], Variant::Original, &by_op).unwrap();
    assert_eq!(ops.len(), 1);
    assert_eq!(ops[0].group.as_deref(), Some("none"));
    assert_eq!((ops[0].before.items, ops[0].after.items), (3, 3));
    // X before on m0-m2: runs 2/3, 3/3, 2/3.
    let xb = ops[0]
        .before
        .models
        .iter()
        .find(|m| m.model == "X")
        .unwrap();
    close(xb.mean, 7.0 / 9.0);
    let md = render(&rows, TableFormat::Markdown).unwrap();
    assert!(
        md.contains(&format!(
            "| set | all | by hand | recorded | auto v{} | recorded | 3 | 4/3 | 58.3 [",
            assay_eval::scorers::ScorerKind::Choice.version()
        )),
        "{md}"
    );
    assert!(md.contains("Std (population, n)"), "{md}");
    assert!(render(&rows, TableFormat::Latex)
        .unwrap()
        .contains("\\toprule"));
    assert!(render(&rows, TableFormat::Csv)
        .unwrap()
        .starts_with("Dataset,Group"));

    // A person overrules one judgement: Y's unparsed answer in run 1 was actually right.
    let run: i64 = p.connection().query_row(
        "SELECT r.id FROM runs r JOIN models m ON m.id = r.model_id WHERE m.name = 'Y' AND r.version = 'before' AND r.run_index = 1", [], |x| x.get(0)).unwrap();
    let m1 = p.item_id_by_ext("set", "m1").unwrap();
    let plain = before_after_table(&p, &["set".into()], Variant::Original, &pop).unwrap()[0]
        .before
        .accuracy;
    overrule(
        &p,
        run,
        m1,
        1.0,
        Some(u.id),
        Some("the hedge names B later"),
    )
    .unwrap();
    let rows2 = before_after_table(&p, &["set".into()], Variant::Original, &pop).unwrap();
    close(rows2[0].before.accuracy, 7.0 / 12.0 + 0.25 / 3.0 / 3.0);
    let kept: Option<f64> = p
        .connection()
        .query_row(
            "SELECT score FROM run_items WHERE run_id = ?1 AND item_id = ?2",
            [run, m1],
            |x| x.get(0),
        )
        .unwrap();
    assert_eq!(kept, None, "the scorer's own result is kept");
    // The latest overrule wins, in the table and in every read of the result.
    overrule(&p, run, m1, 0.0, Some(u.id), Some("no: it names D as well")).unwrap();
    let rows3 = before_after_table(&p, &["set".into()], Variant::Original, &pop).unwrap();
    close(rows3[0].before.accuracy, plain);
    let trace = p.run_trace(run, Some("m1")).unwrap();
    assert_eq!(trace[0].overruled, Some(0.0));
    assert_eq!(
        trace[0].overrule_note.as_deref(),
        Some("no: it names D as well")
    );
}

#[test]
fn unknown_prediction_ids_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 2, 0);
    let mut p = Project::open(&path).unwrap();
    let f = dir.path().join("pred.jsonl");
    std::fs::write(
        &f,
        "{\"question_id\": \"q0\", \"text\": \"a0\"}\n{\"question_id\": \"zz\", \"text\": \"?\"}\n",
    )
    .unwrap();
    let r = import_predictions(
        &mut p,
        &f,
        &PredictionImport {
            text_field: "text".into(),
            ..recorded("X", "set")
        },
    )
    .unwrap();
    assert_eq!((r.matched, r.scored, r.missing), (1, 1, 1));
    assert_eq!(r.unknown_ids, vec!["zz".to_string()]);
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"question_id\": \"q0\", \"text\": \"a0\"}\nnot json\n",
    )
    .unwrap();
    let e = import_predictions(
        &mut p,
        &bad,
        &PredictionImport {
            run_index: 2,
            text_field: "text".into(),
            ..recorded("X", "set")
        },
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("bad.jsonl:2: malformed JSON"), "{e}");
}

#[test]
fn a_runs_detail_lists_its_results_and_an_unused_run_can_be_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let path = project(dir.path(), 0, 4);
    let mut p = Project::open(&path).unwrap();
    let f = write(dir.path(), "X", 0, Version::Before, 4, &[0, 2]);
    let mut opts = recorded("X", "set");
    opts.text_field = "text".into();
    import_predictions(&mut p, &f, &opts).unwrap();
    let run = p.run_summaries().unwrap()[0].run.id;

    let all = p.run_detail(run, None, 0, 100).unwrap();
    assert_eq!(all.total, 4);
    assert_eq!(
        all.lines
            .iter()
            .map(|l| l.ext_id.as_str())
            .collect::<Vec<_>>(),
        ["m0", "m1", "m2", "m3"]
    );
    assert!(all.lines.iter().all(|l| !l.stale));
    let wrong = p.run_detail(run, Some("wrong"), 0, 100).unwrap();
    assert_eq!(wrong.total, 2);
    assert_eq!(
        wrong
            .lines
            .iter()
            .map(|l| l.ext_id.as_str())
            .collect::<Vec<_>>(),
        ["m1", "m3"]
    );
    let page = p.run_detail(run, None, 2, 1).unwrap();
    assert_eq!((page.total, page.lines[0].ext_id.as_str()), (4, "m2"));

    // Editing an item makes its result stale (it scored the old revision).
    let u = p.ensure_user("aiko", Role::Annotator).unwrap();
    let m1 = p.item_id_by_ext("set", "m1").unwrap();
    let mut c = p.item(m1).unwrap().content;
    c.answer = Some("C".into());
    let aiko = Author {
        user_id: u.id,
        role: Role::Annotator,
        round: 1,
    };
    p.save_edit(
        m1,
        &Edit {
            base_rev: None,
            content: c,
            op: Some(RefinementOp::AnswerCorrection),
            tags: vec![],
            status: ItemStatus::Edited,
            note: None,
        },
        &aiko,
    )
    .unwrap();
    let all = p.run_detail(run, None, 0, 100).unwrap();
    assert_eq!(
        all.lines
            .iter()
            .filter(|l| l.stale)
            .map(|l| l.ext_id.as_str())
            .collect::<Vec<_>>(),
        ["m1"]
    );
    // The item table's score column of this run: m0 right, m1 wrong and stale.
    let m0 = p.item_id_by_ext("set", "m0").unwrap();
    let cols = p.table_extras(&[m0, m1], &[run, run + 99]).unwrap();
    assert_eq!(cols[0].scores, [Some(1.0), None]);
    assert_eq!(cols[1].scores, [Some(0.0), None]);
    assert_eq!((cols[0].stale[0], cols[1].stale[0]), (false, true));

    // A person's overrule keeps the run; without it the run goes, its responses stay cached.
    let responses = |p: &Project| -> i64 {
        p.connection()
            .query_row("SELECT count(*) FROM responses", [], |r| r.get(0))
            .unwrap()
    };
    let cached = responses(&p);
    overrule(
        &p,
        run,
        m1,
        1.0,
        Some(aiko.user_id),
        Some("reference was wrong"),
    )
    .unwrap();
    let e = p.delete_run(run).unwrap_err().to_string();
    assert!(e.contains("overruled"), "{e}");
    assert!(p.delete_run(run + 100).is_err());

    let f = write(dir.path(), "Z", 0, Version::Before, 4, &[0]);
    let mut opts = recorded("Z", "set");
    opts.text_field = "prediction".into();
    import_predictions(&mut p, &f, &opts).unwrap();
    let z = p
        .run_summaries()
        .unwrap()
        .into_iter()
        .find(|r| r.run.model == "Z")
        .unwrap()
        .run
        .id;
    p.delete_run(z).unwrap();
    assert!(p.run_summaries().unwrap().iter().all(|r| r.run.id != z));
    assert!(p.run_detail(z, None, 0, 10).is_err());
    assert_eq!(responses(&p), cached + 4, "responses stay in the cache");
}
