//! From stored run results to the before/after table (JAMMEval Table 2) and variant
//! comparisons (HAERAE Table 3), rendered as text, Markdown, CSV, LaTeX or JSON.
//!
//! The rules (docs/SCORING.md, "The before/after table"):
//! - A measurement is (model, dataset, version, variant, template, scorer, source); runs that
//!   differ in template, scorer or source are never pooled: each such protocol is its own row.
//! - Every model is scored on the same items: all items of the version (the original set
//!   before; the current set minus removed items after). Errors, unparsed answers and items
//!   without a result count as 0 and are shown in their own columns.
//! - Only complete runs count unless partial ones are asked for.
//! - Accuracy = mean over models of the model's mean accuracy over its runs; the spread over
//!   runs is the sample standard deviation unless another is chosen; intervals come from a
//!   paired item bootstrap.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::engine::Version;
use crate::error::{EvalError, Result};
use crate::prompt::Variant;
use crate::protocol::UnparsedRule;
use assay_core::stats::{mean, paired_bootstrap, spearman, std_pop, std_sample, PairedIntervals};
use assay_core::store::Outcome;
use assay_core::Project;

/// Records a person's judgement over the scorer's; the scorer's result stays stored.
pub fn overrule(
    project: &Project,
    run_id: i64,
    item_id: i64,
    score: f64,
    author_id: Option<i64>,
    note: Option<&str>,
) -> Result<()> {
    project
        .add_overrule(run_id, item_id, score, author_id, note)
        .map_err(|e| EvalError::Config(e.to_string()))
}

/// A person rates one criterion of a checklist judgement (met 1, partially 0.5, not met 0).
/// The judge's ratings stay in the evidence; the item's score is recomputed by the checklist
/// rule, S_i = mean of its criteria's ratings with every standing person's rating in place of
/// the judge's, and stored as the item's overrule. Returns S_i.
pub fn overrule_criterion(
    project: &mut Project,
    run_id: i64,
    item_id: i64,
    criterion: usize,
    rating: f64,
    author_id: Option<i64>,
) -> Result<f64> {
    let err = |m: String| EvalError::Config(m);
    let result = project
        .item_results(item_id)
        .map_err(|e| err(e.to_string()))?
        .into_iter()
        .find(|r| r.run.id == run_id)
        .ok_or_else(|| err(format!("run {run_id} has no result for item {item_id}")))?;
    if result.run.scorer != crate::ScorerKind::ChecklistJudge.as_str() {
        return Err(err(format!(
            "run {run_id} was scored by {}, not a checklist judge",
            result.run.scorer
        )));
    }
    let evidence: serde_json::Value = result
        .evidence
        .as_deref()
        .and_then(|e| serde_json::from_str(e).ok())
        .unwrap_or_default();
    let mut ratings: Vec<f64> = evidence["criteria"]
        .as_array()
        .map(|cs| cs.iter().filter_map(|c| c["rating"].as_f64()).collect())
        .unwrap_or_default();
    if ratings.is_empty() {
        return Err(err(format!(
            "run {run_id}'s judgement of item {item_id} has no criterion ratings (unparsed?)"
        )));
    }
    if criterion >= ratings.len() {
        return Err(err(format!(
            "the judgement rated {} criteria; there is no criterion {}",
            ratings.len(),
            criterion + 1
        )));
    }
    let judge = ratings[criterion];
    for o in &result.criterion_overrules {
        if let Some(r) = ratings.get_mut(o.criterion as usize) {
            *r = o.rating;
        }
    }
    ratings[criterion] = rating;
    let score = ratings.iter().sum::<f64>() / ratings.len() as f64;
    let note = format!(
        "criterion {}: judge {judge}, person {rating}",
        criterion + 1
    );
    project
        .add_criterion_overrule(&assay_core::store::NewCriterionOverrule {
            run_id,
            item_id,
            criterion,
            rating,
            item_score: score,
            author_id,
            note: &note,
        })
        .map_err(|e| err(e.to_string()))?;
    Ok(score)
}

