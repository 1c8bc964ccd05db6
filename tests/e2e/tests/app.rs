//! Drives the real Assay window through independent scenarios, each on its own copy of the
//! sample project: browsing, editing and a restart; drawing a target box; refining a checklist
//! and filtering; evaluating before and after against a stub model server; review by two people
//! and an auditor; a team through PostgreSQL; drawing a box the way a machine without a GPU
//! draws. Every wait is on the window's or the project's
//! state, never on a pause tuned to an idle machine. Saves screenshots of the main views.
//!
//! Needs: the app built with `--features custom-protocol`, `tauri-driver` and `WebKitWebDriver`
//! on PATH, and a display (Xvfb). `cargo xtask e2e` arranges all of it.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use fantoccini::actions::{
    InputSource, KeyAction, KeyActions, MouseActions, PointerAction, MOUSE_BUTTON_LEFT,
};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

const CTRL: char = '\u{E009}';
/// How long a wait on the window's state may take before the test fails. It only bounds a
/// failure: every wait returns as soon as the state is there, so a generous bound costs nothing
/// on an idle machine and keeps a busy one (CI under load) from failing a working app.
const WAIT: Duration = Duration::from_secs(90);
const SHIFT: char = '\u{E008}';

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn app_binary() -> PathBuf {
    std::env::var_os("ASSAY_APP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/debug/assay-app"))
}

