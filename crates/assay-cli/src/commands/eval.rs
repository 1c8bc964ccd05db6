use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand};

use super::{named, Ctx};
use crate::output;
use assay_core::{AnswerFormat, Role};
use assay_eval::engine::Version;
use assay_eval::model::{models, save_model, GenParams, ImageEncoding, ImagePolicy, ModelConfig};
use assay_eval::predictions::{import_and_judge, PredictionFormat, PredictionImport};
use assay_eval::scorers::grounding::BoxConvention;
use assay_eval::table::{
    before_after_table, render, variant_table, Breakdown, Spread, TableFormat, TableOptions,
};
use assay_eval::{run_eval, CancelToken, EvalRequest, ScorerKind, Variant};

#[derive(Subcommand)]
pub enum ModelCommand {
    /// Add (or update) a model served over OpenAI-compatible chat completions.
    Add(Box<ModelArgs>),
    /// List models (with whether this machine has accepted each one's endpoints).
    List,
    /// Accept a model that came from the team or another project file: prints its endpoints and
    /// key variable, and from then on this machine sends requests to them.
    Accept { name: String },
}

#[derive(Args)]
pub struct ModelArgs {
    pub name: String,
    /// Base URL up to /v1; repeat for replicas of one deployment.
    #[arg(long = "endpoint", required = true)]
    pub endpoints: Vec<String>,
    /// Model id sent in requests (default: the name).
    #[arg(long)]
    pub model: Option<String>,
    /// Environment variable holding the API key (the key is never stored).
    #[arg(long)]
    pub api_key_env: Option<String>,
    #[arg(long, default_value_t = 0.0)]
    pub temperature: f64,
    #[arg(long)]
    pub top_p: Option<f64>,
    #[arg(long, default_value_t = 1024)]
    pub max_tokens: u32,
    #[arg(long)]
    pub seed: Option<u64>,
    #[arg(long, default_value_t = 1024)]
    pub max_image_side: u32,
    #[arg(long, default_value = "jpeg", value_parser = ["jpeg", "png"])]
    pub image_format: String,
    /// How the model writes boxes: auto, sent-pixels, original-pixels, normalized-1,
    /// normalized-1000, qwen2.5-vl, qwen3-vl, or crag-mm (the CRAG-MM-Diagnostics protocol:
    /// images sent at 960 x 1280, integer pixel boxes, IoU >= 0.5).
    #[arg(long, default_value = "auto", value_parser = named::<BoxConvention>(&BoxConvention::NAMES))]
    pub boxes: BoxConvention,
    /// Requests in flight per endpoint.
    #[arg(long, default_value_t = 8)]
    pub concurrency: usize,
    #[arg(long)]
    pub rate_per_minute: Option<u32>,
    #[arg(long, default_value_t = 120.0)]
    pub timeout: f64,
    #[arg(long, default_value_t = 5)]
    pub retries: u32,
    /// Price per million input tokens, for cost reports.
    #[arg(long)]
    pub price_input: Option<f64>,
    #[arg(long)]
    pub price_output: Option<f64>,
}

