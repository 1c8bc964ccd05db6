//! JAMMEval's before/after table for the window, with breakdowns by group and its renderings.

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use assay_core::{Project, Version};
use assay_eval::table::{
    before_after_table, render, variant_table, Breakdown, TableFormat, TableOptions,
};
use assay_eval::Variant;

use super::eval_err;
use crate::Session;

/// One model's accuracy on both sides of a table row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ModelPair {
    pub model: String,
    pub before: f64,
    pub after: f64,
    /// The model's rank on each side (1 = best), ties sharing the average of their ranks: the
    /// ranks Spearman's rho of the row is computed on, so the rank chart and rho agree.
    pub rank_before: f64,
    pub rank_after: f64,
}

/// Each model's rank by accuracy, best first (1), ties averaged as SciPy's `rankdata` does.
fn ranks_best_first(accuracies: &[f64]) -> Vec<f64> {
    let negated: Vec<f64> = accuracies.iter().map(|a| -a).collect();
    assay_core::stats::rank_average(&negated)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DashboardRow {
    pub dataset: String,
    /// The category or operation of the row when broken down.
    pub group: Option<String>,
    pub scorer: String,
    /// The scorer with the versions of its rules that made the numbers ("choice v2").
    pub scorer_label: String,
    pub source: String,
    /// The protocol that made the row and how it counted unparsed replies ("vague (unparsed
    /// left out)", or "by hand"): rows of different protocols are never compared.
    pub protocol: String,
    pub items_before: u64,
    pub items_after: u64,
    pub accuracy_before: f64,
    pub accuracy_after: f64,
    pub delta: f64,
    pub rank_correlation: Option<f64>,
    pub models: Vec<ModelPair>,
    /// Unparsed and hedged responses on each side (counted as misses).
    pub unparsed_before: u64,
    pub unparsed_after: u64,
    pub hedged_before: u64,
    pub hedged_after: u64,
    /// Verdicts the rules were not sure of on each side (counted as scored).
    pub unsure_before: u64,
    pub unsure_after: u64,
}

/// A model's share in one group: `hits` of `n` results (accuracy, or how often an option kind
/// was chosen).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Share {
    pub model: String,
    pub group: String,
    pub hits: u64,
    pub n: u64,
}

/// Adds one result to its (model, group) count.
fn count(
    map: &mut std::collections::BTreeMap<(String, String), (u64, u64)>,
    model: &str,
    group: &str,
    hit: bool,
) {
    let e = map
        .entry((model.to_string(), group.to_string()))
        .or_default();
    e.0 += u64::from(hit);
    e.1 += 1;
}

fn shares(map: std::collections::BTreeMap<(String, String), (u64, u64)>) -> Vec<Share> {
    map.into_iter()
        .map(|((model, group), (hits, n))| Share {
            model,
            group,
            hits,
            n,
        })
        .collect()
}

