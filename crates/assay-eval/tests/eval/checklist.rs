//! Checklist judgements overruled one criterion at a time: the judge's ratings stay, the item's
//! score and the run's S_final follow the person's rating.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use assay_core::{Project, Role};
use assay_eval::judging::{record_checklist_judgements, RecordedJudgement};
use assay_eval::model::{save_model, ModelConfig};
use assay_eval::table::{overrule_criterion, run_score};

fn reply(ratings: &[&str]) -> String {
    let entries: Vec<String> = ratings
        .iter()
        .enumerate()
        .map(|(i, r)| {
            format!(r#"{{"criterion": {n}, "rating": "{r}", "evidence": "quote {n}", "justification": "why {n}"}}"#, n = i + 1)
        })
        .collect();
    format!("[{}]", entries.join(", "))
}

/// A recorded checklist-judge run over haerae-mini: item 101 rated (met, not met, partially
/// met) and 102 (met, met).
fn judged(dir: &Path) -> (Project, i64) {
    let path = dir.join("p.assay");
    let mut p = Project::create(&path).unwrap();
    assay_core::import::import_path(
        &mut p,
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/sample/haerae-mini/haerae-mini.jsonl"),
        &Default::default(),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    save_model(
        &p,
        &ModelConfig {
            name: "gpt".into(),
            model: "gpt-4o".into(),
            endpoints: vec!["http://127.0.0.1:9/v1".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let replies: Vec<(&str, String)> = vec![
        ("101", reply(&["met", "not met", "partially met"])),
        ("102", reply(&["met", "met"])),
    ];
    let judged: Vec<RecordedJudgement<'_>> = replies
        .iter()
        .map(|(ext_id, r)| RecordedJudgement {
            ext_id,
            response: "the model's answer",
            judge_reply: r,
        })
        .collect();
    let run = record_checklist_judgements(&mut p, "gpt", "haerae-mini", 1, &judged).unwrap();
    (p, run)
}

#[test]
fn overruling_one_criterion_recomputes_the_item_and_s_final() {
    let dir = tempfile::tempdir().unwrap();
    let (mut p, run) = judged(dir.path());
    let i101 = p.item_id_by_ext("haerae-mini", "101").unwrap();
    // S_101 = (1 + 0 + 0.5) / 3 = 0.5, S_102 = 1: S_final = 0.75.
    assert!((run_score(&p, run).unwrap().unwrap() - 0.75).abs() < 1e-12);
    let who = p.ensure_user("minjun", Role::Annotator).unwrap();
    let s = overrule_criterion(&mut p, run, i101, 1, 1.0, Some(who.id)).unwrap();
    // (1 + 1 + 0.5) / 3
    assert!((s - 2.5 / 3.0).abs() < 1e-12);
    assert!((run_score(&p, run).unwrap().unwrap() - (2.5 / 3.0 + 1.0) / 2.0).abs() < 1e-12);
    // A second person's rating of another criterion builds on the first.
    let s = overrule_criterion(&mut p, run, i101, 2, 0.0, Some(who.id)).unwrap();
    assert!((s - 2.0 / 3.0).abs() < 1e-12);

    let r = p
        .item_results(i101)
        .unwrap()
        .into_iter()
        .find(|r| r.run.id == run)
        .unwrap();
    assert_eq!(r.score, Some(0.5), "the judge's score stays");
    let evidence: serde_json::Value = serde_json::from_str(r.evidence.as_deref().unwrap()).unwrap();
    assert_eq!(evidence["criteria"][1]["rating"], 0.0, "and its ratings");
    assert_eq!(r.overruled, Some(2.0 / 3.0));
    let standing: Vec<(i64, f64)> = r
        .criterion_overrules
        .iter()
        .map(|o| (o.criterion, o.rating))
        .collect();
    assert_eq!(standing, vec![(1, 1.0), (2, 0.0)]);

    assert!(overrule_criterion(&mut p, run, i101, 7, 1.0, None).is_err());
    assert!(overrule_criterion(&mut p, run, i101, 0, 0.7, None).is_err());
}

/// Three people rate the five criteria of the recorded judgement (one skips a criterion).
/// References on the same ratings: `krippendorff.alpha(level_of_measurement="interval")` 0.5806…,
/// nominal 0.4672…, statsmodels' `fleiss_kappa` on the four criteria all three rated 0.2683…,
/// scikit-learn's `cohen_kappa_score(a, b)` 0.375.
#[test]
fn agreement_on_checklist_ratings_matches_the_references() {
    let dir = tempfile::tempdir().unwrap();
    let (mut p, run) = judged(dir.path());
    let i101 = p.item_id_by_ext("haerae-mini", "101").unwrap();
    let i102 = p.item_id_by_ext("haerae-mini", "102").unwrap();
    let units = [(i101, 0), (i101, 1), (i101, 2), (i102, 0), (i102, 1)];
    let ratings: [(&str, [Option<f64>; 5]); 3] = [
        ("a", [Some(1.0), Some(0.0), Some(0.5), Some(1.0), Some(1.0)]),
        ("b", [Some(1.0), Some(0.5), Some(0.5), Some(1.0), Some(0.0)]),
        ("c", [Some(1.0), Some(0.0), None, Some(1.0), Some(0.5)]),
    ];
    for (name, rs) in ratings {
        let who = p.ensure_user(name, Role::Annotator).unwrap();
        for ((item, criterion), r) in units.iter().zip(rs) {
            if let Some(r) = r {
                overrule_criterion(&mut p, run, *item, *criterion, r, Some(who.id)).unwrap();
            }
        }
    }
    let ag = p
        .agreement(assay_core::store::AgreementField::Checklist, None, None)
        .unwrap();
    assert_eq!(ag.items, 5);
    assert_eq!(ag.people, vec!["a", "b", "c"]);
    let close = |x: Option<f64>, y: f64| assert!((x.unwrap() - y).abs() < 1e-9, "{x:?} vs {y}");
    close(ag.krippendorff_alpha_interval, 0.5806451612903225);
    close(ag.krippendorff_alpha, 0.46721311475409844);
    close(ag.fleiss_kappa, 0.268292682926829);
    assert_eq!((ag.fleiss_items, ag.fleiss_raters), (4, 3));
    let ab = ag.pairs.iter().find(|x| x.a == "a" && x.b == "b").unwrap();
    close(ab.cohen_kappa, 0.375);
    assert_eq!(ag.labels, vec!["0", "0.5", "1"]);
    // a rated 0 where b rated 0.5 once.
    assert_eq!(ab.confusion[0][1], 1);
}
