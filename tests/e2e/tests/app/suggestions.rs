//! Model-assisted curation: checklists suggested through a stub model, then accepted, edited
//! and rejected, with their provenance and the acceptance table.

use std::path::Path;

use fantoccini::Client;

use crate::common::fixtures::{stored, wait_stored, Scenario};
use crate::common::until;
use crate::common::window::{
    click, fill, keys, open_row, screenshot, select, show, wait_for, wait_text,
};

/// Model-assisted curation in the window: checklists suggested for three picked items through
/// a stub model, then one accepted with the keyboard, one edited before accepting, one rejected
/// with a reason; the revisions name the suggestion and the person, and the acceptance table
/// counts each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suggest_checklists_then_accept_edit_and_reject_in_the_window() {
    use assay_eval::stub::{Reply, StubConfig, StubServer};
    let s = Scenario::new("suggest checklists and review them");
    let stub = StubServer::start(StubConfig {
        default_reply: Some(Reply::Text(
            "- 표지판의 뜻을 설명한다\n- 가야 할 방향을 안내한다".into(),
        )),
        ..Default::default()
    })
    .await
    .unwrap();
    {
        let p = assay_core::Project::open(&s.project).unwrap();
        assay_eval::model::save_model(
            &p,
            &assay_eval::ModelConfig {
                name: "drafter".into(),
                model: "o4-mini".into(),
                endpoints: vec![stub.url.clone()],
                ..Default::default()
            },
        )
        .unwrap();
    }
    let c = s.start_as("e2e-annotator", None).await;
    suggest_and_review(&c, &s.project, &stub).await;
    c.close().await.unwrap();
}

/// The stored suggestion fates of haerae-mini items, by ext id.
fn fates(project: &Path) -> Vec<(String, String)> {
    let p = assay_core::Project::open(project).unwrap();
    let mut out = Vec::new();
    for ext in ["101", "102", "103"] {
        let id = p.item_id_by_ext("haerae-mini", ext).unwrap();
        for s in p.item_suggestions(id).unwrap() {
            if let Some(f) = s.fate {
                out.push((ext.to_string(), f.decision));
            }
        }
    }
    out
}

async fn wait_fates(c: &Client, project: &Path, want: &[(&str, &str)]) {
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    until(
        c,
        || format!("suggestion fates are {:?}, not {want:?}", fates(project)),
        || std::future::ready(fates(project) == want),
    )
    .await;
}

async fn suggest_and_review(c: &Client, project: &Path, stub: &assay_eval::stub::StubServer) {
    show(c, "items").await;
    click(c, "[data-testid=facet-dataset][data-name=haerae-mini]").await;
    click(c, "[data-testid=mode-table]").await;
    for ext in ["101", "102", "103"] {
        click(
            c,
            &format!("[data-testid=table-row][data-ext-id='{ext}'] [data-testid=row-pick]"),
        )
        .await;
    }
    wait_text(c, "[data-testid=bulk-count]", |t| t == "3 selected").await;
    click(c, "[data-testid=bulk-suggest]").await;
    wait_for(c, "[data-testid=suggest-dialog]").await;
    select(c, "[data-testid=suggest-kind]", "checklist").await;
    select(c, "[data-testid=suggest-model]", "drafter").await;
    click(c, "[data-testid=suggest-estimate]").await;
    wait_text(c, "[data-testid=suggest-estimate-text]", |t| {
        t.contains("3 requests to send")
    })
    .await;
    click(c, "[data-testid=suggest-start]").await;
    wait_text(c, "[data-testid=suggest-status]", |t| {
        t.starts_with("done: 3/3")
    })
    .await;
    assert_eq!(stub.requests(), 3);
    // Nothing changed by itself: 101 still has its three criteria.
    assert_eq!(stored(project, "haerae-mini", "101").checklist.len(), 3);

    // 101: accepted with the keyboard, in the list view where the editor has room.
    click(c, "[data-testid=mode-list]").await;
    open_row(c, "101").await;
    let panel = wait_for(c, "[data-testid=suggestion][data-kind=checklist]").await;
    c.execute(
        "arguments[0].scrollIntoView({block: 'center'})",
        vec![serde_json::to_value(&panel).unwrap()],
    )
    .await
    .unwrap();
    screenshot(c, "suggestions.png").await;
    keys(c, &[(None, 'a')]).await;
    wait_stored(
        c,
        project,
        ("haerae-mini", "101"),
        "the accepted draft",
        |s| s.checklist == ["표지판의 뜻을 설명한다", "가야 할 방향을 안내한다"],
    )
    .await;
    wait_fates(c, project, &[("101", "accepted")]).await;

    // 102: edited, then accepted.
    open_row(c, "102").await;
    fill(c, "[data-testid=suggestion-text]", "표지판의 뜻을 설명한다").await;
    click(c, "[data-testid=suggestion-accept]").await;
    wait_stored(
        c,
        project,
        ("haerae-mini", "102"),
        "the edited draft",
        |s| s.checklist == ["표지판의 뜻을 설명한다"],
    )
    .await;
    wait_fates(c, project, &[("101", "accepted"), ("102", "edited")]).await;

    // 103: rejected with a reason; the item keeps its checklist.
    open_row(c, "103").await;
    let before = stored(project, "haerae-mini", "103").checklist;
    fill(c, "[data-testid=suggestion-reason]", "not about the price").await;
    click(c, "[data-testid=suggestion-reject]").await;
    wait_for(c, "[data-testid=suggestion-decided]").await;
    wait_fates(
        c,
        project,
        &[("101", "accepted"), ("102", "edited"), ("103", "rejected")],
    )
    .await;
    assert_eq!(stored(project, "haerae-mini", "103").checklist, before);

    // Provenance: each written revision names the suggestion, the model and the person.
    let p = assay_core::Project::open(project).unwrap();
    for ext in ["101", "102"] {
        let id = p.item_id_by_ext("haerae-mini", ext).unwrap();
        let last = p.revisions(id).unwrap().pop().unwrap();
        assert_eq!(last.author.as_deref(), Some("e2e-annotator"));
        assert!(last.suggestion.is_some(), "{ext}: no suggestion linked");
        let note = last.note.unwrap_or_default();
        assert!(
            note.contains("suggestion #") && note.contains("drafter"),
            "{ext}: {note}"
        );
    }

    // The acceptance table in the Evaluation view.
    show(c, "evaluation").await;
    let row = "[data-testid=suggestion-report-row][data-kind=checklist][data-model=drafter]";
    wait_text(c, &format!("{row} [data-testid=report-accepted]"), |t| {
        t == "1"
    })
    .await;
    wait_text(c, &format!("{row} [data-testid=report-edited]"), |t| {
        t == "1"
    })
    .await;
    wait_text(c, &format!("{row} [data-testid=report-rejected]"), |t| {
        t == "1"
    })
    .await;
    // The panel sits low in a long view.
    let report = wait_for(c, "[data-testid=suggestion-report] svg").await;
    c.execute(
        "arguments[0].closest('section').scrollIntoView({block: 'start'})",
        vec![serde_json::to_value(&report).unwrap()],
    )
    .await
    .unwrap();
    screenshot(c, "suggestion-report.png").await;
}
