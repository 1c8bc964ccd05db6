//! The benchmark of opening and scrolling a large project (`cargo xtask bench-open`).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::Client;
use serde_json::json;

use crate::common::driver::{launch, Driver};
use crate::common::window::{click, fill, screenshot, wait_for, wait_text};
use crate::common::WAIT;

/// What the item list shows inside its viewport: (list index, ext id) of each row drawn there,
/// and whether a row still waiting for its page is in view.
async fn rows_in_view(c: &Client) -> (Vec<(i64, String)>, bool) {
    let v = c
        .execute(
            "const l = document.querySelector('[data-testid=item-list]');
             if (!l) return null;
             const box = l.getBoundingClientRect();
             const inView = (e) => { const r = e.getBoundingClientRect(); return r.bottom > box.top + 1 && r.top < box.bottom - 1; };
             const rows = [...l.querySelectorAll('[data-testid=item-row]')].filter(inView)
               .map((e) => [Number(e.dataset.index), e.dataset.extId]);
             const waiting = [...l.querySelectorAll('[data-testid=row-placeholder]')].some(inView);
             return [rows, waiting];",
            vec![],
        )
        .await
        .unwrap_or_default();
    let rows = v[0]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    (
                        r[0].as_i64().unwrap_or(-1),
                        r[1].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (rows, v[1].as_bool().unwrap_or(true))
}

/// Moves the item list to `fraction` of its scroll range and waits until the rows in view are
/// drawn (no row waiting for its page); returns them and how long that took.
async fn jump_list(c: &Client, fraction: f64) -> (Vec<(i64, String)>, Duration) {
    let start = Instant::now();
    c.execute(
        "const l = document.querySelector('[data-testid=item-list]');
         l.scrollTop = (l.scrollHeight - l.clientHeight) * arguments[0];",
        vec![json!(fraction)],
    )
    .await
    .unwrap();
    loop {
        let (rows, waiting) = rows_in_view(c).await;
        if !rows.is_empty() && !waiting {
            return (rows, start.elapsed());
        }
        assert!(start.elapsed() < WAIT, "the list never drew its rows");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Benchmark, not run by `cargo xtask test`: opens the project named by `ASSAY_BENCH_PROJECT`
/// (a large one: `cargo xtask bench-open`), times the first page after Start, jumps through the
/// list, and scrolls it with the wheel for three seconds, printing frame times and how many
/// frames had a row still waiting for its page. Asserts the rows drawn are the store's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark: needs ASSAY_BENCH_PROJECT (cargo xtask bench-open)"]
async fn bench_open_and_scroll_a_large_project() {
    use assay_core::store::items::query::{Filter, Page};
    let project = PathBuf::from(
        std::env::var_os("ASSAY_BENCH_PROJECT").expect("ASSAY_BENCH_PROJECT: a project file"),
    );
    // Run alone (by name), so it takes no turn among the scenarios.
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("ASSAY_CONFIG_DIR", dir.path().join("config"));
    // The store, read beside the window: the list's length and the ext id at a place in it.
    let store = assay_core::Project::open(&project).unwrap();
    let nth = |i: i64| {
        let r = store
            .query(
                &Filter::default(),
                Page {
                    offset: i,
                    limit: 1,
                },
            )
            .unwrap();
        (r.total, r.rows[0].ext_id.clone())
    };
    let (total, first_ext) = nth(0);
    let last_ext = nth(total - 1).1;
    let driver = Driver::start(None);
    let launched = Instant::now();
    let c = launch(&driver, &project).await;
    let window = launched.elapsed();
    fill(&c, "[data-testid=user-name]", "bench").await;
    wait_for(&c, "[data-testid=chosen-project]").await;
    let started = Instant::now();
    click(&c, "[data-testid=start]").await;
    let first = wait_for(&c, "[data-testid=item-row]").await;
    let first_page = started.elapsed();
    assert_eq!(
        first.attr("data-ext-id").await.unwrap().as_deref(),
        Some(first_ext.as_str())
    );
    wait_text(&c, "[data-testid=result-count]", |t| {
        let digits: String = t
            .split(" items")
            .next()
            .unwrap_or_default()
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        t.contains(" items") && digits == total.to_string()
    })
    .await;
    let count_shown = started.elapsed();

    let (middle, to_middle) = jump_list(&c, 0.5).await;
    // A picture of the middle of the list (bounded: WebKitWebDriver's screenshot has waited
    // forever with compositing off).
    let _ = tokio::time::timeout(
        Duration::from_secs(20),
        screenshot(&c, "list-a-million-middle.png"),
    )
    .await;
    let (end, to_end) = jump_list(&c, 1.0).await;
    let (top, to_top) = jump_list(&c, 0.0).await;
    let mid_index = middle[0].0;
    assert!(
        (mid_index - total / 2).abs() <= total / 100 + 20,
        "the middle of the scrollbar shows row {mid_index} of {total}"
    );
    assert_eq!(end.last().map(|r| r.0), Some(total - 1));
    assert_eq!(end.last().map(|r| r.1.as_str()), Some(last_ext.as_str()));
    assert_eq!(top[0], (0, first_ext.clone()));
    // The store agrees with the rows drawn at the middle too.
    assert_eq!(nth(mid_index).1, middle[0].1);

    // The wheel, three rows a frame for three seconds, from the middle: frame times and frames
    // with a row still waiting for its page.
    jump_list(&c, 0.5).await;
    let wheel = c
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const l = document.querySelector('[data-testid=item-list]');
             const box = l.getBoundingClientRect();
             const gaps = []; let waiting = 0; let last = performance.now(); const end = last + 3000;
             const step = (now) => {
               gaps.push(now - last); last = now;
               if ([...l.querySelectorAll('[data-testid=row-placeholder]')].some((e) => {
                 const r = e.getBoundingClientRect(); return r.bottom > box.top + 1 && r.top < box.bottom - 1; })) waiting++;
               if (now >= end) { done([gaps.slice(1), waiting]); return; }
               const w = new WheelEvent('wheel', { deltaY: 192, cancelable: true, bubbles: true });
               if (l.dispatchEvent(w)) l.scrollTop += 192;
               requestAnimationFrame(step);
             };
             requestAnimationFrame(step);",
            vec![],
        )
        .await
        .unwrap();
    let mut gaps: Vec<f64> = wheel[0]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_f64())
        .collect();
    gaps.sort_by(f64::total_cmp);
    let waiting = wheel[1].as_i64().unwrap_or(-1);
    let pct = |q: f64| gaps[((gaps.len() as f64 - 1.0) * q).round() as usize];
    let (after, _) = rows_in_view(&c).await;
    assert!(
        after.first().is_some_and(|r| r.0 > mid_index),
        "the wheel did not move the list"
    );
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "\n| {total} items | ms |\n|---|---:|\n\
         | window up (WebDriver session, app and WebKit started) | {:.0} |\n\
         | first page after Start (first row drawn) | {:.0} |\n\
         | count shown | {:.0} |\n\
         | jump to the middle, rows drawn | {:.0} |\n\
         | jump to the end, rows drawn | {:.0} |\n\
         | back to the top, rows drawn | {:.0} |\n\
         | wheel, 3 rows a frame for 3 s: frames {} , frame p50 / p95 / max | {:.1} / {:.1} / {:.1} |\n\
         | frames with a row waiting for its page | {waiting} |",
        ms(window),
        ms(first_page),
        ms(count_shown),
        ms(to_middle),
        ms(to_end),
        ms(to_top),
        gaps.len(),
        pct(0.5),
        pct(0.95),
        pct(1.0),
    );
}
