use assay_core::ItemContent;
use assay_eval::scorers::bleu::BleuScorer;
use assay_eval::scorers::{ScoreContext, Scorer};

/// BLEU against NLTK's sentence_bleu (tests/fixtures/stats/make_fixtures.py).
#[test]
fn bleu_matches_nltk() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/stats/stats.json");
    let f: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    for c in f["bleu"].as_array().unwrap() {
        let item = ItemContent {
            answer: Some(c["reference"].as_str().unwrap().into()),
            ..Default::default()
        };
        for (n, key) in [(1, "bleu1"), (2, "bleu2")] {
            let s = BleuScorer { max_n: n }.score(
                &item,
                c["candidate"].as_str().unwrap(),
                &ScoreContext::default(),
            );
            let (got, want) = (s.score.unwrap(), c[key].as_f64().unwrap());
            assert!((got - want).abs() < 1e-9, "{key}: {got} vs {want}");
        }
    }
}
