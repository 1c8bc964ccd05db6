//! CRAG-MM-Diagnostics' stage-wise view of a version's runs: per model and variant, the
//! accuracy of each stage measured (visual grounding, object identification, answering), all
//! of them by referring-expression type and by bins of the four visual-complexity axes (size,
//! distance to the centre, crowdedness, saliency) and of popularity, with the point-biserial r
//! against each axis and Spearman's rho against the entity's popularity, as the paper reports
//! them (Figures 3 and 4).
//!
//! A run's stage is its scorer's: `grounding`, `identification`, anything else answers. Runs
//! of one stage with different templates or sources are different columns, never pooled. An
//! item's score is the mean over the model's runs (overrules applied, unparsed and errors 0);
//! an item counts in a cell when every one of those runs has a result for it (a variant the
//! item lacks, or an item not run, leaves it out). Bins split the version's items that have a
//! box into `bins` groups of (nearly) equal size by rank, as the paper groups "with similar
//! subgroup sizes"; equal values may straddle a boundary.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::prompt::Variant;
use crate::table::{item_set, run_scores, Protocol, TableFormat};
use assay_core::grounding::metrics;
use assay_core::stats::{pearson, spearman};
use assay_core::{Project, Version};

assay_core::named_enum! {
    /// The pipeline stage a run measures.
    #[derive(PartialOrd, Ord)]
    pub enum Stage {
        Grounding = "grounding",
        Identification = "identification",
        Answer = "answer",
    }
}

