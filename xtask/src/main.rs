//! `cargo xtask <task>`: the project's automation, in Rust.
//!
//! demo   build the sample project and open it (prints its summary through the CLI)
//! test   every check and test: fmt, clippy, unit, integration
//! bench  engine overhead against the stub, then the store at 100,000 items (release build)
//! sample regenerate assets/sample (images and data files)

mod bench;
mod draw;
mod font;
mod sample;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn run(cmd: &mut Command) -> Result<()> {
    eprintln!("$ {cmd:?}");
    let status = cmd.status().with_context(|| format!("starting {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed: {status}");
    }
    Ok(())
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// Builds the sample project from assets/sample into target/demo/sample.assay.
pub fn build_sample_project() -> Result<PathBuf> {
    let root = root();
    let out = root.join("target/demo");
    std::fs::create_dir_all(&out)?;
    let path = out.join("sample.assay");
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
    let mut project = assay_core::Project::create(&path)?;
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
    Ok(path)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("sample") => sample::generate(&root().join("assets/sample")),
        Some("demo") => {
            let path = build_sample_project()?;
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
                .arg(&path))?;
            eprintln!("\nsample project: {}", path.display());
            Ok(())
        }
        Some("test") => {
            run(cargo().args(["fmt", "--all", "--", "--check"]))?;
            run(cargo().args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]))?;
            run(cargo().args(["test", "--workspace"]))?;
            Ok(())
        }
        Some("bench") => {
            let release = ["run", "--release", "--quiet", "-p", "xtask", "--"];
            run(cargo().args(release).arg("bench-engine"))?;
            run(cargo().args(release).arg("bench-store").args(&args[1..]))
        }
        Some("bench-store") => bench::store(&args[1..]),
        Some("bench-engine") => bench::engine(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask <demo|test|bench|sample>");
            std::process::exit(2)
        }
    }
}
