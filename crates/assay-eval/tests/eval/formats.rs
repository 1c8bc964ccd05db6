//! Recorded predictions in the published output formats (tests/fixtures/formats), scored and
//! compared with the numbers the upstream tools wrote next to them.

use std::path::Path;

use assay_core::store::{Author, Edit};
use assay_core::{ItemStatus, Project, RefinementOp, Role};
use assay_eval::engine::Version;
use assay_eval::predictions::{
    import_predictions, ImportedRun, PredictionFormat, PredictionImport,
};

use crate::common::{fixture_project, fixtures, project, recorded};

fn project_with(dir: &Path, data: &str, name: &str) -> Project {
    Project::open(fixture_project(dir, data, name)).unwrap()
}

fn opts(model: &str, dataset: &str) -> PredictionImport {
    recorded(model, dataset)
}

/// (ext id, score) of a run, in ext-id order.
fn scores(p: &Project, run: &ImportedRun) -> Vec<(String, Option<f64>)> {
    let mut st = p
        .connection()
        .prepare("SELECT i.ext_id, ri.score FROM run_items ri JOIN items i ON i.id = ri.item_id WHERE ri.run_id = ?1 ORDER BY i.ext_id")
        .unwrap();
    st.query_map([run.run_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

fn accuracy(p: &Project, run: &ImportedRun) -> f64 {
    let s = scores(p, run);
    s.iter().map(|x| x.1.unwrap_or(0.0)).sum::<f64>() / s.len() as f64
}

#[test]
fn crag_mm_grounding_matches_its_scores_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    let out = fixtures().join(
        "crag-mm-diagnostics/output/crag-mm-diagnostic/visual_grounding/Qwen2.5-VL-7B-Instruct",
    );
    let r = import_predictions(
        &mut p,
        &out.join("prediction_result.json"),
        &opts("qwen", "crag"),
    )
    .unwrap();
    assert_eq!(r.format, PredictionFormat::CragMm);
    let want: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("scores_dictionary.json")).unwrap())
            .unwrap();
    assert_eq!(r.matched, want["all"]["total"].as_f64().unwrap() as usize);
    assert!((accuracy(&p, &r) - want["all"]["accuracy"].as_f64().unwrap()).abs() < 1e-12);
    // The ambiguous row misses; the row without coordinates fell back to the full image.
    let s = scores(&p, &r);
    let amb = s.iter().find(|x| x.0.starts_with("8c41d0b2")).unwrap();
    assert_eq!(amb.1, Some(0.0));
    assert_eq!(want["ambig"]["accuracy"].as_f64(), Some(0.0));
}

#[test]
fn vague_results_score_against_ordering_letters() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with(dir.path(), "vague/data/vague_sample.json", "vague");
    let f = fixtures().join("vague/results/gpt-4o_VLM_mcq.json");
    let r = import_predictions(&mut p, &f, &opts("gpt-4o", "vague")).unwrap();
    assert_eq!((r.format, r.matched), (PredictionFormat::Vague, 4));
    // By hand: model_output vs true_answer (= ordering[0]) in the file: C/C, A/B, B/D, C/C.
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    for (id, score) in scores(&p, &r) {
        let rec = &v[format!("{id}_annot.jpg")];
        let out = rec["model_output"].as_str().unwrap();
        let hit = out.starts_with(rec["true_answer"].as_str().unwrap());
        assert_eq!(score, Some(hit as u8 as f64), "{id}: {out}");
    }
    assert!((accuracy(&p, &r) - 0.5).abs() < 1e-12);
}