pub fn model(ctx: &Ctx, c: ModelCommand) -> anyhow::Result<()> {
    let p = ctx.open()?;
    match c {
        ModelCommand::Add(a) => {
            let a = *a;
            let cfg = ModelConfig {
                model: a.model.unwrap_or_else(|| a.name.clone()),
                name: a.name,
                endpoints: a.endpoints,
                params: GenParams {
                    temperature: a.temperature,
                    top_p: a.top_p,
                    max_tokens: a.max_tokens,
                    seed: a.seed,
                },
                images: ImagePolicy {
                    max_side: a.max_image_side,
                    encoding: if a.image_format == "png" {
                        ImageEncoding::Png
                    } else {
                        ImageEncoding::Jpeg
                    },
                },
                box_convention: a.boxes,
                api_key_env: a.api_key_env,
                concurrency: a.concurrency,
                rate_per_minute: a.rate_per_minute,
                timeout_secs: a.timeout,
                max_retries: a.retries,
                price_input: a.price_input,
                price_output: a.price_output,
            };
            let (id, cfg) = save_model(&p, &cfg)?;
            if ctx.json {
                output::json(&serde_json::json!({"id": id, "model": cfg}))
            } else {
                println!(
                    "saved model {} ({} endpoint(s))",
                    cfg.name,
                    cfg.endpoints.len()
                );
                Ok(())
            }
        }
        ModelCommand::List => {
            let ms = models(&p)?;
            if ctx.json {
                return output::json(&ms);
            }
            for m in ms {
                println!(
                    "{}\t{}\t{}\t{}",
                    m.config.name,
                    m.config.model,
                    m.config.endpoints.join(" "),
                    if assay_eval::trust::is_accepted(&m.config) {
                        "accepted"
                    } else {
                        "not accepted here"
                    }
                );
            }
            Ok(())
        }
        ModelCommand::Accept { name } => {
            let m = assay_eval::model::model_by_name(&p, &name)?;
            assay_eval::trust::accept(&m.config)?;
            println!(
                "accepted {name}: requests go to {} with the key from {}",
                m.config.endpoints.join(", "),
                m.config.api_key_env.as_deref().unwrap_or("(no key)")
            );
            Ok(())
        }
    }
}

#[derive(Args)]
pub struct EvalArgs {
    #[arg(long = "model", required = true)]
    pub models: Vec<String>,
    #[arg(long = "dataset", required = true)]
    pub datasets: Vec<String>,
    /// before, after, or both (default).
    #[arg(long = "version", value_parser = named::<Version>(&Version::NAMES))]
    pub versions: Vec<Version>,
    /// The question variant (default: original).
    #[arg(long = "variant", value_parser = named::<Variant>(&Variant::NAMES))]
    pub variants: Vec<Variant>,
    #[arg(long, default_value_t = 3)]
    pub runs: u32,
    #[arg(long, default_value = "default")]
    pub template: String,
    /// The scorer (default: per answer format).
    #[arg(long, value_parser = named::<ScorerKind>(&ScorerKind::NAMES))]
    pub scorer: Option<ScorerKind>,
    /// Judge model for judge scorers (and for identification replies that are not an exact
    /// match).
    #[arg(long)]
    pub judge: Option<String>,
}

pub fn eval(ctx: &Ctx, a: EvalArgs) -> anyhow::Result<()> {
    let path = ctx.path()?.clone();
    let versions = if a.versions.is_empty() {
        vec![Version::Before, Version::After]
    } else {
        a.versions
    };
    let variants = if a.variants.is_empty() {
        vec![Variant::Original]
    } else {
        a.variants
    };
    let scorer = a.scorer;
    let req = EvalRequest {
        models: a.models,
        datasets: a.datasets,
        versions,
        variants,
        runs: a.runs,
        template: a.template,
        scorer,
        judge: a.judge,
    };
    let bar = output::job_bar(ctx.json, 0)?;
    let b2 = bar.clone();
    let progress = Arc::new(move |p: &assay_eval::EvalProgress| {
        b2.set_length(p.total as u64);
        b2.set_position(p.done as u64);
        b2.set_message(format!(
            "sent {} cached {} errors {} tokens {}/{}",
            p.sent, p.cached, p.errors, p.prompt_tokens, p.completion_tokens
        ));
    });
    let cancel = CancelToken::new();
    let rt = tokio::runtime::Runtime::new()?;
    let start = Instant::now();
    let summary = rt.block_on(async {
        let c = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                c.cancel();
            }
        });
        run_eval(&path, &req, progress, cancel.clone()).await
    })?;
    bar.finish_and_clear();
    if ctx.json {
        return output::json(&summary);
    }
    let p = &summary.progress;
    println!(
        "{} items in {:.1}s: {} requests sent, {} answers from cache, {} errors, {} skipped (no such variant){}",
        p.done,
        start.elapsed().as_secs_f64(),
        p.sent,
        p.cached,
        p.errors,
        p.skipped,
        if summary.cancelled { " — cancelled; run again to resume" } else { "" }
    );
    println!(
        "tokens: {} in, {} out; retries: {}",
        p.prompt_tokens, p.completion_tokens, summary.retries
    );
    if let Some(c) = summary.cost {
        println!("cost: {c:.4}");
    }
    // Replicas only where a model has several: how the work was spread and who was slow.
    for r in &summary.replicas {
        if summary
            .replicas
            .iter()
            .filter(|o| o.model == r.model)
            .count()
            > 1
        {
            println!(
                "replica {} {}: {} requests, {} failed, mean {}, taken out {} times",
                r.model,
                r.url,
                r.requests,
                r.failures,
                r.mean_ms.map_or("-".into(), |m| format!("{m:.0} ms")),
                r.taken_out
            );
        }
    }
    Ok(())
}

