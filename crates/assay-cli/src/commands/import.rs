use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::Ctx;
use crate::output;
use assay_core::import::{import_path, mapping::Mapping, ImportOptions};

#[derive(Args)]
pub struct ImportArgs {
    /// A .jsonl, .json, .csv, .tsv or .parquet file, or an image folder.
    pub path: PathBuf,
    /// Dataset name (default: the file name without extension).
    #[arg(long)]
    pub name: Option<String>,
    /// A TOML or JSON field mapping for layouts Assay does not detect.
    #[arg(long)]
    pub mapping: Option<PathBuf>,
    /// Force a known layout (assay, jammeval, llm-jp-eval-mm, haerae-vision, crag-mm-diagnostics, vague).
    #[arg(long)]
    pub layout: Option<String>,
    /// Leave images in place (path + hash) instead of copying them into the project.
    #[arg(long)]
    pub link: bool,
    /// Folder image paths resolve against (default: the data file's folder).
    #[arg(long)]
    pub image_root: Option<PathBuf>,
    /// Report what would be imported and every problem found; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(ctx: &Ctx, a: ImportArgs) -> anyhow::Result<()> {
    let mut project = ctx.open()?;
    let opts = ImportOptions {
        name: a.name,
        mapping: a.mapping.as_deref().map(Mapping::from_file).transpose()?,
        layout: a.layout,
        link_images: a.link,
        image_root: a.image_root,
        dry_run: a.dry_run,
    };
    let bar = if ctx.json {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template("{msg:6} [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})")?
            .progress_chars("=> "),
    );
    let cancel = AtomicBool::new(false);
    let report = import_path(
        &mut project,
        &a.path,
        &opts,
        &mut |p| {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
            bar.set_message(p.stage);
        },
        &cancel,
    );
    bar.finish_and_clear();
    let report = report?;
    if ctx.json {
        return output::json(&report);
    }
    let verb = if report.dry_run {
        "would import"
    } else {
        "imported"
    };
    println!(
        "{verb} {} items into dataset {:?} (layout {}), {} image references, {} new images",
        report.items, report.dataset, report.layout, report.images, report.new_images
    );
    if !report.unmapped_fields.is_empty() {
        println!(
            "unmapped fields kept as metadata: {}",
            report.unmapped_fields.join(", ")
        );
    }
    if !report.problems.is_empty() {
        println!("{} problem(s):", report.problems.len());
        for p in &report.problems {
            println!("  {p}");
        }
        if report.dry_run {
            anyhow::bail!("the import would fail");
        }
    }
    Ok(())
}
