//! `assay stages`, `assay decide`, `assay flag`, `assay keep`, `assay funnel`: HAERAE-Vision's
//! filtering stages and human validation from the command line.

use anyhow::anyhow;
use clap::{Args, Subcommand};

use super::{named, Ctx};
use crate::output;
use assay_core::store::{Author, DecidedBy, Filtering};
use assay_core::{Phase1Dimension, Project, Role};

#[derive(Subcommand)]
pub enum StagesCommand {
    /// The project's stages in order.
    List,
    /// Replace the stage list: one name per argument, in order ("Name: description" allowed).
    Set { names: Vec<String> },
}

#[derive(Args)]
pub struct DecideArgs {
    pub dataset: String,
    pub id: String,
    /// The stage's position (see `assay stages list`).
    #[arg(long)]
    pub stage: i64,
    /// Drop the item at this stage (default: keep).
    #[arg(long)]
    pub drop: bool,
    #[arg(long)]
    pub reason: Option<String>,
    /// The person deciding; or --run for a model run's decision.
    #[arg(long, required_unless_present = "run")]
    pub user: Option<String>,
    #[arg(long, conflicts_with = "user")]
    pub run: Option<i64>,
}

#[derive(Args)]
pub struct FlagArgs {
    pub dataset: String,
    pub id: String,
    #[arg(long, value_parser = named::<Phase1Dimension>(&Phase1Dimension::NAMES))]
    pub dimension: Phase1Dimension,
    /// Withdraw this person's flag instead of setting it.
    #[arg(long)]
    pub withdraw: bool,
    #[arg(long)]
    pub note: Option<String>,
    #[arg(long)]
    pub user: String,
}

#[derive(Args)]
pub struct KeepArgs {
    pub dataset: String,
    pub id: String,
    /// Withdraw the override (the flags remove the item again).
    #[arg(long)]
    pub withdraw: bool,
    #[arg(long)]
    pub note: Option<String>,
    /// An auditor (the store refuses anyone else).
    #[arg(long)]
    pub user: String,
}

#[derive(Args)]
pub struct FunnelArgs {
    #[arg(long = "dataset")]
    pub datasets: Vec<String>,
    #[arg(long, default_value = "source", value_parser = ["source", "category"])]
    pub by: String,
}

/// The named person with their stored role (created with `default_role` if new): naming
/// someone here never changes what they may do.
pub(crate) fn author(p: &Project, name: &str, default_role: Role) -> anyhow::Result<Author> {
    let u = match p.user_by_name(name)? {
        Some(u) => u,
        None => p.sign_in(name, default_role)?,
    };
    Ok(Author {
        user_id: u.id,
        role: u.role,
        round: 1,
    })
}

fn print_filtering(ctx: &Ctx, f: &Filtering) -> anyhow::Result<()> {
    if ctx.json {
        return output::json(f);
    }
    for d in &f.decisions {
        println!(
            "stage {} {}: {}{}",
            d.position,
            d.stage,
            if d.keep { "keep" } else { "drop" },
            d.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
    }
    for fl in &f.flags {
        println!("phase-1 flag: {} by {}", fl.dimension, fl.by);
    }
    if let Some(a) = &f.overridden_by {
        println!("kept by auditor {a}");
    }
    println!("{}", if f.kept { "kept" } else { "filtered out" });
    Ok(())
}

pub fn stages(ctx: &Ctx, c: StagesCommand) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let list = match c {
        StagesCommand::List => p.stages()?,
        StagesCommand::Set { names } => {
            let pairs: Vec<(String, String)> = names
                .iter()
                .map(|n| match n.split_once(':') {
                    Some((a, b)) => (a.trim().to_string(), b.trim().to_string()),
                    None => (n.trim().to_string(), String::new()),
                })
                .collect();
            p.set_stages(&pairs)?
        }
    };
    if ctx.json {
        return output::json(&list);
    }
    for s in list {
        println!("{}. {}  {}", s.position, s.name, s.description);
    }
    Ok(())
}

pub fn decide(ctx: &Ctx, a: DecideArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let item = p.item_id_by_ext(&a.dataset, &a.id)?;
    let stage = p
        .stages()?
        .into_iter()
        .find(|s| s.position == a.stage)
        .ok_or_else(|| anyhow!("no stage at position {}; see `assay stages list`", a.stage))?;
    let f = match (&a.user, a.run) {
        (Some(u), _) => {
            let who = author(&p, u, Role::Annotator)?;
            p.decide_stage(
                item,
                stage.id,
                !a.drop,
                a.reason.as_deref(),
                DecidedBy::Person(&who),
            )?
        }
        (None, Some(run)) => p.decide_stage(
            item,
            stage.id,
            !a.drop,
            a.reason.as_deref(),
            DecidedBy::Run(run),
        )?,
        (None, None) => anyhow::bail!("name who decided: --user NAME or --run ID"),
    };
    print_filtering(ctx, &f)
}

pub fn flag(ctx: &Ctx, a: FlagArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let item = p.item_id_by_ext(&a.dataset, &a.id)?;
    let who = author(&p, &a.user, Role::Annotator)?;
    let f = p.flag_phase1(item, a.dimension, !a.withdraw, a.note.as_deref(), &who)?;
    print_filtering(ctx, &f)
}

pub fn keep(ctx: &Ctx, a: KeepArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let item = p.item_id_by_ext(&a.dataset, &a.id)?;
    // The user's stored role decides; naming an unknown user does not make them an auditor.
    let who = author(&p, &a.user, Role::Annotator)?;
    let f = p.override_phase1(item, !a.withdraw, a.note.as_deref(), &who)?;
    print_filtering(ctx, &f)
}

pub fn funnel(ctx: &Ctx, a: FunnelArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let mut ids = Vec::new();
    for d in &a.datasets {
        ids.push(p.dataset_by_name(d)?.id);
    }
    let steps = p.funnel(&ids, &a.by)?;
    if ctx.json {
        return output::json(&steps);
    }
    let first = steps.first().map_or(1, |s| s.survivors.max(1));
    for s in steps {
        println!(
            "{:>2}. {:<32} {:>8}  {:>6.2} %",
            s.position,
            s.name,
            s.survivors,
            100.0 * s.survivors as f64 / first as f64
        );
    }
    Ok(())
}
