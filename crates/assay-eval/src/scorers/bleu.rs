//! BLEU for free responses (VAGUE's "da" answers): the reference is the correct option's text
//! (`mcq.1_correct`, what VAGUE's inference stores as `true_answer`), else the item's answer;
//! never the direct request. The fixed prefix "The speaker wants {p} to" that VAGUE's prompts
//! impose ("start sentence with 'The speaker wants {p} to'") is removed from both sides, then
//! sentence BLEU with uniform weights up to `max_n` and the brevity
//! penalty (no smoothing, as NLTK's `sentence_bleu` with the given weights).

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::json;

use super::normalize::nfkc;
use super::{ScoreContext, Scored, Scorer};
use assay_core::ItemContent;

fn prefix() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i)^\s*the\s+speaker\s+wants\s+(?:person\s*\d+|[^\s]+(?:\s+[^\s]+)?)\s+to\s+")
            .expect("valid")
    })
}

pub fn strip_prefix(s: &str) -> String {
    prefix().replace(&nfkc(s), "").trim().to_string()
}

fn tokens(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '\''))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

fn ngrams(t: &[String], n: usize) -> HashMap<&[String], usize> {
    let mut m = HashMap::new();
    if t.len() >= n {
        for w in t.windows(n) {
            *m.entry(w).or_insert(0) += 1;
        }
    }
    m
}

/// Sentence BLEU of `candidate` against one reference, n-grams 1..=max_n, uniform weights.
pub fn sentence_bleu(reference: &[String], candidate: &[String], max_n: usize) -> f64 {
    if candidate.is_empty() {
        return 0.0;
    }
    let mut log_sum = 0.0;
    for n in 1..=max_n {
        let c = ngrams(candidate, n);
        let r = ngrams(reference, n);
        let total: usize = c.values().sum();
        let clipped: usize = c
            .iter()
            .map(|(g, k)| (*k).min(*r.get(g).unwrap_or(&0)))
            .sum();
        if total == 0 || clipped == 0 {
            return 0.0;
        }
        log_sum += (clipped as f64 / total as f64).ln() / max_n as f64;
    }
    let (c, r) = (candidate.len() as f64, reference.len() as f64);
    let bp = if c > r { 1.0 } else { (1.0 - r / c).exp() };
    bp * log_sum.exp()
}

pub struct BleuScorer {
    pub max_n: usize,
}

impl Default for BleuScorer {
    fn default() -> Self {
        Self { max_n: 1 }
    }
}

impl Scorer for BleuScorer {
    fn name(&self) -> &'static str {
        "bleu"
    }
    fn score(&self, item: &ItemContent, response: &str, _ctx: &ScoreContext) -> Scored {
        let Some(reference) = item
            .correct_option
            .and_then(|i| item.options.get(i))
            .map(|o| o.text.clone())
            .or_else(|| item.answer.clone())
        else {
            return Scored::unparsed(json!({"rule": "item has no reference text"}));
        };
        let r = strip_prefix(&reference);
        let c = strip_prefix(response);
        let s = sentence_bleu(&tokens(&r), &tokens(&c), self.max_n);
        Scored {
            hedged: false,
            score: Some(s),
            parsed: Some(c.clone()),
            evidence: json!({"reference": r, "candidate": c, "max_n": self.max_n}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use assay_core::ChoiceOption;

    #[test]
    fn reference_is_the_correct_option_not_the_direct_request() {
        let item = ItemContent {
            direct_request: Some("Hey, person1, could you move your car?".into()),
            options: vec![
                ChoiceOption {
                    text: "The speaker wants person1 to admire the motorcycle.".into(),
                    kind: None,
                },
                ChoiceOption {
                    text: "The speaker wants person1 to move the sedan.".into(),
                    kind: None,
                },
            ],
            correct_option: Some(1),
            ..Default::default()
        };
        let s = BleuScorer::default().score(
            &item,
            "The speaker wants person1 to move the sedan.",
            &ScoreContext::default(),
        );
        assert_eq!(s.evidence["reference"], "move the sedan.");
        assert!((s.score.unwrap() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn prefix_is_removed() {
        assert_eq!(
            strip_prefix("The speaker wants person3 to put the phone down."),
            "put the phone down."
        );
        assert_eq!(
            strip_prefix("The speaker wants Person1 to move the sedan."),
            "move the sedan."
        );
        // Text without the fixed prefix is left alone.
        assert_eq!(
            strip_prefix("person2, put the phone down"),
            "person2, put the phone down"
        );
    }

    #[test]
    fn identical_is_one_and_disjoint_is_zero() {
        let t = tokens("put the phone down");
        assert!((sentence_bleu(&t, &t, 4) - 1.0).abs() < 1e-12);
        assert_eq!(sentence_bleu(&t, &tokens("close window"), 1), 0.0);
    }
}
