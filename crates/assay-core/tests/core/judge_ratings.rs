//! People rating a judge's decisions: a sample drawn by seed, ratings 1-5 by their authors, the
//! latest counting, ratings of a decision that changed left out, and the report.

use assay_core::store::evaluation::runs::{RecordedResult, RunItemResult, RunKey};
use assay_core::{Project, Version};

use crate::common::*;

/// A recorded run of `scorer` on jgraph-mini with the judge's `scores` on the first items.
fn judged_run(p: &mut Project, scorer: &str, scores: &[f64], response: &str) -> i64 {
    let cfg = r#"{"name":"m","model":"m","endpoints":["http://127.0.0.1:9/v1"]}"#;
    let model_id = p.ensure_model_config("m", cfg).unwrap();
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let key = RunKey {
        model_id,
        dataset_id: ds,
        version: Version::Before,
        variant: "original".into(),
        run_index: 0,
        template: "default".into(),
        scorer: scorer.into(),
        source: "recorded".into(),
        protocol: None,
    };
    let ids = p.item_ext_ids(ds).unwrap();
    let results: Vec<RecordedResult> = scores
        .iter()
        .zip(ids)
        .map(|(s, (id, _))| RecordedResult {
            result: RunItemResult {
                item_id: id,
                item_rev: p.item(id).unwrap().rev,
                cache_key: None,
                outcome: "scored".into(),
                from_cache: false,
                score: Some(*s),
                parsed: None,
                evidence: Some(format!("judge: {s}")),
                error: None,
                scorer: Some(scorer.into()),
                scorer_version: None,
            },
            response: format!("{response} {s}"),
            prompt: None,
        })
        .collect();
    p.record_run(&key, &results, "complete").unwrap()
}

#[test]
fn people_rate_a_judges_decisions_and_the_report_correlates_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = author(&p, "aiko");
    let minjun = author(&p, "minjun");
    let scores = [1.0, 0.0, 1.0, 0.75, 0.0, 1.0, 1.0, 0.0];
    let run = judged_run(&mut p, "judge", &scores, "answer");

    // The same seed draws the same sample for everyone; another seed another order.
    let a = p.judge_review_sample(run, 5, 7, &aiko).unwrap();
    let m = p.judge_review_sample(run, 5, 7, &minjun).unwrap();
    assert_eq!(a.len(), 5);
    assert_eq!(
        a.iter().map(|e| e.item_id).collect::<Vec<_>>(),
        m.iter().map(|e| e.item_id).collect::<Vec<_>>()
    );
    let other = p.judge_review_sample(run, 8, 8, &aiko).unwrap();
    assert_ne!(
        other.iter().map(|e| e.item_id).collect::<Vec<_>>(),
        p.judge_review_sample(run, 8, 7, &aiko)
            .unwrap()
            .iter()
            .map(|e| e.item_id)
            .collect::<Vec<_>>()
    );
    assert!(a[0].response.as_deref().unwrap().starts_with("answer"));
    assert!(a[0].evidence.as_deref().unwrap().starts_with("judge"));
    assert_eq!(a[0].my_rating, None);

    // Ratings are 1-5, of judged results only.
    assert_eq!(
        p.rate_judge(run, a[0].item_id, 6, None, &aiko)
            .unwrap_err()
            .code(),
        "invalid"
    );
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let unjudged = p.item_ext_ids(ds).unwrap()[10].0;
    assert_eq!(
        p.rate_judge(run, unjudged, 3, None, &aiko)
            .unwrap_err()
            .code(),
        "invalid"
    );
    // A run not scored by a judge has no judge to rate.
    let exact = judged_run(&mut p, "exact", &[1.0], "x");
    assert_eq!(
        p.judge_review_sample(exact, 5, 1, &aiko)
            .unwrap_err()
            .code(),
        "invalid"
    );

    // Both rate every decision in the sample: aiko agrees with the judge (5 where it scored 1,
    // 1 where it scored 0), minjun mostly; aiko changes her mind on one (the latest counts).
    let want = |s: f64| 1 + (4.0 * s).round() as u8;
    p.rate_judge(run, a[0].item_id, 3, Some("unsure"), &aiko)
        .unwrap();
    for e in &a {
        let s = e.score.unwrap();
        p.rate_judge(run, e.item_id, want(s), None, &aiko).unwrap();
        let theirs = if s == 0.75 { 5 } else { want(s) };
        p.rate_judge(run, e.item_id, theirs, None, &minjun).unwrap();
    }
    assert_eq!(
        p.judge_review_sample(run, 5, 7, &aiko).unwrap()[0].my_rating,
        Some(want(a[0].score.unwrap()))
    );
    let r = p.judge_rating_report(run).unwrap();
    assert_eq!(r.items, 5);
    assert_eq!(r.ratings, 10);
    let aiko_r = r.raters.iter().find(|x| x.name == "aiko").unwrap();
    assert!((aiko_r.pearson.unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(aiko_r.items, 5);

    // The run is recorded again and the judge decides otherwise: the ratings are of decisions
    // that no longer stand, kept but not counted.
    let flipped: Vec<f64> = scores.iter().map(|s| 1.0 - s).collect();
    judged_run(&mut p, "judge", &flipped, "another answer");
    let r = p.judge_rating_report(run).unwrap();
    assert_eq!((r.items, r.ratings), (0, 0));
    let count: i64 = p
        .connection()
        .query_row("SELECT count(*) FROM judge_ratings", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 11);
}
