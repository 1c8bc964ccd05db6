/// A small deterministic generator so bootstrap intervals are reproducible from a seed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Percentile bootstrap interval of the mean: resample `values` with replacement `iters` times;
/// returns the (alpha/2, 1 - alpha/2) quantiles (linear interpolation, NumPy's default).
pub fn bootstrap_mean_ci(
    values: &[f64],
    iters: usize,
    level: f64,
    seed: u64,
) -> Option<(f64, f64)> {
    if values.is_empty() || iters == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let n = values.len();
    let means: Vec<f64> = (0..iters)
        .map(|_| (0..n).map(|_| values[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    percentile_interval(means, level)
}

/// The (alpha/2, 1 - alpha/2) quantiles of bootstrap statistics (linear interpolation, NumPy's
/// default); None when there are none.
pub fn percentile_interval(mut stats: Vec<f64>, level: f64) -> Option<(f64, f64)> {
    if stats.is_empty() {
        return None;
    }
    stats.sort_by(|a, b| a.total_cmp(b));
    let n = stats.len();
    let q = |p: f64| {
        let pos = p * (n - 1) as f64;
        let lo = pos.floor() as usize;
        let hi = pos.ceil() as usize;
        stats[lo] + (stats[hi] - stats[lo]) * (pos - lo as f64)
    };
    let a = (1.0 - level) / 2.0;
    Some((q(a), q(1.0 - a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_brackets_the_mean_and_is_reproducible() {
        let v: Vec<f64> = (0..200).map(|i| (i % 3 == 0) as u8 as f64).collect();
        let (lo, hi) = bootstrap_mean_ci(&v, 2000, 0.95, 1).unwrap();
        let m = v.iter().sum::<f64>() / v.len() as f64;
        assert!(lo < m && m < hi && hi - lo < 0.2, "{lo} {m} {hi}");
        assert_eq!(bootstrap_mean_ci(&v, 2000, 0.95, 1), Some((lo, hi)));
    }

    #[test]
    fn constant_values_give_a_point_interval() {
        assert_eq!(
            bootstrap_mean_ci(&[1.0; 10], 100, 0.95, 3),
            Some((1.0, 1.0))
        );
    }
}