impl Stage {
    pub fn of_scorer(scorer: &str) -> Self {
        match scorer {
            "grounding" => Self::Grounding,
            s if s == "identification" || s.starts_with("identification+") => Self::Identification,
            _ => Self::Answer,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Self::Grounding => "Grounding",
            Self::Identification => "Identification",
            Self::Answer => "Answer",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct StageOptions {
    pub version: Version,
    pub include_partial: bool,
    /// Equal-size bins for each axis and popularity (the paper uses about five).
    pub bins: usize,
}

impl Default for StageOptions {
    fn default() -> Self {
        Self {
            version: Version::After,
            include_partial: false,
            bins: 5,
        }
    }
}

/// One measured stage: a column of the table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StageColumn {
    pub stage: Stage,
    pub protocol: Protocol,
}

impl StageColumn {
    /// The stage, with what sets this column apart from the stage's default measurement:
    /// the template, the scorer (an answer scorer, or identification's judge) and the source.
    pub fn label(&self) -> String {
        let p = &self.protocol;
        let mut parts: Vec<&str> = Vec::new();
        if !matches!(p.template.as_str(), "default" | "recorded") {
            parts.push(&p.template);
        }
        let plain = match self.stage {
            Stage::Grounding => "grounding",
            Stage::Identification => "identification",
            Stage::Answer => "auto",
        };
        if p.scorer != plain {
            parts.push(&p.scorer);
        }
        if p.source != "live" {
            parts.push(&p.source);
        }
        if parts.is_empty() {
            self.stage.label().to_string()
        } else {
            format!("{} ({})", self.stage.label(), parts.join(", "))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub items: usize,
    pub accuracy: f64,
}

/// One group of items for one model and variant, across the stage columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageRow {
    pub dataset: String,
    pub model: String,
    pub variant: String,
    /// "all", "ref_type", or a property's bins: "size", "distance", "crowdedness",
    /// "saliency", "popularity".
    pub breakdown: String,
    pub group: String,
    /// One per column; None when the model has no runs of that column for this variant.
    pub cells: Vec<Option<Cell>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageCorrelation {
    pub dataset: String,
    pub model: String,
    pub variant: String,
    pub column: usize,
    /// Spearman's rho between the entity's popularity and the item's score.
    pub popularity_rho: Option<f64>,
    pub popularity_items: usize,
    /// Pearson's r between the target's saliency and the item's score: the point-biserial r
    /// when scores are 0/1 (one run, or runs that agree). The other axes likewise.
    pub saliency_r_pb: Option<f64>,
    pub saliency_items: usize,
    pub size_r_pb: Option<f64>,
    pub size_items: usize,
    /// Distance to the centre (`calculate_distance`): the paper's r_pb is negative.
    pub distance_r_pb: Option<f64>,
    pub distance_items: usize,
    /// Objects in the image (the item's crowdedness).
    pub crowdedness_r_pb: Option<f64>,
    pub crowdedness_items: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct StageTable {
    pub columns: Vec<StageColumn>,
    pub rows: Vec<StageRow>,
    pub correlations: Vec<StageCorrelation>,
}

/// What the breakdowns need to know about each item of a version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemFacts {
    pub ref_type: Option<String>,
    pub size_ratio: Option<f64>,
    pub distance: Option<f64>,
    pub crowdedness: Option<f64>,
    pub saliency: Option<f64>,
    pub popularity: Option<f64>,
}

/// The properties an item is binned and correlated by, in the table's order: the four axes of
/// visual complexity, then popularity.
pub const PROPERTIES: [&str; 5] = ["size", "distance", "crowdedness", "saliency", "popularity"];

impl ItemFacts {
    /// The value of one of [`PROPERTIES`].
    pub fn property(&self, name: &str) -> Option<f64> {
        match name {
            "size" => self.size_ratio,
            "distance" => self.distance,
            "crowdedness" => self.crowdedness,
            "saliency" => self.saliency,
            "popularity" => self.popularity,
            _ => None,
        }
    }
}

/// One property's correlation with the item scores and the items it was taken over.
pub type Correlation = (Option<f64>, usize);

/// Equal-size bins by rank over the items that have a value: the bin of each item and each
/// bin's (lowest, highest) value. Ties are ordered by position, so equal values may straddle
/// a boundary; `numpy.array_split` of the stable argsort splits the same way.
pub fn rank_bins(values: &[Option<f64>], bins: usize) -> (Vec<Option<usize>>, Vec<(f64, f64)>) {
    let mut order: Vec<usize> = (0..values.len()).filter(|&i| values[i].is_some()).collect();
    order.sort_by(|&a, &b| {
        values[a]
            .partial_cmp(&values[b])
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let n = order.len();
    let k = bins.clamp(1, n.max(1));
    let mut bin_of = vec![None; values.len()];
    let mut ranges = Vec::new();
    // array_split: the first n % k bins get one extra item.
    let (base, extra) = (n / k, n % k);
    let mut start = 0;
    for b in 0..k {
        let len = base + usize::from(b < extra);
        if len == 0 {
            continue;
        }
        let chunk = &order[start..start + len];
        for &i in chunk {
            bin_of[i] = Some(ranges.len());
        }
        let lo = values[chunk[0]].unwrap_or(0.0);
        let hi = values[chunk[len - 1]].unwrap_or(0.0);
        ranges.push((lo, hi));
        start += len;
    }
    (bin_of, ranges)
}

/// Each of [`PROPERTIES`] against the item scores, over the items that have the property and
/// a score: Spearman's rho for popularity, the point-biserial r (Pearson's r on 0/1 scores)
/// for the visual axes.
pub fn correlations(scores: &[Option<f64>], facts: &[ItemFacts]) -> [Correlation; 5] {
    let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
    PROPERTIES.map(|name| {
        let (xs, ys): (Vec<f64>, Vec<f64>) = scores
            .iter()
            .zip(facts)
            .filter_map(|(s, f)| Some((f.property(name)?, (*s)?)))
            .unzip();
        let r = if name == "popularity" {
            spearman(&xs, &ys)
        } else {
            pearson(&ys, &xs)
        };
        (finite(r), xs.len())
    })
}

fn facts_of(content: &assay_core::ItemContent) -> ItemFacts {
    let m = metrics::of_item(content);
    ItemFacts {
        ref_type: Some(
            content
                .ref_type
                .map_or_else(|| "(none)".to_string(), |r| r.as_str().to_string()),
        ),
        size_ratio: m.as_ref().map(|m| m.size_ratio),
        distance: m.as_ref().map(|m| m.center_distance),
        crowdedness: content.crowdedness.map(f64::from),
        saliency: m.as_ref().map(|m| m.saliency),
        popularity: content.popularity.map(|p| p as f64),
    }
}

/// The stage table of `datasets` at `opts.version`.
pub fn stage_table(
    project: &Project,
    datasets: &[String],
    opts: &StageOptions,
) -> Result<StageTable> {
    // (dataset, model, variant) -> column -> per-item scores (None: not counted).
    type Scores = BTreeMap<(String, String, String), BTreeMap<StageColumn, Vec<Option<f64>>>>;
    let mut scores: Scores = BTreeMap::new();
    let mut facts_by_dataset: BTreeMap<String, Vec<ItemFacts>> = BTreeMap::new();
    let mut columns: Vec<StageColumn> = Vec::new();
    for ds in datasets {
        let ds_id = project.dataset_by_name(ds)?.id;
        let set = item_set(project, ds_id, opts.version, None)?;
        let facts: Vec<ItemFacts> = project
            .version_items(ds_id, opts.version)?
            .iter()
            .map(|(_, c)| facts_of(c))
            .collect();
        for variant in Variant::ALL {
            let mut runs: BTreeMap<(String, StageColumn), Vec<i64>> = BTreeMap::new();
            for r in project.runs_of(ds_id, opts.version, variant.as_str())? {
                if r.status != "complete" && !opts.include_partial {
                    continue;
                }
                let column = StageColumn {
                    stage: Stage::of_scorer(&r.scorer),
                    protocol: Protocol {
                        template: r.template,
                        scorer: r.scorer,
                        source: r.source,
                        preset: r.protocol,
                    },
                };
                runs.entry((r.model, column)).or_default().push(r.id);
            }
            for ((model, column), ids) in runs {
                let per_run = ids
                    .iter()
                    .map(|id| run_scores(project, *id, &set))
                    .collect::<Result<Vec<_>>>()?;
                let item_scores: Vec<Option<f64>> = (0..set.ids.len())
                    .map(|i| {
                        per_run.iter().all(|r| r.state[i].is_some()).then(|| {
                            per_run.iter().map(|r| r.score[i]).sum::<f64>() / per_run.len() as f64
                        })
                    })
                    .collect();
                if !columns.contains(&column) {
                    columns.push(column.clone());
                }
                scores
                    .entry((ds.clone(), model, variant.as_str().to_string()))
                    .or_default()
                    .insert(column, item_scores);
            }
        }
        facts_by_dataset.insert(ds.clone(), facts);
    }
    columns.sort();
    let mut table = StageTable {
        columns: columns.clone(),
        ..Default::default()
    };
    for ((ds, model, variant), by_column) in &scores {
        let facts = &facts_by_dataset[ds];
        let mut ref_types: Vec<String> = facts.iter().filter_map(|f| f.ref_type.clone()).collect();
        ref_types.sort();
        ref_types.dedup();
        let mut groups: Vec<Group> = vec![("all".into(), "all".into(), Box::new(|_| true))];
        for rt in ref_types {
            let want = rt.clone();
            groups.push((
                "ref_type".into(),
                rt,
                Box::new(move |i| facts[i].ref_type.as_deref() == Some(want.as_str())),
            ));
        }
        for name in PROPERTIES {
            let values: Vec<Option<f64>> = facts.iter().map(|f| f.property(name)).collect();
            let (bins, ranges) = rank_bins(&values, opts.bins);
            // Counts read as counts; ratios and distances to three decimals.
            let whole = matches!(name, "crowdedness" | "popularity");
            for (b, (lo, hi)) in ranges.iter().enumerate() {
                let bins = bins.clone();
                let label = if whole {
                    format!("Q{} [{lo:.0}, {hi:.0}]", b + 1)
                } else {
                    format!("Q{} [{lo:.3}, {hi:.3}]", b + 1)
                };
                groups.push((name.into(), label, Box::new(move |i| bins[i] == Some(b))));
            }
        }
        for (breakdown, group, member) in &groups {
            let cells: Vec<Option<Cell>> = columns
                .iter()
                .map(|c| {
                    let s = by_column.get(c)?;
                    let picked: Vec<f64> = s
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| member(*i))
                        .filter_map(|(_, v)| *v)
                        .collect();
                    (!picked.is_empty()).then(|| Cell {
                        items: picked.len(),
                        accuracy: picked.iter().sum::<f64>() / picked.len() as f64,
                    })
                })
                .collect();
            if cells.iter().all(Option::is_none) {
                continue;
            }
            table.rows.push(StageRow {
                dataset: ds.clone(),
                model: model.clone(),
                variant: variant.clone(),
                breakdown: breakdown.clone(),
                group: group.clone(),
                cells,
            });
        }
        for (ci, c) in columns.iter().enumerate() {
            let Some(s) = by_column.get(c) else { continue };
            let [size, distance, crowdedness, saliency, popularity] = correlations(s, facts);
            table.correlations.push(StageCorrelation {
                dataset: ds.clone(),
                model: model.clone(),
                variant: variant.clone(),
                column: ci,
                popularity_rho: popularity.0,
                popularity_items: popularity.1,
                saliency_r_pb: saliency.0,
                saliency_items: saliency.1,
                size_r_pb: size.0,
                size_items: size.1,
                distance_r_pb: distance.0,
                distance_items: distance.1,
                crowdedness_r_pb: crowdedness.0,
                crowdedness_items: crowdedness.1,
            });
        }
    }
    let means = mean_over_models(&table.correlations);
    table.correlations.extend(means);
    Ok(table)
}

/// The label of a correlation row that averages the models' rows.
pub const MEAN_OVER_MODELS: &str = "mean over models";

/// The paper's figures: each correlation averaged over the models (CRAG-MM-Diagnostics reports
/// "an average Spearman's ρ of 0.314" for popularity), one row per dataset, variant and stage
/// after the models' own. A model whose correlation is undefined is left out of the mean; the
/// row's item counts are the models' summed, its model names how many were averaged.
pub fn mean_over_models(rows: &[StageCorrelation]) -> Vec<StageCorrelation> {
    let mut groups: BTreeMap<(String, String, usize), Vec<&StageCorrelation>> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| !r.model.starts_with(MEAN_OVER_MODELS))
    {
        groups
            .entry((r.dataset.clone(), r.variant.clone(), r.column))
            .or_default()
            .push(r);
    }
    groups
        .into_iter()
        .filter(|(_, rs)| rs.len() >= 2)
        .map(|((dataset, variant, column), rs)| {
            let avg = |get: &dyn Fn(&StageCorrelation) -> Option<f64>| -> Option<f64> {
                let known: Vec<f64> = rs.iter().filter_map(|r| get(r)).collect();
                assay_core::stats::mean(&known)
            };
            StageCorrelation {
                model: format!("{MEAN_OVER_MODELS} ({})", rs.len()),
                dataset,
                variant,
                column,
                popularity_rho: avg(&|r| r.popularity_rho),
                popularity_items: rs.iter().map(|r| r.popularity_items).sum(),
                saliency_r_pb: avg(&|r| r.saliency_r_pb),
                saliency_items: rs.iter().map(|r| r.saliency_items).sum(),
                size_r_pb: avg(&|r| r.size_r_pb),
                size_items: rs.iter().map(|r| r.size_items).sum(),
                distance_r_pb: avg(&|r| r.distance_r_pb),
                distance_items: rs.iter().map(|r| r.distance_items).sum(),
                crowdedness_r_pb: avg(&|r| r.crowdedness_r_pb),
                crowdedness_items: rs.iter().map(|r| r.crowdedness_items).sum(),
            }
        })
        .collect()
}

/// A breakdown's name, the group's label, and which item positions belong to it.
type Group<'a> = (String, String, Box<dyn Fn(usize) -> bool + 'a>);

fn grid(t: &StageTable) -> (Vec<String>, Vec<Vec<String>>) {
    let mut head: Vec<String> = ["Dataset", "Model", "Variant", "Breakdown", "Group"]
        .map(String::from)
        .to_vec();
    head.extend(t.columns.iter().map(|c| format!("{} % (n)", c.label())));
    let rows = t
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                r.dataset.clone(),
                r.model.clone(),
                r.variant.clone(),
                r.breakdown.clone(),
                r.group.clone(),
            ];
            cells.extend(r.cells.iter().map(|c| {
                c.map_or("–".into(), |c| {
                    format!("{:.1} ({})", c.accuracy * 100.0, c.items)
                })
            }));
            cells
        })
        .collect();
    (head, rows)
}

