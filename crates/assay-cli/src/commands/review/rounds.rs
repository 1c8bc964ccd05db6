//! `assay round`, `assay comment`, `assay comments`, `assay people`: rounds of work with
//! assignments, comment threads with mentions, and each person's account. The store decides who
//! may do what; the CLI only asks.

use clap::{Args, Subcommand};

use crate::commands::review::person;
use crate::commands::{named, Ctx};
use crate::output;
use assay_core::store::{BlindItem, BlindJudgement, Filter, NewRound, RoundPurpose};
use assay_core::{BBox, IssueTag, ItemStatus, Phase1Dimension, RefType, RefinementOp};

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
    /// Record your judgement of an item in a blind round (kept apart from the item and from
    /// the other assignee's until every judgement is in).
    Judge(JudgeArgs),
    /// The judgements of an item in blind rounds, as this person may see them.
    Blind {
        dataset: String,
        id: String,
        #[arg(long)]
        user: String,
    },
    /// An auditor writes the item's revision from one person's judgement, once all are in.
    Adjudicate {
        round: String,
        dataset: String,
        id: String,
        /// Whose judgement the revision takes.
        #[arg(long)]
        take: String,
        #[arg(long)]
        user: String,
    },
}

#[derive(Args)]
pub struct JudgeArgs {
    pub round: String,
    pub dataset: String,
    pub id: String,
    #[arg(long, value_parser = named::<RefinementOp>(&RefinementOp::NAMES))]
    pub op: RefinementOp,
    #[arg(long = "tag", value_parser = named::<IssueTag>(&IssueTag::NAMES))]
    pub tags: Vec<IssueTag>,
    #[arg(long, value_parser = named::<RefType>(&RefType::NAMES))]
    pub ref_type: Option<RefType>,
    /// A phase-1 dimension you flag (repeat for several).
    #[arg(long = "phase1", value_parser = named::<Phase1Dimension>(&Phase1Dimension::NAMES))]
    pub phase1: Vec<Phase1Dimension>,
    /// 1-5 ratings of the checklist's criteria in order, comma-separated ("-" leaves one out).
    #[arg(long)]
    pub ratings: Option<String>,
    /// The target box in the first image's pixels: x_min,y_min,x_max,y_max.
    #[arg(long = "box")]
    pub target_box: Option<String>,
    #[arg(long)]
    pub note: Option<String>,
    #[arg(long)]
    pub user: String,
}

impl JudgeArgs {
    fn judgement(&self) -> anyhow::Result<BlindJudgement> {
        let checklist = match &self.ratings {
            None => Vec::new(),
            Some(s) => s
                .split(',')
                .map(|r| match r.trim() {
                    "-" | "" => Ok(None),
                    r => r
                        .parse::<u8>()
                        .map(Some)
                        .map_err(|_| anyhow::anyhow!("--ratings: {r:?} is not 1-5")),
                })
                .collect::<anyhow::Result<_>>()?,
        };
        let target_box = match &self.target_box {
            None => None,
            Some(s) => {
                let v: Vec<f64> = s
                    .split(',')
                    .map(|x| x.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| anyhow::anyhow!("--box: four numbers, x_min,y_min,x_max,y_max"))?;
                let [x_min, y_min, x_max, y_max] = v[..] else {
                    anyhow::bail!("--box: four numbers, x_min,y_min,x_max,y_max");
                };
                Some(BBox {
                    x_min,
                    y_min,
                    x_max,
                    y_max,
                })
            }
        };
        Ok(BlindJudgement {
            op: Some(self.op),
            tags: self.tags.clone(),
            ref_type: self.ref_type,
            phase1: self.phase1.clone(),
            checklist,
            target_box,
            note: self.note.clone(),
        })
    }
}

fn round_id(p: &assay_core::Project, name: &str) -> anyhow::Result<i64> {
    Ok(p.rounds()?
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| anyhow::anyhow!("no round named {name:?}"))?
        .id)
}

fn print_blind(b: &BlindItem) {
    println!(
        "{} ({}): {}",
        b.round,
        b.assignees.join(", "),
        if b.adjudicated {
            "adjudicated"
        } else if b.open {
            "every judgement in, to adjudicate"
        } else {
            "judgements kept apart until all are in"
        }
    );
    for e in &b.judgements {
        let j = &e.judgement;
        println!(
            "  {}: op {}, tags [{}], ref type {}, phase-1 [{}], ratings [{}], box {}",
            e.person,
            j.op.map_or("-", |o| o.as_str()),
            j.tags
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            j.ref_type.map_or("-", |t| t.as_str()),
            j.phase1
                .iter()
                .map(|d| d.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            j.checklist
                .iter()
                .map(|r| r.map_or("-".into(), |r| r.to_string()))
                .collect::<Vec<_>>()
                .join(","),
            j.target_box.map_or("-".into(), |b| format!(
                "{},{},{},{}",
                b.x_min, b.y_min, b.x_max, b.y_max
            )),
        );
    }
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
    /// Blind: each assignee records a judgement of their own (`assay round judge`), unseen by
    /// the others until all are in; an auditor adjudicates.
    #[arg(long)]
    pub blind: bool,
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
                blind: a.blind,
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
        RoundCommand::Judge(a) => {
            let mut p = ctx.open()?;
            let who = person(&p, &a.user)?;
            let round = round_id(&p, &a.round)?;
            let item = p.item_id_by_ext(&a.dataset, &a.id)?;
            let shown = p.record_blind(round, item, &a.judgement()?, &who)?;
            if ctx.json {
                return output::json(&shown);
            }
            print_blind(&shown);
            Ok(())
        }
        RoundCommand::Blind { dataset, id, user } => {
            let p = ctx.open()?;
            let who = person(&p, &user)?;
            let item = p.item_id_by_ext(&dataset, &id)?;
            let shown = p.blind_items(item, &who)?;
            if ctx.json {
                return output::json(&shown);
            }
            for b in &shown {
                print_blind(b);
            }
            Ok(())
        }
        RoundCommand::Adjudicate {
            round,
            dataset,
            id,
            take,
            user,
        } => {
            let mut p = ctx.open()?;
            let who = person(&p, &user)?;
            let round = round_id(&p, &round)?;
            let item = p.item_id_by_ext(&dataset, &id)?;
            let rev = p.adjudicate_blind(round, item, &take, &who)?;
            if ctx.json {
                return output::json(&serde_json::json!({"item": item, "rev": rev}));
            }
            println!("{dataset} / {id}: revision {rev} takes {take}'s judgement");
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
