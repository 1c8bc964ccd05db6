//! Normalised soft match for short answers: NFKC, case, whitespace, punctuation, full/half
//! width, thousands separators; numbers are compared as numbers (units ignored).
//!
//! Correct when, in this order:
//! 1. the normalised response equals the normalised reference;
//! 2. for a numeric reference, the last number in the response equals it ("117mmです" matches
//!    "117", "171mm" does not);
//! 3. the reference occurs inside the response **as a unit of its script**: for scripts written
//!    with spaces (Latin, Cyrillic, ...) as a whole run of tokens ("cat" is not found in
//!    "concatenate", "no" not in "I don't know"); for Japanese, Chinese and Korean, where words
//!    are not spaced, as a run of characters ("答えは東京です" contains "東京") — and the
//!    response carries no negation ("Not Tokyo but Osaka", "東京ではなく大阪") unless the
//!    reference itself is negative.
//!
//! Everything else is incorrect. The rule that decided is kept as evidence.

use serde_json::json;

use super::normalize::{normalize, numbers};
use super::{ScoreContext, Scored, Scorer};
use assay_core::ItemContent;

pub struct SoftMatch;

pub fn soft_match(reference: &str, response: &str) -> (bool, &'static str) {
    let r = normalize(reference);
    let p = normalize(response);
    if r.is_empty() {
        return (false, "empty reference");
    }
    if r == p {
        return (true, "exact after normalisation");
    }
    let ref_nums = numbers(reference);
    let ref_is_number = ref_nums.len() == 1 && {
        let stripped: String = r
            .chars()
            .filter(|c| !c.is_ascii_digit() && *c != '.' && *c != '-')
            .collect();
        stripped.chars().count() <= 3
    };
    if ref_is_number {
        let got = numbers(response);
        return match got.last() {
            Some(v) if (v - ref_nums[0]).abs() < 1e-9 => (true, "last number matches"),
            Some(_) => (false, "last number differs"),
            None => (false, "no number in response"),
        };
    }
    let found = if is_unspaced_script(&r) {
        p.contains(&r)
    } else {
        contains_token_run(&tokens(response), &tokens(reference))
    };
    if !found {
        return (false, "no match");
    }
    if has_negation(response) && !has_negation(reference) {
        return (false, "reference found but the response negates");
    }
    if is_unspaced_script(&r) {
        (true, "response contains reference (characters)")
    } else {
        (true, "response contains reference (whole tokens)")
    }
}

/// Kana, CJK ideographs or Hangul (the store's definition, shared with search): scripts
/// compared by characters.
pub fn is_unspaced_script(s: &str) -> bool {
    s.chars().any(assay_core::store::search::is_cjk)
}

/// Lower-case NFKC tokens split at whitespace and punctuation (thousands separators removed).
fn tokens(s: &str) -> Vec<String> {
    super::normalize::strip_thousands(&super::normalize::nfkc(s))
        .to_lowercase()
        .split(|c: char| {
            c.is_whitespace()
                || (c.is_ascii_punctuation() && c != '.')
                || "’‘“”、。「」".contains(c)
        })
        .map(|t| t.trim_matches('.'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

fn contains_token_run(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

fn has_negation(s: &str) -> bool {
    let low = super::normalize::nfkc(s).to_lowercase();
    let words = tokens(&low);
    let word_neg = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "not"
                | "no"
                | "never"
                | "neither"
                | "nor"
                | "none"
                | "isn"
                | "don"
                | "doesn"
                | "aren"
                | "wasn"
        )
    });
    word_neg
        || low.contains("n't")
        || [
            "ではな",
            "じゃな",
            "ではありません",
            "違う",
            "違います",
            "아니",
            "않",
        ]
        .iter()
        .any(|n| low.contains(n))
}

impl Scorer for SoftMatch {
    fn name(&self) -> &'static str {
        "soft_match"
    }
    fn score(&self, item: &ItemContent, response: &str, _ctx: &ScoreContext) -> Scored {
        let Some(reference) = item.reference_text() else {
            return Scored::unparsed(json!({"rule": "item has no reference answer"}));
        };
        let (ok, rule) = soft_match(&reference, response);
        Scored {
            score: Some(ok as u8 as f64),
            parsed: Some(normalize(response)),
            evidence: json!({"rule": rule, "reference": reference, "normalised_reference": normalize(&reference)}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::soft_match;

    #[test]
    fn width_case_units_and_separators() {
        assert!(soft_match("Tokyo", "ＴＯＫＹＯ").0);
        assert!(soft_match("117", "3月の降水量は117mmです。").0);
        assert!(!soft_match("117", "171mm").0);
        assert!(soft_match("1,234", "1234").0);
        assert!(soft_match("80人", "80").0);
        assert!(soft_match("東京", "答えは東京です").0);
        assert!(soft_match("64%", "X has 64 %.").0);
        assert!(!soft_match("남대문", "동대문").0);
    }

    #[test]
    fn containment_respects_word_boundaries_and_negation() {
        assert!(!soft_match("no", "I don't know").0);
        assert!(!soft_match("cat", "concatenate").0);
        assert!(!soft_match("Tokyo", "Not Tokyo but Osaka").0);
        assert!(soft_match("Tokyo", "It is Tokyo.").0);
        assert!(soft_match("Tokyo Tower", "I think it's Tokyo Tower, in Minato.").0);
        assert!(!soft_match("東京", "東京ではなく大阪です").0);
        assert!(soft_match("서울", "정답은 서울입니다").0);
        assert!(!soft_match("서울", "서울이 아니라 부산입니다").0);
        assert!(soft_match("No", "No, it is not.").0);
        assert!(!soft_match("red", "The car is reddish").0);
    }
}
