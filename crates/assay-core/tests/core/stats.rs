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