pub fn runs(ctx: &Ctx) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let rows = p.run_summaries()?;
    if ctx.json {
        return output::json(&rows);
    }
    for r in rows {
        println!(
            "{:>4} {:<12} {:<16} {:<6} {:<13} r{} {:<9} {:<14} items {:>5} cached {:>5} unparsed {:>3} hedged {:>3} errors {:>3} acc {}",
            r.run.id, r.run.model, r.run.dataset, r.run.version, r.run.variant, r.run.run_index, r.run.status,
            assay_eval::table::scorer_label(&r.run.scorer, &r.scorer_versions),
            r.items, r.from_cache, r.unparsed, r.hedged, r.errors,
            r.accuracy.map_or("-".into(), |a| format!("{:.1}", a * 100.0))
        );
        let replicas = p.run_replicas(r.run.id)?;
        if replicas.len() > 1 {
            for x in replicas {
                println!(
                    "       replica {}: {} requests, {} failed, mean {}, taken out {}x",
                    x.url,
                    x.requests,
                    x.failures,
                    x.mean_ms.map_or("-".into(), |m| format!("{m:.0} ms")),
                    x.taken_out
                );
            }
        }
    }
    Ok(())
}

#[derive(Args)]
pub struct RescoreArgs {
    /// The run id (see `assay runs`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub run: Option<i64>,
    /// Every run this replica may rescore.
    #[arg(long)]
    pub all: bool,
}

/// Rescores stored responses with the current rules; nothing is sent to a model.
pub fn rescore(ctx: &Ctx, a: RescoreArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let reports: Vec<Result<assay_eval::rescore::RescoreReport, String>> = match a.run {
        Some(id) => vec![Ok(assay_eval::rescore::rescore_run(&mut p, id)?)],
        None => assay_eval::rescore::rescore_all(&mut p)?
            .into_iter()
            .map(|r| r.map_err(|(_, e)| e))
            .collect(),
    };
    if ctx.json {
        let out: Vec<serde_json::Value> = reports
            .iter()
            .map(|r| match r {
                Ok(r) => serde_json::to_value(r).unwrap_or_default(),
                Err(e) => serde_json::json!({"error": e}),
            })
            .collect();
        return output::json(&out);
    }
    for r in &reports {
        match r {
            Ok(r) => println!(
                "run {}: {} v{}: {} rescored, {} changed, {} kept{}",
                r.run_id,
                r.scorer,
                r.version,
                r.rescored,
                r.changed,
                r.kept,
                r.why_kept
                    .as_deref()
                    .map_or(String::new(), |w| format!(" ({w})"))
            ),
            Err(e) => println!("{e} (skipped)"),
        }
    }
    Ok(())
}

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

