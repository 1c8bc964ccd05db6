//! The window: finding and reading what it shows, waiting on it, typing, clicking and picking,
//! going to a view, opening an item, and screenshots checked with axe-core.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, Locator};

use super::{failure_screenshot, root, until, CTRL, SHIFT, WAIT};

pub async fn wait_for(c: &Client, css: &str) -> fantoccini::elements::Element {
    match c.wait().at_most(WAIT).for_element(Locator::Css(css)).await {
        Ok(e) => e,
        Err(e) => {
            failure_screenshot(c).await;
            let body = c.source().await.unwrap_or_default();
            panic!(
                "{css}: {e}\npage: {}",
                body.chars().take(2000).collect::<String>()
            );
        }
    }
}

/// Whether the element at `xpath` is there and its text is `want`.
pub async fn xpath_text_is(c: &Client, xpath: &str, want: &str) -> bool {
    match c.find(Locator::XPath(xpath)).await {
        Ok(e) => e.text().await.is_ok_and(|t| t == want),
        Err(_) => false,
    }
}

/// Polls until `check` is true for the text of `css`.
pub async fn wait_text(c: &Client, css: &str, check: impl Fn(&str) -> bool) -> String {
    // What `css` showed at the last look: the text that held, or what a failure reports.
    let shown = Mutex::new(String::new());
    let (shown_now, check) = (&shown, &check);
    until(
        c,
        || format!("waiting on {css}; it shows {:?}", shown_now.lock().unwrap()),
        move || async move {
            let (now, holds) = match c.find(Locator::Css(css)).await {
                Ok(e) => match e.text().await {
                    Ok(t) => {
                        let holds = check(&t);
                        (t, holds)
                    }
                    Err(_) => (String::new(), false),
                },
                Err(_) => ("(absent)".into(), false),
            };
            *shown_now.lock().unwrap() = now;
            holds
        },
    )
    .await;
    shown.into_inner().unwrap()
}

/// Polls until `check` is true for the text of `css` as the page has it (innerText).
/// WebKitWebDriver's element text reads the table's grid cells as empty, though they are drawn.
pub async fn wait_inner_text(c: &Client, css: &str, check: impl Fn(&str) -> bool) -> String {
    let held = Mutex::new(String::new());
    let (held_now, check) = (&held, &check);
    until(
        c,
        || format!("waiting on the text of {css}"),
        move || async move {
            let t = c
                .execute(
                    "const e = document.querySelector(arguments[0]); return e ? e.innerText : null",
                    vec![serde_json::Value::String(css.into())],
                )
                .await
                .ok()
                .and_then(|v| v.as_str().map(str::to_string));
            match t.filter(|t| check(t)) {
                Some(t) => {
                    *held_now.lock().unwrap() = t;
                    true
                }
                None => false,
            }
        },
    )
    .await;
    held.into_inner().unwrap()
}

pub async fn value(c: &Client, css: &str) -> String {
    wait_for(c, css)
        .await
        .prop("value")
        .await
        .unwrap()
        .unwrap_or_default()
}

/// Replaces the text of the input at `css` with `text`. WebKitWebDriver now and then answers a
/// keystroke with an empty "unknown error" on a busy machine (seen in CI as the join form was
/// filled); the field is found again, cleared and typed again until it holds the text.
pub async fn fill(c: &Client, css: &str, text: &str) {
    // Why the last try did not leave the text there.
    let last = Mutex::new(String::new());
    let last_now = &last;
    until(
        c,
        || {
            format!(
                "could not type {text:?} into {css}: {}",
                last_now.lock().unwrap()
            )
        },
        move || async move {
            let e = wait_for(c, css).await;
            // WebKitWebDriver does not scroll a field inside a scrolled modal into view.
            let _ = c
                .execute(
                    "arguments[0].scrollIntoView({block: 'center'})",
                    vec![serde_json::to_value(&e).unwrap()],
                )
                .await;
            let typed = async {
                e.clear().await?;
                e.send_keys(text).await
            }
            .await;
            let why = match typed {
                Ok(()) => {
                    let holds = value(c, css).await;
                    if holds == text {
                        return true;
                    }
                    format!("it holds {holds:?}")
                }
                Err(err) => err.to_string(),
            };
            *last_now.lock().unwrap() = why;
            false
        },
    )
    .await;
}

