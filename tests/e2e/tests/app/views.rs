//! The workspace as pages, and the items as a table: sorting, columns, a bulk action on picked
//! rows and its undo, a saved view, the palette.

use std::path::Path;

use fantoccini::Client;

use crate::common::fixtures::Scenario;
use crate::common::until;
use crate::common::window::{
    click, fill, keys, screenshot, select, show, wait_for, wait_inner_text, wait_text,
};

/// The workspace as pages: every view reached by the rail and by its URL (back and forward
/// too); the items as a table, three picked with Ctrl- and Shift-clicks, one bulk action on
/// them and its undo as one step; a saved view; the palette running an action.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_table_and_bulk_actions_in_the_window() {
    let s = Scenario::new("views, table and bulk actions");
    recorded_run(&s.project);
    let c = s.start_as("e2e-annotator", None).await;
    views_table_and_bulk(&c, &s.project).await;
    c.close().await.unwrap();
}

/// A model's recorded run on jgraph-mini, scoring jg-005 highest, for the table's run column.
fn recorded_run(project: &Path) {
    use assay_core::store::evaluation::runs::{RecordedResult, RunKey};
    let mut p = assay_core::Project::open(project).unwrap();
    let cfg = r#"{"name":"table-model","model":"m","endpoints":["http://127.0.0.1:9/v1"]}"#;
    let model_id = p.ensure_model_config("table-model", cfg).unwrap();
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let key = RunKey {
        model_id,
        dataset_id: ds,
        version: assay_core::Version::Before,
        variant: "original".into(),
        run_index: 1,
        template: "default".into(),
        scorer: "soft_match".into(),
        source: "recorded".into(),
        protocol: None,
    };
    let results: Vec<RecordedResult> = p
        .item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|(item_id, ext)| {
            let score = if ext == "jg-005" { 1.0 } else { 0.5 };
            let rev = p.item(item_id).unwrap().rev;
            RecordedResult::plain(
                item_id,
                rev,
                "scored",
                Some(score),
                "soft_match",
                format!("reply to {ext}"),
            )
        })
        .collect();
    p.record_run(&key, &results, "complete").unwrap();
}

fn ops_of(project: &Path, exts: &[&str]) -> Vec<Option<assay_core::RefinementOp>> {
    let p = assay_core::Project::open(project).unwrap();
    exts.iter()
        .map(|e| {
            p.item(p.item_id_by_ext("jgraph-mini", e).unwrap())
                .unwrap()
                .op
        })
        .collect()
}

