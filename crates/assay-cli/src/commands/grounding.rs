//! `assay boxes`: target and person boxes to and from other tools' files.

use std::path::PathBuf;

use anyhow::anyhow;
use clap::{Args, Subcommand};

use super::Ctx;
use crate::output;
use assay_core::grounding::formats::{self, BoxFormat};
use assay_core::store::Author;
use assay_core::Role;
use assay_eval::model_boxes::{model_output_sets, parse_size, ModelOutput};
use assay_eval::scorers::grounding::BoxConvention;

#[derive(Subcommand)]
pub enum BoxesCommand {
    /// Write a dataset's boxes (current state, original pixels) in another tool's format.
    Export(ExportArgs),
    /// Read boxes from a file and save them to the matching items as new revisions, all or
    /// nothing. Items are found by id, or by an image's file name.
    Import(ImportArgs),
}

#[derive(Args)]
pub struct ExportArgs {
    pub dataset: String,
    #[arg(long, value_parser = super::named::<BoxFormat>(&BoxFormat::NAMES))]
    pub format: BoxFormat,
    /// The file to write.
    #[arg(long)]
    pub out: PathBuf,
}

#[derive(Args)]
pub struct ImportArgs {
    pub dataset: String,
    pub file: PathBuf,
    /// coco, label-studio, crag-mm, or model-output: JSON lines of {"id", "<field>"} whose
    /// text holds a box as a model wrote it.
    #[arg(long, value_parser = ["coco", "label-studio", "crag-mm", "model-output"])]
    pub format: String,
    /// For model-output: the convention the numbers are in (see `assay model add`).
    #[arg(long, default_value = "auto", value_parser = super::named::<BoxConvention>(&BoxConvention::NAMES))]
    pub convention: BoxConvention,
    /// For model-output: the field holding the model's text.
    #[arg(long, default_value = "response")]
    pub field: String,
    /// For model-output: the size the image was sent at, WxH (default: its original size).
    #[arg(long)]
    pub sent_size: Option<String>,
    /// Who is recorded as the author of the new revisions.
    #[arg(long)]
    pub user: String,
}

pub fn run(ctx: &Ctx, c: BoxesCommand) -> anyhow::Result<()> {
    match c {
        BoxesCommand::Export(a) => export(ctx, a),
        BoxesCommand::Import(a) => import(ctx, a),
    }
}

fn format_of(s: &str) -> anyhow::Result<BoxFormat> {
    BoxFormat::parse(s).ok_or_else(|| anyhow!("unknown box format {s}"))
}

fn export(ctx: &Ctx, a: ExportArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let r = formats::files::export_boxes(&p, &a.dataset, a.format, &a.out)?;
    if ctx.json {
        return output::json(
            &serde_json::json!({"images": r.images, "boxes": r.boxes, "label_config": r.label_config}),
        );
    }
    println!(
        "wrote {} boxes on {} images to {}",
        r.boxes, r.images, r.path
    );
    if let Some(path) = r.label_config {
        println!("labelling config for Label Studio: {path}");
    }
    Ok(())
}

fn import(ctx: &Ctx, a: ImportArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let ds = p.dataset_by_name(&a.dataset)?;
    // The file is read (and refused, if it must be) before anyone signs in.
    let sets = if a.format == "model-output" {
        let how = ModelOutput {
            field: a.field.clone(),
            convention: a.convention,
            sent_size: a.sent_size.as_deref().map(parse_size).transpose()?,
        };
        model_output_sets(&p, ds.id, &a.file, &how)?
    } else {
        formats::read(format_of(&a.format)?, &a.file)?
    };
    let user = p.sign_in(&a.user, Role::Annotator)?;
    let author = Author {
        user_id: user.id,
        role: user.role,
        round: 1,
    };
    let report = formats::files::apply(&mut p, ds.id, &sets, &author, &a.format, &a.file)?;
    if ctx.json {
        return output::json(&report);
    }
    println!(
        "{} box sets matched; {} items got a new revision",
        report.matched, report.changed
    );
    if report.merged > 0 {
        println!(
            "{} sets were for an image an earlier set already had (several tasks on one image): their boxes were added",
            report.merged
        );
    }
    if report.segmentations_dropped > 0 {
        println!(
            "{} segmentations were read as their boxes only: Assay keeps boxes, not masks or polygons",
            report.segmentations_dropped
        );
    }
    Ok(())
}
