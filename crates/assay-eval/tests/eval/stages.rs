//! CRAG-MM-Diagnostics' stages: object identification with the highlight and GT-crop
//! variants (what the model was shown, decoded from the stub's requests), the judge for
//! non-exact names, and the stage table, its statistics checked against SciPy.

use std::path::Path;

use assay_core::{Project, RefinementOp};
use assay_eval::engine::Version;
use assay_eval::stage_table::{
    correlations, rank_bins, stage_table, ItemFacts, Stage, StageOptions,
};
use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
use assay_eval::{ScorerKind, Variant};
use base64::Engine as _;

use crate::common::*;

const FORD: &str = "3f2a9c1e-5b7d-4e08-9a61-0c4d2b7e8f13";

fn decode(url: &str) -> image::RgbImage {
    let b64 = url.split_once(";base64,").unwrap().1;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    image::load_from_memory(&bytes).unwrap().to_rgb8()
}

fn is_green(p: &image::Rgb<u8>) -> bool {
    // JPEG shifts colours a little; the drawn border is pure (0, 255, 0).
    p[1] > 180 && p[0] < 90 && p[2] < 90
}

fn add_alias(path: &Path, ext: &str, alias: &str) {
    edit_item(path, "crag", ext, RefinementOp::MinorEdit, |c| {
        c.entity_aliases.push(alias.into())
    });
}