pub async fn wait_value(c: &Client, css: &str, want: &str) {
    until(
        c,
        || format!("{css} never became {want:?}"),
        move || async move { value(c, css).await == want },
    )
    .await;
}

pub async fn keys(c: &Client, seq: &[(Option<char>, char)]) {
    let mut actions = KeyActions::new("keyboard".into());
    for (modifier, key) in seq {
        if let Some(m) = modifier {
            actions = actions.then(KeyAction::Down { value: *m });
        }
        actions = actions
            .then(KeyAction::Down { value: *key })
            .then(KeyAction::Up { value: *key });
        if let Some(m) = modifier {
            actions = actions.then(KeyAction::Up { value: *m });
        }
    }
    c.perform_actions(actions).await.unwrap();
    c.release_actions().await.unwrap();
}

pub async fn shift_ctrl_z(c: &Client) {
    let actions = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: CTRL })
        .then(KeyAction::Down { value: SHIFT })
        .then(KeyAction::Down { value: 'z' })
        .then(KeyAction::Up { value: 'z' })
        .then(KeyAction::Up { value: SHIFT })
        .then(KeyAction::Up { value: CTRL });
    c.perform_actions(actions).await.unwrap();
    c.release_actions().await.unwrap();
}

/// Runs axe-core (from the UI's npm packages) on what the window shows now and fails on any
/// serious or critical violation, naming the rule and the elements.
pub async fn accessible(c: &Client, view: &str) {
    let has_axe: bool = c
        .execute("return typeof window.axe !== 'undefined'", vec![])
        .await
        .unwrap()
        .as_bool()
        .unwrap_or(false);
    if !has_axe {
        let script = std::fs::read_to_string(root().join("ui/node_modules/axe-core/axe.min.js"))
            .expect("axe-core in ui/node_modules (npm ci)");
        c.execute(&script, vec![]).await.unwrap();
    }
    let found = c
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, { resultTypes: ['violations'] })
               .then((r) => done(r.violations
                 .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                 .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 4)
                   .map((n) => n.target.join(' ')).join(' | ')} (${v.nodes.length})`)))
               .catch((e) => done([`axe failed: ${e}`]));",
            vec![],
        )
        .await
        .unwrap();
    let found: Vec<String> = serde_json::from_value(found).unwrap_or_default();
    if std::env::var_os("ASSAY_A11Y_REPORT").is_some() {
        eprintln!("a11y {view}: {found:#?}");
        return;
    }
    assert!(
        found.is_empty(),
        "accessibility of {view}:\n{}",
        found.join("\n")
    );
}

/// Waits until what the window shows has been drawn: its fonts loaded, every image decoded (or
/// failed) and two frames painted since. A screenshot waits on this, not on a fixed time.
pub async fn settled(c: &Client) {
    c.execute_async(
        "const done = arguments[arguments.length - 1];
         // A lazy image outside the viewport (a hidden view's list) loads only once shown:
         // waiting for it would wait forever.
         const shown = (i) => {
           if (i.loading !== 'lazy') return true;
           const r = i.getBoundingClientRect();
           return i.offsetParent !== null && r.width > 0 && r.bottom > 0 && r.right > 0
             && r.top < innerHeight && r.left < innerWidth;
         };
         const pending = [...document.images].filter((i) => !i.complete && shown(i))
           .map((i) => new Promise((r) => { i.addEventListener('load', r, { once: true });
                                             i.addEventListener('error', r, { once: true }); }));
         Promise.all([document.fonts.ready, ...pending])
           .then(() => requestAnimationFrame(() => requestAnimationFrame(() => done(true))));",
        vec![],
    )
    .await
    .unwrap();
}

/// Saves what the window shows as `name`, and checks that view with axe-core: every view the
/// scenarios look at is checked for accessibility.
/// Screenshots go under target/ so a test run never changes tracked files;
/// `cargo xtask screenshots` points ASSAY_SCREENSHOT_DIR at docs/screenshots to refresh them.
pub async fn screenshot(c: &Client, name: &str) {
    settled(c).await;
    accessible(c, name).await;
    if SOFTWARE_DRAWING.load(std::sync::atomic::Ordering::SeqCst) {
        // WebKitWebDriver's screenshot can wait forever on this path (see `Driver::start`).
        return;
    }
    let png = c.screenshot().await.unwrap();
    let dir = std::env::var_os("ASSAY_SCREENSHOT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root().join("target/screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), png).unwrap();
}

pub async fn click(c: &Client, css: &str) {
    wait_for(c, css).await.click().await.unwrap();
}

/// Goes to a view through the rail and waits until it is the one shown.
pub async fn show(c: &Client, view: &str) {
    click(c, &format!("[data-testid=nav-{view}]")).await;
    let css = &format!("[data-testid=view-{view}]");
    until(
        c,
        || format!("view {view} never shown"),
        move || async move {
            match c.find(Locator::Css(css)).await {
                Ok(e) => e.attr("hidden").await.ok().flatten().is_none(),
                Err(_) => false,
            }
        },
    )
    .await;
}

pub async fn search(c: &Client, text: &str) {
    show(c, "items").await;
    let s = wait_for(c, "[data-testid=search]").await;
    s.clear().await.unwrap();
    if text.is_empty() {
        // Clearing alone fires no input event; typing and deleting a character does.
        s.send_keys("x\u{E003}").await.unwrap();
    } else {
        s.send_keys(text).await.unwrap();
    }
}

/// Opens a row of the list. Right after a search the list may still be re-rendering, and a
/// click on a row that is then replaced opens nothing; opening an item is idempotent, so the
/// click is repeated until the editor shows the item.
pub async fn open_row(c: &Client, ext_id: &str) {
    show(c, "items").await;
    let row = &format!("[data-testid=view-items] [data-ext-id='{ext_id}']");
    // When the row was last clicked, and the item the editor showed at the last look.
    let clicked = Mutex::new(None::<Instant>);
    let shown = Mutex::new(String::from("(absent)"));
    let (clicked, shown_now) = (&clicked, &shown);
    until(
        c,
        || {
            format!(
                "the editor never showed {ext_id}; it shows {:?}",
                shown_now.lock().unwrap()
            )
        },
        move || async move {
            // A click that opened nothing in 3 s is given again.
            let due = clicked
                .lock()
                .unwrap()
                .is_none_or(|at| at.elapsed() >= Duration::from_secs(3));
            if due {
                if let Ok(e) = c.find(Locator::Css(row)).await {
                    let _ = e.click().await;
                }
                *clicked.lock().unwrap() = Some(Instant::now());
            }
            let now = match c.find(Locator::Css("[data-testid=item-id]")).await {
                Ok(e) => e.text().await.unwrap_or_default(),
                Err(_) => "(absent)".into(),
            };
            let open = now == ext_id;
            *shown_now.lock().unwrap() = now;
            open
        },
    )
    .await;
}

pub async fn op_active(c: &Client, op: &str) -> bool {
    let e = wait_for(c, &format!("[data-testid=op-{op}]")).await;
    e.attr("class")
        .await
        .unwrap()
        .unwrap_or_default()
        .split_whitespace()
        .any(|k| k == "active")
}

pub async fn wait_op(c: &Client, op: &str, active: bool) {
    until(
        c,
        || format!("op {op} never became active={active}"),
        move || async move { op_active(c, op).await == active },
    )
    .await;
}

pub async fn start_session(c: &Client, user: Option<&str>) {
    if let Some(u) = user {
        fill(c, "[data-testid=user-name]", u).await;
    }
    wait_for(c, "[data-testid=chosen-project]").await;
    click(c, "[data-testid=start]").await;
    wait_for(c, "[data-testid=item-row]").await;
}

/// Picks an option. A select scrolled out of the modal's view answers "not interactable", so
/// it is scrolled to first, and the pick is repeated until the select holds the value.
pub async fn select(c: &Client, css: &str, value: &str) {
    until(
        c,
        || format!("could not pick {value:?} in {css}"),
        move || async move {
            let e = wait_for(c, css).await;
            let arg = vec![serde_json::to_value(&e).unwrap()];
            let _ = c
                .execute("arguments[0].scrollIntoView({block: 'center'})", arg)
                .await;
            e.select_by_value(value).await.is_ok() && select_value(&e).await == value
        },
    )
    .await;
}

pub async fn select_value(e: &fantoccini::elements::Element) -> String {
    e.prop("value").await.ok().flatten().unwrap_or_default()
}

/// The running scenario draws the way a machine without a GPU does (scenarios take turns).
pub static SOFTWARE_DRAWING: AtomicBool = AtomicBool::new(false);