/// A run's overall score (S_final for a checklist run): the mean of its items' effective
/// scores, overrules applied, unparsed counted as 0.
pub fn run_score(project: &Project, run_id: i64) -> Result<Option<f64>> {
    let scores = run_item_scores(project, run_id)?;
    Ok((!scores.is_empty()).then(|| scores.iter().map(|s| s.1).sum::<f64>() / scores.len() as f64))
}

/// How run-to-run spread is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Spread {
    /// Sample standard deviation over runs (ddof = 1).
    #[default]
    SampleStd,
    /// Population standard deviation over runs (ddof = 0).
    PopulationStd,
    /// Standard error of the mean over runs (sample std / sqrt(runs)).
    StandardError,
}

impl Spread {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "sample" | "sample_std" => Some(Self::SampleStd),
            "population" | "population_std" => Some(Self::PopulationStd),
            "se" | "standard_error" => Some(Self::StandardError),
            _ => None,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Self::SampleStd => "Std (sample, n-1)",
            Self::PopulationStd => "Std (population, n)",
            Self::StandardError => "SE over runs",
        }
    }
    /// The spread of one model's runs; none with fewer than two runs, where there is no
    /// run-to-run variation to report (not a spread of 0).
    fn of(self, runs: &[f64]) -> Option<f64> {
        if runs.len() < 2 {
            return None;
        }
        match self {
            Self::SampleStd => std_sample(runs),
            Self::PopulationStd => std_pop(runs),
            Self::StandardError => std_sample(runs).map(|s| s / (runs.len() as f64).sqrt()),
        }
    }
}

