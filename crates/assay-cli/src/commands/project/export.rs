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
    let scope = if a.signed_off_only {
        export::Scope::SignedOff
    } else {
        export::Scope::All
    };
    let format = export::ExportFormat::parse(&a.format)
        .ok_or_else(|| anyhow::anyhow!("unknown format {:?}", a.format))?;
    let r = export::export_dataset(&p, &a.dataset, &a.out, format, scope, a.name.as_deref())?;
    if ctx.json {
        return output::json(&serde_json::json!({
            "export": r, "changelog": r.changelog, "changed_items": r.changed
        }));
    }
    if format == export::ExportFormat::Hf {
        println!(
            "wrote {} original and {} refined items ({} removed, {} changed, {} images) to {}",
            r.original.unwrap_or_default(),
            r.items,
            r.removed_left_out,
            r.changed,
            r.images,
            r.path
        );
        println!("dataset card: {}", a.out.join("README.md").display());
        return Ok(());
    }
    println!(
        "wrote {} items ({} removed left out, {} images) to {}",
        r.items, r.removed_left_out, r.images, r.path
    );
    println!("changelog: {} changed items in {}", r.changed, r.changelog);
    Ok(())
}