async fn views_table_and_bulk(c: &Client, project: &Path) {
    const VIEWS: [&str; 8] = [
        "items",
        "evaluation",
        "triage",
        "review",
        "filtering",
        "team",
        "models",
        "settings",
    ];
    // Every view by the rail, each marked current and shown alone.
    for v in VIEWS {
        show(c, v).await;
        let link = wait_for(c, &format!("[data-testid=nav-{v}]")).await;
        assert_eq!(
            link.attr("aria-current").await.unwrap().as_deref(),
            Some("page")
        );
        assert!(c
            .current_url()
            .await
            .unwrap()
            .as_str()
            .ends_with(&format!("#/{v}")));
        // Each view looked at (and checked with axe-core first).
        screenshot(c, &format!("view-{v}.png")).await;
    }
    // By URL, and back: the hash is the place.
    c.execute("location.hash = '#/triage'", vec![])
        .await
        .unwrap();
    wait_for(c, "[data-testid=view-triage]").await;
    c.execute("location.hash = '#/team'", vec![]).await.unwrap();
    wait_for(c, "[data-testid=view-team]:not([hidden])").await;
    c.back().await.unwrap();
    wait_for(c, "[data-testid=view-triage]").await;
    assert!(c
        .current_url()
        .await
        .unwrap()
        .as_str()
        .ends_with("#/triage"));

    // The items as a table.
    show(c, "items").await;
    click(c, "[data-testid=facet-dataset][data-name=jgraph-mini]").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        !t.starts_with("23 items")
    })
    .await;
    let jgraph = wait_for(c, "[data-testid=result-count]")
        .await
        .text()
        .await
        .unwrap();
    // "12 items · 3 ms": the count, not the time.
    let jgraph = jgraph.split('·').next().unwrap().trim().to_string();
    click(c, "[data-testid=mode-table]").await;
    wait_for(c, "[data-testid=table-row][data-ext-id='jg-001']").await;
    // Sorted by the store: ID descending, then ascending, then dataset order.
    click(c, "[data-testid=sort-ext_id]").await;
    click(c, "[data-testid=sort-ext_id]").await;
    wait_inner_text(c, "[data-testid=table-row] [data-col=ext_id]", |t| {
        t != "jg-001"
    })
    .await;
    click(c, "[data-testid=sort-ext_id]").await;
    wait_inner_text(c, "[data-testid=table-row] [data-col=ext_id]", |t| {
        t == "jg-001"
    })
    .await;
    // A column added from the chooser.
    click(c, "[data-testid=columns-open]").await;
    click(c, "[data-testid=column-category]").await;
    wait_for(c, "[data-testid=table-row] [data-col=category]").await;
    // A run's score as a column, sorted by the store, highest first: the order the store gives
    // for that run (checked to differ from the dataset's order first).
    let (run, best) = {
        use assay_core::store::{Filter, Page, Sort, SortColumn};
        let p = assay_core::Project::open(project).unwrap();
        let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
        let first = |run: i64| -> String {
            let f = Filter {
                datasets: vec![ds],
                sort: Some(Sort {
                    column: SortColumn::RunScore,
                    desc: true,
                    run: Some(run),
                }),
                ..Default::default()
            };
            p.query(&f, Page::default()).unwrap().rows[0].ext_id.clone()
        };
        p.run_summaries()
            .unwrap()
            .into_iter()
            .filter(|r| r.run.dataset == "jgraph-mini")
            .map(|r| (r.run.id, first(r.run.id)))
            .find(|(_, best)| best != "jg-001")
            .expect("a jgraph-mini run whose best item is not the first")
    };
    click(c, &format!("[data-testid='column-run:{run}']")).await;
    click(c, "[data-testid=columns-open]").await;
    click(c, &format!("[data-testid='sort-run:{run}']")).await;
    click(c, &format!("[data-testid='sort-run:{run}']")).await;
    wait_inner_text(c, "[data-testid=table-row] [data-col=ext_id]", |t| {
        t == best
    })
    .await;
    // Back to dataset order (a third click), as the rest expects.
    click(c, &format!("[data-testid='sort-run:{run}']")).await;
    wait_inner_text(c, "[data-testid=table-row] [data-col=ext_id]", |t| {
        t == "jg-001"
    })
    .await;

    // Three picked: the box of jg-002, Shift-click to jg-004 (jg-003 between).
    let before = ops_of(project, &["jg-002", "jg-003", "jg-004", "jg-005"]);
    click(
        c,
        "[data-testid=table-row][data-ext-id='jg-002'] [data-testid=row-pick]",
    )
    .await;
    // WebKitWebDriver has no pointer actions with a held key: the same click event, Shift set.
    let row4 = wait_for(
        c,
        "[data-testid=table-row][data-ext-id='jg-004'] [data-testid=row-pick]",
    )
    .await;
    c.execute(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, shiftKey: true}))",
        vec![serde_json::to_value(&row4).unwrap()],
    )
    .await
    .unwrap();
    wait_text(c, "[data-testid=bulk-count]", |t| t == "3 selected").await;
    screenshot(c, "table.png").await;
    select(c, "[data-testid=bulk-op]", "remove").await;
    // Choosing alone changes nothing, the button applies it: the action reports all three as
    // changed, which it could not had choosing already set their operation.
    click(c, "[data-testid=bulk-op-apply]").await;
    wait_text(c, "[data-testid=bulk-result]", |t| {
        t.contains("3 changed") && !t.contains("already so")
    })
    .await;
    until(
        c,
        || "the bulk operation was never stored".into(),
        move || async move {
            ops_of(project, &["jg-002", "jg-003", "jg-004"])
                == vec![Some(assay_core::RefinementOp::Remove); 3]
        },
    )
    .await;
    assert_eq!(
        ops_of(project, &["jg-005"]),
        before[3..].to_vec(),
        "only the three"
    );
    wait_inner_text(
        c,
        "[data-testid=table-row][data-ext-id='jg-003'] [data-col=op]",
        |t| t == "Remove",
    )
    .await;
    screenshot(c, "bulk.png").await;
    click(c, "[data-testid=bulk-undo]").await;
    wait_text(c, "[data-testid=bulk-result]", |t| {
        t.starts_with("undo:") && t.contains("3 changed")
    })
    .await;
    assert_eq!(
        ops_of(project, &["jg-002", "jg-003", "jg-004", "jg-005"]),
        before,
        "undone in one step"
    );
    {
        // One revision each way per item: the action and its undo.
        let p = assay_core::Project::open(project).unwrap();
        let h = p
            .revisions(p.item_id_by_ext("jgraph-mini", "jg-003").unwrap())
            .unwrap();
        assert_eq!(h.len(), 3);
        assert_eq!(
            h[2].note
                .as_deref()
                .map(|n| n.starts_with("undo of bulk action")),
            Some(true)
        );
    }

    // A saved view keeps the filter and the columns.
    click(c, "[data-testid=view-new]").await;
    fill(c, "[data-testid=view-name]", "jgraph early").await;
    click(c, "[data-testid=view-save]").await;
    wait_text(c, "[data-testid=saved-views]", |t| {
        t.contains("jgraph early")
    })
    .await;
    click(c, "[data-testid=clear-filters]").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        t.starts_with("23 items")
    })
    .await;
    let views = wait_for(c, "[data-testid=saved-views]").await;
    let value = c
        .execute(
            "return [...arguments[0].options].find(o => o.text.startsWith('jgraph early')).value",
            vec![serde_json::to_value(&views).unwrap()],
        )
        .await
        .unwrap();
    select(c, "[data-testid=saved-views]", value.as_str().unwrap()).await;
    wait_text(c, "[data-testid=result-count]", |t| t.starts_with(&jgraph)).await;
    let picked = wait_for(c, "[data-testid=facet-dataset][data-name=jgraph-mini]").await;
    assert_eq!(
        picked.prop("checked").await.unwrap().as_deref(),
        Some("true")
    );

    // The palette runs an action: Go to Models.
    click(c, "[data-testid=palette-open]").await;
    fill(c, "[data-testid=palette-input]", "go to models").await;
    keys(c, &[(None, '\u{E007}')]).await;
    wait_for(c, "[data-testid=view-models]:not([hidden])").await;
    assert!(c
        .current_url()
        .await
        .unwrap()
        .as_str()
        .ends_with("#/models"));
}

