//! CRAG-MM-Diagnostics' identification stage: highlight and GT-crop variants, the stage table,
//! an alias, a panel of judges, people rating the judge, and another tool's replies imported.

use std::path::Path;

use fantoccini::{Client, Locator};
use serde_json::json;

use crate::common::fixtures::{stored, Scenario};
use crate::common::until;
use crate::common::window::{
    click, fill, keys, open_row, screenshot, search, select, show, wait_for, wait_text,
    xpath_text_is,
};

/// CRAG-MM-Diagnostics' identification stage from the window: the highlight and GT-crop
/// variants against a stub model that also judges, the stage table, then an alias typed on an
/// item turning a judged miss into an exact match on the next run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identify_with_highlight_and_crop_and_read_the_stages() {
    let s = Scenario::new("identify with highlight and crop");
    let c = s.start_as("e2e-researcher", None).await;
    identify_in_the_app(&c, &s.project).await;
    c.close().await.unwrap();
}

fn decode_data_url(url: &str) -> image::RgbImage {
    use base64::Engine as _;
    let b64 = url.split_once(";base64,").unwrap().1;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    image::load_from_memory(&bytes).unwrap().to_rgb8()
}

async fn identify_in_the_app(c: &Client, project: &Path) {
    use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
    // One stub answers as the model and as the judge. cr-001 and cr-004 are exact matches,
    // cr-003's "Ramen-ya" is judged a synonym, cr-002's "car" a broader category.
    let stub = StubServer::start(StubConfig {
        rules: vec![
            Rule::always(
                "Prediction: Ramen-ya\n",
                Reply::Text("Same shop.\nanswer: True".into()),
            ),
            Rule::always(
                "Prediction: car\n",
                Reply::Text("Broader.\nanswer: False".into()),
            ),
            Rule::always(
                "What brand is this car",
                Reply::Text("target_object: Red Car".into()),
            ),
            Rule::always("How many doors", Reply::Text("target_object: car".into())),
            Rule::always(
                "restaurant serve",
                Reply::Text("target_object: Ramen-ya".into()),
            ),
            Rule::always("看板", Reply::Text("target_object: ramen ya sign".into())),
        ],
        keep_images: true,
        ..Default::default()
    })
    .await
    .unwrap();
    show(c, "models").await;
    fill(c, "[data-testid=model-name]", "stub-vlm").await;
    fill(c, "[data-testid=model-endpoint]", &stub.url).await;
    fill(c, "[data-testid=model-id]", "vlm").await;
    click(c, "[data-testid=model-save]").await;
    wait_for(c, "[data-testid=model-row]").await;
    show(c, "evaluation").await;
    wait_for(c, "[data-testid=run-model-stub-vlm]").await;
    for other in ["jgraph-mini", "vague-mini", "haerae-mini"] {
        click(c, &format!("[data-testid=run-dataset-{other}]")).await;
    }
    for v in ["original", "highlight", "gt_crop"] {
        click(c, &format!("[data-testid=run-variant-{v}]")).await;
    }
    select(c, "[data-testid=run-scorer-select]", "identification").await;
    select(c, "[data-testid=run-judge]", "stub-vlm").await;
    // 4 items x 2 versions x 2 variants, and a judge request for each at most.
    wait_text(c, "[data-testid=estimate]", |t| {
        t.starts_with("at most 16 requests + 16 judge requests")
    })
    .await;
    click(c, "[data-testid=start-run]").await;
    wait_text(c, "[data-testid=run-state]", |t| t == "finished").await;
    select(c, "[data-testid=stage-version]", "after").await;
    let all = "//tr[@data-testid='stage-row'][td[3][normalize-space()='gt crop']]/td[@data-testid='stage-cell']";
    until(
        c,
        || "no gt crop stage cell reads 75.0 (4)".into(),
        move || async move { xpath_text_is(c, all, "75.0 (4)").await },
    )
    .await;
    // The stage table drawn: one bar per model and variant in each stage's facet.
    wait_for(c, "[data-testid=stage-chart] svg").await;
    let bars = c
        .find_all(Locator::Css("[data-testid=stage-chart] svg rect"))
        .await
        .unwrap();
    assert!(bars.len() >= 2, "the stage chart has {} bars", bars.len());
    screenshot(c, "stages.png").await;
    // The run list says which endpoint answered: the stub, the only replica.
    let replicas = "//td[@data-testid='run-replicas']/details/summary";
    until(
        c,
        || "no run lists its replicas".into(),
        move || async move { c.find(Locator::XPath(replicas)).await.is_ok() },
    )
    .await;
    assert_eq!(
        c.find(Locator::XPath(replicas))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "1"
    );

    // What the model was shown for cr-001 (512 x 384, box [200, 280, 310, 342]), both times
    // with CRAG-MM's identification prompt: the GT crop cut exactly at the box, 110 x 62, as the
    // official ablation cuts it; the highlight, the whole image with a green line on the box.
    let shown = stub.image_urls();
    let car: Vec<image::RgbImage> = shown
        .iter()
        .filter(|(p, _)| p.contains("What brand is this car") && p.contains("I have highlighted"))
        .map(|(_, url)| decode_data_url(url))
        .collect();
    let sizes: Vec<(u32, u32)> = car.iter().map(|i| i.dimensions()).collect();
    assert!(sizes.contains(&(110, 62)), "no exact crop among {sizes:?}");
    // A 3-pixel line (8 at 1280 pixels, scaled) through JPEG: some pixel on it stays green.
    let img = car
        .iter()
        .find(|i| i.dimensions() == (512, 384))
        .unwrap_or_else(|| panic!("no whole image among {sizes:?}"));
    let green = |x: u32, y: u32| {
        let p = img.get_pixel(x, y);
        p[1] as i32 > p[0] as i32 + 60 && p[1] as i32 > p[2] as i32 + 60
    };
    assert!(
        (199..=201).any(|x| green(x, 311)),
        "no green on the box's left edge"
    );
    assert!(!green(255, 311), "green inside the box");
    {
        let p = assay_core::Project::open(project).unwrap();
        let ds = p.dataset_by_name("crag-mini").unwrap().id;
        let run = p
            .runs_of(ds, assay_core::Version::After, "gt_crop")
            .unwrap()[0]
            .id;
        let t = assay_eval::trace::trace_run(&p, run, Some("cr-001")).unwrap();
        let img = &t.items[0].prompt.as_ref().unwrap()["images"][0];
        assert_eq!(img["view"], "crop:200,280,110,62");
        assert_eq!(img["sent_size"], json!([110, 62]));
    }
    show(c, "items").await;

    // cr-002's "car" is accepted once a person adds it as another name of the entity.
    search(c, "How many doors").await;
    open_row(c, "cr-002").await;
    // The field is below the model runs, out of view: WebKitWebDriver does not scroll to it.
    let field = wait_for(c, "[data-testid=entity-aliases]").await;
    c.execute(
        "arguments[0].scrollIntoView({block: 'center'})",
        vec![serde_json::to_value(&field).unwrap()],
    )
    .await
    .unwrap();
    fill(c, "[data-testid=entity-aliases]", "car").await;
    keys(c, &[(None, '\u{E004}')]).await;
    until(
        c,
        || "the alias was never stored".into(),
        move || async move { stored(project, "crag-mini", "cr-002").entity_aliases == ["car"] },
    )
    .await;
    show(c, "evaluation").await;
    let before = stub.requests();
    click(c, "[data-testid=rerun]").await;
    until(
        c,
        || "the alias never counted".into(),
        move || async move { xpath_text_is(c, all, "100.0 (4)").await },
    )
    .await;
    // The question did not change: the stored answer is scored again, nothing is sent.
    assert_eq!(stub.requests(), before);

    // A panel of two judges on the GT-crop run: a strict judge rejects every near miss, so
    // they part on cr-003 only; no model request is sent again.
    let strict = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text("answer: False".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    show(c, "models").await;
    fill(c, "[data-testid=model-name]", "stub-strict").await;
    fill(c, "[data-testid=model-endpoint]", &strict.url).await;
    fill(c, "[data-testid=model-id]", "strict").await;
    click(c, "[data-testid=model-save]").await;
    wait_text(c, "[data-testid=models]", |t| t.contains("stub-strict")).await;
    show(c, "evaluation").await;
    let run = {
        let p = assay_core::Project::open(project).unwrap();
        let ds = p.dataset_by_name("crag-mini").unwrap().id;
        p.runs_of(ds, assay_core::Version::After, "gt_crop")
            .unwrap()[0]
            .id
    };
    select(c, "[data-testid=panel-run]", &run.to_string()).await;
    select(c, "[data-testid=panel-scorer]", "identification").await;
    click(c, "[data-testid=panel-judge-stub-vlm]").await;
    click(c, "[data-testid=panel-judge-stub-strict]").await;
    fill(c, "[data-testid=panel-top]", "1").await;
    let asked = stub.requests();
    click(c, "[data-testid=panel-start]").await;
    wait_text(c, "[data-testid=panel-disagreement]", |t| {
        t.starts_with("cr-003")
    })
    .await;
    wait_text(c, "[data-testid=panel-summary]", |t| {
        t.starts_with("2 judges · 1 items judged · 3 exact names")
    })
    .await;
    assert_eq!(
        strict.requests(),
        1,
        "only the one near miss goes to a judge"
    );
    assert_eq!(
        stub.requests(),
        asked,
        "the first judge's verdict is the cached one"
    );
    screenshot(c, "judge-panel.png").await;

    // A person rates the judge's decisions with the keys: in the GT-crop run, 5 (right), in the
    // highlight run, 2. Exact names were the rule's, not the judge's: they are not offered.
    let highlight = {
        let p = assay_core::Project::open(project).unwrap();
        let ds = p.dataset_by_name("crag-mini").unwrap().id;
        p.runs_of(ds, assay_core::Version::After, "highlight")
            .unwrap()[0]
            .id
    };
    let mut rated = Vec::new();
    for (r, key) in [(run, '5'), (highlight, '2')] {
        select(c, "[data-testid=rating-run]", &r.to_string()).await;
        click(c, "[data-testid=rating-draw]").await;
        let current = wait_for(c, "[data-testid=rating-current]").await;
        rated.push(current.attr("data-ext-id").await.unwrap().unwrap());
        keys(c, &[(None, key)]).await;
        wait_text(c, "[data-testid=rating-summary]", |t| {
            t.starts_with("1 ratings of 1 decisions")
        })
        .await;
        wait_text(c, "[data-testid=rating-mine]", |t| t == key.to_string()).await;
        // A 5 agrees with the judge's decision, a 2 disagrees: agreement is stated first.
        let agreement = if key == '5' { "100.0 %" } else { "0.0 %" };
        wait_text(c, "[data-testid=verdict-accuracy]", |t| t == agreement).await;
    }
    wait_text(c, "[data-testid=rating-raters]", |t| {
        t.contains("e2e-researcher")
    })
    .await;
    screenshot(c, "judge-rating.png").await;

    // Another tool's identification replies imported from the window with stub-vlm as the
    // judge: "Red Car" and "ramen ya sign" are exact names, "car" is an alias since earlier,
    // and only "Ramen-ya" goes to the judge.
    let file = project.with_file_name("other-tool.jsonl");
    let lines = [
        ("cr-001", "target_object: Red Car"),
        ("cr-002", "target_object: car"),
        ("cr-003", "target_object: Ramen-ya"),
        ("cr-004", "target_object: ramen ya sign"),
    ]
    .map(|(id, text)| serde_json::json!({"id": id, "prediction": text}).to_string());
    std::fs::write(&file, lines.join("\n")).unwrap();
    fill(c, "[data-testid=pred-file]", file.to_str().unwrap()).await;
    select(c, "[data-testid=pred-format]", "jsonl").await;
    fill(c, "[data-testid=pred-model]", "other-tool").await;
    select(c, "[data-testid=pred-dataset]", "crag-mini").await;
    select(c, "[data-testid=pred-scorer]", "identification").await;
    select(c, "[data-testid=pred-judge]", "stub-vlm").await;
    click(c, "[data-testid=pred-import]").await;
    let report = wait_text(c, "[data-testid=pred-report]", |t| t.contains("judge:")).await;
    assert!(report.contains("4 predictions matched"), "{report}");
    assert!(report.contains("judge: 1 verdicts"), "{report}");
    {
        let p = assay_core::Project::open(project).unwrap();
        let run = p
            .run_summaries()
            .unwrap()
            .into_iter()
            .find(|r| r.run.model == "other-tool")
            .unwrap();
        assert_eq!(run.accuracy, Some(1.0));
    }
    let p = assay_core::Project::open(project).unwrap();
    for (r, (ext, want)) in [run, highlight].into_iter().zip(rated.iter().zip([5, 2])) {
        let report = p.judge_rating_report(r).unwrap();
        assert_eq!((report.items, report.ratings), (1, 1));
        assert_eq!(report.raters[0].name, "e2e-researcher");
        assert_eq!(report.raters[0].mean_rating, Some(want as f64));
        let sample = p
            .judge_review_sample(r, 20, 1, &{
                let u = p.user_by_name("e2e-researcher").unwrap().unwrap();
                assay_core::store::Author {
                    user_id: u.id,
                    role: u.role,
                    round: 1,
                }
            })
            .unwrap();
        assert_eq!(
            sample.len(),
            1,
            "only the judge's own decisions are offered"
        );
        assert_eq!(&sample[0].ext_id, ext);
    }
    show(c, "items").await;
}