#[derive(Args)]
pub struct TableArgs {
    /// Datasets (default: all).
    #[arg(long = "dataset")]
    pub datasets: Vec<String>,
    #[arg(long, default_value = "original", value_parser = named::<Variant>(&Variant::NAMES))]
    pub variant: Variant,
    /// Compare this variant with --variant instead of before with after (e.g. explicit).
    #[arg(long, value_parser = named::<Variant>(&Variant::NAMES))]
    pub against: Option<Variant>,
    /// With --against: which version to compare on.
    #[arg(long, default_value = "after", value_parser = named::<Version>(&Version::NAMES))]
    pub version: Version,
    #[arg(long, default_value = "text", value_parser = named::<TableFormat>(&TableFormat::NAMES))]
    pub format: TableFormat,
    /// One row per category or per refinement operation.
    #[arg(long, value_parser = named::<Breakdown>(&Breakdown::NAMES))]
    pub by: Option<Breakdown>,
    /// Spread over runs: sample std (n-1), population std (n) or standard error.
    #[arg(long = "std", default_value = "sample", value_parser = ["sample", "population", "se"])]
    pub spread: String,
    /// Count cancelled and incomplete runs too.
    #[arg(long)]
    pub include_partial: bool,
    /// Paired item-bootstrap iterations for the intervals (0: no intervals).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Interval level.
    #[arg(long, default_value_t = 0.95)]
    pub level: f64,
    /// CRAG-MM-Diagnostics' stage table at --version instead: grounding, identification and
    /// answer accuracy per model and variant, by referring-expression type and size and
    /// saliency bins, with Spearman's rho (popularity) and point-biserial r (saliency).
    #[arg(long, conflicts_with_all = ["against", "by"])]
    pub stages: bool,
    /// With --stages: how many equal-size bins for size and saliency.
    #[arg(long, default_value_t = 5)]
    pub bins: usize,
}

pub fn table(ctx: &Ctx, a: TableArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let datasets = if a.datasets.is_empty() {
        p.datasets()?.into_iter().map(|d| d.name).collect()
    } else {
        a.datasets
    };
    let variant = a.variant;
    if a.stages {
        let opts = assay_eval::stage_table::StageOptions {
            version: a.version,
            include_partial: a.include_partial,
            bins: a.bins.max(1),
        };
        let t = assay_eval::stage_table::stage_table(&p, &datasets, &opts)?;
        let fmt = if ctx.json {
            TableFormat::Json
        } else {
            a.format
        };
        if t.rows.is_empty() && !ctx.json {
            println!(
                "no complete runs on the {} version yet; run `assay eval` with --scorer grounding, identification or an answer scorer",
                a.version.as_str()
            );
            return Ok(());
        }
        print!("{}", assay_eval::stage_table::render_stages(&t, fmt)?);
        return Ok(());
    }
    if !(a.level > 0.0 && a.level < 1.0) {
        anyhow::bail!("--level must be between 0 and 1, got {}", a.level);
    }
    let opts = TableOptions {
        spread: Spread::parse(&a.spread).unwrap_or_default(),
        by: a.by,
        include_partial: a.include_partial,
        bootstrap: a.bootstrap,
        level: a.level,
        ..Default::default()
    };
    let rows = match a.against {
        Some(second) => {
            let version = a.version;
            let mut rows = Vec::new();
            for d in &datasets {
                rows.extend(variant_table(&p, d, version, variant, second, &opts)?);
            }
            rows
        }
        None => before_after_table(&p, &datasets, variant, &opts)?,
    };
    let fmt = if ctx.json {
        TableFormat::Json
    } else {
        a.format
    };
    if rows.is_empty() && !ctx.json {
        println!("no dataset has runs on both sides yet; run `assay eval` or import predictions");
        return Ok(());
    }
    print!("{}", render(&rows, fmt)?);
    Ok(())
}

#[derive(Args)]
pub struct PanelArgs {
    /// The run whose stored responses are judged (see `assay runs`).
    pub run: i64,
    /// A judge model; repeat for each judge. Without any, the report of earlier verdicts.
    #[arg(long = "judge")]
    pub judges: Vec<String>,
    #[arg(long, default_value = "judge", value_parser = named::<ScorerKind>(&ScorerKind::NAMES))]
    pub scorer: ScorerKind,
    /// How many of the items judges disagree on most to list.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
}

