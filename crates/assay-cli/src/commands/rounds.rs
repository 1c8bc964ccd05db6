//! `assay round`, `assay comment`, `assay comments`, `assay people`: rounds of work with
//! assignments, comment threads with mentions, and each person's account. The store decides who
//! may do what; the CLI only asks.

use clap::{Args, Subcommand};

use super::review::person;
use super::{named, Ctx};
use crate::output;
use assay_core::store::{Filter, NewRound, RoundPurpose};
use assay_core::ItemStatus;

#[derive(Subcommand)]
pub enum RoundCommand {
    /// Make a round over the matching items and deal them to the assignees.
    Create(CreateRoundArgs),
    /// Every round with each person's progress.
    List,
    /// One person's queue in a round.
    Queue {
        round: String,
        #[arg(long)]
        user: String,
    },
}

#[derive(Args)]
pub struct CreateRoundArgs {
    pub name: String,
    #[arg(long, value_parser = named::<RoundPurpose>(&RoundPurpose::NAMES))]
    pub purpose: RoundPurpose,
    /// A person to assign (repeat for several).
    #[arg(long = "assignee", required = true)]
    pub assignees: Vec<String>,
    /// Share of items (0..1) also given to a second person, for agreement.
    #[arg(long, default_value_t = 0.0)]
    pub overlap: f64,
    /// Take only this many of the matching items, at random.
    #[arg(long)]
    pub sample: Option<usize>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only items of these datasets.
    #[arg(long)]
    pub dataset: Vec<String>,
    #[arg(long, value_parser = named::<ItemStatus>(&ItemStatus::NAMES))]
    pub status: Vec<ItemStatus>,
    /// The auditor making the round.
    #[arg(long)]
    pub user: String,
}

#[derive(Args)]
pub struct CommentArgs {
    pub dataset: String,
    pub id: String,
    /// The text; `@name` mentions a person who must act.
    pub text: String,
    #[arg(long)]
    pub user: String,
}

#[derive(Args)]
pub struct CommentsArgs {
    pub dataset: String,
    pub id: String,
}

fn seconds(s: Option<f64>) -> String {
    s.map_or("-".into(), |s| format!("{s:.0} s"))
}

pub fn round(ctx: &Ctx, c: RoundCommand) -> anyhow::Result<()> {
    match c {
        RoundCommand::Create(a) => {
            let mut p = ctx.open()?;
            let who = person(&p, &a.user)?;
            let mut filter = Filter {
                statuses: a.status.clone(),
                ..Filter::default()
            };
            for d in &a.dataset {
                filter.datasets.push(p.dataset_by_name(d)?.id);
            }
            let items = p.query_ids(&filter)?;
            let spec = NewRound {
                name: a.name.clone(),
                purpose: a.purpose,
                assignees: a.assignees.clone(),
                overlap: a.overlap,
                sample: a.sample,
                seed: a.seed,
            };
            let id = p.create_round(&spec, &items, &who)?;
            let r = p.rounds()?.into_iter().find(|r| r.id == id);
            if ctx.json {
                return output::json(&r);
            }
            if let Some(r) = r {
                println!(
                    "round {} ({}): {} items, {} to two people",
                    r.name, r.purpose, r.items, r.overlapping
                );
                for pp in &r.people {
                    println!("  {}: {} items", pp.name, pp.assigned);
                }
            }
            Ok(())
        }
        RoundCommand::List => {
            let p = ctx.open()?;
            let rounds = p.rounds()?;
            if ctx.json {
                return output::json(&rounds);
            }
            for r in rounds {
                println!(
                    "{} ({}, by {}): {} items, {} overlapping",
                    r.name, r.purpose, r.created_by, r.items, r.overlapping
                );
                for pp in r.people {
                    println!(
                        "  {}: {}/{} done, {} approved, {} sent back, {} per item",
                        pp.name,
                        pp.done,
                        pp.assigned,
                        pp.approved,
                        pp.sent_back,
                        seconds(pp.median_seconds)
                    );
                }
            }
            Ok(())
        }
        RoundCommand::Queue { round, user } => {
            let p = ctx.open()?;
            let who = person(&p, &user)?;
            let r = p
                .rounds()?
                .into_iter()
                .find(|r| r.name == round)
                .ok_or_else(|| anyhow::anyhow!("no round named {round:?}"))?;
            let q = p.round_queue(r.id, who.user_id)?;
            if ctx.json {
                return output::json(&q);
            }
            let done = q.iter().filter(|e| e.done).count();
            println!("{user} in {round}: {done}/{} done", q.len());
            for e in q.iter().filter(|e| !e.done) {
                println!("  {} / {} ({})", e.dataset, e.ext_id, e.status);
            }
            Ok(())
        }
    }
}

pub fn comment(ctx: &Ctx, a: CommentArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let id = p.item_id_by_ext(&a.dataset, &a.id)?;
    let who = person(&p, &a.user)?;
    let c = p.add_comment(id, &a.text, &who)?;
    if ctx.json {
        return output::json(&c);
    }
    println!("comment {} on {} / {}", c.id, a.dataset, a.id);
    Ok(())
}

pub fn comments(ctx: &Ctx, a: CommentsArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let id = p.item_id_by_ext(&a.dataset, &a.id)?;
    let thread = p.comments(id)?;
    if ctx.json {
        return output::json(&thread);
    }
    for c in thread {
        println!(
            "[{}] {} (revision {}): {}",
            c.created_at, c.author, c.rev, c.body
        );
    }
    Ok(())
}

pub fn people(ctx: &Ctx) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let people = p.people_stats()?;
    if ctx.json {
        return output::json(&people);
    }
    for s in people {
        println!(
            "{} ({}): {} items edited, {} approved, {} sent back, {} reviews, {} sign-offs, {} per item",
            s.name,
            s.role,
            s.items_edited,
            s.approved,
            s.sent_back,
            s.reviews,
            s.signoffs,
            seconds(s.median_seconds)
        );
    }
    Ok(())
}
