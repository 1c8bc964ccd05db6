//! Evaluation from the window: a model against a stub server, before and after, live what-if,
//! triage and failure tags; the sample's recorded runs with no model server at all.

use std::path::Path;
use std::sync::Mutex;

use fantoccini::{Client, Locator};

use crate::common::fixtures::Scenario;
use crate::common::until;
use crate::common::window::{
    click, fill, keys, open_row, screenshot, search, select, show, wait_for, wait_text, wait_value,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluate_before_and_after() {
    let s = Scenario::new("evaluate before and after");
    // The edits the evaluation compares: jg-006's answer corrected to 117 and jg-007's question
    // reworded, by someone else before this window opens.
    s.edit("jg-006", "cli-user", |c| c.answer = Some("117".into()));
    s.edit("jg-007", "cli-user", |c| {
        c.question = "降水量が最も多いのは何月ですか？".into()
    });
    let c = s.start_as("e2e-annotator", None).await;
    evaluate_in_the_app(&c, &s.project).await;
    c.close().await.unwrap();
}

/// A model added in the window against the stub server this test starts: test request, a run
/// with progress to the end, the before/after table; then an answer fixed in the editor and the
/// same run again: the table changes and the stub receives no request.
async fn evaluate_in_the_app(c: &Client, project: &Path) {
    use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
    let stub = StubServer::start(StubConfig {
        rules: vec![Rule::always("降水量は何mm", Reply::Text("171".into()))],
        ..Default::default()
    })
    .await
    .unwrap();
    show(c, "models").await;
    fill(c, "[data-testid=model-name]", "stub-qwen").await;
    fill(c, "[data-testid=model-endpoint]", &stub.url).await;
    fill(c, "[data-testid=model-id]", "qwen2.5-vl").await;
    click(c, "[data-testid=model-save]").await;
    click(c, "[data-testid=check-stub-qwen]").await;
    wait_text(c, "[data-testid=check-result]", |t| t.contains("“OK”")).await;
    screenshot(c, "models.png").await;
    templates_in_the_window(c).await;
    show(c, "evaluation").await;
    // jgraph-mini only: the other sample sets need a judge or boxes.
    for other in ["vague-mini", "haerae-mini", "crag-mini"] {
        click(c, &format!("[data-testid=run-dataset-{other}]")).await;
    }
    // The no-image variant too: an answer right without the image is triage evidence.
    click(c, "[data-testid=run-variant-no_image]").await;
    wait_text(c, "[data-testid=estimate]", |t| {
        t.starts_with("at most 48 requests")
    })
    .await;
    click(c, "[data-testid=start-run]").await;
    wait_text(c, "[data-testid=run-state]", |t| t == "finished").await;
    assert_eq!(
        wait_for(c, "[data-testid=run-done]")
            .await
            .text()
            .await
            .unwrap(),
        "48"
    );
    // jg-006 was corrected to 117 earlier: the stub's 171 is right before, wrong after.
    wait_text(c, "[data-testid=ba-before]", |t| t == "8.3").await;
    wait_text(c, "[data-testid=ba-after]", |t| t == "0.0").await;
    wait_for(c, "[data-testid=ba-chart] svg").await;
    // The run list names the version of the scorer's rules behind each number; rescoring reads
    // the stored responses again (nothing is sent) and changes nothing here.
    for testid in ["run-scorer", "ba-scorer"] {
        // jgraph-mini's short answers are scored by soft_match's rules.
        let label = format!(
            "auto v{}",
            assay_eval::scorers::ScorerKind::SoftMatch.version()
        );
        let xpath = format!("//td[@data-testid='{testid}' and normalize-space()='{label}']");
        let xpath = &xpath;
        let label = &label;
        until(
            c,
            || format!("no {testid} cell reads {label}"),
            move || async move { c.find(Locator::XPath(xpath)).await.is_ok() },
        )
        .await;
    }
    click(c, "[data-testid=rescore-all]").await;
    wait_text(c, "[data-testid=rescore-result]", |t| {
        t.contains("results rescored, 0 changed")
    })
    .await;
    // The hybrid scorer asks a judge only about unsure verdicts: the stub's replies here are
    // numbers the rules read surely, so no run offers it, and each button says why.
    select(c, "[data-testid=unsure-judge]", "stub-qwen").await;
    let first = "(//tr[@data-testid='run-row'])[1]";
    let unsure = c
        .find(Locator::XPath(&format!(
            "{first}//td[@data-testid='run-unsure']"
        )))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(unsure, "0");
    let button = c
        .find(Locator::XPath(&format!(
            "{first}//button[@data-testid='judge-unsure']"
        )))
        .await
        .unwrap();
    assert!(!button.is_enabled().await.unwrap());
    assert_eq!(
        button.attr("title").await.unwrap().as_deref(),
        Some("no verdict of this run is unsure")
    );
    // A run set up by hand says so; choosing a seed's protocol fills the form with its own
    // runs, variants and scorer (VAGUE: one run of the original, multiple choice).
    wait_text(c, "[data-testid=ba-protocol]", |t| t == "by hand").await;
    select(c, "[data-testid=run-protocol]", "vague").await;
    let value = |css: &'static str| async move {
        crate::common::window::select_value(&wait_for(c, css).await).await
    };
    until(
        c,
        || "the vague preset did not fill the form".into(),
        || async {
            value("[data-testid=run-count]").await == "1"
                && value("[data-testid=run-scorer-select]").await == "choice"
                && !wait_for(c, "[data-testid=run-variant-no_image]")
                    .await
                    .is_selected()
                    .await
                    .unwrap()
        },
    )
    .await;
    // VAGUE fixes no generation settings; HAERAE-Vision's are said before anything is sent.
    assert!(c
        .find(Locator::Css("[data-testid=run-protocol-sampling]"))
        .await
        .is_err());
    select(c, "[data-testid=run-protocol]", "haerae-vision").await;
    wait_text(c, "[data-testid=run-protocol-sampling]", |t| {
        t.contains("temperature 0.6, top-p 0.95, at most 4096 tokens")
    })
    .await;
    // Its checklist judge needs a judge model: Start waits and says why, beside it; nothing
    // is reported as a failure.
    wait_text(c, "[data-testid=run-why-not]", |t| t.contains("judge")).await;
    assert!(c.find(Locator::Css("[data-testid=failure]")).await.is_err());
    // Back to the form as VAGUE's preset left it, for the run below.
    select(c, "[data-testid=run-protocol]", "vague").await;
    select(c, "[data-testid=run-protocol]", "").await;
    screenshot(c, "evaluation.png").await;
    let sent = stub.requests();
    // Per variant 12 prompts before and jg-007's question edited earlier in this test (the
    // after side reuses every other answer), plus the test request.
    assert_eq!(sent, 2 * 13 + 1, "requests sent");
    // Live what-if: every save runs the last request again in the background.
    click(c, "[data-testid=live-update]").await;
    show(c, "items").await;

    // Put 171 back: the table follows without anyone starting a run.
    search(c, "降水量は何mm").await;
    open_row(c, "jg-006").await;
    fill(c, "[data-testid=answer]", "171").await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_text(c, "[data-testid=save-state]", |t| t.starts_with("saved")).await;
    show(c, "evaluation").await;
    wait_text(c, "[data-testid=ba-after]", |t| t == "8.3").await;
    assert_eq!(
        stub.requests(),
        sent,
        "re-scored from stored responses, nothing sent"
    );
    show(c, "items").await;

    // Triage: jg-006 is answered right without its image; N opens the next item.
    show(c, "triage").await;
    wait_for(c, "[data-testid=triage-item][data-ext-id='jg-006']").await;
    wait_text(c, "[data-testid=triage-reason]", |t| {
        t.contains("not image-grounded")
    })
    .await;
    click(c, "[data-testid=triage-item][data-ext-id='jg-006']").await;
    wait_text(c, "[data-testid=item-id]", |t| t == "jg-006").await;
    screenshot(c, "triage.png").await;
    show(c, "items").await;

    // Why a response failed: jg-001 was answered "OK"; tag its first result as OCR.
    search(c, "Cの値は").await;
    open_row(c, "jg-001").await;
    click(c, "[data-testid=failure-ocr]").await;
    let tagged = || {
        let p = assay_core::Project::open(project).unwrap();
        let id = p.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
        let results = p.item_results(id).unwrap();
        std::future::ready(results.iter().any(|r| r.failure_tags == ["ocr"]))
    };
    until(c, || "the tag was never stored".into(), tagged).await;
}

