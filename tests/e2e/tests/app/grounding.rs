//! Grounding: a target box drawn, moved and labelled, found again after a restart, on a machine
//! with a GPU and drawn the way one without draws; VAGUE's person indicators.

use std::path::Path;
use std::time::Duration;

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::{Client, Locator};

use crate::common::driver::app_processes;
use crate::common::fixtures::{stored, wait_stored, Scenario};
use crate::common::window::{
    click, fill, keys, open_row, screenshot, search, shift_ctrl_z, wait_for, wait_text, wait_value,
};
use crate::common::{until, CTRL, SHIFT};

/// Draw, move and label a target box; after a restart it is there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_a_target_box_and_restart() {
    let s = Scenario::new("draw a target box and restart");
    let c = s.start_as("e2e-annotator", None).await;
    draw_a_box_and_find_it_after_a_restart(&s, c).await;
}

async fn draw_a_box_and_find_it_after_a_restart(s: &Scenario, c: Client) {
    draw_and_label_a_target_box(&c, &s.project).await;
    c.close().await.unwrap();
    let c = s.launch().await;
    wait_for(&c, "[data-testid=item-row]").await;
    grounding_kept_after_restart(&c).await;
    c.close().await.unwrap();
}

/// The same, drawn the way a machine without a GPU draws (`src-tauri/src/rendering.rs`):
/// compositing, GTK's GL and the DMA-BUF renderer off, and no LLVM (Mesa's software GL) in the
/// app's own process. No screenshots on this path (see `Driver::start`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_a_target_box_without_a_gpu() {
    let s = Scenario::drawing("draw a target box without a GPU", Some("0"));
    let c = s.start_as("e2e-annotator", None).await;
    let apps = app_processes(&s.driver);
    assert!(!apps.is_empty(), "the app's process under tauri-driver");
    for pid in apps {
        let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).unwrap_or_default();
        assert!(
            !maps.contains("libLLVM") && !maps.contains("swrast_dri"),
            "Mesa's software GL is loaded in the app's process {pid}"
        );
    }
    draw_a_box_and_find_it_after_a_restart(&s, c).await;
}

const CR002: (&str, &str) = ("crag-mini", "cr-002");

/// Where the box is drawn: screen pixels up-left and down-right of the canvas's centre.
const DRAW_FROM: (f64, f64) = (60.0, 40.0);
const DRAW_TO: (f64, f64) = (45.0, 35.0);

async fn attr_f64(e: &fantoccini::elements::Element, name: &str) -> f64 {
    e.attr(name)
        .await
        .unwrap()
        .unwrap_or_default()
        .parse()
        .unwrap()
}

