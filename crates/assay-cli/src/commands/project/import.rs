use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::commands::Ctx;
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
    /// Import the file as the refined version of this dataset (JAMMEval's `-Refined` sets):
    /// each record becomes a revision of the seed item it names, absent seed items are removed.
    #[arg(long)]
    pub refines: Option<String>,
    /// With --refines: the field naming the seed item, optionally `=seed_field` (default: the
    /// seed's own id), e.g. `original_id` or `original_id=ID`.
    #[arg(long, default_value = "original_id")]
    pub align: String,
    /// With --refines: who the revisions are recorded for.
    #[arg(long, default_value = "import")]
    pub user: String,
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
    if let Some(seed) = &a.refines {
        let user = project.sign_in(&a.user, assay_core::Role::Annotator)?;
        let author = assay_core::store::Author {
            user_id: user.id,
            role: assay_core::Role::Annotator,
            round: 1,
        };
        let r = assay_core::import::refined::import_refined(
            &mut project,
            &a.path,
            seed,
            &a.align,
            &opts,
            &author,
            &mut |_| {},
            &AtomicBool::new(false),
        )?;
        if ctx.json {
            return output::json(&r);
        }
        println!(
            "{} refined items matched in {:?}: {} changed, {} identical; {} seed items removed{}",
            r.matched,
            r.dataset,
            r.changed,
            r.identical,
            r.removed,
            if r.dry_run {
                " (dry run: nothing written)"
            } else {
                ""
            }
        );
        return Ok(());
    }
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
