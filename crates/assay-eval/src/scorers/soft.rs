//! Normalised soft match for short answers: NFKC, case, whitespace, punctuation, full/half
//! width, thousands separators; numbers are compared as numbers (units ignored).
//!
//! Correct when the normalised response equals the normalised reference; or, for a numeric
//! reference, when the last number in the response equals it ("117mmです" matches "117");
//! or, for a text reference, when the normalised response contains it ("答えは東京です").

use serde_json::json;

use super::normalize::{normalize, numbers};
use super::{Scored, Scorer};
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
    if p.contains(&r) {
        (true, "response contains reference")
    } else {
        (false, "no match")
    }
}

impl Scorer for SoftMatch {
    fn name(&self) -> &'static str {
        "soft_match"
    }
    fn score(&self, item: &ItemContent, response: &str) -> Scored {
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
}
