use serde::{Deserialize, Serialize};

use super::descriptive::{mean, spearman, std_pop};

/// One model's accuracy in each run (fractions in [0, 1]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRuns {
    pub model: String,
    pub runs: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionStats {
    /// Mean over models of each model's mean accuracy over runs.
    pub accuracy: f64,
    /// Mean over models of the standard deviation of that model's accuracy across runs.
    pub run_std: f64,
    /// Best model's mean accuracy minus the worst's.
    pub gap: f64,
    /// (model, mean, std) in input order.
    pub per_model: Vec<(String, f64, f64)>,
}

/// A row of JAMMEval's Table 2 for one dataset (or one variant comparison).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeforeAfterRow {
    pub dataset: String,
    pub models: usize,
    pub before: VersionStats,
    pub after: VersionStats,
    pub delta_accuracy: f64,
    pub delta_run_std: f64,
    pub delta_gap: f64,
    /// Spearman's rho between model rankings before and after; None with < 2 models or ties
    /// everywhere.
    pub rank_correlation: Option<f64>,
}

fn version_stats(models: &[&ModelRuns]) -> Option<VersionStats> {
    let per_model: Vec<(String, f64, f64)> = models
        .iter()
        .map(|m| Some((m.model.clone(), mean(&m.runs)?, std_pop(&m.runs)?)))
        .collect::<Option<_>>()?;
    let means: Vec<f64> = per_model.iter().map(|x| x.1).collect();
    let stds: Vec<f64> = per_model.iter().map(|x| x.2).collect();
    let best = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let worst = means.iter().copied().fold(f64::INFINITY, f64::min);
    Some(VersionStats {
        accuracy: mean(&means)?,
        run_std: mean(&stds)?,
        gap: best - worst,
        per_model,
    })
}

/// Compares models present on both sides (matched by name; others are left out).
pub fn before_after(
    dataset: &str,
    before: &[ModelRuns],
    after: &[ModelRuns],
) -> Option<BeforeAfterRow> {
    let pairs: Vec<(&ModelRuns, &ModelRuns)> = before
        .iter()
        .filter_map(|b| after.iter().find(|a| a.model == b.model).map(|a| (b, a)))
        .filter(|(b, a)| !b.runs.is_empty() && !a.runs.is_empty())
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let b = version_stats(&pairs.iter().map(|p| p.0).collect::<Vec<_>>())?;
    let a = version_stats(&pairs.iter().map(|p| p.1).collect::<Vec<_>>())?;
    let bm: Vec<f64> = b.per_model.iter().map(|x| x.1).collect();
    let am: Vec<f64> = a.per_model.iter().map(|x| x.1).collect();
    Some(BeforeAfterRow {
        dataset: dataset.to_string(),
        models: pairs.len(),
        delta_accuracy: a.accuracy - b.accuracy,
        delta_run_std: a.run_std - b.run_std,
        delta_gap: a.gap - b.gap,
        rank_correlation: spearman(&bm, &am),
        before: b,
        after: a,
    })
}

/// The same comparison between two question variants (e.g. original vs explicit, HAERAE
/// Table 3): `before` is the first variant, `after` the second.
pub fn compare_variants(
    label: &str,
    first: &[ModelRuns],
    second: &[ModelRuns],
) -> Option<BeforeAfterRow> {
    before_after(label, first, second)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(name: &str, runs: &[f64]) -> ModelRuns {
        ModelRuns {
            model: name.into(),
            runs: runs.to_vec(),
        }
    }

    #[test]
    fn hand_checked_row() {
        let before = [
            m("a", &[0.2, 0.4]),
            m("b", &[0.5, 0.5]),
            m("c", &[0.9, 0.7]),
        ];
        let after = [
            m("a", &[0.6, 0.6]),
            m("b", &[0.5, 0.7]),
            m("c", &[0.9, 0.9]),
        ];
        let r = before_after("d", &before, &after).unwrap();
        // Means before: 0.3, 0.5, 0.8 -> 0.5333; stds: 0.1, 0, 0.1 -> 0.0667; gap 0.5.
        assert!((r.before.accuracy - 1.6 / 3.0).abs() < 1e-12);
        assert!((r.before.run_std - 0.2 / 3.0).abs() < 1e-12);
        assert!((r.before.gap - 0.5).abs() < 1e-12);
        // After: 0.6, 0.6, 0.9 -> tie between a and b -> ranks 1.5, 1.5, 3.
        assert!((r.after.gap - 0.3).abs() < 1e-12);
        let rho = r.rank_correlation.unwrap();
        assert!((rho - 0.866_025_403_784_438_6).abs() < 1e-12, "{rho}");
    }
}
