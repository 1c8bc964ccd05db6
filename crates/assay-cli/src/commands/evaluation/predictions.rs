//! `assay predictions`: another tool's recorded outputs imported as a run.

use std::path::PathBuf;

use clap::Subcommand;

use crate::commands::{named, Ctx};
use crate::output;
use assay_eval::engine::Version;
use assay_eval::predictions::{import_and_judge, PredictionFormat, PredictionImport};
use assay_eval::scorers::grounding::BoxConvention;
use assay_eval::{CancelToken, ScorerKind, Variant};

#[derive(Subcommand)]
pub enum PredictionsCommand {
    /// Import predictions recorded by llm-jp-eval-mm, lmms-eval, VLMEvalKit, VAGUE, CRAG-MM,
    /// HAERAE-Vision or plain JSONL, scored like live runs (judge scorers with --judge).
    Import {
        file: PathBuf,
        #[arg(long)]
        model: String,
        #[arg(long)]
        dataset: String,
        #[arg(long, default_value = "after", value_parser = named::<Version>(&Version::NAMES))]
        version: Version,
        #[arg(long, default_value = "original", value_parser = named::<Variant>(&Variant::NAMES))]
        variant: Variant,
        #[arg(long, default_value_t = 1)]
        run: u32,
        #[arg(long, value_parser = named::<ScorerKind>(&ScorerKind::NAMES))]
        scorer: Option<ScorerKind>,
        /// The tool that wrote the file (default: detected from the file).
        #[arg(long, value_parser = named::<PredictionFormat>(&PredictionFormat::NAMES))]
        format: Option<PredictionFormat>,
        /// lmms-eval logs each doc once per filter: which filter (name or 0-based index).
        #[arg(long)]
        filter: Option<String>,
        /// The judge model for judge scorers (judge, checklist_judge, rating), and for
        /// identification's replies that are not an exact name.
        #[arg(long)]
        judge: Option<String>,
        /// How the recorded boxes are written (see `assay model add --boxes`).
        #[arg(long, default_value = "auto", value_parser = named::<BoxConvention>(&BoxConvention::NAMES))]
        boxes: BoxConvention,
        /// Longest image side the other tool sent, when it downscaled images.
        #[arg(long)]
        max_image_side: Option<u32>,
        #[arg(long, default_value = "id")]
        id_field: String,
        #[arg(long, default_value = "prediction")]
        text_field: String,
    },
}

pub fn predictions(ctx: &Ctx, c: PredictionsCommand) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let PredictionsCommand::Import {
        file,
        model,
        dataset,
        version,
        variant,
        run,
        scorer,
        format,
        filter,
        judge,
        boxes,
        max_image_side,
        id_field,
        text_field,
    } = c;
    let opts = PredictionImport {
        model,
        dataset,
        version,
        variant,
        run_index: run,
        scorer,
        format,
        box_convention: boxes,
        max_side: max_image_side,
        id_field,
        text_field,
        filter,
    };
    let rt = tokio::runtime::Runtime::new()?;
    let cancel = CancelToken::new();
    let c2 = cancel.clone();
    let (r, judged) = rt.block_on(async {
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                c2.cancel();
            }
        });
        import_and_judge(&mut p, &file, &opts, judge.as_deref(), cancel).await
    })?;
    if ctx.json {
        return output::json(&serde_json::json!({"import": r, "judged": judged}));
    }
    if let Some(j) = &judged {
        println!(
            "judged {} items ({} from cache, {} unparsed, {} errors)",
            j.judged, j.from_cache, j.unparsed, j.errors
        );
    }
    println!(
        "run {}: {} predictions matched ({} scored, {} unparsed), {} items without a prediction",
        r.run_id, r.matched, r.scored, r.unparsed, r.missing
    );
    if !r.unknown_ids.is_empty() {
        println!(
            "{} ids not in the dataset: {}",
            r.unknown_ids.len(),
            r.unknown_ids
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}
