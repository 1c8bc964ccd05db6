//! Import as a page: a published file previewed with its detected layout, a file no layout
//! fits mapped by hand while its first records show what each change makes of them, the whole
//! file checked, imported, and the new items found in the table.

use fantoccini::Locator;

use crate::common::fixtures::Scenario;
use crate::common::window::{accessible, click, fill, screenshot, show, wait_for, wait_text};
use crate::common::{root, until};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_a_file_through_the_import_view() {
    let s = Scenario::new("import view");
    let c = s.start_as("e2e-annotator", None).await;
    show(&c, "import").await;
    wait_text(&c, "[data-testid=import-empty]", |t| {
        t.contains("Choose a data file")
    })
    .await;
    wait_text(&c, "[data-testid=import-why-not]", |t| {
        t.contains("choose a data file")
    })
    .await;

    // A published layout is told from its fields; its records show as items, images read.
    let haerae = root().join("tests/fixtures/formats/haerae-vision/data/train.jsonl");
    fill(
        &c,
        "[data-testid=import-path]",
        &haerae.display().to_string(),
    )
    .await;
    wait_text(&c, "[data-testid=import-summary]", |t| {
        t.contains("layout haerae-vision (detected)")
            && t.contains("make items")
            && !t.contains("problems")
    })
    .await;
    let field_read = |name: &str| {
        format!("[data-testid=import-field][data-field='{name}'] [data-testid=import-field-read]")
    };
    wait_text(&c, &field_read("checklist"), |t| t == "checklist").await;
    wait_for(&c, "[data-testid=import-record]").await;

    // A file no layout fits: the reason, its fields, and nothing to import until mapped.
    let survey = s.project.with_file_name("survey.csv");
    std::fs::write(
        &survey,
        "uid,prompt,gold,annotator\nq1,What colour is the sky?,blue,ann\nq2,<b>How many</b> legs?,4,bo\nq3,How many wheels?,,cy\n",
    )
    .unwrap();
    fill(
        &c,
        "[data-testid=import-path]",
        &survey.display().to_string(),
    )
    .await;
    wait_text(&c, "[data-testid=import-mapping-error]", |t| {
        t.contains("cannot tell the layout")
    })
    .await;
    wait_text(&c, "[data-testid=import-why-not]", |t| {
        t.contains("the layout cannot be told")
    })
    .await;
    assert!(
        wait_for(&c, "[data-testid=import-run]")
            .await
            .attr("disabled")
            .await
            .unwrap()
            .is_some(),
        "import is offered disabled, with the reason"
    );
    wait_text(&c, &field_read("prompt"), |t| t == "kept as metadata").await;

    // Mapped by hand: the preview follows each field.
    fill(&c, "[data-testid=map-question]", "prompt").await;
    fill(&c, "[data-testid=map-answer]", "gold").await;
    fill(&c, "[data-testid=map-id]", "uid").await;
    wait_text(&c, &field_read("prompt"), |t| t == "question").await;
    wait_text(&c, &field_read("annotator"), |t| t == "kept as metadata").await;
    wait_text(&c, "[data-testid=import-summary]", |t| {
        t.contains("mapped by hand") && t.contains("first 3: 3 make items")
    })
    .await;
    // Dataset text is shown as text: no element is made of it.
    until(
        &c,
        || "the second record's question never showed as text".into(),
        || async {
            let shown = c
                .find_all(Locator::Css("[data-testid=import-record-question]"))
                .await
                .unwrap_or_default();
            match shown.get(1) {
                Some(e) => e.text().await.unwrap_or_default() == "<b>How many</b> legs?",
                None => false,
            }
        },
    )
    .await;
    assert!(c
        .find(Locator::Css("[data-testid=import-record-question] b"))
        .await
        .is_err());
    fill(&c, "[data-testid=import-name]", "survey").await;
    accessible(&c, "import").await;
    screenshot(&c, "import.png").await;

    // The whole file checked, then imported with the mapping shown.
    click(&c, "[data-testid=import-check]").await;
    wait_text(&c, "[data-testid=import-report]", |t| {
        t.starts_with("Would import 3 items as survey")
    })
    .await;
    click(&c, "[data-testid=import-run]").await;
    wait_text(&c, "[data-testid=import-report]", |t| {
        t.starts_with("Imported 3 items as survey")
    })
    .await;
    let p = assay_core::Project::open(&s.project).unwrap();
    let q2 = p.item(p.item_id_by_ext("survey", "q2").unwrap()).unwrap();
    assert_eq!(q2.content.question, "<b>How many</b> legs?");
    assert_eq!(q2.content.answer.as_deref(), Some("4"));
    assert_eq!(q2.content.metadata["annotator"], "bo");
    let q3 = p.item(p.item_id_by_ext("survey", "q3").unwrap()).unwrap();
    assert_eq!(q3.content.answer, None, "an empty cell is no answer");

    // Importing the same file again under the same name is refused with the store's reason,
    // and nothing is added.
    let items = |p: &assay_core::Project| -> i64 {
        p.connection()
            .query_row("SELECT count(*) FROM items", [], |r| r.get(0))
            .unwrap()
    };
    let count = items(&p);
    click(&c, "[data-testid=import-run]").await;
    wait_text(&c, "[data-testid=import-error]", |t| {
        t.contains("a dataset named \"survey\" already exists")
    })
    .await;
    assert_eq!(items(&p), count, "nothing was added");
    show(&c, "items").await;
    wait_text(&c, "[data-testid=result-count]", |t| {
        t.starts_with(&format!("{count} items"))
    })
    .await;
    c.close().await.unwrap();
}
