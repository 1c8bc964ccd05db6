//! Statistics over scores: pure functions, each checked against SciPy-computed fixtures.
//!
//! Conventions: `std_pop` is ddof = 0, `std_sample` ddof = 1 (the table says which it shows); ranks for ties
//! are averaged (SciPy's `rankdata` default); accuracies are fractions in [0, 1].

mod agreement;
mod bootstrap;
mod descriptive;
mod paired;

pub use agreement::{
    cohen_kappa, fleiss_kappa, krippendorff_alpha_interval, krippendorff_alpha_nominal,
    krippendorff_alpha_with, masi_distance,
};
pub use bootstrap::{bootstrap_mean_ci, percentile_interval, SplitMix64};
pub use descriptive::{mean, pearson, rank_average, s_final, spearman, std_pop, std_sample};
pub use paired::{paired_bootstrap, PairedIntervals};
