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
//! bench-store, bench-engine, bench-table, bench-score, bench-whatif, bench-memory, bench-team  one of them
//! bench-open [N]  the release app opening N generated items (default 1,000,000): first page,
//!        jumps through the list, wheel scrolling (WebDriver, under Xvfb)
//! sample regenerate assets/sample (images and data files)
//!
//! The benchmarks and the sample run in `devtools` (assay-devtools), so that this crate, built
//! first on a fresh clone, depends on nothing but anyhow.

mod setup;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

fn root() -> PathBuf {
    // Cargo sets the manifest folder when it runs us too; the one compiled in is only a
    // fallback, since a binary built in another clone that shares this target folder (and is
    // fresh to cargo) would otherwise test that clone instead of this one.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest
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

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("sample") => devtools(false, &["sample"]),
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
            devtools(true, &["bench-engine"])?;
            devtools(true, &["bench-engine", "replicas"])?;
            devtools(true, &["bench-engine", "suggest"])?;
            devtools(true, &["bench-table"])?;
            devtools(true, &["bench-whatif"])?;
            devtools(true, &["bench-team"])?;
            let store: Vec<&str> = std::iter::once("bench-store")
                .chain(args[1..].iter().map(String::as_str))
                .collect();
            devtools(true, &store)
        }
        Some("bench-open") => bench_open(args.get(1).map_or("1000000", String::as_str)),
        Some(task) if task.starts_with("bench-") => {
            let all: Vec<&str> = args.iter().map(String::as_str).collect();
            devtools(true, &all)
        }
        _ => {
            eprintln!("usage: cargo xtask <demo|test|e2e|screenshots|bench|bindings|sample>");
            std::process::exit(2)
        }
    }
}

/// Runs a task of `assay-devtools` (benchmarks in a release build, where speed is the point).
fn devtools(release: bool, args: &[&str]) -> Result<()> {
    let mut cmd = cargo();
    cmd.args(["run", "--quiet", "-p", "assay-devtools"]);
    if release {
        cmd.arg("--release");
    }
    run(cmd.arg("--").args(args))
}

fn demo() -> Result<()> {
    setup::apt()?;
    setup::npm()?;
    setup::build_app()?;
    let out = cargo()
        .args([
            "run",
            "--quiet",
            "-p",
            "assay-devtools",
            "--",
            "sample-project",
        ])
        .stderr(std::process::Stdio::inherit())
        .output()?;
    if !out.status.success() {
        bail!("building the sample project failed: {}", out.status);
    }
    let project = PathBuf::from(String::from_utf8(out.stdout)?.trim());
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
    // One package selection and one feature set for every build below, so each crate compiles
    // once: cargo unifies features over the packages it is asked for, and a different selection
    // (the shell alone, the E2E crate alone) rebuilt much of the graph under other features.
    // Clippy lints inside that same build (clippy-driver as the workspace's compiler) instead of
    // a `cargo clippy` of its own: a separate check pass type-checked every dependency a second
    // time, seven of a fresh clone's 27 minutes.
    build_workspace()?;
    run(workspace_tests()?.arg("--no-fail-fast"))
}

/// The one build every test and the E2E run share: the whole workspace, all targets, linted.
fn build_workspace() -> Result<()> {
    run(linted(
        cargo()
            .arg("build")
            .args(WHOLE_WORKSPACE)
            .arg("--all-targets"),
    )?)
}

/// `cargo test` of the whole workspace under Xvfb, with the build's wrapper, selection and
/// features, so cargo finds that build fresh.
fn workspace_tests() -> Result<Command> {
    let mut cmd = Command::new("xvfb-run");
    cmd.args(["-a", "-s", "-screen 0 1440x900x24"])
        .arg(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .arg("test")
        .args(WHOLE_WORKSPACE)
        .current_dir(root());
    linted(&mut cmd)?;
    Ok(cmd)
}

/// `cmd` with clippy-driver compiling the workspace's own crates, denying warnings as `cargo
/// clippy -- -D warnings` would. Every build of the workspace goes through this, so they all
/// share one set of artifacts.
fn linted(cmd: &mut Command) -> Result<&mut Command> {
    Ok(cmd
        .env("RUSTC_WORKSPACE_WRAPPER", clippy_driver()?)
        // How `cargo clippy` hands its arguments to the driver.
        .env(
            "CLIPPY_ARGS",
            "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__",
        ))
}

/// clippy-driver of the toolchain running us (next to its cargo), else the one on PATH.
fn clippy_driver() -> Result<PathBuf> {
    let beside = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .and_then(|c| c.parent().map(|d| d.join("clippy-driver")))
        .filter(|p| p.is_file());
    match beside {
        Some(p) => Ok(p),
        None if setup::which("clippy-driver") => Ok(PathBuf::from("clippy-driver")),
        None => bail!("clippy-driver is missing: rustup component add clippy"),
    }
}

/// Every package, with the shell loading its bundled UI (what the E2E tests drive).
const WHOLE_WORKSPACE: [&str; 3] = ["--workspace", "--features", "assay-app/custom-protocol"];

/// The end-to-end tests; screenshots go to `screenshots` (default: target/screenshots). Built
/// with the same selection and features as `test`, so the two share one build.
/// Opens a project of `n` generated items in the release app through WebDriver and times the
/// first page, jumps through the list and wheel scrolling (the ignored end-to-end test
/// `bench_open_and_scroll_a_large_project`).
fn bench_open(n: &str) -> Result<()> {
    setup::apt()?;
    setup::npm()?;
    setup::tauri_driver()?;
    setup::npm_run("build")?;
    let out = cargo()
        .args(["run", "--quiet", "--release", "-p", "assay-devtools", "--"])
        .args(["bench-project", n])
        .stderr(std::process::Stdio::inherit())
        .output()?;
    if !out.status.success() {
        bail!("making the project failed: {}", out.status);
    }
    let project = PathBuf::from(String::from_utf8(out.stdout)?.trim());
    run(cargo().args([
        "build",
        "--release",
        "-p",
        "assay-app",
        "--features",
        "custom-protocol",
    ]))?;
    let mut cmd = workspace_tests()?;
    cmd.args(["--test", "app", "--", "--ignored", "--nocapture"])
        .arg("bench_open_and_scroll_a_large_project")
        .env("ASSAY_APP_BIN", root().join("target/release/assay-app"))
        .env("ASSAY_BENCH_PROJECT", project);
    run(&mut cmd)
}

fn e2e(screenshots: Option<&Path>) -> Result<()> {
    setup::npm_run("build")?;
    build_workspace()?;
    let mut cmd = workspace_tests()?;
    cmd.args(["--test", "app", "--", "--nocapture", "--test-threads=1"]);
    if let Some(dir) = screenshots {
        cmd.env("ASSAY_SCREENSHOT_DIR", dir);
    }
    run(&mut cmd)
}
