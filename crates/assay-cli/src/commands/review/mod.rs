//! `assay review`, `assay queue`, `assay sign-off`, `assay agreement`: review rules and the
//! auditor's final pass, enforced by the store (the CLI only asks).

pub mod rounds;

use clap::Args;

use super::{named, Ctx};
use crate::output;
use assay_core::store::{AgreementField, Author, ReviewDecision};
use assay_core::{Project, Role};

/// The named person with their stored role: naming someone never changes what they may do.
pub(super) fn person(p: &Project, name: &str) -> anyhow::Result<Author> {
    let u = match p.user_by_name(name)? {
        Some(u) => u,
        None => p.sign_in(name, Role::Annotator)?,
    };
    Ok(Author {
        user_id: u.id,
        role: u.role,
        round: 1,
    })
}

#[derive(Args)]
pub struct ReviewArgs {
    pub dataset: String,
    pub id: String,
    #[arg(long, value_parser = named::<ReviewDecision>(&ReviewDecision::NAMES))]
    pub decision: ReviewDecision,
    #[arg(long)]
    pub comment: Option<String>,
    /// The reviewer (never the author of the current revision).
    #[arg(long)]
    pub user: String,
}

#[derive(Args)]
pub struct QueueArgs {
    /// Whose review queue: items waiting for review that this person did not edit last.
    #[arg(long)]
    pub user: String,
}

#[derive(Args)]
pub struct SignOffArgs {
    pub dataset: String,
    /// The item; with --all, every item of the dataset.
    #[arg(required_unless_present = "all")]
    pub id: Option<String>,
    /// Sign off the whole dataset.
    #[arg(long, conflicts_with = "reopen")]
    pub all: bool,
    /// Reopen a signed-off item instead.
    #[arg(long)]
    pub reopen: bool,
    #[arg(long)]
    pub note: Option<String>,
    /// An auditor (the store refuses anyone else).
    #[arg(long)]
    pub user: String,
}

#[derive(Args)]
pub struct AgreementArgs {
    #[arg(long)]
    pub dataset: Option<String>,
    #[arg(long, default_value = "op", value_parser = named::<AgreementField>(&AgreementField::NAMES))]
    pub field: AgreementField,
    /// Only the items of this round.
    #[arg(long)]
    pub round: Option<String>,
    /// CRAG-MM's annotation check instead: these people's labels (comma-separated) against
    /// the majority vote of everyone else's, with Cohen's kappa.
    #[arg(long, value_delimiter = ',')]
    pub experts: Vec<String>,
    /// Crowd labels an item needs for its majority to count (the paper's three).
    #[arg(long, default_value_t = 3)]
    pub crowd: usize,
    /// The label a second kappa sets against all others (default for ref_type: ambiguous).
    #[arg(long)]
    pub binary: Option<String>,
}

pub fn review(ctx: &Ctx, a: ReviewArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let id = p.item_id_by_ext(&a.dataset, &a.id)?;
    let who = person(&p, &a.user)?;
    let rev = p.review(id, a.decision, a.comment.as_deref(), &who)?;
    if ctx.json {
        return output::json(&serde_json::json!({"item": id, "rev": rev, "decision": a.decision}));
    }
    println!("{} {}: {} (revision {rev})", a.dataset, a.id, a.decision);
    Ok(())
}

pub fn queue(ctx: &Ctx, a: QueueArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let who = person(&p, &a.user)?;
    let rows = p.review_entries(who.user_id)?;
    if ctx.json {
        return output::json(&rows);
    }
    println!("{} items wait for {}'s review", rows.len(), a.user);
    for r in rows {
        println!("  {} / {}", r.dataset, r.ext_id);
    }
    let back = p.sent_back(who.user_id)?;
    if !back.is_empty() {
        println!("{} items sent back to {}", back.len(), a.user);
        for e in back {
            println!("  {} / {}", e.dataset, e.ext_id);
        }
    }
    let mentions = p.open_mentions(who.user_id)?;
    if !mentions.is_empty() {
        println!("{} mentions wait for {}", mentions.len(), a.user);
        for m in mentions {
            println!(
                "  {} / {}: {}: {}",
                m.dataset, m.ext_id, m.comment.author, m.comment.body
            );
        }
    }
    Ok(())
}