/// The sample as the demo opens it: three synthetic models' recorded answers, so Evaluation's
/// first screen has a before/after table, triage ranks the wrong reference first, and fixing it
/// with "update after each save" on changes the after score, with no model server (their
/// endpoints are a closed port).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sample_shows_results_without_a_model_server() {
    let s = Scenario::new("the sample shows results without a model server");
    assay_eval::demo::record_sample_runs(&s.project)
        .await
        .unwrap();
    let c = s.start_as("e2e-researcher", None).await;
    show(&c, "evaluation").await;
    let row = "[data-testid=ba-row]";
    wait_for(&c, row).await;
    let after = |c: &Client| {
        let c = c.clone();
        async move {
            wait_for(&c, "[data-testid=ba-after]")
                .await
                .text()
                .await
                .unwrap()
        }
    };
    let before_fix = after(&c).await;
    eprintln!("e2e: sample after score before the fix: {before_fix}");
    screenshot(&c, "evaluation-sample.png").await;
    click(&c, "[data-testid=live-update]").await;

    show(&c, "triage").await;
    wait_text(&c, "[data-testid=triage-item]", |t| t.ends_with("jg-006")).await;
    wait_text(&c, "[data-testid=triage-reason]", |t| {
        t.contains("likely wrong reference")
    })
    .await;
    click(&c, "[data-testid=triage-item][data-ext-id='jg-006']").await;
    wait_text(&c, "[data-testid=item-id]", |t| t == "jg-006").await;
    fill(&c, "[data-testid=answer]", "117").await;
    keys(&c, &[(None, '\u{E00C}')]).await;
    wait_text(&c, "[data-testid=save-state]", |t| t.starts_with("saved")).await;

    show(&c, "evaluation").await;
    // The after score as last seen: the first one other than before the fix.
    let moved = Mutex::new(String::new());
    {
        let (c, after, before_fix, moved) = (&c, &after, &before_fix, &moved);
        until(
            c,
            || "the after score never moved".into(),
            move || async move {
                let now = after(c).await;
                let changed = now != *before_fix;
                *moved.lock().unwrap() = now;
                changed
            },
        )
        .await;
    }
    let now = moved.into_inner().unwrap();
    let (a, b): (f64, f64) = (before_fix.parse().unwrap(), now.parse().unwrap());
    assert!(
        b > a,
        "fixing the reference raised the after score: {a} -> {b}"
    );
    // Re-scored from the recorded answers: every run finished, none with an error.
    wait_text(&c, "[data-testid=run-state]", |t| t == "finished").await;
    let p = assay_core::Project::open(&s.project).unwrap();
    assert!(p.run_summaries().unwrap().iter().all(|r| r.errors == 0));
    let runs = p.run_summaries().unwrap().len();
    drop(p);

    // A run's own results, an item opened from them beside the page and closed again.
    let strong_after = "//tr[@data-testid='run-row'][td[2]='synthetic-strong'][td[4]='after']";
    c.find(Locator::XPath(&format!(
        "{strong_after}//button[@data-testid='run-open']"
    )))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    wait_for(&c, "[data-testid=run-detail-line]").await;
    select(&c, "[data-testid=run-detail-only]", "wrong").await;
    wait_text(&c, "[data-testid=run-detail]", |t| t.contains("no results")).await;
    select(&c, "[data-testid=run-detail-only]", "").await;
    click(&c, "[data-testid=run-detail-line] [data-ext-id='jg-006']").await;
    wait_text(&c, "[data-testid=item-id]", |t| t == "jg-006").await;
    assert!(c
        .current_url()
        .await
        .unwrap()
        .as_str()
        .contains("#/evaluation/"));
    screenshot(&c, "run-detail.png").await;
    click(&c, "[data-testid=item-close]").await;
    assert!(c
        .current_url()
        .await
        .unwrap()
        .as_str()
        .ends_with("#/evaluation"));
    // Deleting a run takes a second click; the checklist judge's recorded run goes.
    let judge =
        "//tr[@data-testid='run-row'][td[2]='judge-recorded']//button[@data-testid='run-delete']";
    c.find(Locator::XPath(judge))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_text(&c, "[data-testid=run-delete]", |t| t.contains("really")).await;
    c.find(Locator::XPath(judge))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let project = &s.project;
    until(
        &c,
        || "the run was never deleted".into(),
        move || async move {
            assay_core::Project::open(project)
                .unwrap()
                .run_summaries()
                .unwrap()
                .len()
                == runs - 1
        },
    )
    .await;

    // A run's scores as a column of the item table: jg-006 right now, against the new answer.
    let strong = assay_core::Project::open(&s.project)
        .unwrap()
        .run_summaries()
        .unwrap()
        .into_iter()
        .find(|r| r.run.model == "synthetic-strong" && r.run.version == "after")
        .unwrap()
        .run
        .id;
    show(&c, "items").await;
    click(&c, "[data-testid=mode-table]").await;
    click(&c, "[data-testid=columns-open]").await;
    // The chooser opens over the table: a click on its box is checked to have landed (and
    // repeated if not) before the column's cell is read.
    let pick = format!("[data-testid='column-run:{strong}']");
    let cell = format!("[data-testid=table-row][data-ext-id='jg-006'] [data-col='run:{strong}']");
    // The cell's text at the last look.
    let shown = Mutex::new(serde_json::Value::Null);
    {
        let (c, pick, cell, shown) = (&c, &pick, &cell, &shown);
        until(
            c,
            || {
                format!(
                    "the run column never showed jg-006's score: {:?}",
                    shown.lock().unwrap()
                )
            },
            move || async move {
                let ticked = wait_for(c, pick).await.prop("checked").await.unwrap();
                if ticked.as_deref() != Some("true") {
                    click(c, pick).await;
                }
                let text = c
                    .execute(
                        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null",
                        vec![serde_json::Value::String(cell.clone())],
                    )
                    .await
                    .unwrap();
                let scored = text.as_str() == Some("1.00");
                *shown.lock().unwrap() = text;
                scored
            },
        )
        .await;
    }
    screenshot(&c, "table-run-column.png").await;
    c.close().await.unwrap();
}

