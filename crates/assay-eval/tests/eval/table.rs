//! The before/after table's own statistics against NumPy and SciPy (tests/fixtures/stats,
//! made by make_fixtures.py): the functions `before_after_table` computes its rows with.

use assay_eval::table::{rank_correlation, side_figures, Spread};
use serde_json::Value;

fn fixtures() -> Value {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/stats/stats.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} vs reference {b}");
}

/// Each model's per-run accuracies, in the fixture's order.
fn runs(side: &Value) -> Vec<Vec<f64>> {
    side.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            m["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn a_rows_accuracy_spread_gap_and_rank_change_match_numpy_and_scipy() {
    let f = fixtures();
    let cases = f["before_after"].as_array().unwrap();
    assert!(cases.len() >= 2);
    for c in cases {
        // The fixture's spread is NumPy's default std (ddof = 0).
        let before = side_figures(&runs(&c["before"]), Spread::PopulationStd);
        let after = side_figures(&runs(&c["after"]), Spread::PopulationStd);
        for (got, exp) in [(&before, &c["expect_before"]), (&after, &c["expect_after"])] {
            close(got.accuracy, exp["accuracy"].as_f64().unwrap());
            close(got.run_spread.unwrap(), exp["run_std"].as_f64().unwrap());
            close(got.gap, exp["gap"].as_f64().unwrap());
        }
        close(
            rank_correlation(&before.means, &after.means).unwrap(),
            c["rho"].as_f64().unwrap(),
        );
    }
}

#[test]
fn a_hand_checked_row_and_a_side_where_every_model_ties() {
    // Hand-checked: means 0.3, 0.5, 0.8 -> 0.5333; population stds 0.1, 0, 0.1; gap 0.5.
    let f = side_figures(
        &[vec![0.2, 0.4], vec![0.5, 0.5], vec![0.9, 0.7]],
        Spread::PopulationStd,
    );
    close(f.accuracy, 1.6 / 3.0);
    close(f.run_spread.unwrap(), 0.2 / 3.0);
    close(f.gap, 0.5);
    // After: 0.6, 0.6, 0.9 ties a and b -> ranks 1.5, 1.5, 3.
    let a = side_figures(
        &[vec![0.6, 0.6], vec![0.5, 0.7], vec![0.9, 0.9]],
        Spread::PopulationStd,
    );
    close(a.gap, 0.3);
    close(
        rank_correlation(&f.means, &a.means).unwrap(),
        0.866_025_403_784_438_6,
    );
    // A model with a single run has no spread: it is left out of the mean, not counted as 0,
    // and a side where no model has two runs has none.
    let single = side_figures(&[vec![0.2, 0.4], vec![0.9]], Spread::SampleStd);
    assert_eq!(single.spreads[1], None);
    close(single.run_spread.unwrap(), (0.02f64).sqrt());
    assert_eq!(
        side_figures(&[vec![0.9]], Spread::PopulationStd).run_spread,
        None
    );
    // Every model tied on one side: no rank correlation.
    assert_eq!(rank_correlation(&[0.5, 0.5], &[0.2, 0.7]), None);
}