/// Grounding by referring-expression type and box size, and multiple-choice distractor
/// choices, from every result scored on its item's current revision (original question).
fn breakdowns(project: &Project) -> ApiResult<(Vec<Share>, Vec<Share>, Vec<Share>)> {
    use std::collections::{BTreeMap, HashMap};
    let (mut by_ref, mut by_size, mut picks) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    use assay_core::grounding::metrics;
    let edges = metrics::SIZE_RATIO_EDGES;
    for d in project.datasets()? {
        // Only the two scorers broken down here, and only in datasets that can have them (boxes,
        // options): a short-answer dataset reads no results at all.
        let has = |f: assay_core::store::Filter| -> ApiResult<bool> {
            let page = assay_core::store::Page {
                offset: 0,
                limit: 1,
            };
            Ok(!project.query(&f, page)?.rows.is_empty())
        };
        let mut results = Vec::new();
        if has(assay_core::store::Filter {
            datasets: vec![d.id],
            has_box: Some(true),
            ..Default::default()
        })? {
            results.extend(project.current_results_of(d.id, Some("grounding"))?);
        }
        if has(assay_core::store::Filter {
            datasets: vec![d.id],
            formats: vec![assay_core::AnswerFormat::MultipleChoice],
            ..Default::default()
        })? {
            results.extend(project.current_results_of(d.id, Some("choice"))?);
        }
        if results.is_empty() {
            continue;
        }
        let items: HashMap<i64, assay_core::ItemContent> = project
            .current_items(d.id)?
            .into_iter()
            .map(|i| (i.id, i.content))
            .collect();
        for r in results.iter().filter(|r| r.variant == "original") {
            let Some(c) = items.get(&r.item_id) else {
                continue;
            };
            let hit = r.overruled.or(r.score).unwrap_or(0.0) >= 0.5;
            match r.scorer.as_str() {
                "grounding" => {
                    let rt = c.ref_type.map_or("none", |t| t.as_str());
                    count(&mut by_ref, &r.model, rt, hit);
                    if let Some(m) = metrics::of_item(c) {
                        if let Some(i) = metrics::bar(&edges, m.size_ratio) {
                            let group = format!("{}-{}", edges[i], edges[i + 1]);
                            count(&mut by_size, &r.model, &group, hit);
                        }
                    }
                }
                "choice" => {
                    // A hedge ("B|D") chose no option.
                    let chosen = r
                        .parsed
                        .as_deref()
                        .filter(|_| r.outcome != "hedged")
                        .and_then(|l| l.chars().next())
                        .filter(|ch| ch.is_ascii_uppercase())
                        .map(|ch| (ch as u8 - b'A') as usize);
                    let kind = match chosen {
                        None if r.outcome == "hedged" => "hedged",
                        None => "unparsed",
                        Some(i) if Some(i) == c.correct_option => "correct",
                        Some(i) => c
                            .options
                            .get(i)
                            .and_then(|o| o.kind)
                            .map_or("other", |k| k.as_str()),
                    };
                    count(&mut picks, &r.model, kind, true);
                }
                _ => {}
            }
        }
    }
    Ok((shares(by_ref), shares(by_size), shares(picks)))
}

/// JAMMEval's Table 2 for every dataset with runs on both sides, as rows for the window and
/// the same table rendered for copying.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Dashboard {
    pub rows: Vec<DashboardRow>,
    /// (dataset, refinement operation or "unset", items): what refining did to each dataset.
    pub operations: Vec<(String, String, i64)>,
    /// (model, failure tag, responses): why models failed, as people tagged it.
    pub failure_tags: Vec<(String, String, i64)>,
    /// Grounding accuracy per model and referring-expression type (type "none" when unset).
    pub grounding_by_ref: Vec<Share>,
    /// Grounding accuracy per model and box size bin ("0.01-0.02" of the image area).
    pub grounding_by_size: Vec<Share>,
    /// For multiple choice: which kind of option each model chose (correct, FSU, SU, NE).
    pub distractors: Vec<Share>,
    pub markdown: String,
    pub csv: String,
    pub latex: String,
}

/// The dashboard; with `against`, each row compares the original question with that variant
/// (explicit, disambiguated, text-only, no image) on the after version instead of before/after.
pub fn dashboard(project: &Project, by: Option<&str>) -> ApiResult<Dashboard> {
    dashboard_vs(project, by, None)
}

