//! `assay rate-judge`: people rate a judge's decisions 1-5 on a sample of a run's judged results
//! drawn by seed, and read how their ratings correlate with the judge's scores.

use clap::Args;

use crate::commands::review::person;
use crate::commands::Ctx;
use crate::output;

#[derive(Args)]
pub struct RateJudgeArgs {
    /// The judged run (see `assay runs`).
    pub run: i64,
    /// Rate one decision: the item's dataset, id and a rating 1 (wrong) to 5 (right). Without
    /// these, the sample to rate is listed.
    #[arg(long, requires_all = ["item", "rating"])]
    pub dataset: Option<String>,
    #[arg(long)]
    pub item: Option<String>,
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
    pub rating: Option<u8>,
    #[arg(long)]
    pub note: Option<String>,
    /// The sample's size and seed (the same seed draws the same sample for everyone).
    #[arg(long, default_value_t = 20)]
    pub sample: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[arg(long)]
    pub user: Option<String>,
    /// Print the report: people's ratings against the judge's scores.
    #[arg(long, conflicts_with = "rating")]
    pub report: bool,
}

pub fn rate_judge(ctx: &Ctx, a: RateJudgeArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    if a.report {
        let r = p.judge_rating_report(a.run)?;
        if ctx.json {
            return output::json(&r);
        }
        let f = |x: Option<f64>| x.map_or("n/a".to_string(), |v| format!("{v:.3}"));
        let ci = |c: Option<(f64, f64)>, k: f64| {
            c.map_or(String::new(), |(lo, hi)| {
                format!(" [{:.3}, {:.3}]", lo * k, hi * k)
            })
        };
        // Agreement first: the people's verdicts against the judge's.
        match &r.verdicts {
            Some(v) => println!(
                "run {}: people's verdicts against the judge's ({} ratings of {} results stating one; 4-5 agree, 1-2 disagree): agreement {:.1} %{} · Cohen's kappa {}{} ({:.0} % intervals, items resampled)",
                r.run_id,
                v.ratings,
                v.items,
                v.accuracy * 100.0,
                ci(v.accuracy_ci, 100.0),
                v.kappa.map_or("n/a (the judge's scores are not 0 or 1)".to_string(), |k| format!("{k:.3}")),
                ci(v.kappa_ci, 1.0),
                v.level * 100.0
            ),
            None => println!(
                "run {}: no rating states a verdict yet (3 is neither)",
                r.run_id
            ),
        }
        println!(
            "run {}: {} ratings of {} judged results · mean {} · {} rated 4-5 · beside agreement, mean rating vs the judge's score: Pearson {} · Spearman {}",
            r.run_id,
            r.ratings,
            r.items,
            f(r.mean_rating),
            r.appropriate.map_or("n/a".into(), |a| format!("{:.0} %", a * 100.0)),
            f(r.pearson),
            f(r.spearman)
        );
        for x in &r.raters {
            println!(
                "  {}: {} items, mean {} · Pearson {} · Spearman {}",
                x.name,
                x.items,
                f(x.mean_rating),
                f(x.pearson),
                f(x.spearman)
            );
        }
        println!(
            "  raters' agreement: Krippendorff's alpha (interval) {} over {} items rated by two or more",
            f(r.raters_alpha),
            r.raters_alpha_items
        );
        return Ok(());
    }
    let user = a
        .user
        .as_deref()
        .ok_or_else(|| anyhow::anyhow!("--user: who is rating"))?;
    let who = person(&p, user)?;
    if let (Some(ds), Some(ext), Some(rating)) = (&a.dataset, &a.item, a.rating) {
        let id = p.item_id_by_ext(ds, ext)?;
        p.rate_judge(a.run, id, rating, a.note.as_deref(), &who)?;
        if ctx.json {
            return output::json(&serde_json::json!({"run": a.run, "item": id, "rating": rating}));
        }
        println!("{ds} / {ext}: rated {rating}");
        return Ok(());
    }
    let sample = p.judge_review_sample(a.run, a.sample, a.seed, &who)?;
    if ctx.json {
        return output::json(&sample);
    }
    for e in sample {
        println!(
            "{} · judge {} · yours {}",
            e.ext_id,
            e.score.map_or("-".into(), |s| format!("{s:.2}")),
            e.my_rating.map_or("-".into(), |r| r.to_string())
        );
    }
    Ok(())
}
