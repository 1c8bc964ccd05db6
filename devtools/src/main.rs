//! `assay-devtools <task>`: the benchmarks, the sample project and the sample's images. `cargo
//! xtask` runs it (release for benchmarks); it links the whole library stack, which is why it is
//! not part of xtask itself.
//!
//! sample          redraw assets/sample (images and data files)
//! sample-project  build target/demo/sample.assay and print its path
//! bench-store | bench-engine | bench-table | bench-whatif | bench-memory | bench-team [args]

// The same allocator as the CLI and the app, so the benchmarks time what they run.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
assay_core::give_freed_memory_back_at_load!();

mod bench;
mod bench_sort;
mod bench_team;
mod draw;
mod font;
mod sample;

use std::path::{Path, PathBuf};

use anyhow::Result;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("devtools lives in the workspace")
        .to_path_buf()
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
fn build_sample_project() -> Result<PathBuf> {
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
    // Before any thread exists: SQLite is configured only while nothing else uses it.
    if !assay_core::store::configure_sqlite() {
        eprintln!("warning: SQLite kept its default allocator: the benchmarks time glibc's");
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("sample") => sample::generate(&root().join("assets/sample")),
        Some("sample-project") => {
            println!("{}", build_sample_project()?.display());
            Ok(())
        }
        Some("bench-store") => bench::store(rest),
        Some("bench-facets") => bench::facets(rest),
        Some("bench-sort") => bench_sort::sort_extras(rest),
        Some("bench-engine") => bench::engine(rest),
        Some("bench-table") => bench::table(rest),
        Some("bench-score") => bench::score(rest),
        Some("bench-whatif") => bench::whatif(rest),
        Some("bench-memory") => bench::memory(rest),
        Some("bench-project") => bench::project(rest),
        Some("bench-team") => bench_team::team(rest),
        _ => {
            eprintln!("usage: assay-devtools <sample|sample-project|bench-store|bench-engine|bench-table|bench-score|bench-whatif|bench-memory|bench-project|bench-team> [args]");
            std::process::exit(2)
        }
    }
}