#[test]
fn llm_jp_eval_mm_predictions_match_its_evaluation() {
    for (task, data, metric) in [
        ("jmmmu", "llm-jp-eval-mm/datasets/jmmmu", "jmmmu"),
        ("cvqa", "llm-jp-eval-mm/datasets/cvqa", "substring-match"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut p = project_with(dir.path(), data, task);
        let res = fixtures().join(format!(
            "llm-jp-eval-mm/result/{task}/llava-hf/llava-1.5-7b-hf"
        ));
        let r = import_predictions(&mut p, &res.join("prediction.jsonl"), &opts("llava", task))
            .unwrap();
        assert_eq!(
            (r.format, r.missing, r.unknown_ids.len()),
            (PredictionFormat::LlmJpEvalMm, 0, 0),
            "{task}"
        );
        let eval: serde_json::Value = serde_json::from_str(
            std::fs::read_to_string(res.join("evaluation.jsonl"))
                .unwrap()
                .lines()
                .next()
                .unwrap(),
        )
        .unwrap();
        let want = eval[metric]["overall_score"].as_f64().unwrap();
        assert!(
            (accuracy(&p, &r) - want).abs() < 1e-12,
            "{task}: {} vs {want}",
            accuracy(&p, &r)
        );
    }
}

#[test]
fn lmms_eval_samples_find_their_items_by_the_datasets_own_id() {
    for (version, stamp) in [("v0.3", "20241105_142233"), ("v0.7", "20260815_103012")] {
        let dir = tempfile::tempdir().unwrap();
        let mut p = project_with(dir.path(), "llm-jp-eval-mm/datasets/jmmmu", "jmmmu");
        let logs = fixtures().join(format!(
            "lmms-eval/{version}/logs/Qwen__Qwen2-VL-7B-Instruct"
        ));
        let results: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(logs.join(format!("{stamp}_results.json"))).unwrap(),
        )
        .unwrap();
        for (run, task) in [
            "japanese_art",
            "japanese_heritage",
            "japanese_history",
            "world_history",
        ]
        .iter()
        .enumerate()
        {
            let f = logs.join(format!("{stamp}_samples_jmmmu_{task}.jsonl"));
            let mut o = opts("qwen2", "jmmmu");
            o.run_index = run as u32 + 1;
            let r = import_predictions(&mut p, &f, &o).unwrap();
            // doc_id 0 of each per-subject task is a different item of the combined set.
            assert_eq!(
                (r.format, r.matched),
                (PredictionFormat::LmmsEval, 1),
                "{version} {task}"
            );
            let want = results["results"][format!("jmmmu_{task}")]["jmmmu_acc,none"]
                .as_f64()
                .unwrap();
            let got = scores(&p, &r).iter().find_map(|x| x.1).unwrap();
            assert_eq!(got, want, "{version} {task}");
        }
    }
}

/// Items q0-q3 answering a0-a3, in that order.
fn lmms_project(dir: &Path) -> Project {
    Project::open(project(dir, 4, 0)).unwrap()
}

#[test]
fn lmms_eval_doc_ids_are_original_positions_even_after_removals() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = lmms_project(dir.path());
    // Remove item q1 (position 1) in the refined set.
    let u = p.ensure_user("aiko", Role::Annotator).unwrap();
    let id1 = p.item_id_by_ext("set", "q1").unwrap();
    let c = p.item(id1).unwrap().content;
    p.save_edit(
        id1,
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
    let f = dir.path().join("20260101_000000_samples_set.jsonl");
    let body: String = [0, 2, 3]
        .iter()
        .map(|d| {
            format!("{{\"doc_id\": {d}, \"target\": \"a{d}\", \"filtered_resps\": \"a{d}\"}}\n")
        })
        .collect();
    std::fs::write(&f, body).unwrap();
    let mut o = opts("m", "set");
    o.version = Version::After;
    let r = import_predictions(&mut p, &f, &o).unwrap();
    assert_eq!((r.matched, r.missing), (3, 0));
    // Each doc's answer matches its own item: nothing shifted onto a neighbour.
    assert_eq!(accuracy(&p, &r), 1.0);
}

#[test]
fn lmms_eval_filters_must_be_chosen_and_are_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = lmms_project(dir.path());
    let f = dir.path().join("20260101_000000_samples_set.jsonl");
    let mut body = String::new();
    for d in 0..4 {
        // Filter "strict" gives the right answer, filter "loose" a wrong one; one line each.
        body.push_str(&format!(
            "{{\"doc_id\": {d}, \"filtered_resps\": \"a{d}\"}}\n"
        ));
        body.push_str(&format!(
            "{{\"doc_id\": {d}, \"filtered_resps\": \"nope\"}}\n"
        ));
    }
    std::fs::write(&f, body).unwrap();
    std::fs::write(
        dir.path().join("20260101_000000_results.json"),
        r#"{"results": {"set": {"alias": "set", "exact_match,strict": 1.0, "exact_match_stderr,strict": "N/A", "exact_match,loose": 0.0, "exact_match_stderr,loose": "N/A"}}}"#,
    )
    .unwrap();
    let e = import_predictions(&mut p, &f, &opts("m", "set"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--filter") && e.contains("strict, loose"), "{e}");
    let mut o = opts("m", "set");
    o.filter = Some("strict".into());
    let r = import_predictions(&mut p, &f, &o).unwrap();
    assert_eq!((r.matched, accuracy(&p, &r)), (4, 1.0));
    o.filter = Some("1".into());
    o.run_index = 2;
    let r = import_predictions(&mut p, &f, &o).unwrap();
    assert_eq!(accuracy(&p, &r), 0.0);
}

#[test]
fn vlmevalkit_xlsx_tsv_and_json_agree_with_its_hit_column() {
    let run_dir = fixtures().join("vlmevalkit/outputs/Qwen2.5-VL-7B-Instruct/T20260818-103015");
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with(dir.path(), "vlmevalkit/LMUData/JA_Culture_MCQ.tsv", "mcq");
    // A JSON dump of the same predictions (records orient).
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .from_path(run_dir.join("Qwen2.5-VL-7B-Instruct_JA_Culture_MCQ_gpt-4o-mini_result.tsv"))
        .unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    let h = rdr.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let json: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| serde_json::json!({"index": r[col("index")].parse::<i64>().unwrap(), "prediction": &r[col("prediction")]}))
        .collect();
    let jf = dir.path().join("preds.json");
    std::fs::write(&jf, serde_json::to_string(&json).unwrap()).unwrap();
    let mut seen = Vec::new();
    for (run, file) in [
        run_dir.join("Qwen2.5-VL-7B-Instruct_JA_Culture_MCQ.xlsx"),
        run_dir.join("Qwen2.5-VL-7B-Instruct_JA_Culture_MCQ.tsv"),
        jf,
    ]
    .iter()
    .enumerate()
    {
        let mut o = opts("qwen", "mcq");
        o.run_index = run as u32 + 1;
        let r = import_predictions(&mut p, file, &o).unwrap();
        assert_eq!(
            (r.format, r.matched, r.missing),
            (PredictionFormat::Vlmevalkit, 5, 0),
            "{file:?}"
        );
        seen.push(scores(&p, &r));
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[1], seen[2]);
    // VLMEvalKit's hit column: 1, 1, 1, 1, 0 -> Overall 0.8 in its _acc.csv. Its last answer
    // ("わかりません") names no option: unparsed here, counted as a miss.
    for (i, (id, score)) in seen[0].iter().enumerate() {
        let hit: f64 = rows[i][col("hit")].parse().unwrap();
        assert_eq!(id, &rows[i][col("index")]);
        assert_eq!(score.unwrap_or(0.0), hit, "index {id}");
    }
}