/// A dataset exported from Settings as a Hugging Face folder: the result names where the files
/// are, and they are there (the card, both splits, the changelog); a folder left empty is
/// refused with the reason before anything is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_a_dataset_from_the_window() {
    let s = Scenario::new("export from the window");
    let c = s.start_as("e2e-annotator", None).await;
    let out = s.project.with_file_name("hf-export");
    show(&c, "settings").await;
    select(&c, "[data-testid=export-dataset]", "jgraph-mini").await;
    select(&c, "[data-testid=export-format]", "hf").await;
    wait_text(&c, "[data-testid=export-format-what]", |t| {
        t.contains("Hugging Face dataset folder")
    })
    .await;
    fill(&c, "[data-testid=export-dir]", " ").await;
    wait_text(&c, "[data-testid=export-why]", |t| {
        t.contains("choose a folder")
    })
    .await;
    fill(&c, "[data-testid=export-dir]", out.to_str().unwrap()).await;
    click(&c, "[data-testid=export-run]").await;
    let result = wait_text(&c, "[data-testid=export-result]", |t| {
        t.contains("written to")
    })
    .await;
    assert!(
        result.starts_with("12 items (and 12 in the original split)"),
        "{result}"
    );
    assert!(result.contains(out.to_str().unwrap()), "{result}");
    for file in [
        "README.md",
        "changelog.csv",
        "data/original-00000-of-00001.parquet",
        "data/refined-00000-of-00001.parquet",
    ] {
        assert!(out.join(file).is_file(), "{file} was not written");
    }
    screenshot(&c, "export.png").await;
    // The page stays as it was left: the export's result is still there after a visit elsewhere.
    show(&c, "items").await;
    show(&c, "settings").await;
    wait_text(&c, "[data-testid=export-result]", |t| {
        t.contains("written to")
    })
    .await;

    // Boxes for another tool: COCO from the CRAG sample, then read back (the same boxes: every
    // set matches, no item changes), then a file that is not COCO, refused with its name.
    let boxes_dir = s.project.with_file_name("boxes");
    select(&c, "[data-testid=boxes-dataset]", "crag-mini").await;
    select(&c, "[data-testid=boxes-format]", "coco").await;
    fill(&c, "[data-testid=boxes-dir]", boxes_dir.to_str().unwrap()).await;
    click(&c, "[data-testid=boxes-export]").await;
    let exported = wait_text(&c, "[data-testid=boxes-exported]", |t| {
        t.contains("written to")
    })
    .await;
    let coco_file = boxes_dir.join("crag-mini.boxes.coco.json");
    assert!(exported.contains(coco_file.to_str().unwrap()), "{exported}");
    let coco: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&coco_file).unwrap()).unwrap();
    let written = coco["annotations"].as_array().unwrap().len();
    assert!(written > 0);
    assert!(
        exported.starts_with(&format!("{written} boxes on ")),
        "{exported}"
    );
    fill(&c, "[data-testid=boxes-file]", coco_file.to_str().unwrap()).await;
    click(&c, "[data-testid=boxes-import]").await;
    let imported = wait_text(&c, "[data-testid=boxes-imported]", |t| {
        t.contains("matched")
    })
    .await;
    assert!(
        imported.contains("; 0 items got a new revision"),
        "{imported}"
    );
    let broken = boxes_dir.join("not-coco.json");
    std::fs::write(&broken, "{\"images\": 3}").unwrap();
    fill(&c, "[data-testid=boxes-file]", broken.to_str().unwrap()).await;
    click(&c, "[data-testid=boxes-import]").await;
    let refused = wait_text(&c, "[data-testid=boxes-error]", |t| !t.is_empty()).await;
    assert!(refused.contains("not-coco.json"), "{refused}");

    // Boxes a model wrote, in 0-1000 coordinates: a reply with no box is refused with its file
    // and line and nothing is saved; then cr-001's box is saved as the user's revision, mapped
    // onto the image's own pixels.
    let before = crate::common::fixtures::stored(&s.project, "crag-mini", "cr-001");
    let (w, h) = (
        before.images[0].width as f64,
        before.images[0].height as f64,
    );
    let replies = boxes_dir.join("replies.jsonl");
    std::fs::write(
        &replies,
        "{\"id\":\"cr-001\",\"response\":\"The car: [100, 200, 500, 600]\"}\n{\"id\":\"cr-002\",\"response\":\"I cannot tell.\"}\n",
    )
    .unwrap();
    select(&c, "[data-testid=boxes-import-kind]", "model-output").await;
    select(&c, "[data-testid=boxes-convention]", "normalized-1000").await;
    fill(&c, "[data-testid=boxes-file]", replies.to_str().unwrap()).await;
    click(&c, "[data-testid=boxes-import]").await;
    wait_text(&c, "[data-testid=boxes-error]", |t| {
        t.contains("replies.jsonl:2") && t.contains("no box")
    })
    .await;
    assert_eq!(
        crate::common::fixtures::stored(&s.project, "crag-mini", "cr-001"),
        before,
        "nothing is saved when one line is refused"
    );
    std::fs::write(
        &replies,
        "{\"id\":\"cr-001\",\"response\":\"The car: [100, 200, 500, 600]\"}\n",
    )
    .unwrap();
    click(&c, "[data-testid=boxes-import]").await;
    wait_text(&c, "[data-testid=boxes-imported]", |t| {
        t.starts_with("1 box sets matched; 1 items got a new revision")
    })
    .await;
    let after = crate::common::fixtures::stored(&s.project, "crag-mini", "cr-001");
    let b = &after.images[0].target_boxes[0].bbox;
    for (got, want) in [
        (b.x_min, 0.1 * w),
        (b.y_min, 0.2 * h),
        (b.x_max, 0.5 * w),
        (b.y_max, 0.6 * h),
    ] {
        assert!((got - want).abs() < 1.0, "{b:?} on {w}x{h}");
    }

    // Compacting from the same page: the file is rewritten, and the project still opens on
    // the same items.
    click(&c, "[data-testid=compact-run]").await;
    let compacted = wait_text(&c, "[data-testid=compact-result]", |t| {
        t.contains("free pages given back")
    })
    .await;
    assert!(compacted.contains(" MB → "), "{compacted}");
    let p = assay_core::Project::open(&s.project).unwrap();
    let items: i64 = p.datasets().unwrap().iter().map(|d| d.item_count).sum();
    assert_eq!(items, 23);
    c.close().await.unwrap();
}
