//! `assay model` and `assay template`: the models a project runs and its prompt templates.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::commands::{named, Ctx};
use crate::output;
use assay_core::AnswerFormat;
use assay_eval::model::{models, save_model, GenParams, ImageEncoding, ImagePolicy, ModelConfig};
use assay_eval::scorers::grounding::BoxConvention;

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
