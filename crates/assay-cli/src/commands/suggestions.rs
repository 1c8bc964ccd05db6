//! `assay suggest KIND --model M [filters]` runs a suggestion pass through the engine;
//! `assay suggestion list|accept|reject|report|template` reviews and measures them.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use super::items::{filter_from, FilterArgs};
use super::Ctx;
use crate::output;
use assay_core::{Role, SuggestionKind, SuggestionValue};
use assay_eval::suggest::{self, SuggestRequest};
use assay_eval::CancelToken;

#[derive(Args)]
pub struct SuggestArgs {
    /// What to draft.
    #[arg(value_parser = super::named::<SuggestionKind>(&SuggestionKind::NAMES))]
    pub kind: SuggestionKind,
    /// The model asked (not for difficulty, which reads stored runs).
    #[arg(long)]
    pub model: Option<String>,
    /// A project template "name[@version]" instead of the built-in default.
    #[arg(long)]
    pub template: Option<String>,
    /// Difficulty: a strong model whose stored runs are averaged (repeat for several).
    #[arg(long = "strong-model")]
    pub strong_models: Vec<String>,
    /// Difficulty: drop above this mean score.
    #[arg(long, default_value_t = 0.6)]
    pub threshold: f64,
    /// Image dependency: drop when the with-image rating beats the without-image one by less.
    #[arg(long, default_value_t = 1.0)]
    pub min_gap: f64,
    /// Print the requests and cost it would take, and send nothing.
    #[arg(long)]
    pub estimate: bool,
    #[command(flatten)]
    pub filter: FilterArgs,
}

