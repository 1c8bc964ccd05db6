//! A checklist refined and rated, and phase-1 filtering: a flagged item leaves the kept set and
//! the funnel.

use std::path::Path;

use fantoccini::{Client, Locator};

use crate::common::fixtures::{stored, wait_stored, Scenario};
use crate::common::window::{
    click, fill, keys, open_row, screenshot, search, show, wait_for, wait_text,
};
use crate::common::CTRL;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refine_a_checklist_and_filter_in_phase_1() {
    let s = Scenario::new("refine a checklist and filter");
    let c = s.start_as("e2e-annotator", None).await;
    refine_a_checklist_and_filter(&c, &s.project).await;
    c.close().await.unwrap();
}

const H101: (&str, &str) = ("haerae-mini", "101");

async fn funnel_last(c: &Client) -> i64 {
    show(c, "filtering").await;
    wait_for(c, "[data-testid=funnel-chart] svg").await;
    let cells = c
        .find_all(Locator::Css("[data-testid=funnel-survivors]"))
        .await
        .unwrap();
    let n = cells.last().unwrap().text().await.unwrap().parse().unwrap();
    screenshot(c, "funnel.png").await;
    show(c, "items").await;
    n
}

/// HAERAE-Vision: add a criterion, reorder, delete, undo; write an explicit rewrite; flag the
/// item in phase 1 and see it leave the kept set and the funnel.
async fn refine_a_checklist_and_filter(c: &Client, project: &Path) {
    search(c, "무슨 뜻이에요").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        t.starts_with("1 items")
    })
    .await;
    open_row(c, "101").await;
    let original = stored(project, H101.0, H101.1).checklist;
    assert_eq!(original.len(), 3);

    click(c, "[data-testid=criterion-add]").await;
    let inputs = c
        .find_all(Locator::Css("[data-testid=criterion]"))
        .await
        .unwrap();
    assert_eq!(inputs.len(), 4);
    inputs[3].send_keys("비상구 위치를 안내한다").await.unwrap();
    keys(c, &[(None, '\u{E00C}')]).await; // Escape: blur, which saves
    wait_stored(c, project, H101, "the added criterion", |s| {
        s.checklist.len() == 4
    })
    .await;

    let ups = c
        .find_all(Locator::Css("[data-testid=criterion-up]"))
        .await
        .unwrap();
    ups[3].click().await.unwrap();
    wait_stored(c, project, H101, "the reorder", |s| {
        s.checklist.get(2).map(String::as_str) == Some("비상구 위치를 안내한다")
    })
    .await;

    let deletes = c
        .find_all(Locator::Css("[data-testid=criterion-delete]"))
        .await
        .unwrap();
    deletes[0].click().await.unwrap();
    wait_stored(c, project, H101, "the deletion", |s| {
        s.checklist.len() == 3 && s.checklist[0] == original[1]
    })
    .await;
    keys(c, &[(Some(CTRL), 'z')]).await;
    wait_stored(c, project, H101, "the undo", |s| {
        s.checklist.len() == 4 && s.checklist[0] == original[0]
    })
    .await;
    screenshot(c, "checklist.png").await;

    fill(
        c,
        "[data-testid=explicit-question]",
        "초록색 비상구 표지판에 쓰인 EXIT는 무슨 뜻인가요?",
    )
    .await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_stored(c, project, H101, "the explicit rewrite", |s| {
        s.explicit_question.as_deref() == Some("초록색 비상구 표지판에 쓰인 EXIT는 무슨 뜻인가요?")
    })
    .await;

    // The recorded checklist judgement: rate criterion 2 "met" over the judge's "not met";
    // the item's score goes from 0.5 to 2.5/3 and so does S_final (the run's only item).
    wait_text(c, "[data-testid=item-score]", |t| t == "0.500").await;
    let selects = c
        .find_all(Locator::Css("[data-testid=criterion-rating]"))
        .await
        .unwrap();
    selects[1]
        .find(Locator::Css("option[value='1']"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_text(c, "[data-testid=item-score]", |t| t == "0.833").await;
    wait_text(c, "[data-testid=run-score]", |t| t == "0.833").await;
    screenshot(c, "checklist-overrule.png").await;
    {
        let p = assay_core::Project::open(project).unwrap();
        let id = p.item_id_by_ext("haerae-mini", "101").unwrap();
        let r = &p.item_results(id).unwrap()[0];
        assert_eq!(r.score, Some(0.5), "the judge's score is kept");
        assert!((r.overruled.unwrap() - 2.5 / 3.0).abs() < 1e-12);
        let s_final = assay_eval::table::run_score(&p, r.run.id).unwrap().unwrap();
        assert!((s_final - 2.5 / 3.0).abs() < 1e-12);
    }

    // Phase 1: one flag removes the item from the kept set and the funnel's last step.
    let before = funnel_last(c).await;
    click(c, "[data-testid=flag-overall]").await;
    wait_text(c, "[data-testid=kept-state]", |t| {
        t.contains("removed in phase 1")
    })
    .await;
    let after = funnel_last(c).await;
    assert_eq!(after, before - 1, "the funnel lost the flagged item");
    click(c, "[data-testid=clear-filters]").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        t.starts_with("23 items")
    })
    .await;
    click(c, "[data-testid=filter-kept]").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        t.starts_with("22 items")
    })
    .await;
    assert!(c.find(Locator::Css("[data-ext-id='101']")).await.is_err());
    click(c, "[data-testid=filter-kept]").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        t.starts_with("23 items")
    })
    .await;
}
