//! Paired item bootstrap for the before/after table: items are resampled once per iteration
//! and both versions are scored on that same resample, so the interval of the difference (and
//! of Spearman's rho between the model rankings) keeps the pairing of items.

use super::bootstrap::SplitMix64;
use super::descriptive::spearman;

/// Percentile intervals from one paired bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PairedIntervals {
    pub before: (f64, f64),
    pub after: (f64, f64),
    pub delta: (f64, f64),
    /// None when rho is undefined in too many resamples (fewer than 2 models, or constant).
    pub rho: Option<(f64, f64)>,
}

fn quantile(sorted: &[f64], p: f64) -> f64 {
    let pos = p * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Rows flattened once so each resample walks contiguous memory: `present[i]` and the
/// `models` scores of item i at `values[i * models..]`.
struct Flat {
    present: Vec<bool>,
    values: Vec<f64>,
}

fn flatten(rows: &[Option<Vec<f64>>], models: usize) -> Flat {
    let mut f = Flat {
        present: Vec::with_capacity(rows.len()),
        values: vec![0.0; rows.len() * models],
    };
    for (i, r) in rows.iter().enumerate() {
        f.present.push(r.is_some());
        if let Some(r) = r {
            f.values[i * models..i * models + models].copy_from_slice(&r[..models]);
        }
    }
    f
}

fn side_means(flat: &Flat, picks: &[usize], models: usize, sums: &mut [f64]) -> bool {
    sums.iter_mut().for_each(|s| *s = 0.0);
    let mut n = 0usize;
    for &i in picks {
        if flat.present[i] {
            for (s, v) in sums
                .iter_mut()
                .zip(&flat.values[i * models..i * models + models])
            {
                *s += v;
            }
            n += 1;
        }
    }
    if n > 0 {
        sums.iter_mut().for_each(|s| *s /= n as f64);
    }
    n > 0
}

/// `before[i]` / `after[i]`: item i's score per model on that version (the mean over the
/// model's runs), None when the version leaves the item out (removed, or added). Accuracy of a
/// version = mean over models of the mean over its items, as the table shows it.
pub fn paired_bootstrap(
    before: &[Option<Vec<f64>>],
    after: &[Option<Vec<f64>>],
    models: usize,
    iters: usize,
    level: f64,
    seed: u64,
) -> Option<PairedIntervals> {
    let n = before.len();
    if n == 0 || n != after.len() || iters == 0 || models == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let (mut b, mut a, mut d, mut r) = (
        Vec::with_capacity(iters),
        Vec::with_capacity(iters),
        Vec::with_capacity(iters),
        Vec::with_capacity(iters),
    );
    let mut picks = vec![0usize; n];
    let avg = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
    let (fb, fa) = (flatten(before, models), flatten(after, models));
    let (mut mb, mut ma) = (vec![0.0; models], vec![0.0; models]);
    for _ in 0..iters {
        for p in picks.iter_mut() {
            *p = rng.below(n);
        }
        if !side_means(&fb, &picks, models, &mut mb) || !side_means(&fa, &picks, models, &mut ma) {
            continue;
        }
        let (xb, xa) = (avg(&mb), avg(&ma));
        b.push(xb);
        a.push(xa);
        d.push(xa - xb);
        if let Some(rho) = spearman(&mb, &ma).filter(|x| x.is_finite()) {
            r.push(rho);
        }
    }
    if b.is_empty() {
        return None;
    }
    let alpha = (1.0 - level) / 2.0;
    let ci = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (quantile(&v, alpha), quantile(&v, 1.0 - alpha))
    };
    // rho is reported only when it was defined in nearly every resample.
    let rho = (r.len() * 20 >= b.len() * 19).then(|| ci(r));
    Some(PairedIntervals {
        before: ci(b),
        after: ci(a),
        delta: ci(d),
        rho,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_versions_give_a_zero_delta_interval() {
        let rows: Vec<Option<Vec<f64>>> = (0..50)
            .map(|i| Some(vec![(i % 2) as f64, (i % 3 == 0) as u8 as f64]))
            .collect();
        let ci = paired_bootstrap(&rows, &rows, 2, 500, 0.95, 7).unwrap();
        assert_eq!(ci.delta, (0.0, 0.0));
        assert!(ci.before.0 < ci.before.1);
    }

    #[test]
    fn removed_items_count_on_the_before_side_only() {
        // Item 0 is wrong for every model and removed after; the rest are right.
        let mut before = vec![Some(vec![0.0, 0.0])];
        before.extend((0..9).map(|_| Some(vec![1.0, 1.0])));
        let mut after = vec![None];
        after.extend((0..9).map(|_| Some(vec![1.0, 1.0])));
        let ci = paired_bootstrap(&before, &after, 2, 1000, 0.95, 3).unwrap();
        assert_eq!(ci.after, (1.0, 1.0));
        assert!(ci.delta.0 >= 0.0 && ci.delta.1 > 0.0, "{:?}", ci.delta);
        assert!(ci.rho.is_none(), "models always tie: rho undefined");
    }
}