pub fn panel(ctx: &Ctx, a: PanelArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let mut judged = Vec::new();
    if !a.judges.is_empty() {
        let rt = tokio::runtime::Runtime::new()?;
        let cancel = CancelToken::new();
        let c2 = cancel.clone();
        judged = rt.block_on(async {
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    c2.cancel();
                }
            });
            assay_eval::panel::judge_panel(&p, a.run, a.scorer, &a.judges, cancel).await
        })?;
    }
    let r = assay_eval::panel::panel_report(&p, a.run, a.scorer, a.top)?;
    if ctx.json {
        return output::json(&serde_json::json!({"judged": judged, "report": r}));
    }
    for (j, s) in &judged {
        println!(
            "{j}: {} verdicts ({} from cache, {} unparsed, {} errors)",
            s.judged, s.from_cache, s.unparsed, s.errors
        );
    }
    let f = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.3}"));
    println!(
        "run {} · {} · {} judges · {} items · Krippendorff's alpha (interval) {}",
        r.run_id,
        r.scorer,
        r.judges.len(),
        r.items,
        f(r.alpha_interval)
    );
    for pr in &r.pairs {
        println!(
            "  {} vs {}: Pearson {} · Spearman {} ({} items)",
            pr.a,
            pr.b,
            f(pr.pearson),
            f(pr.spearman),
            pr.items
        );
    }
    for c in &r.criteria {
        println!(
            "  criterion {}: alpha {} ({} items)",
            c.criterion,
            f(c.alpha_interval),
            c.items
        );
    }
    if !r.disagreements.is_empty() {
        println!("most disagreement ({}):", r.judges.join(" / "));
        for d in &r.disagreements {
            let s: Vec<String> = d
                .scores
                .iter()
                .map(|x| x.map_or("–".into(), |v| format!("{v:.2}")))
                .collect();
            println!("  {}  spread {:.2}  [{}]", d.ext_id, d.spread, s.join(", "));
        }
    }
    Ok(())
}

#[derive(Subcommand)]
pub enum TemplateCommand {
    /// Save a template body from a file; placeholders: {question} {options} {checklist} {target}.
    Set {
        name: String,
        #[arg(long)]
        file: PathBuf,
        #[arg(long, default_value = "short_answer", value_parser = named::<AnswerFormat>(&AnswerFormat::NAMES))]
        format: AnswerFormat,
    },
    /// List the named built-in templates (CRAG-MM-Diagnostics' task types), or print one.
    Builtin { name: Option<String> },
    /// Show the built-in template for an answer format.
    Default {
        #[arg(default_value = "short_answer", value_parser = named::<AnswerFormat>(&AnswerFormat::NAMES))]
        format: AnswerFormat,
        /// The model's box convention (grounding templates differ by convention).
        #[arg(long, default_value = "auto", value_parser = named::<BoxConvention>(&BoxConvention::NAMES))]
        boxes: BoxConvention,
    },
}

pub fn template(ctx: &Ctx, c: TemplateCommand) -> anyhow::Result<()> {
    match c {
        TemplateCommand::Set { name, file, format } => {
            let p = ctx.open()?;
            let fmt = format;
            let body = std::fs::read_to_string(&file)?;
            let id = assay_eval::prompt::save_template(&p, &name, fmt, &body)?;
            if ctx.json {
                output::json(&serde_json::json!({"template": id}))
            } else {
                println!("saved {id}; use it with `assay eval --template {name}`");
                Ok(())
            }
        }
        TemplateCommand::Builtin { name: None } => {
            for n in assay_eval::prompt::BUILTIN_TEMPLATES {
                println!("{n}");
            }
            Ok(())
        }
        TemplateCommand::Builtin { name: Some(n) } => {
            let body = assay_eval::prompt::builtin_template(&n).ok_or_else(|| {
                anyhow::anyhow!("no built-in template {n:?}; see `assay template builtin`")
            })?;
            println!("{body}");
            Ok(())
        }
        TemplateCommand::Default { format, boxes } => {
            let fmt = format;
            println!("{}", assay_eval::prompt::default_template(fmt, boxes));
            Ok(())
        }
    }
}