pub fn sign_off(ctx: &Ctx, a: SignOffArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let who = person(&p, &a.user)?;
    let Some(ext) = a.id.as_deref().filter(|_| !a.all) else {
        let ds = p.dataset_by_name(&a.dataset)?;
        let n = p.sign_off_dataset(ds.id, a.note.as_deref(), &who)?;
        if ctx.json {
            return output::json(&serde_json::json!({"dataset": a.dataset, "signed_off": n}));
        }
        println!("{}: {n} items signed off", a.dataset);
        return Ok(());
    };
    let id = p.item_id_by_ext(&a.dataset, ext)?;
    p.sign_off(id, !a.reopen, a.note.as_deref(), &who)?;
    if ctx.json {
        return output::json(&serde_json::json!({"item": id, "signed_off": !a.reopen}));
    }
    println!(
        "{} / {} {}",
        a.dataset,
        ext,
        if a.reopen { "reopened" } else { "signed off" }
    );
    Ok(())
}

pub fn agreement(ctx: &Ctx, a: AgreementArgs) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let ds = a
        .dataset
        .as_deref()
        .map(|d| p.dataset_by_name(d))
        .transpose()?
        .map(|d| d.id);
    let round = match &a.round {
        Some(name) => Some(
            p.rounds()?
                .into_iter()
                .find(|r| &r.name == name)
                .ok_or_else(|| anyhow::anyhow!("no round named {name:?}"))?
                .id,
        ),
        None => None,
    };
    if !a.experts.is_empty() {
        let spec = assay_core::store::MajorityCheckSpec {
            field: a.field,
            experts: a
                .experts
                .iter()
                .map(|e| e.trim().to_string())
                .filter(|e| !e.is_empty())
                .collect(),
            crowd: a.crowd,
            binary: a
                .binary
                .clone()
                .or_else(|| (a.field == AgreementField::RefType).then(|| "ambiguous".to_string())),
            dataset_id: ds,
            round_id: round,
        };
        return majority_check(ctx, &p.majority_check(&spec)?);
    }
    let ag = p.agreement(a.field, ds, round)?;
    if ctx.json {
        return output::json(&ag);
    }
    println!(
        "{}: {} items set by two or more of {}{}",
        ag.field,
        ag.items,
        ag.people.join(", "),
        if ag.blind {
            " (blind: judgements made apart)"
        } else {
            ""
        }
    );
    let num = |v: Option<f64>| v.map_or("n/a".into(), |k| format!("{k:.3}"));
    if ag.field == AgreementField::Box {
        for pair in &ag.pairs {
            println!(
                "  {} x {}: {} items, mean IoU {}",
                pair.a,
                pair.b,
                pair.items,
                num(pair.mean_iou)
            );
        }
        println!("  mean IoU over every pair: {}", num(ag.mean_iou));
        return Ok(());
    }
    for pair in &ag.pairs {
        println!(
            "  {} x {}: {} items, Cohen's kappa {}",
            pair.a,
            pair.b,
            pair.items,
            pair.cohen_kappa.map_or("n/a".into(), |k| format!("{k:.3}"))
        );
    }
    println!(
        "  Fleiss' kappa: {} ({} items rated by {})",
        num(ag.fleiss_kappa),
        ag.fleiss_items,
        ag.fleiss_raters
    );
    println!(
        "  Krippendorff's alpha (nominal): {}",
        num(ag.krippendorff_alpha)
    );
    if ag.field == AgreementField::Checklist {
        println!(
            "  Krippendorff's alpha (interval): {}",
            num(ag.krippendorff_alpha_interval)
        );
    }
    if ag.krippendorff_alpha_masi.is_some() {
        println!(
            "  Krippendorff's alpha (MASI, sets of labels: partial overlap is partial agreement): {}",
            num(ag.krippendorff_alpha_masi)
        );
    }
    Ok(())
}

fn majority_check(ctx: &Ctx, c: &assay_core::store::MajorityCheck) -> anyhow::Result<()> {
    if ctx.json {
        return output::json(c);
    }
    let num = |v: Option<f64>| v.map_or("n/a".into(), |k| format!("{k:.3}"));
    println!(
        "{}: {} against the majority of at least {} others, on {} items",
        c.field,
        c.experts.join(", "),
        c.crowd,
        c.items
    );
    println!(
        "  left out: {} without a majority (a tie), {} with fewer than {} crowd labels, {} where the experts differ",
        c.no_majority, c.too_few_crowd, c.crowd, c.experts_disagree
    );
    println!(
        "  agreement {}, Cohen's kappa {}",
        c.accuracy
            .map_or("n/a".into(), |a| format!("{:.1} %", a * 100.0)),
        num(c.kappa)
    );
    if let Some(label) = &c.binary_label {
        println!(
            "  Cohen's kappa, {label} against the rest: {}",
            num(c.binary_kappa)
        );
    }
    println!(
        "  experts (rows) x majority (columns): {}",
        c.labels.join(", ")
    );
    for (label, row) in c.labels.iter().zip(&c.confusion) {
        let cells: Vec<String> = row.iter().map(u64::to_string).collect();
        println!("    {label}: {}", cells.join(" "));
    }
    Ok(())
}
