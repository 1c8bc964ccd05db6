//! `cargo xtask <task>`: the project's automation, in Rust.
//!
//! demo     install what is missing, build the app and open it on the sample project
//! test     every check and test: UI check/lint/unit, fmt, clippy, Rust tests, end-to-end
//! e2e      the end-to-end tests alone (built app, Xvfb, tauri-driver); screenshots in target/
//! screenshots  the end-to-end tests, writing their screenshots to docs/screenshots
//! bindings regenerate ui/src/lib/api/bindings.ts from Rust
//! bench  engine overhead against the stub (and browsing during a 64-way run), the
//!        before/after table at 100,000 items, the live what-if at 1,600 x 12 x 3, then the
//!        store at 100,000 items (release build)
//! sample regenerate assets/sample (images and data files)

mod bench;
mod bench_team;
mod draw;
mod font;
mod sample;
mod setup;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

pub(crate) fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {cmd:?}");
    let status = cmd.status().with_context(|| format!("starting {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed: {status}");
    }
    Ok(())
}

pub(crate) fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// A new, empty project at `path`, replacing one left by an earlier run (and its WAL files).
pub(crate) fn fresh_project(path: &Path) -> Result<assay_core::Project> {
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
    Ok(assay_core::Project::create(path)?)
}

/// A new project at `path` with `data` imported (layout detected), replacing an earlier one.
pub(crate) fn fresh_project_from(path: &Path, data: &Path) -> Result<assay_core::Project> {
    let mut p = fresh_project(path)?;
    assay_core::import::import_path(
        &mut p,
        data,
        &Default::default(),
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )?;
    Ok(p)
}

/// Builds the sample project from assets/sample into target/demo/sample.assay.
pub fn build_sample_project() -> Result<PathBuf> {
    let root = root();
    let out = root.join("target/demo");
    std::fs::create_dir_all(&out)?;
    let path = out.join("sample.assay");
    let mut project = fresh_project(&path)?;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    for f in sample::DATA_FILES {
        let report = assay_core::import::import_path(
            &mut project,
            &root.join("assets/sample").join(f),
            &Default::default(),
            &mut |_| {},
            &cancel,
        )?;
        eprintln!(
            "imported {} items into {} ({})",
            report.items, report.dataset, report.layout
        );
    }
    drop(project);
    // Results to look at without a model server: three synthetic models' recorded answers
    // (assay_eval::demo says how they are made).
    tokio::runtime::Runtime::new()?.block_on(assay_eval::demo::record_sample_runs(&path))?;
    eprintln!(
        "recorded {} synthetic models on jgraph-mini (original and refined)",
        assay_eval::demo::MODELS.len()
    );
    Ok(path)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("sample") => sample::generate(&root().join("assets/sample")),
        Some("demo") => demo(),
        Some("test") => test(),
        Some("e2e") => {
            setup::apt()?;
            setup::npm()?;
            setup::tauri_driver()?;
            e2e(None)
        }
        Some("screenshots") => {
            setup::apt()?;
            setup::npm()?;
            setup::tauri_driver()?;
            e2e(Some(&root().join("docs/screenshots")))
        }
        Some("bindings") => run(cargo()
            .args(["test", "-q", "-p", "assay-api", "bindings"])
            .env("UPDATE_BINDINGS", "1")),
        Some("bench") => {
            let release = ["run", "--release", "--quiet", "-p", "xtask", "--"];
            run(cargo().args(release).arg("bench-engine"))?;
            run(cargo().args(release).arg("bench-table"))?;
            run(cargo().args(release).arg("bench-whatif"))?;
            run(cargo().args(release).arg("bench-team"))?;
            run(cargo().args(release).arg("bench-store").args(&args[1..]))
        }
        Some("bench-store") => bench::store(&args[1..]),
        Some("bench-engine") => bench::engine(&args[1..]),
        Some("bench-table") => bench::table(&args[1..]),
        Some("bench-whatif") => bench::whatif(&args[1..]),
        Some("bench-memory") => bench::memory(&args[1..]),
        Some("bench-team") => bench_team::team(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <demo|test|e2e|screenshots|bench|bindings|sample>");
            std::process::exit(2)
        }
    }
}

fn demo() -> Result<()> {
    setup::apt()?;
    setup::npm()?;
    setup::build_app()?;
    let project = build_sample_project()?;
    run(cargo()
        .args([
            "run",
            "--quiet",
            "-p",
            "assay-cli",
            "--",
            "stats",
            "--project",
        ])
        .arg(&project))?;
    let app = root().join("target/debug/assay-app");
    let mut cmd =
        if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some() {
            Command::new(&app)
        } else {
            eprintln!("no display: running the app under Xvfb (it will not be visible)");
            let mut c = Command::new("xvfb-run");
            c.args(["-a", "-s", "-screen 0 1440x900x24"]).arg(&app);
            c
        };
    eprintln!("opening {}", project.display());
    run(cmd.args(["--project"]).arg(&project))
}

fn test() -> Result<()> {
    setup::apt()?;
    setup::npm()?;
    setup::tauri_driver()?;
    for script in ["check", "lint", "test"] {
        setup::npm_run(script)?;
    }
    // The shell embeds the UI bundle at compile time, so build it before cargo sees src-tauri.
    setup::npm_run("build")?;
    run(cargo().args(["fmt", "--all", "--", "--check"]))?;
    run(cargo().args(["clippy"]).args(WHOLE_WORKSPACE).args([
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    // One package selection and one feature set for every build below, so each crate compiles
    // once: cargo unifies features over the packages it is asked for, and a different selection
    // (the shell alone, the E2E crate alone) rebuilt much of the graph under other features.
    // The app binary the E2E tests drive is built with everything else.
    run(cargo()
        .arg("build")
        .args(WHOLE_WORKSPACE)
        .arg("--all-targets"))?;
    let mut tests = Command::new("xvfb-run");
    tests
        .args(["-a", "-s", "-screen 0 1440x900x24"])
        .arg(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["test", "--no-fail-fast"])
        .args(WHOLE_WORKSPACE)
        .current_dir(root());
    run(&mut tests)
}

/// Every package, with the shell loading its bundled UI (what the E2E tests drive).
const WHOLE_WORKSPACE: [&str; 3] = ["--workspace", "--features", "assay-app/custom-protocol"];

/// The end-to-end tests; screenshots go to `screenshots` (default: target/screenshots). Built
/// with the same selection and features as `test`, so the two share one build.
fn e2e(screenshots: Option<&std::path::Path>) -> Result<()> {
    setup::npm_run("build")?;
    run(cargo()
        .arg("build")
        .args(WHOLE_WORKSPACE)
        .arg("--all-targets"))?;
    let mut cmd = Command::new("xvfb-run");
    cmd.args(["-a", "-s", "-screen 0 1440x900x24"])
        .arg(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .arg("test")
        .args(WHOLE_WORKSPACE)
        .args(["--test", "app", "--", "--nocapture", "--test-threads=1"])
        .current_dir(root());
    if let Some(dir) = screenshots {
        cmd.env("ASSAY_SCREENSHOT_DIR", dir);
    }
    run(&mut cmd)
}