/// tauri-driver and the WebKitWebDriver it starts, on free ports, in their own process group so
/// that both go away with the test even when it fails.
struct Driver {
    child: Child,
    port: u16,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Driver {
    /// `compositing`: the `ASSAY_GPU_COMPOSITING` the app gets; `None` keeps compositing on
    /// unless the caller's environment says otherwise (see below).
    fn start(compositing: Option<&str>) -> Self {
        use std::os::unix::process::CommandExt;
        let (port, native) = (free_port(), free_port());
        let child = Command::new("tauri-driver")
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            // Without a GPU the app turns WebKit's compositing off (src-tauri/src/rendering.rs);
            // WebKitWebDriver's screenshot then waited forever on the blind scenario's second
            // screenshot (two runs of two, the window painted; again on 2026-12-04 with GTK's
            // GL and the DMA-BUF renderer off as well). Screenshots are a WebDriver matter only
            // (`bench-open` drives the software path without them), so the window is driven the
            // way a machine with a GPU runs it.
            // (`ASSAY_GPU_COMPOSITING` set for the tests wins: the benchmark measures both.)
            .env(
                "ASSAY_GPU_COMPOSITING",
                compositing.map(str::to_string).unwrap_or_else(|| {
                    std::env::var("ASSAY_GPU_COMPOSITING").unwrap_or_else(|_| "1".into())
                }),
            )
            .process_group(0)
            .spawn()
            .expect("tauri-driver on PATH (cargo install tauri-driver --version ^2 --locked)");
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < WAIT, "tauri-driver did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        Driver { child, port }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        std::thread::sleep(Duration::from_millis(200));
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.wait();
    }
}

async fn launch(driver: &Driver, project: &Path) -> Client {
    let caps = json!({
        "browserName": "wry",
        "tauri:options": {
            "application": app_binary(),
            "args": ["--project", project],
        }
    });
    let caps = caps.as_object().cloned().unwrap_or_default();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut last = String::new();
    let mut timed_out = 0;
    // A busy machine can take seconds to bring up tauri-driver and its WebKit process: retry
    // for up to ~20 s rather than fail on the first dropped connection. Under `stress-ng --cpu
    // 2` the app once died in GTK's start ("Failed to initialize GTK") and WebKitWebDriver
    // never answered the session request: each attempt is bounded, so a lost launch is tried
    // again and, at worst, fails instead of hanging the run.
    let url = format!("http://127.0.0.1:{}", driver.port);
    for attempt in 0..12u64 {
        let mut builder = ClientBuilder::rustls().expect("tls");
        builder.capabilities(caps.clone());
        let connect = builder.connect(&url);
        match tokio::time::timeout(Duration::from_secs(45), connect).await {
            Ok(Ok(c)) => return c,
            Ok(Err(e)) => last = format!("{e:?}"),
            Err(_) => {
                last = "no answer to the session request in 45 s".into();
                timed_out += 1;
                if timed_out == 3 {
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(500 * (attempt + 1).min(4))).await;
    }
    panic!("could not start a WebDriver session: {last}");
}

async fn wait_for(c: &Client, css: &str) -> fantoccini::elements::Element {
    match c.wait().at_most(WAIT).for_element(Locator::Css(css)).await {
        Ok(e) => e,
        Err(e) => {
            // Leave a picture of the window for whoever reads the failure.
            if let Ok(png) = c.screenshot().await {
                let _ = std::fs::write(root().join("target/e2e-failure.png"), png);
            }
            let body = c.source().await.unwrap_or_default();
            panic!(
                "{css}: {e}\npage: {}",
                body.chars().take(2000).collect::<String>()
            );
        }
    }
}

/// How long a wait on state pauses between looks: the one pause the scenarios make.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// Looks at the state until `ready` says it holds, pausing [`LOOK_EVERY`] between looks; past
/// [`WAIT`] it saves a screenshot and fails with what it waited for (`what`, worded then).
async fn until<F, Fut>(c: &Client, what: impl Fn() -> String, mut ready: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !ready().await {
        if start.elapsed() > WAIT {
            if let Ok(png) = c.screenshot().await {
                let _ = std::fs::write(root().join("target/e2e-failure.png"), png);
            }
            panic!("timed out: {}", what());
        }
        tokio::time::sleep(LOOK_EVERY).await;
    }
}

/// Whether the element at `xpath` is there and its text is `want`.
async fn xpath_text_is(c: &Client, xpath: &str, want: &str) -> bool {
    match c.find(Locator::XPath(xpath)).await {
        Ok(e) => e.text().await.is_ok_and(|t| t == want),
        Err(_) => false,
    }
}

/// Polls until `check` is true for the text of `css`.
async fn wait_text(c: &Client, css: &str, check: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        if let Ok(e) = c.find(Locator::Css(css)).await {
            if let Ok(t) = e.text().await {
                if check(&t) {
                    return t;
                }
            }
        }
        if start.elapsed() > WAIT {
            if let Ok(png) = c.screenshot().await {
                let _ = std::fs::write(root().join("target/e2e-failure.png"), png);
            }
            let now = match c.find(Locator::Css(css)).await {
                Ok(e) => e.text().await.unwrap_or_default(),
                Err(_) => "(absent)".into(),
            };
            panic!("timed out waiting on {css}; it shows {now:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Polls until `check` is true for the text of `css` as the page has it (innerText).
/// WebKitWebDriver's element text reads the table's grid cells as empty, though they are drawn.
async fn wait_inner_text(c: &Client, css: &str, check: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let t = c
            .execute(
                "const e = document.querySelector(arguments[0]); return e ? e.innerText : null",
                vec![serde_json::Value::String(css.into())],
            )
            .await
            .ok()
            .and_then(|v| v.as_str().map(str::to_string));
        if let Some(t) = t.filter(|t| check(t)) {
            return t;
        }
        if start.elapsed() > WAIT {
            if let Ok(png) = c.screenshot().await {
                let _ = std::fs::write(root().join("target/e2e-failure.png"), png);
            }
            panic!("timed out waiting on the text of {css}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn value(c: &Client, css: &str) -> String {
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
async fn fill(c: &Client, css: &str, text: &str) {
    let mut last = String::new();
    for _ in 0..6 {
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
        match typed {
            Ok(()) if value(c, css).await == text => return,
            Ok(()) => last = format!("it holds {:?}", value(c, css).await),
            Err(err) => last = err.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    panic!("could not type {text:?} into {css}: {last}");
}

async fn wait_value(c: &Client, css: &str, want: &str) {
    until(
        c,
        || format!("{css} never became {want:?}"),
        move || async move { value(c, css).await == want },
    )
    .await;
}

async fn keys(c: &Client, seq: &[(Option<char>, char)]) {
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

async fn shift_ctrl_z(c: &Client) {
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

/// Screenshots go under target/ so a test run never changes tracked files;
/// `cargo xtask screenshots` points ASSAY_SCREENSHOT_DIR at docs/screenshots to refresh them.
/// Runs axe-core (from the UI's npm packages) on what the window shows now and fails on any
/// serious or critical violation, naming the rule and the elements.
async fn accessible(c: &Client, view: &str) {
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
async fn settled(c: &Client) {
    c.execute_async(
        "const done = arguments[arguments.length - 1];
         const pending = [...document.images].filter((i) => !i.complete)
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
async fn screenshot(c: &Client, name: &str) {
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

async fn click(c: &Client, css: &str) {
    wait_for(c, css).await.click().await.unwrap();
}

/// Goes to a view through the rail and waits until it is the one shown.
async fn show(c: &Client, view: &str) {
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

async fn search(c: &Client, text: &str) {
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
async fn open_row(c: &Client, ext_id: &str) {
    show(c, "items").await;
    let row = format!("[data-testid=view-items] [data-ext-id='{ext_id}']");
    let start = Instant::now();
    while start.elapsed() < WAIT {
        if let Ok(e) = c.find(Locator::Css(&row)).await {
            let _ = e.click().await;
        }
        let tried = Instant::now();
        while tried.elapsed() < Duration::from_secs(3) {
            if let Ok(e) = c.find(Locator::Css("[data-testid=item-id]")).await {
                if e.text().await.is_ok_and(|t| t == ext_id) {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    wait_text(c, "[data-testid=item-id]", |t| t == ext_id).await;
}

async fn op_active(c: &Client, op: &str) -> bool {
    let e = wait_for(c, &format!("[data-testid=op-{op}]")).await;
    e.attr("class")
        .await
        .unwrap()
        .unwrap_or_default()
        .split_whitespace()
        .any(|k| k == "active")
}

async fn wait_op(c: &Client, op: &str, active: bool) {
    until(
        c,
        || format!("op {op} never became active={active}"),
        move || async move { op_active(c, op).await == active },
    )
    .await;
}

async fn start_session(c: &Client, user: Option<&str>) {
    if let Some(u) = user {
        fill(c, "[data-testid=user-name]", u).await;
    }
    wait_for(c, "[data-testid=chosen-project]").await;
    click(c, "[data-testid=start]").await;
    wait_for(c, "[data-testid=item-row]").await;
}

fn sample_project(dir: &Path) -> PathBuf {
    let path = dir.join("sample.assay");
    let mut p = assay_core::Project::create(&path).unwrap();
    for f in [
        "jgraph-mini/jgraph-mini.jsonl",
        "vague-mini/vague-mini.json",
        "haerae-mini/haerae-mini.jsonl",
        "crag-mini/crag-mini.jsonl",
    ] {
        assay_core::import::import_path(
            &mut p,
            &root().join("assets/sample").join(f),
            &Default::default(),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
    }
    record_checklist_judgement(&mut p);
    path
}

/// A checklist judge's recorded judgement of haerae-mini item 101 (met, not met, partially
/// met: S = 0.5), so the item shows a run whose criteria a person can rate.
fn record_checklist_judgement(p: &mut assay_core::Project) {
    let model = assay_eval::model::ModelConfig {
        name: "judge-recorded".into(),
        model: "gpt-4o".into(),
        endpoints: vec!["http://127.0.0.1:9/v1".into()],
        ..Default::default()
    };
    assay_eval::model::save_model(p, &model).unwrap();
    let reply = r#"[{"rating": "met", "evidence": "EXIT means way out", "justification": "stated"},
                    {"rating": "not met", "evidence": "", "justification": "no direction given"},
                    {"rating": "partially met", "evidence": "use the stairs", "justification": "no fire case"}]"#;
    let judged = [assay_eval::judging::RecordedJudgement {
        ext_id: "101",
        response: "EXIT is the way out; take the stairs.",
        judge_reply: reply,
    }];
    assay_eval::judging::record_checklist_judgements(
        p,
        "judge-recorded",
        "haerae-mini",
        1,
        &judged,
    )
    .unwrap();
}

/// One scenario's world: its own copy of the sample project, its own preferences folder and its
/// own tauri-driver, so a scenario depends on no other and a failure in one hides none of the
/// rest. Scenarios take turns (one window, one display, and the preferences folder is an
/// environment variable of this process).
struct Scenario {
    project: PathBuf,
    driver: Driver,
    _dir: tempfile::TempDir,
    _turn: std::sync::MutexGuard<'static, ()>,
}

static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
/// The running scenario draws the way a machine without a GPU does (scenarios take turns).
static SOFTWARE_DRAWING: AtomicBool = AtomicBool::new(false);

impl Scenario {
    fn new(name: &str) -> Self {
        Self::drawing(name, None)
    }

    fn drawing(name: &str, compositing: Option<&str>) -> Self {
        let turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        assert!(
            app_binary().exists(),
            "build the app first: cargo xtask e2e"
        );
        eprintln!("e2e: scenario {name}");
        let dir = tempfile::tempdir().unwrap();
        let project = sample_project(dir.path());
        std::env::set_var("ASSAY_CONFIG_DIR", dir.path().join("config"));
        SOFTWARE_DRAWING.store(
            compositing == Some("0"),
            std::sync::atomic::Ordering::SeqCst,
        );
        Scenario {
            project,
            driver: Driver::start(compositing),
            _dir: dir,
            _turn: turn,
        }
    }

    async fn launch(&self) -> Client {
        launch(&self.driver, &self.project).await
    }

    /// Opens the window and starts working as `user`, in `role` if given (the first person of
    /// a project may start as an auditor).
    async fn start_as(&self, user: &str, role: Option<&str>) -> Client {
        let c = self.launch().await;
        wait_for(&c, "[data-testid=user-name]").await;
        if let Some(r) = role {
            fill(&c, "[data-testid=user-name]", user).await;
            click(&c, &format!("[data-testid=role-{r}]")).await;
            start_session(&c, None).await;
        } else {
            start_session(&c, Some(user)).await;
        }
        c
    }

    /// Saves an edit through the store, as another process would, before the window opens.
    fn edit(&self, ext: &str, who: &str, change: impl FnOnce(&mut assay_core::ItemContent)) {
        use assay_core::store::{Author, Edit};
        let mut p = assay_core::Project::open(&self.project).unwrap();
        let u = p.sign_in(who, assay_core::Role::Annotator).unwrap();
        let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
        let mut edit = Edit::answer_fix(&p.item(id).unwrap(), "");
        edit.content = p.item(id).unwrap().content;
        change(&mut edit.content);
        let author = Author {
            user_id: u.id,
            role: u.role,
            round: 1,
        };
        p.save_edit(id, &edit, &author).unwrap();
    }
}

/// Open the sample project, search in Japanese, edit an answer, record an op with the keyboard,
/// undo/redo, meet another process's save as a conflict, see hostile text rendered as text;
/// restart and find the edit, its author and the filter.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browse_edit_and_restart() {
    let s = Scenario::new("browse, edit and restart");
    let project = s.project.clone();

    // --- First session -------------------------------------------------------------------
    let c = s.launch().await;
    eprintln!("e2e: first session started");
    wait_for(&c, "[data-testid=user-name]").await;
    screenshot(&c, "start.png").await;
    start_session(&c, Some("e2e-annotator")).await;
    wait_text(&c, "[data-testid=result-count]", |t| {
        t.starts_with("23 items")
    })
    .await;
    open_row(&c, "vg-001").await;
    screenshot(&c, "browse-vague.png").await;
    search(&c, "ramen").await;
    wait_text(&c, "[data-testid=result-count]", |t| {
        t.starts_with("1 items")
    })
    .await;
    open_row(&c, "cr-003").await;
    screenshot(&c, "grounding.png").await;

    // Japanese substring search.
    search(&c, "降水量").await;
    wait_text(&c, "[data-testid=result-count]", |t| {
        t.starts_with("2 items")
    })
    .await;
    let rows = c
        .find_all(Locator::Css("[data-testid=item-row]"))
        .await
        .unwrap();
    assert_eq!(rows.len(), 2);

    // Open an item, correct its answer, leave the field (saves), record the op with key 4.
    open_row(&c, "jg-006").await;
    assert_eq!(value(&c, "[data-testid=answer]").await, "171");
    fill(&c, "[data-testid=answer]", "117").await;
    keys(&c, &[(None, '\u{E00C}')]).await; // Escape: blur, which saves
    wait_text(&c, "[data-testid=save-state]", |t| t.starts_with("saved")).await;
    keys(&c, &[(None, '4')]).await;
    wait_op(&c, "answer_correction", true).await;
    screenshot(&c, "edit.png").await;

    // Undo twice (op, then answer), redo twice.
    keys(&c, &[(Some(CTRL), 'z')]).await;
    wait_op(&c, "answer_correction", false).await;
    assert_eq!(value(&c, "[data-testid=answer]").await, "117");
    keys(&c, &[(Some(CTRL), 'z')]).await;
    wait_value(&c, "[data-testid=answer]", "171").await;
    shift_ctrl_z(&c).await;
    wait_value(&c, "[data-testid=answer]", "117").await;
    shift_ctrl_z(&c).await;
    wait_op(&c, "answer_correction", true).await;

    // Another process saves the item this window has open: what is typed here meets that
    // change as a conflict, both versions are shown, and the chosen combination is saved.
    open_row(&c, "jg-007").await;
    {
        use assay_core::store::{Author, Edit};
        let mut other = assay_core::Project::open(&project).unwrap();
        let id = other.item_id_by_ext("jgraph-mini", "jg-007").unwrap();
        let mut content = other.item(id).unwrap().content;
        content.question = "降水量が最も多いのは何月ですか？".into();
        let u = other
            .ensure_user("cli-user", assay_core::Role::Annotator)
            .unwrap();
        let edit = Edit {
            base_rev: Some(0),
            content,
            op: None,
            tags: vec![],
            status: assay_core::ItemStatus::Edited,
            note: None,
        };
        let author = Author {
            user_id: u.id,
            role: assay_core::Role::Annotator,
            round: 1,
        };
        other.save_edit(id, &edit, &author).unwrap();
    }
    fill(&c, "[data-testid=answer]", "4月").await;
    keys(&c, &[(None, '\u{E00C}')]).await; // Escape: blur, which tries to save
    wait_for(&c, "[data-testid=conflict-question]").await;
    wait_for(&c, "[data-testid=conflict-answer]").await;
    screenshot(&c, "conflict.png").await;
    click(&c, "[data-testid=take-theirs-question]").await;
    click(&c, "[data-testid=resolve-conflict]").await;
    wait_value(
        &c,
        "[data-testid=question]",
        "降水量が最も多いのは何月ですか？",
    )
    .await;
    wait_text(&c, "[data-testid=save-state]", |t| t.starts_with("saved")).await;
    {
        let other = assay_core::Project::open(&project).unwrap();
        let it = other
            .item(other.item_id_by_ext("jgraph-mini", "jg-007").unwrap())
            .unwrap();
        assert_eq!(it.rev, 2, "their revision, then the merge on top of it");
        assert_eq!(it.content.question, "降水量が最も多いのは何月ですか？");
        assert_eq!(it.content.answer.as_deref(), Some("4月"));
    }

    // Hostile text renders as text.
    search(&c, "onerror").await;
    wait_text(&c, "[data-testid=result-count]", |t| {
        t.starts_with("1 items")
    })
    .await;
    let row = wait_for(&c, "[data-ext-id='jg-011'] [data-testid=row-question]").await;
    let shown = row.prop("textContent").await.unwrap().unwrap_or_default();
    assert!(shown.contains("<img src=x onerror=alert(1)>"), "{shown:?}");
    open_row(&c, "jg-011").await;
    assert!(value(&c, "[data-testid=question]")
        .await
        .contains("<script>alert('xss')</script>"));
    assert!(
        c.find(Locator::Css("img[src='x']")).await.is_err(),
        "no image element was injected"
    );
    assert!(c.get_alert_text().await.is_err(), "no alert was raised");

    // Import dialog.
    search(&c, "降水量").await;
    wait_text(&c, "[data-testid=result-count]", |t| {
        t.starts_with("2 items")
    })
    .await;
    show(&c, "settings").await;
    click(&c, "[data-testid=import-open]").await;
    wait_for(&c, ".modal").await;
    screenshot(&c, "import.png").await;
    c.close().await.unwrap();

    // --- Restart: the edit, its author and the filter persisted --------------------------
    let launched = Instant::now();
    let c = s.launch().await;
    eprintln!("e2e: second session started");
    wait_for(&c, "[data-testid=item-row]").await;
    // The place is kept across restarts: the app reopens on the view it was left on.
    let settings = wait_for(&c, "[data-testid=view-settings]").await;
    assert!(settings.attr("hidden").await.unwrap().is_none());
    assert!(c
        .current_url()
        .await
        .unwrap()
        .as_str()
        .ends_with("#/settings"));
    show(&c, "items").await;
    // Reported, not asserted: timings belong in benchmarks (docs/BENCHMARKS.md).
    eprintln!(
        "e2e: window usable {} ms after launch",
        launched.elapsed().as_millis()
    );
    // The user was remembered, so the app opens straight into the project.
    wait_text(&c, "[data-testid=current-user]", |t| {
        t.starts_with("e2e-annotator")
    })
    .await;
    assert_eq!(
        value(&c, "[data-testid=search]").await,
        "降水量",
        "the filter survives a restart"
    );
    wait_text(&c, "[data-testid=result-count]", |t| {
        t.starts_with("2 items")
    })
    .await;
    open_row(&c, "jg-006").await;
    assert_eq!(value(&c, "[data-testid=answer]").await, "117");
    assert!(op_active(&c, "answer_correction").await);
    let authors = c
        .find_all(Locator::Css("[data-testid=history-author]"))
        .await
        .unwrap();
    let newest = authors[0].text().await.unwrap();
    assert!(newest.starts_with("e2e-annotator"), "{newest}");
    assert_eq!(authors.last().unwrap().text().await.unwrap(), "import");
    screenshot(&c, "edit-after-restart.png").await;
    c.close().await.unwrap();
}

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

/// The app's processes (`assay-app`) below the scenario's tauri-driver.
fn app_processes(driver: &Driver) -> Vec<u32> {
    let parent_of = |pid: u32| -> Option<u32> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .and_then(|v| v.trim().parse().ok())
    };
    let below_driver = |mut pid: u32| {
        while let Some(parent) = parent_of(pid) {
            if parent == driver.child.id() {
                return true;
            }
            if parent <= 1 {
                return false;
            }
            pid = parent;
        }
        false
    };
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| c.trim() == "assay-app")
        })
        .filter(|pid| below_driver(*pid))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refine_a_checklist_and_filter_in_phase_1() {
    let s = Scenario::new("refine a checklist and filter");
    let c = s.start_as("e2e-annotator", None).await;
    refine_a_checklist_and_filter(&c, &s.project).await;
    c.close().await.unwrap();
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_by_two_people_and_an_auditor_in_the_window() {
    let s = Scenario::new("review by two people and an auditor");
    // jg-006's current revision is e2e-annotator's own, who is the project's first person.
    s.edit("jg-006", "e2e-annotator", |c| c.answer = Some("117".into()));
    let c = s.start_as("e2e-annotator", None).await;
    review_by_two_people_and_an_auditor(&c, &s.project).await;
    c.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_through_postgresql_in_the_window() {
    let s = Scenario::new("a team through PostgreSQL");
    let c = s.start_as("e2e-auditor", Some("auditor")).await;
    a_team_through_postgresql(&c, &s.project).await;
    c.close().await.unwrap();
}

/// Blind double annotation: two annotators judge jg-006 apart (neither sees the other's until
/// both are in, and neither edits the item meanwhile), they disagree, the agreement says it was
/// measured blind, and the auditor adjudicates by adopting one judgement.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blind_double_annotation_and_adjudication_in_the_window() {
    let s = Scenario::new("blind double annotation");
    {
        use assay_core::store::{Author, NewRound, RoundPurpose};
        let mut p = assay_core::Project::open(&s.project).unwrap();
        let lead = p
            .sign_in("e2e-auditor", assay_core::Role::Annotator)
            .unwrap();
        p.set_role("e2e-auditor", "e2e-auditor", assay_core::Role::Auditor)
            .unwrap();
        for who in ["e2e-annotator", "e2e-reviewer"] {
            p.sign_in(who, assay_core::Role::Annotator).unwrap();
        }
        let spec = NewRound {
            name: "blind pass".into(),
            purpose: RoundPurpose::Annotate,
            assignees: vec!["e2e-annotator".into(), "e2e-reviewer".into()],
            overlap: 1.0,
            sample: None,
            seed: 1,
            blind: true,
        };
        let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
        let author = Author {
            user_id: lead.id,
            role: assay_core::Role::Auditor,
            round: 1,
        };
        p.create_round(&spec, &[id], &author).unwrap();
    }
    let c = s.start_as("e2e-annotator", None).await;
    blind_double_annotation(&c, &s.project).await;
    c.close().await.unwrap();
}

/// (person, op) of every judgement of jg-006 in the blind round, as stored.
fn blind_stored(project: &Path) -> Vec<(String, Option<assay_core::RefinementOp>)> {
    let p = assay_core::Project::open(project).unwrap();
    let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    let mut st = p
        .connection()
        .prepare(
            "SELECT u.name, json_extract(b.judgement, '$.op') FROM blind_annotations b
             JOIN users u ON u.id = b.user_id WHERE b.item_id = ?1 ORDER BY b.id",
        )
        .unwrap();
    let rows: Vec<_> = st
        .query_map([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?
                    .and_then(|o| assay_core::RefinementOp::parse(&o)),
            ))
        })
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    rows
}

async fn wait_blind(c: &Client, project: &Path, n: usize) {
    until(
        c,
        || format!("never stored {n} judgements: {:?}", blind_stored(project)),
        move || async move { blind_stored(project).len() >= n },
    )
    .await;
}

async fn blind_double_annotation(c: &Client, project: &Path) {
    use assay_core::RefinementOp;
    // The command palette (Ctrl+K) runs an action by name; one the role rules out is listed
    // with the reason and does not run; ? lists the shortcuts.
    keys(c, &[(Some('\u{E009}'), 'k')]).await;
    wait_for(c, "[data-testid=palette]").await;
    // A dialog keeps the focus: Tab never leaves it.
    keys(
        c,
        &[(None, '\u{E004}'), (None, '\u{E004}'), (None, '\u{E004}')],
    )
    .await;
    let inside = c
        .execute(
            "return !!document.activeElement.closest('[data-testid=palette]')",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        inside,
        serde_json::Value::Bool(true),
        "Tab left the palette"
    );
    fill(c, "[data-testid=palette-input]", "sign off").await;
    wait_text(
        c,
        "[data-testid=palette-action][data-action=sign-off]",
        |t| t.contains("only an auditor signs off"),
    )
    .await;
    keys(c, &[(None, '\u{E007}')]).await; // Enter: disabled, nothing runs
    wait_for(c, "[data-testid=palette]").await;
    fill(c, "[data-testid=palette-input]", "triage").await;
    keys(c, &[(None, '\u{E007}')]).await;
    wait_for(c, "[data-testid=triage]").await;
    assert!(c.find(Locator::Css("[data-testid=palette]")).await.is_err());
    show(c, "items").await;
    keys(c, &[(None, '?')]).await;
    wait_text(c, "[data-testid=shortcut][data-action=approve]", |t| {
        t.contains("Approve")
    })
    .await;
    screenshot(c, "shortcuts.png").await;
    keys(c, &[(None, '\u{E00C}')]).await;

    // The annotator finds the item in their blind queue and records a judgement there.
    assert!(in_my_work(c, "round-item", "jg-006").await);
    wait_text(c, "[data-testid=round-queue] h5", |t| t.contains("blind")).await;
    click(c, "[data-testid=round-item][data-ext-id=jg-006]").await;
    wait_text(c, "[data-testid=item-id]", |t| t == "jg-006").await;
    wait_for(c, "[data-testid=blind-form]").await;
    select(c, "[data-testid=blind-op]", "answer_correction").await;
    click(c, "[data-testid=blind-tag][data-tag=wrong_answer]").await;
    fill(c, "[data-testid=blind-note]", "<b>unit</b> missing").await;
    click(c, "[data-testid=blind-record]").await;
    wait_blind(c, project, 1).await;
    wait_for(c, "[data-testid=blind-recorded]").await;
    // The item itself is not edited in a blind round: the store refuses, the window says why.
    fill(c, "[data-testid=answer]", "999").await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_text(c, "[data-testid=editor-error]", |t| {
        t.contains("blind round")
    })
    .await;
    assert_eq!(jg006(project).2.as_deref(), Some("171"));
    // Typed back, so no draft waits to be saved.
    fill(c, "[data-testid=answer]", "171").await;
    keys(c, &[(None, '\u{E00C}')]).await;

    // The second annotator sees an empty form, never the first one's judgement.
    work_as(c, "e2e-reviewer", "annotator").await;
    assert!(in_my_work(c, "round-item", "jg-006").await);
    click(c, "[data-testid=round-item][data-ext-id=jg-006]").await;
    wait_for(c, "[data-testid=blind-form]").await;
    assert!(c
        .find(Locator::Css("[data-testid=blind-compare]"))
        .await
        .is_err());
    assert!(c
        .find(Locator::Css("[data-testid=blind-recorded]"))
        .await
        .is_err());
    select(c, "[data-testid=blind-op]", "minor_edit").await;
    click(c, "[data-testid=blind-record]").await;
    wait_blind(c, project, 2).await;
    // Both are in: both judgements side by side, the disagreement marked.
    let table = wait_text(c, "[data-testid=blind-compare]", |t| {
        t.contains("e2e-annotator") && t.contains("Minor edit")
    })
    .await;
    assert!(table.contains("Answer correction"), "{table}");
    // The note is text, not markup.
    assert!(table.contains("<b>unit</b> missing"), "{table}");
    assert_eq!(
        blind_stored(project),
        vec![
            ("e2e-annotator".into(), Some(RefinementOp::AnswerCorrection)),
            ("e2e-reviewer".into(), Some(RefinementOp::MinorEdit)),
        ]
    );

    // The auditor reads the agreement, measured blind, then adjudicates from "My work".
    work_as(c, "e2e-auditor", "auditor").await;
    show(c, "team").await;
    wait_for(c, "[data-testid=agreement]").await;
    select(
        c,
        "[data-testid=agreement] select[aria-label='items of round']",
        "1",
    )
    .await;
    wait_for(c, "[data-testid=agreement-blind]").await;
    wait_text(c, "[data-testid=agreement-summary]", |t| {
        t.starts_with("1 items") && t.contains("e2e-annotator") && t.contains("e2e-reviewer")
    })
    .await;
    screenshot(c, "blind-agreement.png").await;
    show(c, "items").await;
    assert!(in_my_work(c, "adjudicate-item", "jg-006").await);
    click(c, "[data-testid=adjudicate-item][data-ext-id=jg-006]").await;
    wait_for(c, "[data-testid=blind-compare]").await;
    screenshot(c, "blind-adjudicate.png").await;
    click(c, "[data-testid=adopt][data-person=e2e-reviewer]").await;
    wait_op(c, "minor_edit", true).await;
    let p = assay_core::Project::open(project).unwrap();
    let it = p
        .item(p.item_id_by_ext("jgraph-mini", "jg-006").unwrap())
        .unwrap();
    assert_eq!(it.op, Some(RefinementOp::MinorEdit));
    assert!(p.adjudication_queue().unwrap().is_empty());
}

/// Switches who is working: back to the start screen, a name and a role, the same project.
async fn work_as(c: &Client, name: &str, role: &str) {
    click(c, "[data-testid=switch]").await;
    fill(c, "[data-testid=user-name]", name).await;
    click(c, &format!("[data-testid=role-{role}]")).await;
    click(c, "[data-testid=recent-project]").await;
    wait_for(c, "[data-testid=chosen-project]").await;
    click(c, "[data-testid=start]").await;
    wait_text(c, "[data-testid=current-user]", |t| t.starts_with(name)).await;
}

/// Opens "My work" (fresh) and tells whether a list there holds the item.
async fn in_my_work(c: &Client, list: &str, ext_id: &str) -> bool {
    // Coming to the view reads the lists fresh.
    show(c, "items").await;
    show(c, "review").await;
    wait_for(c, "[data-testid=my-work] section").await;
    c.find(Locator::Css(&format!(
        "[data-testid={list}][data-ext-id={ext_id}]"
    )))
    .await
    .is_ok()
}

fn jg006(project: &Path) -> (assay_core::ItemStatus, bool, Option<String>) {
    let p = assay_core::Project::open(project).unwrap();
    let it = p
        .item(p.item_id_by_ext("jgraph-mini", "jg-006").unwrap())
        .unwrap();
    (it.status, it.signed_off, it.content.answer)
}

async fn wait_jg006(
    c: &Client,
    project: &Path,
    what: &str,
    check: impl Fn(&(assay_core::ItemStatus, bool, Option<String>)) -> bool,
) {
    until(
        c,
        || format!("never stored: {what}; now {:?}", jg006(project)),
        || std::future::ready(check(&jg006(project))),
    )
    .await;
}

/// Two people and an auditor on one project: the annotator cannot review their own revision;
/// a reviewer asks for changes; the annotator fixes; the reviewer approves with the keyboard;
/// the auditor signs off and the item locks.
async fn review_by_two_people_and_an_auditor(c: &Client, project: &Path) {
    use assay_core::ItemStatus;
    // jg-006's current revision is e2e-annotator's own.
    search(c, "降水量は何mm").await;
    open_row(c, "jg-006").await;
    let approve = wait_for(c, "[data-testid=approve]").await;
    assert!(
        !approve.is_enabled().await.unwrap(),
        "no reviewing one's own work"
    );

    // Nor is it in the annotator's own list of work to review.
    assert!(!in_my_work(c, "review-item", "jg-006").await);

    // The reviewer finds it in their list, opens it from there and asks for changes.
    work_as(c, "e2e-reviewer", "annotator").await;
    assert!(in_my_work(c, "review-item", "jg-006").await);
    click(c, "[data-testid=review-item][data-ext-id=jg-006]").await;
    wait_text(c, "[data-testid=item-id]", |t| t == "jg-006").await;
    fill(c, "[data-testid=review-comment]", "give the unit (mm)").await;
    click(c, "[data-testid=request-changes]").await;
    wait_jg006(c, project, "changes requested", |s| {
        s.0 == ItemStatus::Flagged
    })
    .await;
    wait_text(c, "[data-testid=comment]", |t| {
        t.contains("give the unit (mm)")
    })
    .await;
    // A comment with a mention; markup in it stays text.
    fill(
        c,
        "[data-testid=comment-input]",
        "@e2e-annotator <b>mm</b> please",
    )
    .await;
    click(c, "[data-testid=comment-send]").await;
    wait_text(c, "[data-testid=comments] mark.mention", |t| {
        t == "@e2e-annotator"
    })
    .await;
    let bolds = c
        .find_all(Locator::Css("[data-testid=comments] b"))
        .await
        .unwrap();
    for b in bolds {
        assert_ne!(
            b.text().await.unwrap(),
            "mm",
            "comment markup was interpreted"
        );
    }

    // The annotator sees it sent back, with the mentions, and fixes it from there.
    work_as(c, "e2e-annotator", "annotator").await;
    assert!(in_my_work(c, "sent-back-item", "jg-006").await);
    let mentions = c
        .find_all(Locator::Css("[data-testid=mention]"))
        .await
        .unwrap();
    assert_eq!(
        mentions.len(),
        2,
        "the request and the comment both mention the author"
    );
    screenshot(c, "my-work.png").await;
    click(c, "[data-testid=sent-back-item][data-ext-id=jg-006]").await;
    wait_text(c, "[data-testid=item-id]", |t| t == "jg-006").await;
    fill(c, "[data-testid=answer]", "171mm").await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_jg006(c, project, "the fix", |s| {
        s.0 == ItemStatus::Edited && s.2.as_deref() == Some("171mm")
    })
    .await;

    work_as(c, "e2e-reviewer", "annotator").await;
    search(c, "降水量は何mm").await;
    open_row(c, "jg-006").await;
    keys(c, &[(None, 'y')]).await; // approve
    wait_jg006(c, project, "the approval", |s| s.0 == ItemStatus::Approved).await;

    // The project's owner makes e2e-auditor an auditor: nobody makes themselves one.
    {
        let p = assay_core::Project::open(project).unwrap();
        let owner = p.owner().unwrap().unwrap();
        p.set_role(&owner, "e2e-auditor", assay_core::Role::Auditor)
            .unwrap();
    }
    work_as(c, "e2e-auditor", "auditor").await;
    search(c, "降水量は何mm").await;
    // The auditor deals the filtered items to both people as an audit round, all overlapping.
    show(c, "team").await;
    wait_for(c, "[data-testid=round-form]").await;
    fill(c, "[data-testid=round-name]", "final check").await;
    click(c, "[data-testid=round-purpose] option[value=audit]").await;
    for who in ["e2e-annotator", "e2e-reviewer"] {
        click(c, &format!("[data-testid=assignee][data-name={who}]")).await;
    }
    fill(c, "[data-testid=round-overlap]", "100").await;
    click(c, "[data-testid=round-create]").await;
    wait_text(c, "[data-testid=round] caption", |t| {
        t.contains("final check") && t.contains("audit") && t.contains("1 items, 1 to two people")
    })
    .await;
    wait_text(c, "[data-testid=person][data-name=e2e-reviewer]", |t| {
        t.contains("e2e-reviewer")
    })
    .await;
    // The form is reset once the round is stored: the frame shows the finished state.
    wait_value(c, "[data-testid=round-name]", "").await;
    screenshot(c, "team.png").await;
    show(c, "items").await;
    open_row(c, "jg-006").await;
    click(c, "[data-testid=sign-off]").await;
    wait_for(c, "[data-testid=signed-off]").await;
    wait_jg006(c, project, "the sign-off", |s| s.1).await;
    screenshot(c, "signed-off.png").await;
    // Locked: an edit is refused by the store and nothing changes.
    fill(c, "[data-testid=answer]", "999").await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_text(c, "[data-testid=editor-error]", |t| {
        t.contains("signed off")
    })
    .await;
    assert_eq!(jg006(project).2.as_deref(), Some("171mm"));
}

const CR002: (&str, &str) = ("crag-mini", "cr-002");
const H101: (&str, &str) = ("haerae-mini", "101");

/// Where the box is drawn: screen pixels up-left and down-right of the canvas's centre.
const DRAW_FROM: (f64, f64) = (60.0, 40.0);
const DRAW_TO: (f64, f64) = (45.0, 35.0);

/// An item's content as stored in the project file now.
fn stored(project: &Path, dataset: &str, ext: &str) -> assay_core::ItemContent {
    let p = assay_core::Project::open(project).unwrap();
    p.item(p.item_id_by_ext(dataset, ext).unwrap())
        .unwrap()
        .content
}

/// Polls the project file until `check` holds for one item's stored content.
async fn wait_stored(
    c: &Client,
    project: &Path,
    (dataset, ext): (&str, &str),
    what: &str,
    check: impl Fn(&assay_core::ItemContent) -> bool,
) {
    until(
        c,
        || {
            let now = stored(project, dataset, ext);
            format!(
                "never stored: {what}; stored: ref {:?}, checklist {:?}, boxes {:?}",
                now.ref_type,
                now.checklist,
                now.images.first().map(|i| &i.target_boxes)
            )
        },
        || std::future::ready(check(&stored(project, dataset, ext))),
    )
    .await;
}

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
        let xpath = format!("//td[@data-testid='{testid}' and normalize-space()='auto v2']");
        let xpath = &xpath;
        until(
            c,
            || format!("no {testid} cell reads auto v2"),
            move || async move { c.find(Locator::XPath(xpath)).await.is_ok() },
        )
        .await;
    }
    click(c, "[data-testid=rescore-all]").await;
    wait_text(c, "[data-testid=rescore-result]", |t| {
        t.contains("results rescored, 0 changed")
    })
    .await;
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

fn decode_data_url(url: &str) -> image::RgbImage {
    use base64::Engine as _;
    let b64 = url.split_once(";base64,").unwrap().1;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    image::load_from_memory(&bytes).unwrap().to_rgb8()
}

/// Picks an option. A select scrolled out of the modal's view answers "not interactable", so
/// it is scrolled to first, and the pick is repeated until the select holds the value.
async fn select(c: &Client, css: &str, value: &str) {
    let start = Instant::now();
    loop {
        let e = wait_for(c, css).await;
        let arg = vec![serde_json::to_value(&e).unwrap()];
        let _ = c
            .execute("arguments[0].scrollIntoView({block: 'center'})", arg)
            .await;
        if e.select_by_value(value).await.is_ok() && select_value(&e).await == value {
            return;
        }
        assert!(start.elapsed() < WAIT, "could not pick {value:?} in {css}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn select_value(e: &fantoccini::elements::Element) -> String {
    e.prop("value").await.ok().flatten().unwrap_or_default()
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

    // What the model was shown for cr-001 (512 x 384, box [200, 280, 310, 342]): the crop is
    // the box and a tenth around it, 132 x 76; the highlight draws a green line on its edges.
    let shown = stub.image_urls();
    let car: Vec<_> = shown
        .iter()
        .filter(|(p, _)| p.contains("What brand is this car"))
        .collect();
    let crop = car
        .iter()
        .find(|(p, _)| !p.contains("I have highlighted"))
        .unwrap();
    assert_eq!(decode_data_url(&crop.1).dimensions(), (132, 76));
    let lit = car
        .iter()
        .find(|(p, _)| p.contains("I have highlighted"))
        .unwrap();
    // A 3-pixel line (8 at 1280 pixels, scaled) through JPEG: some pixel on it stays green.
    let img = decode_data_url(&lit.1);
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
        assert_eq!(img["view"], "crop:189,273,132,76");
        assert_eq!(img["sent_size"], json!([132, 76]));
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

/// Two remote replicas (library calls: another person's machine) edit jg-005 on the same base.
async fn remote_edit(
    url: String,
    file: std::path::PathBuf,
    who: &'static str,
    answer: &'static str,
) {
    tokio::task::spawn_blocking(move || {
        let mut p = assay_core::Project::open(&file).unwrap();
        let u = p.user_by_name(who).unwrap().unwrap();
        let author = assay_core::store::Author {
            user_id: u.id,
            role: u.role,
            round: 1,
        };
        let id = p.item_id_by_ext("jgraph-mini", "jg-005").unwrap();
        let edit = assay_core::store::Edit::answer_fix(&p.item(id).unwrap(), answer);
        p.save_edit(id, &edit, &author).unwrap();
        assay_sync::sync(&url, &mut p).unwrap();
    })
    .await
    .unwrap();
}

fn stored_answer(project: &Path, ext: &str) -> Option<String> {
    stored(project, "jgraph-mini", ext).answer
}

/// The auditor publishes the project to a PostgreSQL database the test starts; two other people
/// join and edit one item at once; the app pulls both in the background, shows the conflict,
/// and the auditor keeps one side as a new revision.
async fn a_team_through_postgresql(c: &Client, project: &Path) {
    let cluster = tokio::task::spawn_blocking(|| {
        let cluster = assay_sync::cluster::Cluster::start().expect("a private PostgreSQL cluster");
        let mut admin =
            postgres::Client::connect(&cluster.admin_url("postgres"), postgres::NoTls).unwrap();
        admin.batch_execute("CREATE DATABASE e2e").unwrap();
        cluster
    })
    .await
    .unwrap();
    show(c, "team").await;
    fill(
        c,
        "[data-testid=publish-url]",
        &format!("postgres://postgres@127.0.0.1:{}/e2e", cluster.port),
    )
    .await;
    fill(
        c,
        "[data-testid=publish-password]",
        assay_sync::cluster::SUPERUSER_PASSWORD,
    )
    .await;
    click(c, "[data-testid=publish]").await;
    wait_text(c, "[data-testid=sync-state]", |t| t.starts_with("synced")).await;
    let stored_url = assay_core::Project::open(project)
        .unwrap()
        .sync_get("team")
        .unwrap()
        .unwrap();
    assert!(
        !stored_url.contains(assay_sync::cluster::SUPERUSER_PASSWORD),
        "{stored_url}"
    );
    show(c, "items").await;
    // The project's evaluation runs (the sample's recorded checklist judgement) were published
    // with it.
    let admin = cluster.admin_url("e2e");
    let (runs, results): (i64, i64) = tokio::task::spawn_blocking(move || {
        let mut db = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
        let r = db
            .query_one(
                "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM run_items)",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    })
    .await
    .unwrap();
    assert!(runs >= 1 && results >= 1, "runs {runs}, results {results}");

    let dir = tempfile::tempdir().unwrap();
    let admin_url = cluster.admin_url("e2e");
    let port = cluster.port;
    let (b, cc) = (dir.path().join("b.assay"), dir.path().join("c.assay"));
    let (b2, c2) = (b.clone(), cc.clone());
    tokio::task::spawn_blocking(move || {
        for who in ["remote-b", "remote-c"] {
            assay_sync::add_member(&admin_url, who, assay_core::Role::Annotator, "pw").unwrap();
        }
        assay_sync::join(&format!("postgres://remote-b:pw@127.0.0.1:{port}/e2e"), &b2).unwrap();
        assay_sync::join(&format!("postgres://remote-c:pw@127.0.0.1:{port}/e2e"), &c2).unwrap();
    })
    .await
    .unwrap();
    let url_b = format!("postgres://remote-b:pw@127.0.0.1:{port}/e2e");
    let url_c = format!("postgres://remote-c:pw@127.0.0.1:{port}/e2e");
    remote_edit(url_b.clone(), b.clone(), "remote-b", "answer from b").await;
    remote_edit(url_c, cc, "remote-c", "answer from c").await;

    // The app's background sync (every 5 s) pulls both: one conflict, the later one shown.
    wait_text(c, "[data-testid=sync-pill]", |t| t.contains("1 conflict")).await;
    assert_eq!(
        stored_answer(project, "jg-005").as_deref(),
        Some("answer from c")
    );
    show(c, "team").await;
    click(c, "[data-testid=conflict-item]").await;
    wait_for(c, "[data-testid=sync-conflict]").await;
    screenshot(c, "team-sync.png").await;
    click(c, "[data-testid=pick-answer-other]").await;
    click(c, "[data-testid=resolve-conflict]").await;
    until(
        c,
        || "never resolved".into(),
        move || async move { stored_answer(project, "jg-005").as_deref() == Some("answer from b") },
    )
    .await;
    // The resolution is pushed with the next sync and reaches the others.
    click(c, "[data-testid=sync-now]").await;
    wait_text(c, "[data-testid=sync-state]", |t| {
        t.starts_with("synced") && !t.contains("pending")
    })
    .await;
    let answer_b = tokio::task::spawn_blocking(move || {
        let mut p = assay_core::Project::open(&b).unwrap();
        assay_sync::sync(&url_b, &mut p).unwrap();
        let id = p.item_id_by_ext("jgraph-mini", "jg-005").unwrap();
        p.item(id).unwrap().content.answer
    })
    .await
    .unwrap();
    assert_eq!(answer_b.as_deref(), Some("answer from b"));
    show(c, "items").await;

    // Another person joins from the start screen: a new replica, opened, syncing.
    click(c, "[data-testid=switch]").await;
    fill(c, "[data-testid=user-name]", "remote-c").await;
    click(c, "[data-testid=role-annotator]").await;
    click(c, ".join-team summary").await;
    fill(
        c,
        "[data-testid=join-url]",
        &format!("postgres://remote-c@127.0.0.1:{port}/e2e"),
    )
    .await;
    fill(c, "[data-testid=join-password]", "pw").await;
    let joined = dir.path().join("joined.assay");
    fill(c, "[data-testid=join-file]", &joined.display().to_string()).await;
    click(c, "[data-testid=join]").await;
    wait_text(c, "[data-testid=chosen-project]", |t| t.contains("joined")).await;
    click(c, "[data-testid=start]").await;
    wait_text(c, "[data-testid=sync-pill]", |t| t.starts_with("synced")).await;
    assert_eq!(
        stored_answer(&joined, "jg-005").as_deref(),
        Some("answer from b")
    );
    tokio::task::spawn_blocking(move || drop(cluster))
        .await
        .unwrap();
}

/// The workspace as pages: every view reached by the rail and by its URL (back and forward
/// too); the items as a table, three picked with Ctrl- and Shift-clicks, one bulk action on
/// them and its undo as one step; a saved view; the palette running an action.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn views_table_and_bulk_actions_in_the_window() {
    let s = Scenario::new("views, table and bulk actions");
    let c = s.start_as("e2e-annotator", None).await;
    views_table_and_bulk(&c, &s.project).await;
    c.close().await.unwrap();
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
    click(c, "[data-testid=columns-open]").await;

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
    let start = Instant::now();
    loop {
        let now = after(&c).await;
        if now != before_fix {
            let (a, b): (f64, f64) = (before_fix.parse().unwrap(), now.parse().unwrap());
            assert!(
                b > a,
                "fixing the reference raised the after score: {a} -> {b}"
            );
            break;
        }
        assert!(start.elapsed() < WAIT, "the after score never moved");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
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
    let start = Instant::now();
    loop {
        let ticked = wait_for(&c, &pick).await.prop("checked").await.unwrap();
        if ticked.as_deref() != Some("true") {
            click(&c, &pick).await;
        }
        let text = c
            .execute(
                "const e = document.querySelector(arguments[0]); return e ? e.innerText : null",
                vec![serde_json::Value::String(cell.clone())],
            )
            .await
            .unwrap();
        if text.as_str() == Some("1.00") {
            break;
        }
        if start.elapsed() > WAIT {
            if let Ok(png) = c.screenshot().await {
                let _ = std::fs::write(root().join("target/e2e-failure.png"), png);
            }
            panic!("the run column never showed jg-006's score: {text:?}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    screenshot(&c, "table-run-column.png").await;
    c.close().await.unwrap();
}

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
    use assay_core::store::query::{Filter, Page};
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
