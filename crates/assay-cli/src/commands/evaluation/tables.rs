//! `assay table` and `assay panel`: the before/after table and a judge panel's agreement.

use clap::Args;

use crate::commands::{named, Ctx};
use crate::output;
use assay_eval::engine::Version;
use assay_eval::table::{
    before_after_table, render, variant_table, Breakdown, Spread, TableFormat, TableOptions,
};
use assay_eval::{CancelToken, ScorerKind, Variant};

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
