use std::collections::BTreeMap;

/// Cohen's kappa for two annotators' labels of the same items.
pub fn cohen_kappa(a: &[&str], b: &[&str]) -> Option<f64> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let n = a.len() as f64;
    let po = a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / n;
    let mut ca: BTreeMap<&str, f64> = BTreeMap::new();
    let mut cb: BTreeMap<&str, f64> = BTreeMap::new();
    for (x, y) in a.iter().zip(b) {
        *ca.entry(x).or_default() += 1.0;
        *cb.entry(y).or_default() += 1.0;
    }
    let pe: f64 = ca
        .iter()
        .map(|(k, v)| v / n * cb.get(k).copied().unwrap_or(0.0) / n)
        .sum();
    if pe == 1.0 {
        return None;
    }
    Some((po - pe) / (1.0 - pe))
}

/// Krippendorff's alpha from a units x coders table (None = missing), with a distance.
fn alpha(units: &[Vec<Option<f64>>], dist: impl Fn(f64, f64) -> f64) -> Option<f64> {
    let pairable: Vec<Vec<f64>> = units
        .iter()
        .map(|u| u.iter().flatten().copied().collect::<Vec<f64>>())
        .filter(|v| v.len() >= 2)
        .collect();
    let n: f64 = pairable.iter().map(|v| v.len() as f64).sum();
    if n < 2.0 {
        return None;
    }
    let mut d_o = 0.0;
    for v in &pairable {
        let m = v.len() as f64;
        let mut s = 0.0;
        for (i, a) in v.iter().enumerate() {
            for (j, b) in v.iter().enumerate() {
                if i != j {
                    s += dist(*a, *b);
                }
            }
        }
        d_o += s / (m - 1.0);
    }
    d_o /= n;
    // Expected disagreement over all pairable values, from value counts: O(values) instead of
    // O(values^2), so a 20,000-item overlap stays instant.
    let mut counts: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for v in pairable.iter().flatten() {
        counts.entry(v.to_bits()).or_insert((*v, 0.0)).1 += 1.0;
    }
    let values: Vec<(f64, f64)> = counts.into_values().collect();
    let mut d_e = 0.0;
    for (a, na) in &values {
        for (b, nb) in &values {
            d_e += na * nb * dist(*a, *b);
        }
    }
    d_e /= n * (n - 1.0);
    if d_e == 0.0 {
        return None;
    }
    Some(1.0 - d_o / d_e)
}

/// Krippendorff's alpha for interval data (e.g. judge scores), missing ratings allowed.
pub fn krippendorff_alpha_interval(units: &[Vec<Option<f64>>]) -> Option<f64> {
    alpha(units, |a, b| (a - b).powi(2))
}

/// Krippendorff's alpha with a distance of one's own between coded values (e.g. sets of labels
/// coded as their index, with [`masi_distance`] between the sets).
pub fn krippendorff_alpha_with(
    units: &[Vec<Option<f64>>],
    dist: impl Fn(f64, f64) -> f64,
) -> Option<f64> {
    alpha(units, dist)
}

/// MASI (Passonneau 2006), the distance between two sets of labels that NLTK's
/// `masi_distance` computes: 1 − Jaccard · m, where m is 1 for equal sets, 0.67 when one holds
/// the other, 0.33 when they overlap otherwise and 0 when they are disjoint. Two empty sets
/// agree (NLTK divides by zero there).
pub fn masi_distance<T: Ord>(
    a: &std::collections::BTreeSet<T>,
    b: &std::collections::BTreeSet<T>,
) -> f64 {
    if a == b {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    let union = a.union(b).count();
    let m = if inter == a.len().min(b.len()) {
        0.67
    } else if inter > 0 {
        0.33
    } else {
        0.0
    };
    1.0 - inter as f64 / union as f64 * m
}

/// Krippendorff's alpha for nominal data (labels coded as numbers).
pub fn krippendorff_alpha_nominal(units: &[Vec<Option<f64>>]) -> Option<f64> {
    alpha(units, |a, b| if a == b { 0.0 } else { 1.0 })
}

/// Fleiss' kappa from a subjects x categories table of counts; every subject must have the same
/// number of ratings (two or more). None when the table is empty, ragged, or has one category.
pub fn fleiss_kappa(table: &[Vec<u64>]) -> Option<f64> {
    let m = table.first()?.iter().sum::<u64>();
    if m < 2 || table.iter().any(|row| row.iter().sum::<u64>() != m) {
        return None;
    }
    let (n, m) = (table.len() as f64, m as f64);
    let k = table[0].len();
    let p_bar = table
        .iter()
        .map(|row| (row.iter().map(|&c| (c * c) as f64).sum::<f64>() - m) / (m * (m - 1.0)))
        .sum::<f64>()
        / n;
    let p_e: f64 = (0..k)
        .map(|j| {
            let pj = table.iter().map(|row| row[j] as f64).sum::<f64>() / (n * m);
            pj * pj
        })
        .sum();
    if (1.0 - p_e).abs() < f64::EPSILON {
        return None;
    }
    Some((p_bar - p_e) / (1.0 - p_e))
}