/// Draw a box with the mouse at a zoom other than 1, check the stored pixels, move it with the
/// keyboard, make the reference ambiguous and see the disambiguated question required, write
/// it, undo and redo.
async fn draw_and_label_a_target_box(c: &Client, project: &Path) {
    search(c, "doors").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        t.starts_with("1 items")
    })
    .await;
    open_row(c, "cr-002").await;
    let canvas = wait_for(c, "[data-testid=box-canvas]").await;
    canvas.click().await.unwrap();
    let fit = attr_f64(&canvas, "data-scale").await;
    keys(c, &[(None, '+'), (None, '+')]).await; // zoom in twice: not 1:1, not the fit
    let zoomed = &canvas;
    until(
        c,
        || format!("zoom stayed at the fit ({fit}) or 1:1"),
        move || async move {
            let scale = attr_f64(zoomed, "data-scale").await;
            (scale - fit).abs() >= 0.05 && (scale - 1.0).abs() >= 0.05
        },
    )
    .await;
    let scale = attr_f64(&canvas, "data-scale").await;
    click(c, "[data-testid=tool-draw]").await;
    let (tx, ty) = (
        attr_f64(&canvas, "data-tx").await,
        attr_f64(&canvas, "data-ty").await,
    );
    let rect = c
        .execute(
            "const r = document.querySelector('[data-testid=box-canvas]').getBoundingClientRect(); return [r.left, r.top, r.width, r.height];",
            vec![],
        )
        .await
        .unwrap();
    let n = |i: usize| rect[i].as_f64().unwrap();
    let (left, top, width, height) = (n(0), n(1), n(2), n(3));
    // Whole viewport pixels around the stage's centre, as a pointer reports them; the
    // expected image pixels follow from the view the canvas reports.
    let (cx, cy) = ((left + width / 2.0).round(), (top + height / 2.0).round());
    let a = (cx - DRAW_FROM.0, cy - DRAW_FROM.1);
    let b = (cx + DRAW_TO.0, cy + DRAW_TO.1);
    let image = |s: (f64, f64)| {
        (
            ((s.0 - left - tx) / scale).round(),
            ((s.1 - top - ty) / scale).round(),
        )
    };
    let mid = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    let mouse = MouseActions::new("mouse".into())
        .then(PointerAction::MoveTo {
            duration: None,
            x: a.0,
            y: a.1,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveTo {
            duration: Some(Duration::from_millis(100)),
            x: mid.0,
            y: mid.1,
        })
        .then(PointerAction::MoveTo {
            duration: Some(Duration::from_millis(100)),
            x: b.0,
            y: b.1,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    c.perform_actions(mouse).await.unwrap();
    c.release_actions().await.unwrap();
    let (ia, ib) = (image(a), image(b));
    let want = [ia.0, ia.1, ib.0, ib.1];
    eprintln!("e2e: drew at zoom {scale:.3}; expecting {want:?} in image pixels");
    let as_array = |b: &assay_core::BBox| [b.x_min, b.y_min, b.x_max, b.y_max];
    wait_stored(c, project, CR002, "the drawn box", |c| {
        c.images[0].target_boxes.len() == 2 && as_array(&c.images[0].target_boxes[1].bbox) == want
    })
    .await;
    wait_for(c, "[data-testid=box-hud]").await;
    screenshot(c, "grounding-draw.png").await;

    // The new box is selected: three pixels right, ten down (Shift).
    const RIGHT: char = '\u{E014}';
    const DOWN: char = '\u{E015}';
    keys(
        c,
        &[
            (None, RIGHT),
            (None, RIGHT),
            (None, RIGHT),
            (Some(SHIFT), DOWN),
        ],
    )
    .await;
    let moved = [want[0] + 3.0, want[1] + 10.0, want[2] + 3.0, want[3] + 10.0];
    wait_stored(c, project, CR002, "the nudged box", |c| {
        as_array(&c.images[0].target_boxes[1].bbox) == moved
    })
    .await;

    // Ambiguous (key W) without a disambiguated question: required, and not saved yet.
    keys(c, &[(None, 'w')]).await;
    wait_for(c, "[data-testid=disambiguated-required]").await;
    wait_for(c, "[data-testid=held]").await;
    screenshot(c, "grounding-ambiguous.png").await;
    assert_eq!(
        stored(project, CR002.0, CR002.1).ref_type,
        Some(assay_core::RefType::InImageCue)
    );
    fill(
        c,
        "[data-testid=disambiguated]",
        "How many doors does the red car on the left have?",
    )
    .await;
    keys(c, &[(None, '\u{E00C}')]).await; // Escape: blur, which saves
    wait_stored(c, project, CR002, "the ambiguous type", |c| {
        c.ref_type == Some(assay_core::RefType::Ambiguous)
            && c.disambiguated_question.as_deref()
                == Some("How many doors does the red car on the left have?")
    })
    .await;
    assert!(c
        .find(Locator::Css("[data-testid=disambiguated-required]"))
        .await
        .is_err());

    // Undo takes the type back; redo restores it.
    keys(c, &[(Some(CTRL), 'z')]).await;
    wait_stored(c, project, CR002, "the undo", |c| {
        c.ref_type == Some(assay_core::RefType::InImageCue)
    })
    .await;
    shift_ctrl_z(c).await;
    wait_stored(c, project, CR002, "the redo", |c| {
        c.ref_type == Some(assay_core::RefType::Ambiguous)
    })
    .await;

    // VAGUE: numbered indicators at each person box's centre.
    search(c, "").await;
    open_row(c, "vg-001").await;
    let n = c
        .find_all(Locator::Css("[data-testid=person-indicator]"))
        .await
        .unwrap()
        .len();
    assert_eq!(n, 3, "one indicator per person box");
    screenshot(c, "person-indicators.png").await;
    click(c, "[data-testid=indicators]").await;
    assert!(c
        .find(Locator::Css("[data-testid=person-indicator]"))
        .await
        .is_err());
    click(c, "[data-testid=indicators]").await;
}

/// After a restart the drawn, moved box and the ambiguous type with its question are there.
async fn grounding_kept_after_restart(c: &Client) {
    search(c, "doors").await;
    wait_text(c, "[data-testid=result-count]", |t| {
        t.starts_with("1 items")
    })
    .await;
    open_row(c, "cr-002").await;
    let boxes = c
        .find_all(Locator::Css("[data-testid=target-box]"))
        .await
        .unwrap();
    assert_eq!(boxes.len(), 2);
    let cls = wait_for(c, "[data-testid=ref-ambiguous]")
        .await
        .attr("class")
        .await
        .unwrap()
        .unwrap_or_default();
    assert!(cls.split_whitespace().any(|k| k == "active"), "{cls}");
    wait_value(
        c,
        "[data-testid=disambiguated]",
        "How many doors does the red car on the left have?",
    )
    .await;
    wait_for(c, "[data-testid=box-metrics]").await;
}