#[derive(Subcommand)]
pub enum SuggestionCommand {
    /// An item's suggestions beside what it holds now.
    List {
        #[arg(long)]
        dataset: String,
        #[arg(long)]
        id: String,
    },
    /// Accept a suggestion as the model gave it, or with `--value` as you edited it (JSON of
    /// the same kind, as `list --json` shows it). Stage kinds need `--stage POSITION`.
    Accept {
        suggestion: i64,
        #[arg(long)]
        user: String,
        #[arg(long)]
        value: Option<String>,
        #[arg(long)]
        stage: Option<i64>,
        /// Why: required to overrule a stage suggestion's keep/drop, kept with any acceptance.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Reject a suggestion; the reason is kept.
    Reject {
        suggestion: i64,
        #[arg(long)]
        user: String,
        #[arg(long)]
        reason: String,
    },
    /// Per kind and model: accepted as is, after edits, rejected, pending; time per decision.
    Report,
    /// Save a prompt template (a changed body becomes a new version).
    Template {
        name: String,
        #[arg(long)]
        file: std::path::PathBuf,
    },
}

pub fn suggest(ctx: &Ctx, a: SuggestArgs) -> anyhow::Result<()> {
    let path = ctx.path()?.clone();
    let items = {
        let p = ctx.open()?;
        let filter = filter_from(&p, &a.filter)?;
        p.query_ids(&filter)?
    };
    let req = SuggestRequest {
        kind: a.kind,
        model: a.model,
        items,
        template: a.template,
        strong_models: a.strong_models,
        threshold: a.threshold,
        min_gap: a.min_gap,
    };
    let est = suggest::estimate(&ctx.open()?, &req)?;
    if a.estimate {
        if ctx.json {
            return output::json(&est);
        }
        println!(
            "{} items, {} without a suggestion for their current revision: {} requests to send, {} from the cache, cost {}",
            est.items,
            est.todo,
            est.requests,
            est.cached,
            est.cost.map_or("unknown (no prices or no token history)".into(), |c| format!("{c:.4}"))
        );
        return Ok(());
    }
    let bar = output::job_bar(ctx.json, est.todo as u64)?;
    let b2 = bar.clone();
    let progress = Arc::new(move |p: &suggest::SuggestProgress| {
        b2.set_length(p.total as u64);
        b2.set_position(p.done as u64);
        b2.set_message(format!(
            "sent {} cached {} unparsed {} errors {}",
            p.sent, p.cached, p.unparsed, p.errors
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
        suggest::run_suggestions(&path, &req, progress, cancel.clone()).await
    })?;
    bar.finish_and_clear();
    if ctx.json {
        return output::json(&summary);
    }
    let p = &summary.progress;
    println!(
        "suggestion run {} ({} by {}, template {}): {} items in {:.1}s, {} already had one; {} parsed, {} unparsed (kept with their raw output), {} errors; {} requests sent, {} from the cache{}",
        summary.run_id,
        summary.kind,
        summary.model,
        summary.template,
        summary.items,
        start.elapsed().as_secs_f64(),
        summary.already,
        p.parsed,
        p.unparsed,
        p.errors,
        p.sent,
        p.cached,
        summary.cost.map_or(String::new(), |c| format!(", cost {c:.4}"))
    );
    if summary.cancelled {
        println!("cancelled: run the same command again to finish (answers so far are kept)");
    }
    Ok(())
}

pub fn suggestion(ctx: &Ctx, c: SuggestionCommand) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    match c {
        SuggestionCommand::List { dataset, id } => {
            let item = p.item_id_by_ext(&dataset, &id)?;
            let list = p.item_suggestions(item)?;
            if ctx.json {
                return output::json(&list);
            }
            if list.is_empty() {
                println!("no suggestions for {dataset}/{id}");
            }
            for s in list {
                let fate = s.fate.as_ref().map_or("pending".to_string(), |f| {
                    format!(
                        "{} by {}{}",
                        f.decision,
                        f.by,
                        f.reason
                            .as_deref()
                            .map(|r| format!(" ({r})"))
                            .unwrap_or_default()
                    )
                });
                println!(
                    "#{} {} by {} ({}), revision {}{}: {} [{}]",
                    s.id,
                    s.kind,
                    s.model,
                    s.template,
                    s.item_rev,
                    if s.stale { " STALE" } else { "" },
                    s.outcome,
                    fate
                );
                match &s.value {
                    Some(_) => {
                        println!("  now:       {}", output::clip(&s.current_text, 160));
                        println!("  suggested: {}", output::clip(&s.suggested_text, 160));
                    }
                    None => {
                        println!("  problem: {}", s.problem.as_deref().unwrap_or(""));
                        println!(
                            "  raw: {}",
                            output::clip(s.raw.as_deref().unwrap_or(""), 160)
                        );
                    }
                }
            }
            Ok(())
        }
        SuggestionCommand::Accept {
            suggestion,
            user,
            value,
            stage,
            reason,
        } => {
            let who = super::filtering::author(&p, &user, Role::Annotator)?;
            let s = p.suggestion(suggestion)?;
            let given = value.is_some();
            let value: SuggestionValue = match value {
                Some(v) => serde_json::from_str(&v).context("--value is not a suggestion value")?,
                None => s.value.clone().with_context(|| {
                    format!(
                        "suggestion {suggestion} did not parse ({}): give the value with --value",
                        s.problem.as_deref().unwrap_or("no value")
                    )
                })?,
            };
            let stage_id = match stage {
                Some(pos) => Some(
                    p.stages()?
                        .into_iter()
                        .find(|st| st.position == pos)
                        .with_context(|| format!("no stage at position {pos}"))?
                        .id,
                ),
                None => None,
            };
            let base = p.item(s.item_id)?.rev;
            if s.stale && !given {
                bail!(
                    "suggestion {suggestion} was made for revision {} and the item is at {base}; look at it with `assay suggestion list` and accept it with --value if it still fits",
                    s.item_rev
                );
            }
            let a =
                p.accept_suggestion(suggestion, base, &value, stage_id, reason.as_deref(), &who)?;
            if ctx.json {
                return output::json(&a);
            }
            match (a.rev, a.stage_decision_id) {
                (Some(rev), _) => println!(
                    "{}: revision {rev} written (edit distance {})",
                    a.decision, a.edit_distance
                ),
                (None, _) => println!("{}: stage decision recorded", a.decision),
            }
            Ok(())
        }
        SuggestionCommand::Reject {
            suggestion,
            user,
            reason,
        } => {
            let who = super::filtering::author(&p, &user, Role::Annotator)?;
            p.reject_suggestion(suggestion, &reason, &who)?;
            println!("rejected");
            Ok(())
        }
        SuggestionCommand::Report => {
            let r = p.suggestion_report()?;
            if ctx.json {
                return output::json(&r);
            }
            println!(
                "{:<20} {:<16} {:>9} {:>8} {:>7} {:>8} {:>8} {:>9} {:>8} {:>9}",
                "kind",
                "model",
                "suggested",
                "accepted",
                "edited",
                "rejected",
                "pending",
                "unparsed",
                "edit dist",
                "s/decision"
            );
            for row in &r.rows {
                println!(
                    "{:<20} {:<16} {:>9} {:>8} {:>7} {:>8} {:>8} {:>9} {:>8} {:>9}",
                    row.kind,
                    output::clip(&row.model, 16),
                    row.suggested,
                    row.accepted,
                    row.edited,
                    row.rejected,
                    row.pending,
                    row.unparsed,
                    row.mean_edit_distance
                        .map_or("-".into(), |d| format!("{d:.1}")),
                    row.median_seconds.map_or("-".into(), |s| format!("{s:.1}"))
                );
            }
            println!(
                "median seconds per item: {} where a suggestion was decided ({} items), {} elsewhere ({} items)",
                r.median_seconds_with.map_or("-".into(), |s| format!("{s:.1}")),
                r.visits_with,
                r.median_seconds_without.map_or("-".into(), |s| format!("{s:.1}")),
                r.visits_without
            );
            Ok(())
        }
        SuggestionCommand::Template { name, file } => {
            let body = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let label = suggest::templates::save(&p, &name, &body)?;
            println!("saved {label}");
            Ok(())
        }
    }
}