#[tokio::test]
async fn heron_bench_predictions_rated_by_a_judge_reproduce_its_relative_score() {
    use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
    let dir = tempfile::tempdir().unwrap();
    let mut p = project_with(
        dir.path(),
        "llm-jp-eval-mm/datasets/japanese-heron-bench/train.jsonl",
        "heron",
    );
    let res =
        fixtures().join("llm-jp-eval-mm/result/japanese-heron-bench/llava-hf/llava-1.5-7b-hf");
    // The judge replies with the ratings llm-jp-eval-mm recorded for each answer; the answer
    // whose rating failed to parse there gets an unreadable reply here.
    let mut rules = Vec::new();
    for line in std::fs::read_to_string(res.join("prediction.jsonl"))
        .unwrap()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let answer = v["text"].as_str().unwrap();
        let h = &v["heron-bench"];
        let reply = if h["score"] == -1 {
            "I cannot rate this.".to_string()
        } else {
            format!(
                "```json\n{{\"score_gpt\": {}, \"score\": {}}}\n```",
                h["score_gpt"], h["score"]
            )
        };
        let key: String = answer.chars().take(12).collect();
        rules.push(Rule::always(
            &format!("\"model_answer\": {key}"),
            Reply::Text(reply),
        ));
    }
    let judge = StubServer::start(StubConfig {
        rules,
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
    let mut o = opts("llava", "heron");
    o.scorer = Some(assay_eval::ScorerKind::Rating);
    let r = import_predictions(&mut p, &res.join("prediction.jsonl"), &o).unwrap();
    assert_eq!(r.matched, 7);
    let cancel = assay_eval::CancelToken::new();
    let s = assay_eval::judging::judge_run(
        &mut p,
        r.run_id,
        assay_eval::ScorerKind::Rating,
        "judge",
        cancel.clone(),
    )
    .await
    .unwrap();
    assert_eq!((s.judged, s.unparsed, s.errors), (7, 1, 0));
    let eval: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(res.join("evaluation.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let want = eval["heron-bench"]["overall_score"].as_f64().unwrap();
    let t = assay_eval::trace::trace_run(&p, r.run_id, None).unwrap();
    let rating = t.rating.unwrap();
    assert!(
        (rating.overall_relative - want).abs() < 1e-9,
        "{} vs {want}",
        rating.overall_relative
    );
    assert_eq!(rating.unparsed, 1);
    // The judge saw the question, the image context and GPT-4's reference answer.
    let prompts = judge.prompts();
    assert!(
        prompts
            .iter()
            .any(|x| x.contains("\"gpt4o_answer\": 鳥の羽の色は青色です。")),
        "{prompts:?}"
    );
    // Judging again sends nothing: every item already has its judgement.
    let again = assay_eval::judging::judge_run(
        &mut p,
        r.run_id,
        assay_eval::ScorerKind::Rating,
        "judge",
        cancel.clone(),
    )
    .await
    .unwrap();
    assert_eq!(again.judged, 0);
    // Re-importing the file resets the run; the judgements then come from the cache.
    let r2 = import_predictions(&mut p, &res.join("prediction.jsonl"), &o).unwrap();
    let third = assay_eval::judging::judge_run(
        &mut p,
        r2.run_id,
        assay_eval::ScorerKind::Rating,
        "judge",
        cancel,
    )
    .await
    .unwrap();
    assert_eq!((third.judged, third.from_cache), (7, 7));
    assert_eq!(judge.requests(), 7);
}