assay_core::named_enum! {
    /// Rows split by a property of the items.
    pub enum Breakdown {
        Category = "category",
        /// The refinement operation recorded on the item ("none" when not reviewed yet).
        Op = "op",
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableOptions {
    pub spread: Spread,
    pub by: Option<Breakdown>,
    /// Count runs that were cancelled or did not finish every item.
    pub include_partial: bool,
    /// Bootstrap iterations for the intervals (0: none).
    pub bootstrap: usize,
    pub level: f64,
    pub seed: u64,
}

impl Default for TableOptions {
    fn default() -> Self {
        Self {
            spread: Spread::SampleStd,
            by: None,
            include_partial: false,
            bootstrap: 1000,
            level: 0.95,
            seed: 42,
        }
    }
}

/// What defines a measurement besides model, dataset and version: runs differing in any of
/// these are never pooled.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Protocol {
    pub template: String,
    pub scorer: String,
    pub source: String,
    /// The named protocol (a seed's preset) the runs were made under; None: by hand. It also
    /// says how the row counts unparsed replies (`UnparsedRule`).
    #[serde(default)]
    pub preset: Option<String>,
}

impl Protocol {
    pub fn unparsed_rule(&self) -> UnparsedRule {
        UnparsedRule::of(self.preset.as_deref())
    }
}

/// One model on one side of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelSide {
    pub model: String,
    /// Accuracy of each run on the side's item set.
    pub runs: Vec<f64>,
    pub mean: f64,
    /// None with a single run.
    pub spread: Option<f64>,
    /// Totals over the model's runs.
    pub unparsed: i64,
    /// Several answers offered without commitment (scored as misses).
    pub hedged: i64,
    /// Verdicts the rules were not sure of (counted as they were scored, listed apart).
    #[serde(default)]
    pub unsure: i64,
    pub errors: i64,
    /// Items of the set with no result in a run (not run, skipped, or run on an older revision).
    pub missing: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideStats {
    /// Items every model is scored on.
    pub items: usize,
    pub accuracy: f64,
    /// Mean over the models with two or more runs of each one's spread over runs; none when
    /// no model has two.
    pub run_spread: Option<f64>,
    pub gap: f64,
    pub models: Vec<ModelSide>,
    pub unparsed: i64,
    pub hedged: i64,
    #[serde(default)]
    pub unsure: i64,
    pub errors: i64,
    pub missing: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    pub dataset: String,
    pub protocol: Protocol,
    /// The category or operation of this row when broken down.
    pub group: Option<String>,
    /// Labels of the two sides ("before"/"after", or two variants).
    pub sides: (String, String),
    pub spread: Spread,
    pub models: usize,
    pub before: SideStats,
    pub after: SideStats,
    pub delta_accuracy: f64,
    pub delta_run_spread: Option<f64>,
    pub delta_gap: f64,
    /// Spearman's rho between the models' mean accuracies on the two sides.
    pub rank_correlation: Option<f64>,
    /// The versions of the scorer's rules that made this row's numbers (one, unless some runs
    /// were rescored and others not).
    pub scorer_versions: Vec<i64>,
    /// Paired item bootstrap (percentile) intervals, at `ci_level`.
    pub ci: Option<PairedIntervals>,
    pub ci_level: f64,
}

/// The items of one side, in dataset order, with the revision each must have been scored at.
pub(crate) struct ItemSet {
    pub(crate) ids: Vec<i64>,
    revs: Vec<i64>,
    groups: Vec<String>,
    pos: HashMap<i64, usize>,
}

pub(crate) fn item_set(
    project: &Project,
    dataset_id: i64,
    version: Version,
    by: Option<Breakdown>,
) -> Result<ItemSet> {
    let mut set = ItemSet {
        ids: Vec::new(),
        revs: Vec::new(),
        groups: Vec::new(),
        pos: HashMap::new(),
    };
    for m in project.version_members(dataset_id, version)? {
        let group = match by {
            None => String::new(),
            Some(Breakdown::Category) => m.category.unwrap_or_else(|| "(none)".into()),
            Some(Breakdown::Op) => m.op.map_or_else(|| "none".into(), |o| o.as_str().into()),
        };
        set.pos.insert(m.id, set.ids.len());
        set.ids.push(m.id);
        set.revs.push(m.rev);
        set.groups.push(group);
    }
    Ok(set)
}

/// One run over a side's items, by position: the effective score (a person's latest overrule
/// wins; unparsed, errors and missing count 0) and what happened (None: no result here).
pub(crate) struct RunScores {
    pub(crate) score: Vec<f64>,
    pub(crate) state: Vec<Option<Outcome>>,
    /// The rules were not sure of item i's verdict.
    pub(crate) unsure: Vec<bool>,
    /// Item i counts in a denominator that leaves unparsed replies out: everything but an
    /// unparsed reply no person has scored (errors and missing results still count 0, so a
    /// run that failed or was not re-run on edited items is not flattered).
    pub(crate) valid: Vec<bool>,
    /// The scorer versions of the results counted here.
    versions: Vec<i64>,
}

pub(crate) fn run_scores(project: &Project, run_id: i64, set: &ItemSet) -> Result<RunScores> {
    let n = set.ids.len();
    let mut out = RunScores {
        score: vec![0.0; n],
        state: vec![None; n],
        unsure: vec![false; n],
        valid: vec![true; n],
        versions: Vec::new(),
    };
    for r in project.run_results(run_id)? {
        // A result for another revision of the item does not measure this version.
        let Some(&i) = set
            .pos
            .get(&r.item_id)
            .filter(|&&i| set.revs[i] == r.item_rev)
        else {
            continue;
        };
        // A skipped item has no result for this version: it counts as missing.
        out.state[i] = (r.outcome != Outcome::Skipped).then_some(r.outcome);
        out.unsure[i] = r.unsure;
        if matches!(
            r.outcome,
            Outcome::Scored | Outcome::Unparsed | Outcome::Hedged
        ) && !out.versions.contains(&r.scorer_version)
        {
            out.versions.push(r.scorer_version);
        }
        if r.outcome != Outcome::Error {
            out.score[i] = r.score.unwrap_or(0.0);
        }
        out.valid[i] = r.outcome != Outcome::Unparsed;
    }
    for (item, score) in project.run_overrules(run_id)? {
        if let Some(&i) = set.pos.get(&item) {
            if matches!(
                out.state[i],
                Some(Outcome::Scored | Outcome::Unparsed | Outcome::Hedged)
            ) {
                out.score[i] = score;
                out.valid[i] = true;
            }
        }
    }
    Ok(out)
}

/// Effective per-item scores of one run (overrules applied; unparsed counts 0), for callers
/// that list a run's items: (item, score, unparsed).
pub fn run_item_scores(project: &Project, run_id: i64) -> Result<Vec<(i64, f64, bool)>> {
    let overruled: HashMap<i64, f64> = project.run_overrules(run_id)?.into_iter().collect();
    let mut out: Vec<(i64, f64, bool)> = project
        .run_results(run_id)?
        .into_iter()
        .filter(|r| {
            matches!(
                r.outcome,
                Outcome::Scored | Outcome::Unparsed | Outcome::Hedged
            )
        })
        .map(|r| {
            let s = overruled
                .get(&r.item_id)
                .copied()
                .or(r.score)
                .unwrap_or(0.0);
            (r.item_id, s, r.outcome == Outcome::Unparsed)
        })
        .collect();
    out.sort_by_key(|x| x.0);
    Ok(out)
}

/// Runs of one side, grouped by protocol then model: (protocol, model) -> run ids.
fn side_runs(
    project: &Project,
    dataset_id: i64,
    version: Version,
    variant: Variant,
    include_partial: bool,
) -> Result<BTreeMap<Protocol, BTreeMap<String, Vec<i64>>>> {
    let mut out: BTreeMap<Protocol, BTreeMap<String, Vec<i64>>> = BTreeMap::new();
    for r in project.runs_of(dataset_id, version, variant.as_str())? {
        if r.status != "complete" && !include_partial {
            continue;
        }
        let protocol = Protocol {
            template: r.template,
            scorer: r.scorer,
            source: r.source,
            preset: r.protocol,
        };
        out.entry(protocol)
            .or_default()
            .entry(r.model)
            .or_default()
            .push(r.id);
    }
    Ok(out)
}

/// Every run of every compared model on one side: model -> runs.
type SideScores = BTreeMap<String, Vec<RunScores>>;

fn side_scores(
    project: &Project,
    set: &ItemSet,
    models: &BTreeMap<String, Vec<i64>>,
) -> Result<SideScores> {
    let mut out = BTreeMap::new();
    for (model, ids) in models {
        let runs = ids
            .iter()
            .map(|id| run_scores(project, *id, set))
            .collect::<Result<Vec<_>>>()?;
        out.insert(model.clone(), runs);
    }
    Ok(out)
}

/// One side of a row of JAMMEval's Table 2, from each model's accuracy in each of its runs: the
/// table's one definition, checked against NumPy and SciPy (tests/fixtures/stats).
#[derive(Debug, Clone, PartialEq)]
pub struct SideFigures {
    /// Each model's mean accuracy over its runs, in the order given.
    pub means: Vec<f64>,
    /// Each model's spread over its runs (the table's chosen [`Spread`]); none for a model
    /// with a single run.
    pub spreads: Vec<Option<f64>>,
    /// The mean over models of their means.
    pub accuracy: f64,
    /// The mean of the spreads there are: a single-run model adds nothing, not a 0.
    pub run_spread: Option<f64>,
    /// The best model's mean minus the worst's.
    pub gap: f64,
}

pub fn side_figures(per_model_runs: &[Vec<f64>], spread: Spread) -> SideFigures {
    let means: Vec<f64> = per_model_runs
        .iter()
        .map(|r| mean(r).unwrap_or(0.0))
        .collect();
    let spreads: Vec<Option<f64>> = per_model_runs.iter().map(|r| spread.of(r)).collect();
    let known: Vec<f64> = spreads.iter().flatten().copied().collect();
    SideFigures {
        accuracy: mean(&means).unwrap_or(0.0),
        run_spread: mean(&known),
        gap: means.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            - means.iter().copied().fold(f64::INFINITY, f64::min),
        means,
        spreads,
    }
}

/// Spearman's rho between the models' means on the two sides (ties averaged); None when it is
/// undefined (fewer than two models, or every model tied on a side).
pub fn rank_correlation(before_means: &[f64], after_means: &[f64]) -> Option<f64> {
    spearman(before_means, after_means).filter(|x| x.is_finite())
}

/// A side's statistics over the items at positions `idx`: each run's accuracy over them, or
/// over those it has a reading for when the row's protocol leaves unparsed replies out.
fn side_stats(
    scores: &SideScores,
    idx: &[usize],
    models: &[String],
    spread: Spread,
    rule: UnparsedRule,
) -> SideStats {
    let mut per_model = Vec::new();
    for m in models {
        let rs = &scores[m];
        // A run with nothing to count (every reply unparsed) is left out, not a 0.
        let runs: Vec<f64> = rs
            .iter()
            .filter_map(|r| {
                let counted: Vec<usize> = match rule {
                    UnparsedRule::CountedWrong => idx.to_vec(),
                    UnparsedRule::LeftOut => idx.iter().copied().filter(|&i| r.valid[i]).collect(),
                };
                (!counted.is_empty() || rule == UnparsedRule::CountedWrong).then(|| {
                    counted.iter().map(|&i| r.score[i]).sum::<f64>() / counted.len().max(1) as f64
                })
            })
            .collect();
        let count = |state: Option<Outcome>| -> i64 {
            rs.iter()
                .map(|r| idx.iter().filter(|&&i| r.state[i] == state).count() as i64)
                .sum()
        };
        per_model.push(ModelSide {
            model: m.clone(),
            mean: 0.0,
            spread: None,
            runs,
            unparsed: count(Some(Outcome::Unparsed)),
            hedged: count(Some(Outcome::Hedged)),
            unsure: rs
                .iter()
                .map(|r| idx.iter().filter(|&&i| r.unsure[i]).count() as i64)
                .sum(),
            errors: count(Some(Outcome::Error)),
            missing: count(None),
        });
    }
    let runs: Vec<Vec<f64>> = per_model.iter().map(|m| m.runs.clone()).collect();
    let f = side_figures(&runs, spread);
    for (m, (mean, spread)) in per_model.iter_mut().zip(f.means.iter().zip(&f.spreads)) {
        m.mean = *mean;
        m.spread = *spread;
    }
    SideStats {
        items: idx.len(),
        accuracy: f.accuracy,
        run_spread: f.run_spread,
        gap: f.gap,
        unparsed: per_model.iter().map(|m| m.unparsed).sum(),
        hedged: per_model.iter().map(|m| m.hedged).sum(),
        unsure: per_model.iter().map(|m| m.unsure).sum(),
        errors: per_model.iter().map(|m| m.errors).sum(),
        missing: per_model.iter().map(|m| m.missing).sum(),
        models: per_model,
    }
}

/// Item i's score per model (the mean over that model's runs), keyed by item id.
/// Under a protocol that leaves unparsed replies out, the mean is over the runs with a
/// reading, and an item some model never read is left out of the intervals.
fn item_matrix(
    scores: &SideScores,
    set: &ItemSet,
    idx: &[usize],
    models: &[String],
    rule: UnparsedRule,
) -> HashMap<i64, Vec<f64>> {
    idx.iter()
        .filter_map(|&i| {
            let row = models
                .iter()
                .map(|m| {
                    let counted: Vec<f64> = scores[m]
                        .iter()
                        .filter(|r| rule == UnparsedRule::CountedWrong || r.valid[i])
                        .map(|r| r.score[i])
                        .collect();
                    mean(&counted)
                })
                .collect::<Option<Vec<f64>>>()?;
            Some((set.ids[i], row))
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn compare(
    conn: &Project,
    dataset: &str,
    dataset_id: i64,
    a: (Version, Variant),
    b: (Version, Variant),
    sides: (String, String),
    opts: &TableOptions,
) -> Result<Vec<TableRow>> {
    let set_a = item_set(conn, dataset_id, a.0, opts.by)?;
    let set_b = item_set(conn, dataset_id, b.0, opts.by)?;
    let runs_a = side_runs(conn, dataset_id, a.0, a.1, opts.include_partial)?;
    let runs_b = side_runs(conn, dataset_id, b.0, b.1, opts.include_partial)?;
    let mut out = Vec::new();
    for (protocol, models_a) in &runs_a {
        let Some(models_b) = runs_b.get(protocol) else {
            continue;
        };
        // Only models measured on both sides are compared.
        let names: Vec<String> = models_a
            .keys()
            .filter(|m| models_b.contains_key(*m))
            .cloned()
            .collect();
        if names.is_empty() {
            continue;
        }
        let pick = |all: &BTreeMap<String, Vec<i64>>| -> BTreeMap<String, Vec<i64>> {
            names.iter().map(|n| (n.clone(), all[n].clone())).collect()
        };
        let sa = side_scores(conn, &set_a, &pick(models_a))?;
        let sb = side_scores(conn, &set_b, &pick(models_b))?;
        let mut scorer_versions: Vec<i64> = sa
            .values()
            .chain(sb.values())
            .flatten()
            .flat_map(|r| r.versions.iter().copied())
            .collect();
        scorer_versions.sort_unstable();
        scorer_versions.dedup();
        let mut groups: Vec<&String> = set_a.groups.iter().chain(&set_b.groups).collect();
        groups.sort();
        groups.dedup();
        for g in groups {
            let positions = |set: &ItemSet| -> Vec<usize> {
                (0..set.ids.len())
                    .filter(|&i| &set.groups[i] == g)
                    .collect()
            };
            let (ia, ib) = (positions(&set_a), positions(&set_b));
            if ia.is_empty() || ib.is_empty() {
                continue;
            }
            let rule = protocol.unparsed_rule();
            let before = side_stats(&sa, &ia, &names, opts.spread, rule);
            let after = side_stats(&sb, &ib, &names, opts.spread, rule);
            let ma = item_matrix(&sa, &set_a, &ia, &names, rule);
            let mb = item_matrix(&sb, &set_b, &ib, &names, rule);
            let mut union: Vec<i64> = ma.keys().chain(mb.keys()).copied().collect();
            union.sort_unstable();
            union.dedup();
            let rows_a: Vec<Option<Vec<f64>>> = union.iter().map(|i| ma.get(i).cloned()).collect();
            let rows_b: Vec<Option<Vec<f64>>> = union.iter().map(|i| mb.get(i).cloned()).collect();
            // Under a protocol that leaves unparsed replies out, each run divides by its own
            // count, which an item bootstrap does not reproduce: no interval rather than one
            // centred elsewhere than the figure beside it.
            let ci = (rule == UnparsedRule::CountedWrong)
                .then(|| {
                    paired_bootstrap(
                        &rows_a,
                        &rows_b,
                        names.len(),
                        opts.bootstrap,
                        opts.level,
                        opts.seed,
                    )
                })
                .flatten();
            let bm: Vec<f64> = before.models.iter().map(|m| m.mean).collect();
            let am: Vec<f64> = after.models.iter().map(|m| m.mean).collect();
            out.push(TableRow {
                dataset: dataset.to_string(),
                protocol: protocol.clone(),
                group: opts.by.map(|_| g.clone()),
                sides: sides.clone(),
                spread: opts.spread,
                models: names.len(),
                delta_accuracy: after.accuracy - before.accuracy,
                delta_run_spread: after.run_spread.zip(before.run_spread).map(|(a, b)| a - b),
                delta_gap: after.gap - before.gap,
                rank_correlation: rank_correlation(&bm, &am),
                scorer_versions: scorer_versions.clone(),
                before,
                after,
                ci,
                ci_level: opts.level,
            });
        }
    }
    Ok(out)
}

fn dataset_id(project: &Project, name: &str) -> Result<i64> {
    Ok(project.dataset_by_name(name)?.id)
}

/// The before/after table: per dataset and measurement protocol (template, scorer, source),
/// every model with complete runs on both versions, all scored on the same items.
pub fn before_after_table(
    project: &Project,
    datasets: &[String],
    variant: Variant,
    opts: &TableOptions,
) -> Result<Vec<TableRow>> {
    let mut rows = Vec::new();
    for ds in datasets {
        let id = dataset_id(project, ds)?;
        rows.extend(compare(
            project,
            ds,
            id,
            (Version::Before, variant),
            (Version::After, variant),
            ("before".into(), "after".into()),
            opts,
        )?);
    }
    Ok(rows)
}

/// Two variants on one version (e.g. original vs explicit).
pub fn variant_table(
    project: &Project,
    dataset: &str,
    version: Version,
    first: Variant,
    second: Variant,
    opts: &TableOptions,
) -> Result<Vec<TableRow>> {
    let id = dataset_id(project, dataset)?;
    compare(
        project,
        dataset,
        id,
        (version, first),
        (version, second),
        (first.as_str().into(), second.as_str().into()),
        opts,
    )
}

assay_core::named_enum! {
    pub enum TableFormat {
        Text = "text",
        Markdown = "markdown",
        Csv = "csv",
        Latex = "latex",
        Json = "json",
    }
}

fn headers(rows: &[TableRow]) -> Vec<String> {
    let spread = rows.first().map_or(Spread::SampleStd, |r| r.spread).label();
    let level = rows.first().map_or(95.0, |r| r.ci_level * 100.0);
    let (a, b) = rows
        .first()
        .map_or(("before".to_string(), "after".to_string()), |r| {
            r.sides.clone()
        });
    vec![
        "Dataset".into(),
        "Group".into(),
        "Protocol".into(),
        "Template".into(),
        "Scorer".into(),
        "Source".into(),
        "Models".into(),
        format!("Items {a}/{b}"),
        format!("Acc {a} [{level:.0}% CI]"),
        format!("Acc {b} [{level:.0}% CI]"),
        format!("Δ Acc [{level:.0}% CI]"),
        format!("{spread} {a}"),
        format!("{spread} {b}"),
        format!("Δ {spread}"),
        format!("Gap {a}"),
        format!("Gap {b}"),
        format!("ρ [{level:.0}% CI]"),
        format!("Unparsed {a}/{b}"),
        format!("Hedged {a}/{b}"),
        format!("Unsure {a}/{b}"),
        format!("Errors {a}/{b}"),
        format!("Missing {a}/{b}"),
    ]
}

/// A figure, or "n/a" where it does not exist (a spread of single runs).
fn na(x: Option<f64>, show: &dyn Fn(f64) -> String) -> String {
    x.map_or_else(|| "n/a".into(), show)
}

fn cells(r: &TableRow) -> Vec<String> {
    let p = |x: f64| format!("{:.1}", x * 100.0);
    let d = |x: f64| format!("{:+.1}", x * 100.0);
    let ci = |c: Option<(f64, f64)>| {
        c.map_or(String::new(), |(lo, hi)| {
            format!(" [{:.1}, {:.1}]", lo * 100.0, hi * 100.0)
        })
    };
    let ci_signed = |c: Option<(f64, f64)>| {
        c.map_or(String::new(), |(lo, hi)| {
            format!(" [{:+.1}, {:+.1}]", lo * 100.0, hi * 100.0)
        })
    };
    vec![
        r.dataset.clone(),
        r.group.clone().unwrap_or_else(|| "all".into()),
        protocol_label(&r.protocol),
        r.protocol.template.clone(),
        scorer_label(&r.protocol.scorer, &r.scorer_versions),
        r.protocol.source.clone(),
        r.models.to_string(),
        format!("{}/{}", r.before.items, r.after.items),
        format!("{}{}", p(r.before.accuracy), ci(r.ci.map(|c| c.before))),
        format!("{}{}", p(r.after.accuracy), ci(r.ci.map(|c| c.after))),
        format!(
            "{}{}",
            d(r.delta_accuracy),
            ci_signed(r.ci.map(|c| c.delta))
        ),
        na(r.before.run_spread, &p),
        na(r.after.run_spread, &p),
        na(r.delta_run_spread, &d),
        p(r.before.gap),
        p(r.after.gap),
        match r.rank_correlation {
            Some(x) => format!(
                "{x:.2}{}",
                r.ci.and_then(|c| c.rho)
                    .map_or(String::new(), |(lo, hi)| format!(" [{lo:.2}, {hi:.2}]"))
            ),
            None => "n/a".into(),
        },
        format!("{}/{}", r.before.unparsed, r.after.unparsed),
        format!("{}/{}", r.before.hedged, r.after.hedged),
        format!("{}/{}", r.before.unsure, r.after.unsure),
        format!("{}/{}", r.before.errors, r.after.errors),
        format!("{}/{}", r.before.missing, r.after.missing),
    ]
}

/// The row's protocol and how it counted unparsed replies: "vague (unparsed left out)", or
/// "by hand".
pub fn protocol_label(p: &Protocol) -> String {
    match &p.preset {
        Some(name) => format!("{name} ({})", p.unparsed_rule().label()),
        None => "by hand".into(),
    }
}

/// A scorer with the versions of its rules that made a row: "choice v2", "choice v1+v2".
pub fn scorer_label(scorer: &str, versions: &[i64]) -> String {
    if versions.is_empty() {
        return scorer.to_string();
    }
    let v: Vec<String> = versions.iter().map(|v| format!("v{v}")).collect();
    format!("{scorer} {}", v.join("+"))
}

pub fn render(rows: &[TableRow], fmt: TableFormat) -> Result<String> {
    if fmt == TableFormat::Json {
        return Ok(serde_json::to_string_pretty(rows)?);
    }
    let body: Vec<Vec<String>> = rows.iter().map(cells).collect();
    render_grid(&headers(rows), &body, fmt)
}

/// A header and rows of cells as text, Markdown, CSV or LaTeX (JSON is the caller's).
pub fn render_grid(header: &[String], body: &[Vec<String>], fmt: TableFormat) -> Result<String> {
    let heads: Vec<&str> = header.iter().map(String::as_str).collect();
    Ok(match fmt {
        TableFormat::Json => serde_json::to_string_pretty(body)?,
        TableFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(&heads)
                .map_err(|e| EvalError::Config(e.to_string()))?;
            for r in body {
                w.write_record(r)
                    .map_err(|e| EvalError::Config(e.to_string()))?;
            }
            String::from_utf8(
                w.into_inner()
                    .map_err(|e| EvalError::Config(e.to_string()))?,
            )
            .unwrap_or_default()
        }
        TableFormat::Markdown => {
            let mut s = format!(
                "| {} |\n|{}\n",
                heads.join(" | "),
                "---|".repeat(heads.len())
            );
            for r in body {
                s.push_str(&format!("| {} |\n", r.join(" | ")));
            }
            s
        }
        TableFormat::Latex => {
            let esc = |x: &str| {
                x.replace('\\', "\\textbackslash{}")
                    .replace('&', "\\&")
                    .replace('%', "\\%")
                    .replace('_', "\\_")
                    .replace('#', "\\#")
                    .replace('$', "\\$")
                    .replace('Δ', "$\\Delta$")
                    .replace('ρ', "$\\rho$")
            };
            let mut s = format!(
                "\\begin{{tabular}}{{l{}}}\n\\toprule\n",
                "r".repeat(heads.len() - 1)
            );
            s.push_str(&heads.iter().map(|h| esc(h)).collect::<Vec<_>>().join(" & "));
            s.push_str(" \\\\\n\\midrule\n");
            for r in body {
                s.push_str(&r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" & "));
                s.push_str(" \\\\\n");
            }
            s.push_str("\\bottomrule\n\\end{tabular}\n");
            s
        }
        TableFormat::Text => {
            let mut widths: Vec<usize> = heads.iter().map(|h| h.chars().count()).collect();
            for r in body {
                for (i, c) in r.iter().enumerate() {
                    widths[i] = widths[i].max(c.chars().count());
                }
            }
            let line = |cols: Vec<String>| {
                cols.iter()
                    .enumerate()
                    .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
                    + "\n"
            };
            let mut s = line(heads.iter().map(|h| h.to_string()).collect());
            for r in body {
                s.push_str(&line(r.clone()));
            }
            s
        }
    })
}