#[derive(Args)]
pub struct OverruleArgs {
    /// The run id (see `assay runs`).
    pub run: i64,
    pub dataset: String,
    /// The item's id in its source file.
    pub item: String,
    /// The score that stands, 0..1.
    pub score: f64,
    #[arg(long)]
    pub user: String,
    #[arg(long, default_value = "researcher", value_parser = named::<Role>(&Role::NAMES))]
    pub role: Role,
    #[arg(long)]
    pub note: Option<String>,
}

pub fn overrule(ctx: &Ctx, a: OverruleArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let user = p.sign_in(&a.user, a.role)?;
    let item = p.item_id_by_ext(&a.dataset, &a.item)?;
    assay_eval::table::overrule(&p, a.run, item, a.score, Some(user.id), a.note.as_deref())?;
    if ctx.json {
        output::json(&serde_json::json!({"run": a.run, "item": item, "score": a.score}))
    } else {
        println!(
            "run {} item {}: score {} stands (by {})",
            a.run, a.item, a.score, user.name
        );
        Ok(())
    }
}

#[derive(Args)]
pub struct TraceArgs {
    /// The run id (see `assay runs`).
    pub run: i64,
    /// Only this item (its id in the source file).
    #[arg(long)]
    pub item: Option<String>,
    /// Only results with this outcome.
    #[arg(long, value_parser = ["scored", "unparsed", "hedged", "error", "skipped"])]
    pub outcome: Option<String>,
}

pub fn trace(ctx: &Ctx, a: TraceArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let mut t = assay_eval::trace::trace_run(&p, a.run, a.item.as_deref())?;
    if let Some(o) = &a.outcome {
        t.items.retain(|r| &r.outcome == o);
    }
    if ctx.json {
        return output::json(&t);
    }
    println!(
        "run {} · {} on {} ({}, {}) r{} · template {} · scorer {} · {} · {}",
        t.run_id,
        t.model,
        t.dataset,
        t.version,
        t.variant,
        t.run_index,
        t.template,
        t.scorer,
        t.source,
        t.status
    );
    for r in &t.items {
        println!(
            "\n── item {} (rev {}) · {}{}",
            r.item,
            r.item_rev,
            r.outcome,
            if r.from_cache { " · from cache" } else { "" }
        );
        match &r.prompt {
            Some(pr) => {
                if let Some(sys) = pr["system"].as_str() {
                    println!("system: {}", sys.replace('\n', "\n        "));
                }
                println!(
                    "prompt: {}",
                    pr["text"]
                        .as_str()
                        .unwrap_or("")
                        .replace('\n', "\n        ")
                );
                for img in pr["images"].as_array().into_iter().flatten() {
                    println!(
                        "image:  {} {}x{} sent as {}x{}",
                        &img["hash"].as_str().unwrap_or("")
                            [..12.min(img["hash"].as_str().unwrap_or("").len())],
                        img["original_size"][0],
                        img["original_size"][1],
                        img["sent_size"][0],
                        img["sent_size"][1]
                    );
                }
            }
            None => println!("prompt: (not recorded by the tool that produced this prediction)"),
        }
        println!(
            "response: {}",
            r.response
                .as_deref()
                .unwrap_or("-")
                .replace('\n', "\n          ")
        );
        println!(
            "scorer: {} v{} · parsed: {} · score: {}{}",
            r.scorer.as_deref().unwrap_or("-"),
            r.scorer_version,
            r.parsed.as_deref().unwrap_or("-"),
            r.score.map_or("-".into(), |s| format!("{s}")),
            r.overruled.map_or(String::new(), |o| format!(
                " · overruled to {o} ({})",
                r.overrule_note.as_deref().unwrap_or("no note")
            )),
        );
        if let Some(e) = &r.evidence {
            println!("evidence: {e}");
        }
        if let Some(e) = &r.error {
            println!("error: {e}");
        }
    }
    Ok(())
}