pub fn dashboard_vs(
    project: &Project,
    by: Option<&str>,
    against: Option<&str>,
) -> ApiResult<Dashboard> {
    let datasets: Vec<String> = project.datasets()?.into_iter().map(|d| d.name).collect();
    let by = by
        .map(|b| {
            Breakdown::parse(b).ok_or_else(|| {
                ApiError::new(
                    "invalid",
                    format!("rows by {b:?}? one of {}", Breakdown::NAMES.join(", ")),
                )
            })
        })
        .transpose()?;
    let opts = TableOptions {
        bootstrap: 0,
        by,
        ..Default::default()
    };
    let rows = match against {
        None => {
            before_after_table(project, &datasets, Variant::Original, &opts).map_err(eval_err)?
        }
        Some(v) => {
            let second = Variant::parse(v).ok_or_else(|| {
                ApiError::new(
                    "invalid",
                    format!("compare with {v:?}? one of {}", Variant::NAMES.join(", ")),
                )
            })?;
            let mut rows = Vec::new();
            for d in &datasets {
                rows.extend(
                    variant_table(project, d, Version::After, Variant::Original, second, &opts)
                        .map_err(eval_err)?,
                );
            }
            rows
        }
    };
    let out = rows
        .iter()
        .map(|r| DashboardRow {
            dataset: r.dataset.clone(),
            group: r.group.clone(),
            scorer: r.protocol.scorer.clone(),
            scorer_label: assay_eval::table::scorer_label(&r.protocol.scorer, &r.scorer_versions),
            source: r.protocol.source.clone(),
            protocol: assay_eval::table::protocol_label(&r.protocol),
            unparsed_before: r.before.unparsed as u64,
            unparsed_after: r.after.unparsed as u64,
            hedged_before: r.before.hedged as u64,
            hedged_after: r.after.hedged as u64,
            unsure_before: r.before.unsure as u64,
            unsure_after: r.after.unsure as u64,
            items_before: r.before.items as u64,
            items_after: r.after.items as u64,
            accuracy_before: r.before.accuracy,
            accuracy_after: r.after.accuracy,
            delta: r.delta_accuracy,
            rank_correlation: r.rank_correlation,
            models: {
                let pairs: Vec<(String, f64, f64)> = r
                    .before
                    .models
                    .iter()
                    .map(|m| {
                        let after = r
                            .after
                            .models
                            .iter()
                            .find(|a| a.model == m.model)
                            .map_or(f64::NAN, |a| a.mean);
                        (m.model.clone(), m.mean, after)
                    })
                    .collect();
                let rb = ranks_best_first(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
                let ra = ranks_best_first(&pairs.iter().map(|p| p.2).collect::<Vec<_>>());
                pairs
                    .into_iter()
                    .enumerate()
                    .map(|(k, (model, before, after))| ModelPair {
                        model,
                        before,
                        after,
                        rank_before: rb[k],
                        rank_after: ra[k],
                    })
                    .collect()
            },
        })
        .collect();
    let text = |f| render(&rows, f).map_err(eval_err);
    let operations = project
        .summary()?
        .datasets
        .into_iter()
        .flat_map(|d| {
            let name = d.dataset.clone();
            d.ops.into_iter().map(move |(op, n)| (name.clone(), op, n))
        })
        .collect();
    let (grounding_by_ref, grounding_by_size, distractors) = breakdowns(project)?;
    Ok(Dashboard {
        rows: out,
        grounding_by_ref,
        grounding_by_size,
        distractors,
        operations,
        failure_tags: project.failure_tag_counts()?,
        markdown: text(TableFormat::Markdown)?,
        csv: text(TableFormat::Csv)?,
        latex: text(TableFormat::Latex)?,
    })
}

impl Session {
    /// The before/after table, optionally one row per category or refinement operation; with
    /// `against`, the original question against that variant on the after version.
    pub fn dashboard(
        &self,
        by: Option<String>,
        against: Option<String>,
    ) -> ApiResult<crate::evaluation::Dashboard> {
        crate::evaluation::dashboard_vs(self.project()?, by.as_deref(), against.as_deref())
    }
}

#[cfg(test)]
mod rank_tests {
    use super::ranks_best_first;

    /// The chart's ranks are the ones Spearman's rho uses: rho over them equals the row's rho,
    /// ties included (SciPy: spearmanr([0.7, 0.5, 0.5, 0.2], [0.4, 0.9, 0.6, 0.6]) = -0.5).
    #[test]
    fn ranks_average_ties_as_spearman_does() {
        let before = [0.7, 0.5, 0.5, 0.2];
        let after = [0.4, 0.9, 0.6, 0.6];
        assert_eq!(ranks_best_first(&before), vec![1.0, 2.5, 2.5, 4.0]);
        assert_eq!(ranks_best_first(&after), vec![4.0, 1.0, 2.5, 2.5]);
        let rho_ranks =
            assay_core::stats::pearson(&ranks_best_first(&before), &ranks_best_first(&after))
                .unwrap();
        let rho = assay_core::stats::spearman(&before, &after).unwrap();
        assert!((rho_ranks - rho).abs() < 1e-12);
        assert!((rho - -0.5).abs() < 1e-12, "{rho}");
    }
}
