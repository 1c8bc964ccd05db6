/// Arithmetic mean; `None` for no values.
pub fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Population standard deviation (ddof = 0); 0 for a single value.
pub fn std_pop(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    Some((xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / xs.len() as f64).sqrt())
}

/// Sample standard deviation (ddof = 1, NumPy `std(ddof=1)`); None for fewer than 2 values.
pub fn std_sample(xs: &[f64]) -> Option<f64> {
    if xs.len() < 2 {
        return None;
    }
    let m = mean(xs)?;
    Some((xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt())
}

/// Ranks starting at 1; tied values share the average of the ranks they span.
pub fn rank_average(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut ranks = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]] == xs[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in &idx[i..=j] {
            ranks[*k] = avg;
        }
        i = j + 1;
    }
    ranks
}

/// Pearson's r; `None` when fewer than two pairs or a side has no variance.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let (mx, my) = (mean(x)?, mean(y)?);
    let mut sxy = 0.0;
    let mut sxx = 0.0;
    let mut syy = 0.0;
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx).powi(2);
        syy += (b - my).powi(2);
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some(sxy / (sxx * syy).sqrt())
}

/// Spearman's rho: Pearson's r of the average ranks (SciPy's `spearmanr`).
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    pearson(&rank_average(x), &rank_average(y))
}

/// HAERAE-Vision's S_final: the mean over items of each item's mean criterion score, so
/// checklist length does not weight items. Items without criteria are skipped.
pub fn s_final(items: &[Vec<f64>]) -> Option<f64> {
    let means: Vec<f64> = items.iter().filter_map(|c| mean(c)).collect();
    mean(&means)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_get_average_ranks() {
        assert_eq!(
            rank_average(&[10.0, 20.0, 10.0, 30.0]),
            vec![1.5, 3.0, 1.5, 4.0]
        );
    }

    #[test]
    fn s_final_weights_items_not_criteria() {
        let v = s_final(&[vec![1.0, 1.0, 1.0, 1.0], vec![0.0]]).unwrap();
        assert!((v - 0.5).abs() < 1e-12);
    }

    #[test]
    fn constant_side_has_no_correlation() {
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
    }
}
