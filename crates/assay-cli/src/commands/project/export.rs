use std::path::PathBuf;

use clap::Args;

use crate::commands::Ctx;
use crate::output;
use assay_core::export;

#[derive(Args)]
pub struct ExportArgs {
    /// The dataset to export.
    pub dataset: String,
    /// Output folder. For hf it is the dataset folder itself, which
    /// `datasets.load_dataset(OUT)` opens.
    #[arg(long, default_value = ".")]
    pub out: PathBuf,
    /// jsonl (Assay's own), parquet (Hugging Face style, the refined set), hf (a Hugging Face
    /// dataset folder: original and refined splits, a dataset card, the changelog) or
    /// haerae-vision (the published layout: train.jsonl, images/, filtering.csv).
    #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "parquet", "hf", "haerae-vision"])]
    pub format: String,
    /// Only items an auditor signed off.
    #[arg(long)]
    pub signed_off_only: bool,
    /// Name of the exported set (default: the dataset name with -Refined).
    #[arg(long)]
    pub name: Option<String>,
}

pub fn run(ctx: &Ctx, a: ExportArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let name = a.name.unwrap_or_else(|| export::refined_name(&a.dataset));
    std::fs::create_dir_all(&a.out)?;
    let scope = if a.signed_off_only {
        export::Scope::SignedOff
    } else {
        export::Scope::All
    };
    if a.format == "hf" {
        let r = export::export_hf(&p, &a.dataset, &a.out, scope)?;
        if ctx.json {
            return output::json(&serde_json::json!({ "export": r }));
        }
        println!(
            "wrote {} original and {} refined items ({} removed, {} changed, {} images) to {}",
            r.original, r.refined, r.removed, r.changed, r.images, r.path
        );
        println!("dataset card: {}", a.out.join("README.md").display());
        return Ok(());
    }
    let report = if a.format == "parquet" {
        export::export_parquet(
            &p,
            &a.dataset,
            &a.out.join(format!("{name}.parquet")),
            scope,
        )?
    } else if a.format == "haerae-vision" {
        export::export_haerae(&p, &a.dataset, &a.out.join(&name), scope)?
    } else {
        export::export_jsonl(&p, &a.dataset, &a.out.join(&name), scope)?
    };
    let changelog = a.out.join(format!("{name}.changelog.csv"));
    let changed = export::write_changelog(&p, &a.dataset, &changelog)?;
    if ctx.json {
        return output::json(&serde_json::json!({
            "export": report, "changelog": changelog, "changed_items": changed
        }));
    }
    println!(
        "wrote {} items ({} removed left out, {} images) to {}",
        report.items, report.removed_left_out, report.images, report.path
    );
    println!(
        "changelog: {} changed items in {}",
        changed,
        changelog.display()
    );
    Ok(())
}
