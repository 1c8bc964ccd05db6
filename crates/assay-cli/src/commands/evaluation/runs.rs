//! `assay eval`, `runs`, `rescore`, `overrule` and `trace`: running models and reading and
//! correcting what they answered.

use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use crate::commands::{named, Ctx};
use crate::output;
use assay_core::Role;
use assay_eval::engine::Version;
use assay_eval::{run_eval, CancelToken, EvalRequest, ScorerKind, Variant};

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
    /// Runs per model (default: 3, or the protocol's).
    #[arg(long)]
    pub runs: Option<u32>,
    #[arg(long, default_value = "default")]
    pub template: String,
    /// The scorer (default: per answer format).
    #[arg(long, value_parser = named::<ScorerKind>(&ScorerKind::NAMES))]
    pub scorer: Option<ScorerKind>,
    /// Judge model for judge scorers (and for identification replies that are not an exact
    /// match).
    #[arg(long)]
    pub judge: Option<String>,
    /// A seed's protocol (docs/PROTOCOLS.md): fixes the runs, variants and scorers, and is
    /// recorded with every run it makes; the table never compares runs of different protocols.
    #[arg(long, value_parser = named::<assay_core::EvalProtocol>(&assay_core::EvalProtocol::NAMES))]
    pub protocol: Option<assay_core::EvalProtocol>,
}

pub fn eval(ctx: &Ctx, a: EvalArgs) -> anyhow::Result<()> {
    let path = ctx.path()?.clone();
    // A protocol's own choices fill in what is not given; what is given must agree with it
    // (the engine refuses a request that departs from its protocol).
    let mut req = match a.protocol {
        Some(p) => assay_eval::protocol::request(p, a.models, a.datasets),
        None => EvalRequest {
            models: a.models,
            datasets: a.datasets,
            ..Default::default()
        },
    };
    if !a.versions.is_empty() {
        req.versions = a.versions;
    }
    if !a.variants.is_empty() {
        req.variants = a.variants;
    }
    if let Some(runs) = a.runs {
        req.runs = runs;
    }
    req.template = a.template;
    if a.scorer.is_some() {
        req.scorer = a.scorer;
    }
    req.judge = a.judge;
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
            "{:>4} {:<12} {:<16} {:<6} {:<13} r{} {:<9} {:<14} items {:>5} cached {:>5} unparsed {:>3} hedged {:>3} unsure {:>3} errors {:>3} acc {}",
            r.run.id, r.run.model, r.run.dataset, r.run.version, r.run.variant, r.run.run_index, r.run.status,
            assay_eval::table::scorer_label(&r.run.scorer, &r.scorer_versions),
            r.items, r.from_cache, r.unparsed, r.hedged, r.unsure, r.errors,
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
    /// Then the hybrid scorer: this judge model decides the verdicts the rules are unsure of
    /// (choice and soft_match runs); the report gives its cost in judge calls per 1,000 replies.
    #[arg(long, requires = "run")]
    pub judge: Option<String>,
}

/// Rescores stored responses with the current rules; nothing is sent to a model.
pub fn rescore(ctx: &Ctx, a: RescoreArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    if let (Some(run), Some(judge)) = (a.run, a.judge.as_deref()) {
        assay_eval::rescore::rescore_run(&mut p, run)?;
        let rt = tokio::runtime::Runtime::new()?;
        let cancel = assay_eval::cancel::CancelToken::new();
        let r = rt.block_on(assay_eval::rescore::judge_unsure(
            &mut p, run, judge, cancel,
        ))?;
        if ctx.json {
            return output::json(&r);
        }
        println!(
            "run {}: {} of {} verdicts unsure; judge {} asked {} ({} from cache, {} errors); {} still unsure; {:.1} judge calls per 1,000 replies",
            r.run_id, r.unsure_before, r.replies, r.judge, r.judged, r.from_cache, r.errors, r.unsure_after, r.judge_calls_per_1000
        );
        return Ok(());
    }
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
