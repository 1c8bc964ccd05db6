//! Each statistic against reference values computed with SciPy, NumPy, scikit-learn and
//! krippendorff (tests/fixtures/stats/make_fixtures.py), to 1e-9.

use assay_core::stats::*;
use serde_json::Value;

fn fixtures() -> Value {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/stats/stats.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} vs reference {b}");
}

#[test]
fn spearman_pearson_and_std_match_scipy() {
    let f = fixtures();
    for c in f["spearman"].as_array().unwrap() {
        close(
            spearman(&floats(&c["x"]), &floats(&c["y"])).unwrap(),
            c["rho"].as_f64().unwrap(),
        );
    }
    for c in f["pearson"].as_array().unwrap() {
        close(
            pearson(&floats(&c["x"]), &floats(&c["y"])).unwrap(),
            c["r"].as_f64().unwrap(),
        );
    }
    for c in f["std"].as_array().unwrap() {
        close(
            std_pop(&floats(&c["x"])).unwrap(),
            c["std"].as_f64().unwrap(),
        );
    }
}

#[test]
fn agreement_matches_sklearn_and_krippendorff() {
    let f = fixtures();
    for c in f["kappa"].as_array().unwrap() {
        let a: Vec<&str> = c["a"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        let b: Vec<&str> = c["b"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        close(cohen_kappa(&a, &b).unwrap(), c["kappa"].as_f64().unwrap());
    }
    let units = |c: &Value| -> Vec<Vec<Option<f64>>> {
        c["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u.as_array().unwrap().iter().map(Value::as_f64).collect())
            .collect()
    };
    for c in f["alpha_interval"].as_array().unwrap() {
        close(
            krippendorff_alpha_interval(&units(c)).unwrap(),
            c["alpha"].as_f64().unwrap(),
        );
    }
    for c in f["alpha_nominal"].as_array().unwrap() {
        close(
            krippendorff_alpha_nominal(&units(c)).unwrap(),
            c["alpha"].as_f64().unwrap(),
        );
    }
}

#[test]
fn fleiss_kappa_matches_statsmodels() {
    let f = fixtures();
    let cases = f["fleiss"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for c in cases {
        let table: Vec<Vec<u64>> = c["table"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect()
            })
            .collect();
        close(fleiss_kappa(&table).unwrap(), c["kappa"].as_f64().unwrap());
    }
    // Ragged rows (different numbers of raters) have no Fleiss kappa.
    assert_eq!(fleiss_kappa(&[vec![2, 0], vec![1, 2]]), None);
}

/// Set-valued labels (issue tags, phase-1 flags): MASI distances and Krippendorff's alpha with
/// them, against NLTK (tests/fixtures/stats/make_masi_fixtures.py).
#[test]
fn alpha_on_sets_of_labels_matches_nltk_masi() {
    use std::collections::BTreeSet;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/stats/masi.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.len() >= 5);
    let set = |v: &Value| -> BTreeSet<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    for case in &cases {
        for d in case["distances"].as_array().unwrap() {
            close(
                masi_distance(&set(&d["a"]), &set(&d["b"])),
                d["distance"].as_f64().unwrap(),
            );
        }
        // Each distinct set coded as its index, as the agreement report codes labels.
        let mut sets: Vec<BTreeSet<String>> = Vec::new();
        let units: Vec<Vec<Option<f64>>> = case["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| {
                row.as_array()
                    .unwrap()
                    .iter()
                    .map(|v| {
                        (!v.is_null()).then(|| {
                            let s = set(v);
                            let i = sets.iter().position(|x| *x == s).unwrap_or_else(|| {
                                sets.push(s);
                                sets.len() - 1
                            });
                            i as f64
                        })
                    })
                    .collect()
            })
            .collect();
        let alpha = krippendorff_alpha_with(&units, |a, b| {
            masi_distance(&sets[a as usize], &sets[b as usize])
        })
        .unwrap();
        close(alpha, case["alpha"].as_f64().unwrap());
    }
}