/// A prompt template started from a built-in, saved, changed into a second version, saved
/// unchanged (no third), both versions readable; then offered by name and version in the run
/// form. A name only a built-in may take is refused with the store's reason.
async fn templates_in_the_window(c: &Client) {
    select(c, "[data-testid=template-builtin]", "default/short_answer").await;
    wait_value(
        c,
        "[data-testid=template-text]",
        "{question}\nAnswer the question using a single word or phrase.",
    )
    .await;
    // The store's reason, before anything is sent; the button waits for a name it takes.
    fill(c, "[data-testid=template-name]", "vague/mine").await;
    wait_text(c, "[data-testid=template-why-not]", |t| {
        t.contains("names a built-in template")
    })
    .await;
    assert!(!c
        .find(Locator::Css("[data-testid=template-save]"))
        .await
        .unwrap()
        .is_enabled()
        .await
        .unwrap());
    fill(c, "[data-testid=template-name]", "terse").await;
    click(c, "[data-testid=template-save]").await;
    wait_text(c, "[data-testid=template-result]", |t| {
        t == "Saved as terse@1"
    })
    .await;
    fill(
        c,
        "[data-testid=template-text]",
        "{question} One word, no sentence.",
    )
    .await;
    click(c, "[data-testid=template-save]").await;
    wait_text(c, "[data-testid=template-result]", |t| {
        t == "Saved as terse@2"
    })
    .await;
    click(c, "[data-testid=template-save]").await;
    wait_text(c, "[data-testid=template-result]", |t| {
        t == "Unchanged: still terse@2"
    })
    .await;
    wait_text(c, "[data-testid=template-row]", |t| {
        t.contains("v2") && t.contains("2 versions")
    })
    .await;
    wait_text(c, "[data-testid=template-body]", |t| {
        t.contains("One word, no sentence.")
    })
    .await;
    select(c, "[data-testid=template-version]", "1").await;
    wait_text(c, "[data-testid=template-body]", |t| {
        t.contains("single word or phrase")
    })
    .await;
    screenshot(c, "templates.png").await;
    // The judge prompts, read-only: CRAG-MM's QA judge sends the seed's system message and
    // asks only about the replies the exact match did not accept.
    let qa = "[data-testid=judge-prompt][data-scorer=crag_qa]";
    click(c, &format!("{qa} summary")).await;
    wait_text(c, &format!("{qa} summary"), |t| {
        t.contains("did not accept")
    })
    .await;
    wait_text(c, &format!("{qa} [data-testid=judge-prompt-system]"), |t| {
        t.starts_with("You will be given a question, a ground truth answer")
    })
    .await;
    wait_text(c, &format!("{qa} [data-testid=judge-prompt-user]"), |t| {
        t.contains("{question}") && t.contains("{response}")
    })
    .await;
    show(c, "evaluation").await;
    select(c, "[data-testid=run-template]", "terse@1").await;
    select(c, "[data-testid=run-template]", "").await;
    show(c, "models").await;
}