fn correlation_grid(t: &StageTable) -> (Vec<String>, Vec<Vec<String>>) {
    let head = [
        "Dataset",
        "Model",
        "Variant",
        "Stage",
        "Spearman ρ popularity (n)",
        "r_pb size (n)",
        "r_pb distance (n)",
        "r_pb crowdedness (n)",
        "r_pb saliency (n)",
    ]
    .map(String::from)
    .to_vec();
    let f = |x: Option<f64>, n: usize| x.map_or(format!("n/a ({n})"), |v| format!("{v:.3} ({n})"));
    let rows = t
        .correlations
        .iter()
        .map(|c| {
            vec![
                c.dataset.clone(),
                c.model.clone(),
                c.variant.clone(),
                t.columns[c.column].label(),
                f(c.popularity_rho, c.popularity_items),
                f(c.size_r_pb, c.size_items),
                f(c.distance_r_pb, c.distance_items),
                f(c.crowdedness_r_pb, c.crowdedness_items),
                f(c.saliency_r_pb, c.saliency_items),
            ]
        })
        .collect();
    (head, rows)
}

/// The accuracy table, then the correlation table, in `fmt` (JSON: the whole structure).
pub fn render_stages(t: &StageTable, fmt: TableFormat) -> Result<String> {
    if fmt == TableFormat::Json {
        return Ok(serde_json::to_string_pretty(t)?);
    }
    let (h1, r1) = grid(t);
    let (h2, r2) = correlation_grid(t);
    let a = crate::table::render_grid(&h1, &r1, fmt)?;
    let b = crate::table::render_grid(&h2, &r2, fmt)?;
    Ok(format!("{a}\n{b}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_split_by_rank_like_array_split() {
        let v = [
            Some(0.5),
            None,
            Some(0.1),
            Some(0.3),
            Some(0.2),
            Some(0.4),
            Some(0.6),
        ];
        let (bin, ranges) = rank_bins(&v, 4);
        // Six values in four bins: 2, 2, 1, 1.
        assert_eq!(ranges, vec![(0.1, 0.2), (0.3, 0.4), (0.5, 0.5), (0.6, 0.6)]);
        assert_eq!(
            bin,
            vec![Some(2), None, Some(0), Some(1), Some(0), Some(1), Some(3)]
        );
        let (_, one) = rank_bins(&[Some(1.0)], 5);
        assert_eq!(one.len(), 1);
        assert!(rank_bins(&[None], 5).1.is_empty());
    }
}