#[tokio::test]
async fn identification_sees_the_highlight_and_the_crop_and_the_judge_decides_near_misses() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    add_alias(&path, "d95c3e70-14a8-4b2f-a7c9-6e8f02d4b351", "Model Y");
    let model = StubServer::start(StubConfig {
        rules: vec![
            Rule::always(
                "ford focus",
                Reply::Text("target_object: ford fusion (americas)".into()),
            ),
            Rule::always(
                "empire state",
                Reply::Text("target_object: [St Patrick's Cathedral]".into()),
            ),
            Rule::always(
                "logo color",
                Reply::Text("target_object: Burger King".into()),
            ),
            Rule::always("white vehicle", Reply::Text("Model Y".into())),
        ],
        default_reply: Some(Reply::Text("target_object: bridge".into())),
        keep_images: true,
        ..Default::default()
    })
    .await
    .unwrap();
    let judge = StubServer::start(StubConfig {
        rules: vec![
            Rule::always(
                "Prediction: St Patrick's Cathedral",
                Reply::Text("Same cathedral, spelled without the dot.\nanswer: True".into()),
            ),
            Rule::always(
                "Prediction: bridge",
                Reply::Text("{'explanation': 'a broader category', 'accuracy': False}".into()),
            ),
        ],
        default_reply: Some(Reply::Text("answer: False".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![model.url.clone()], |c| {
        c.images.max_side = 1024
    });
    add_model(&path, "j", vec![judge.url.clone()], |_| {});
    let mut req = request(&["m"], 1);
    req.datasets = vec!["crag".into()];
    req.versions = vec![Version::After];
    req.variants = vec![Variant::Highlight, Variant::GtCrop];
    req.scorer = Some(ScorerKind::Identification);
    req.judge = Some("j".into());
    let s = eval(&path, &req).await;
    assert_eq!(s.progress.errors, 0, "{s:?}");
    // 5 items x 2 variants; the judge is asked about the 3 non-exact names once each (the two
    // variants got the same replies, so the second ask is the cache's).
    assert_eq!(model.requests(), 10);
    assert_eq!(judge.requests(), 3);
    let asked = judge.prompts();
    assert!(asked.iter().any(|p| p.contains(
        "Ground truth: St. Patrick\u{2019}s Cathedral (New York City)\nPrediction: St Patrick's Cathedral\n"
    )), "{asked:?}");
    assert!(asked
        .iter()
        .all(|p| p.contains("broader category than the ground truth")));

    // What the model was shown. The Ford item: 3024 x 4032, target [643, 1610, 2854, 2388].
    let shown = model.image_urls();
    let ford: Vec<&(String, String)> = shown
        .iter()
        .filter(|(p, _)| p.contains("ford focus"))
        .collect();
    assert_eq!(ford.len(), 2);
    // Both ask the identification task ("I have highlighted the target object"): the official
    // ablation swaps the highlighted photo for the crop and keeps the prompt.
    assert!(ford
        .iter()
        .all(|(p, _)| p.contains("I have highlighted the target object")));
    let images: Vec<_> = ford.iter().map(|(_, u)| decode(u)).collect();
    let highlighted = images
        .iter()
        .find(|i| i.dimensions() == (768, 1024))
        .unwrap();
    let cropped = images
        .iter()
        .find(|i| i.dimensions() != (768, 1024))
        .unwrap();
    // Highlight: the whole photo at 768 x 1024, a green line on the box's left edge
    // (x = 643 * 768/3024 = 163) and none in the box's middle.
    assert_eq!(highlighted.dimensions(), (768, 1024));
    let k = 768.0 / 3024.0;
    let mid_y = ((1610.0 + 2388.0) / 2.0 * k) as u32;
    assert!(is_green(highlighted.get_pixel((643.0 * k) as u32, mid_y)));
    assert!(is_green(highlighted.get_pixel((2854.0 * k) as u32, mid_y)));
    assert!(!is_green(
        highlighted.get_pixel(((643.0 + 2854.0) / 2.0 * k) as u32, mid_y)
    ));
    // GT crop: exactly the box, as the ablation cuts it: x 643..2854, y 1610..2388 =
    // 2211 x 778, sent with its longest side at 1024.
    assert_eq!(cropped.width(), 1024);
    assert_eq!(
        cropped.height(),
        (778.0_f64 * 1024.0 / 2211.0).round() as u32
    );
    assert!(!cropped.pixels().any(is_green));

    // The stored request says what was done to the image and at what size it was sent.
    let p = Project::open(&path).unwrap();
    let runs = p
        .runs_of(
            p.dataset_by_name("crag").unwrap().id,
            Version::After,
            "gt_crop",
        )
        .unwrap();
    let t = assay_eval::trace::trace_run(&p, runs[0].id, Some(FORD)).unwrap();
    let img = &t.items[0].prompt.as_ref().unwrap()["images"][0];
    assert_eq!(img["view"], "crop:643,1610,2211,778");
    assert_eq!(
        img["sent_size"],
        serde_json::json!([cropped.width(), cropped.height()])
    );
    assert_eq!(t.items[0].score, Some(1.0));

    // Scores: Ford exact, the cathedral by the judge, Burger King wrong, "Model Y" by the
    // alias a person added, "bridge" too broad.
    let table = stage_table(
        &p,
        &["crag".into()],
        &StageOptions {
            version: Version::After,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(table.columns.len(), 1);
    assert_eq!(table.columns[0].stage, Stage::Identification);
    // The judge is part of what was measured.
    assert_eq!(
        table.columns[0].label(),
        "Identification (identification+j)"
    );
    for variant in ["highlight", "gt_crop"] {
        let all = table
            .rows
            .iter()
            .find(|r| r.variant == variant && r.breakdown == "all")
            .unwrap();
        let cell = all.cells[0].unwrap();
        assert_eq!(cell.items, 5);
        assert!((cell.accuracy - 0.6).abs() < 1e-12, "{all:?}");
        let ambiguous = table
            .rows
            .iter()
            .find(|r| r.variant == variant && r.group == "ambiguous")
            .unwrap();
        assert_eq!(ambiguous.cells[0].unwrap().accuracy, 1.0);
        // Five items with boxes in five size bins: one item each.
        let sizes: Vec<_> = table
            .rows
            .iter()
            .filter(|r| r.variant == variant && r.breakdown == "size")
            .collect();
        assert_eq!(sizes.len(), 5);
        assert!(sizes.iter().all(|r| r.cells[0].unwrap().items == 1));
        // The distance to the centre is binned as the paper's Figure 3 bins it.
        let distances = table
            .rows
            .iter()
            .filter(|r| r.variant == variant && r.breakdown == "distance")
            .count();
        assert_eq!(distances, 5);
    }
    let rendered =
        assay_eval::stage_table::render_stages(&table, assay_eval::table::TableFormat::Markdown)
            .unwrap();
    assert!(
        rendered.contains("| crag | m | gt_crop | all | all | 60.0 (5) |"),
        "{rendered}"
    );

    // Again: every answer and every verdict comes from the cache.
    let again = eval(&path, &req).await;
    assert_eq!(again.progress.sent, 0);
    assert_eq!((model.requests(), judge.requests()), (10, 3));

    // Without a judge it is another measurement (exact names only: Ford and the alias), in
    // its own column, from the same stored answers.
    req.judge = None;
    req.variants = vec![Variant::Highlight];
    let plain = eval(&path, &req).await;
    assert_eq!(plain.progress.sent, 0);
    let table = stage_table(
        &p,
        &["crag".into()],
        &StageOptions {
            version: Version::After,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(table.columns.len(), 2);
    let col = table
        .columns
        .iter()
        .position(|c| c.label() == "Identification")
        .unwrap();
    let row = table
        .rows
        .iter()
        .find(|r| r.variant == "highlight" && r.breakdown == "all")
        .unwrap();
    assert!(
        (row.cells[col].unwrap().accuracy - 0.4).abs() < 1e-12,
        "{row:?}"
    );
}

#[tokio::test]
async fn entity_given_sends_no_image_and_grounding_skips_the_crop() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    let stub = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text("[0, 0, 10, 10]".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![stub.url.clone()], |_| {});
    let mut req = request(&["m"], 1);
    req.datasets = vec!["crag".into()];
    req.versions = vec![Version::Before];
    req.variants = vec![Variant::EntityGiven];
    req.template = "crag-mm/knowledge_extraction".into();
    let s = eval(&path, &req).await;
    assert_eq!((s.progress.sent, stub.images()), (5, 0));
    assert!(stub
        .prompts()
        .iter()
        .any(|p| p
            .contains("# Question: \"which came out first, the ford fusion or the ford focus?\"")));
    assert!(stub
        .prompts()
        .iter()
        .all(|p| p.contains("truthfully answers user questions.")));

    let mut req = request(&["m"], 1);
    req.datasets = vec!["crag".into()];
    req.versions = vec![Version::Before];
    req.variants = vec![Variant::GtCrop];
    req.scorer = Some(ScorerKind::Grounding);
    let s = eval(&path, &req).await;
    // A box on a crop cannot be scored against the item's box: every item is skipped.
    assert_eq!((s.progress.skipped, s.progress.sent), (5, 0));
}

#[test]
fn stage_statistics_match_scipy() {
    let f: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/stats/stages.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let opt = |v: &serde_json::Value| v.as_f64();
    for case in f["cases"].as_array().unwrap() {
        let scores: Vec<Option<f64>> = case["scores"].as_array().unwrap().iter().map(opt).collect();
        let column = |name: &str| -> Vec<Option<f64>> {
            case[name].as_array().unwrap().iter().map(opt).collect()
        };
        let (pop, sal, dist, crowd) = (
            column("popularity"),
            column("saliency"),
            column("distance"),
            column("crowdedness"),
        );
        let facts: Vec<ItemFacts> = (0..scores.len())
            .map(|i| ItemFacts {
                popularity: pop[i],
                saliency: sal[i],
                distance: dist[i],
                crowdedness: crowd[i],
                ..Default::default()
            })
            .collect();
        let [size, distance, crowdedness, saliency, popularity] = correlations(&scores, &facts);
        let near = |got: Option<f64>, key: &str| {
            let want = case[key].as_f64().unwrap();
            assert!(
                (got.unwrap() - want).abs() < 1e-9,
                "{key}: {got:?} vs {want}"
            );
        };
        near(popularity.0, "rho_popularity");
        near(saliency.0, "r_pb_saliency");
        near(distance.0, "r_pb_distance");
        near(crowdedness.0, "r_pb_crowdedness");
        assert_eq!(size, (None, 0), "no item has a size here");
        for (got, key) in [
            (popularity.1, "popularity_items"),
            (saliency.1, "saliency_items"),
            (distance.1, "distance_items"),
            (crowdedness.1, "crowdedness_items"),
        ] {
            assert_eq!(got as u64, case[key].as_u64().unwrap(), "{key}");
        }
        let sal: Vec<Option<f64>> = facts.iter().map(|f| f.saliency).collect();
        let (bins, _) = rank_bins(&sal, case["bins"].as_u64().unwrap() as usize);
        let want: Vec<Option<usize>> = case["bin_of"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_u64().map(|b| b as usize))
            .collect();
        assert_eq!(bins, want);
    }
}

/// The paper averages each correlation over the models; a model whose correlation is
/// undefined is left out of that mean, and a single model gets no mean row.
#[test]
fn correlations_are_averaged_over_models_as_the_paper_reports_them() {
    use assay_eval::stage_table::{mean_over_models, StageCorrelation};
    let row = |model: &str, rho: Option<f64>, rpb: Option<f64>| StageCorrelation {
        dataset: "crag".into(),
        model: model.into(),
        variant: "original".into(),
        column: 0,
        popularity_rho: rho,
        popularity_items: 10,
        saliency_r_pb: rpb,
        saliency_items: 8,
        size_r_pb: rpb.map(|r| -r),
        size_items: 8,
        distance_r_pb: None,
        distance_items: 0,
        crowdedness_r_pb: None,
        crowdedness_items: 0,
    };
    let rows = vec![
        row("a", Some(0.2), Some(0.5)),
        row("b", Some(0.4), None),
        row("c", None, Some(0.1)),
        StageCorrelation {
            column: 1,
            ..row("a", Some(0.9), None)
        },
    ];
    let means = mean_over_models(&rows);
    assert_eq!(means.len(), 1, "column 1 has one model: no mean");
    let m = &means[0];
    assert_eq!(m.model, "mean over models (3)");
    assert!((m.popularity_rho.unwrap() - 0.3).abs() < 1e-12);
    assert!((m.saliency_r_pb.unwrap() - 0.3).abs() < 1e-12);
    assert!((m.size_r_pb.unwrap() + 0.3).abs() < 1e-12);
    assert_eq!(m.distance_r_pb, None, "no model has one");
    assert_eq!((m.popularity_items, m.saliency_items), (30, 24));
}

/// Judge `run`'s identification misses with the judge model "j".
async fn judge_misses(p: &mut Project, run: i64) -> assay_eval::judging::JudgeSummary {
    assay_eval::judging::judge_run(
        p,
        run,
        ScorerKind::Identification,
        "j",
        assay_eval::CancelToken::new(),
    )
    .await
    .unwrap()
}

/// Identification predictions recorded by another tool: the exact-name rule scores them on
/// import, a judge decides the rest (as `assay predictions import --judge` and the window's
/// import form do), judging again sends nothing, and people are offered only the judge's own
/// decisions to rate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_identification_sends_only_near_misses_to_the_judge() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    let mut p = Project::open(&path).unwrap();
    let ds = p.dataset_by_name("crag").unwrap().id;
    let items: Vec<(i64, String)> = p.item_ext_ids(ds).unwrap();
    let names: Vec<String> = items
        .iter()
        .map(|(id, _)| p.item(*id).unwrap().content.entity_name.unwrap())
        .collect();
    // The first reply names the entity exactly (another case), the second a near miss the judge
    // accepts, the rest something else.
    let mut lines = Vec::new();
    for (k, (_, ext)) in items.iter().enumerate() {
        let reply = match k {
            0 => format!("target_object: {}", names[0].to_uppercase()),
            1 => "target_object: [the near one]".to_string(),
            _ => format!("target_object: something else {k}"),
        };
        lines.push(serde_json::json!({"id": ext, "prediction": reply}).to_string());
    }
    let file = dir.path().join("preds.jsonl");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let judge = StubServer::start(StubConfig {
        rules: vec![Rule::always(
            "Prediction: the near one",
            Reply::Text("answer: True".into()),
        )],
        default_reply: Some(Reply::Text("answer: False".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "j", vec![judge.url.clone()], |_| {});
    let mut o = recorded("other-tool", "crag");
    o.version = assay_eval::Version::After;
    o.scorer = Some(ScorerKind::Identification);
    o.format = Some(assay_eval::predictions::PredictionFormat::Jsonl);
    let r = assay_eval::predictions::import_predictions(&mut p, &file, &o).unwrap();
    assert_eq!(r.matched, items.len());
    assert_eq!(p.pending_misses(r.run_id).unwrap().len(), items.len() - 1);
    let s = judge_misses(&mut p, r.run_id).await;
    assert_eq!((s.judged, s.errors), (items.len() - 1, 0));
    assert_eq!(judge.requests(), items.len() - 1);
    let prompts = judge.prompts();
    assert!(
        prompts
            .iter()
            .any(|x| x.contains(&format!("Ground truth: {}", names[1]))
                && x.contains("Prediction: the near one\n")),
        "{prompts:?}"
    );
    let results = p.run_results(r.run_id).unwrap();
    let score = |id: i64| {
        results
            .iter()
            .find(|x| x.item_id == id)
            .and_then(|x| x.score)
    };
    assert_eq!(score(items[0].0), Some(1.0));
    assert_eq!(score(items[1].0), Some(1.0));
    assert_eq!(score(items[2].0), Some(0.0));
    assert_eq!(p.run(r.run_id).unwrap().status, "complete");
    // Nothing is left for a judge: a second pass sends nothing.
    let again = judge_misses(&mut p, r.run_id).await;
    assert_eq!(again.judged, 0);
    assert_eq!(judge.requests(), items.len() - 1);
    // People rate the judge's decisions: the exact name was the rule's, not offered.
    let u = p.sign_in("aiko", assay_core::Role::Annotator).unwrap();
    let aiko = assay_core::store::Author {
        user_id: u.id,
        role: u.role,
        round: 1,
    };
    let sample = p.judge_review_sample(r.run_id, 20, 3, &aiko).unwrap();
    assert_eq!(sample.len(), items.len() - 1);
    assert!(sample.iter().all(|e| e.item_id != items[0].0));
    assert_eq!(
        p.rate_judge(r.run_id, items[0].0, 5, None, &aiko)
            .unwrap_err()
            .code(),
        "invalid"
    );
}

/// The answer stage by CRAG-MM's QA judge: the model is asked the `whole` task, an exact
/// reply (any case, outer spaces) needs no judge, every other reply goes to the judge with the
/// official QA prompt and `Question / Ground truth / Prediction`, and the stage table puts the
/// run in the Answer column under its judge. Under the protocol, soft match stays a labelled
/// option in a column of its own.
#[tokio::test]
async fn the_answer_stage_is_decided_by_the_official_qa_judge() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    let model = StubServer::start(StubConfig {
        rules: vec![
            Rule::always(
                "ford focus",
                Reply::Text(
                    "  The Ford Focus, introduced in 1998, came out before the Ford Fusion, introduced in 2006. "
                        .into(),
                ),
            ),
            Rule::always("bridge", Reply::Text("It opened in 1937.".into())),
        ],
        default_reply: Some(Reply::Text("I am not sure.".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    let judge = StubServer::start(StubConfig {
        rules: vec![Rule::always(
            "Prediction: It opened in 1937.",
            Reply::Text("Grounded by the ground truth.\nanswer: True".into()),
        )],
        default_reply: Some(Reply::Text(
            "It refuses (guideline 1).\nanswer: False".into(),
        )),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![model.url.clone()], |_| {});
    add_model(&path, "j", vec![judge.url.clone()], |_| {});
    let mut req = request(&["m"], 3);
    req.datasets = vec!["crag".into()];
    req.versions = vec![Version::Before];
    req.variants = vec![Variant::Original];
    req.scorer = Some(ScorerKind::CragQa);
    req.judge = Some("j".into());
    req.protocol = Some(assay_core::EvalProtocol::CragMm);
    let s = eval(&path, &req).await;
    assert_eq!(s.progress.errors, 0, "{s:?}");
    // The protocol sent the paper's generation settings to the model, not the model's own
    // (temperature 0, 1,024 tokens); the judge kept its own.
    assert!(!model.sampling().is_empty());
    for (t, p, m) in model.sampling() {
        assert_eq!(
            (t.as_f64(), p.as_f64(), m.as_u64()),
            (Some(0.1), Some(0.9), Some(75))
        );
    }
    for (t, p, m) in judge.sampling() {
        assert_eq!(
            (t.as_f64(), p.is_null(), m.as_u64()),
            (Some(0.0), true, Some(1024))
        );
    }
    // The model saw CRAG-MM's answering task.
    assert!(model
        .prompts()
        .iter()
        .all(|p| p.contains("truthfully answers user questions about the provided image")));
    // Four of five replies are not exact: the judge is asked about each in each of 3 runs.
    assert_eq!(judge.requests(), 12);
    let asked = judge.prompts();
    assert!(asked
        .iter()
        .all(|p| p.contains("1 mile is about 1.60934 km")));
    assert!(asked.iter().any(|p| p.contains(
        "Question: when did this bridge open to traffic?\nGround truth: the golden gate bridge opened to vehicular traffic on may 28, 1937.\nPrediction: It opened in 1937.\n"
    )), "{asked:?}");
    assert!(!asked
        .iter()
        .any(|p| p.contains("Prediction:   The Ford Focus")));

    let table = stage_table(
        &assay_core::Project::open(&path).unwrap(),
        &["crag".into()],
        &StageOptions {
            version: Version::Before,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(table.columns.len(), 1);
    assert_eq!(table.columns[0].stage, Stage::Answer);
    assert_eq!(table.columns[0].label(), "Answer (crag_qa+j)");
    let all = table.rows.iter().find(|r| r.breakdown == "all").unwrap();
    // The exact reply and the judged one are right: 2 of 5.
    assert!(
        (all.cells[0].unwrap().accuracy - 0.4).abs() < 1e-12,
        "{all:?}"
    );
}

/// A judge that fails on a near miss leaves the exact-match rule's reading as it was, the item
/// still waiting for a judge and the run not complete; a later pass with a judge that answers
/// decides it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_that_fails_leaves_the_miss_waiting_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    let mut p = Project::open(&path).unwrap();
    let ds = p.dataset_by_name("crag").unwrap().id;
    let items: Vec<(i64, String)> = p.item_ext_ids(ds).unwrap();
    let lines: Vec<String> = items
        .iter()
        .map(|(_, ext)| {
            serde_json::json!({"id": ext, "prediction": "target_object: a near one"}).to_string()
        })
        .collect();
    let file = dir.path().join("preds.jsonl");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let broken = StubServer::start(StubConfig {
        default_reply: Some(Reply::Status {
            code: 400,
            retry_after: None,
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "j", vec![broken.url.clone()], |c| c.max_retries = 0);
    let mut o = recorded("other-tool", "crag");
    o.version = assay_eval::Version::After;
    o.scorer = Some(ScorerKind::Identification);
    o.format = Some(assay_eval::predictions::PredictionFormat::Jsonl);
    let r = assay_eval::predictions::import_predictions(&mut p, &file, &o).unwrap();
    let s = judge_misses(&mut p, r.run_id).await;
    assert_eq!(s.errors, items.len());
    let results = p.run_results(r.run_id).unwrap();
    assert!(
        results
            .iter()
            .all(|x| x.outcome == assay_core::store::Outcome::Scored && x.score == Some(0.0)),
        "the rule's readings stay: {results:?}"
    );
    assert_eq!(p.pending_misses(r.run_id).unwrap().len(), items.len());
    assert_ne!(p.run(r.run_id).unwrap().status, "complete");

    let judge = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text("answer: True".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "j", vec![judge.url.clone()], |_| {});
    let s = judge_misses(&mut p, r.run_id).await;
    assert_eq!((s.judged, s.errors), (items.len(), 0));
    assert_eq!(p.run(r.run_id).unwrap().status, "complete");
}
