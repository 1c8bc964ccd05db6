//! Multiple choice: extract the option letter from a response.
//!
//! Rules, applied to the NFKC-normalised response (so "Ｂ" and "（B）" read as "B" and "(B)"):
//! 1. An answer statement: "Answer: B", "answer is B", "final answer (B)", "答え: B",
//!    "正解はB", "정답: B", "답은 B". When several appear the **last statement wins** (a model
//!    that corrects itself: "Answer: A. Wait, the answer is C." gives C). Letters elsewhere in
//!    the text never override a statement: "Answer: B. The options were (A) ... (C) ..." gives
//!    B, "The answer is B, not (A)" gives B.
//! 2. Otherwise a response that is just a letter ("B", "B.", "(B)").
//! 3. Otherwise weaker marks, each tier only when it names **one distinct letter**: a bold
//!    "**B**"; then a line starting "B." / "B)" / "B:"; then a bracketed "(B)" / "[B]" or
//!    "option B" / "choice B". Listing options ("(A) cat (B) dog") names several: no answer.
//! 4. Otherwise a lone capital letter set off by punctuation or CJK text ("答えはBです"); a
//!    capital followed by a space and a word ("A dog", "I think") does not count. Exactly one
//!    distinct such letter is required.
//! 5. Otherwise the response containing exactly one option's full text.
//! 6. Otherwise the response is **unparsed**: counted and shown, never scored as wrong.
//!
//! Only letters within the item's options count (A-D for four options).

use std::sync::OnceLock;

use regex::Regex;
use serde_json::json;

use super::normalize::nfkc;
use super::{ScoreContext, Scored, Scorer};
use assay_core::ItemContent;

fn statements() -> &'static [Regex] {
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        [
            r"(?i:final answer|correct answer|answer)\s*(?i:is)?\s*[:=]?\s*\(?\[?\s*([A-Z])(?:[^A-Za-z0-9]|$)",
            r"(?:答え|回答|正解|解答)\s*(?:は|:)?\s*[(\[]?\s*([A-Z])(?:[^A-Za-z0-9]|$)",
            r"(?:정답|답)\s*(?:은|는|:)?\s*[(\[]?\s*([A-Z])(?:[^A-Za-z0-9]|$)",
        ]
        .iter()
        .map(|p| Regex::new(p).expect("valid pattern"))
        .collect()
    })
}

/// Weaker marks, strongest first; each counts only when it names one distinct letter.
fn marks() -> &'static [(Regex, &'static str)] {
    static R: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    R.get_or_init(|| {
        [
            (r"\*\*\(?([A-Z])\)?[.:]?\*\*", "bold letter"),
            (r"(?m)^\s*([A-Z])[.):](?:\s|$)", "line starting with a letter"),
            (
                r"[(\[]([A-Z])[)\]]|(?i:option|choice|選択肢|선택지)\s*[(\[]?([A-Z])(?:[^A-Za-z0-9]|$)",
                "bracketed letter or option name",
            ),
        ]
        .iter()
        .map(|(p, n)| (Regex::new(p).expect("valid pattern"), *n))
        .collect()
    })
}

fn lone_letter() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?:^|[^A-Za-z0-9])([A-Z])(?:[^A-Za-z0-9 ]|$| $| [^A-Za-z])").expect("valid")
    })
}

/// The letter index and the rule that found it.
pub fn extract_letter(response: &str, n_options: usize) -> Option<(usize, &'static str)> {
    let text = nfkc(response);
    let valid = |c: &str| -> Option<usize> {
        let i = (c.as_bytes()[0] - b'A') as usize;
        (i < n_options).then_some(i)
    };
    let mut last: Option<(usize, usize)> = None;
    for re in statements() {
        for cap in re.captures_iter(&text) {
            let m = cap.get(1).expect("group");
            if let Some(i) = valid(m.as_str()) {
                if last.is_none_or(|(pos, _)| m.start() >= pos) {
                    last = Some((m.start(), i));
                }
            }
        }
    }
    if let Some((_, i)) = last {
        return Some((i, "answer statement"));
    }
    let bare: String = text
        .trim()
        .trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | '.' | ':' | '*' | ' '))
        .to_string();
    if bare.len() == 1 && bare.as_bytes()[0].is_ascii_uppercase() {
        if let Some(i) = valid(&bare) {
            return Some((i, "bare letter"));
        }
    }
    for (re, rule) in marks() {
        let mut found: Vec<usize> = re
            .captures_iter(&text)
            .filter_map(|c| c.get(1).or_else(|| c.get(2)))
            .filter_map(|m| valid(m.as_str()))
            .collect();
        found.sort_unstable();
        found.dedup();
        match found.len() {
            1 => return Some((found[0], rule)),
            0 => {}
            _ => return None,
        }
    }
    let mut found: Vec<usize> = lone_letter()
        .captures_iter(&text)
        .filter_map(|c| valid(c.get(1).expect("group").as_str()))
        .collect();
    found.sort_unstable();
    found.dedup();
    if found.len() == 1 {
        return Some((found[0], "lone letter"));
    }
    None
}

pub struct ChoiceScorer;

impl Scorer for ChoiceScorer {
    fn name(&self) -> &'static str {
        "choice"
    }
    fn score(&self, item: &ItemContent, response: &str, _ctx: &ScoreContext) -> Scored {
        let n = item.options.len();
        let found = extract_letter(response, n).or_else(|| {
            let low = nfkc(response).to_lowercase();
            let hits: Vec<usize> = item
                .options
                .iter()
                .enumerate()
                .filter(|(_, o)| {
                    !o.text.trim().is_empty() && low.contains(&nfkc(&o.text).to_lowercase())
                })
                .map(|(i, _)| i)
                .collect();
            (hits.len() == 1).then(|| (hits[0], "option text"))
        });
        match (found, item.correct_option) {
            (Some((i, rule)), Some(correct)) => {
                let letter = ((b'A' + i as u8) as char).to_string();
                let kind = item.options.get(i).and_then(|o| o.kind).map(|k| k.as_str());
                Scored {
                    score: Some((i == correct) as u8 as f64),
                    parsed: Some(letter.clone()),
                    evidence: json!({
                        "rule": rule,
                        "chosen": letter,
                        "correct": ((b'A' + correct as u8) as char).to_string(),
                        "chosen_kind": kind,
                    }),
                }
            }
            (None, _) => Scored::unparsed(json!({"rule": "no option letter found", "options": n})),
            (Some(_), None) => Scored::unparsed(json!({"rule": "item has no correct option"})),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn letter(s: &str) -> Option<char> {
        extract_letter(s, 4).map(|(i, _)| (b'A' + i as u8) as char)
    }

    #[test]
    fn explicit_forms() {
        assert_eq!(letter("(B)"), Some('B'));
        assert_eq!(letter("B."), Some('B'));
        assert_eq!(letter("Answer: C"), Some('C'));
        assert_eq!(letter("The answer is D because..."), Some('D'));
        assert_eq!(letter("**A**"), Some('A'));
        assert_eq!(letter("Ｂ"), Some('B'));
        assert_eq!(letter("答え：（Ｃ）"), Some('C'));
        assert_eq!(letter("正解はBです。"), Some('B'));
        assert_eq!(letter("정답은 D입니다"), Some('D'));
        assert_eq!(letter("답: A"), Some('A'));
    }

    #[test]
    fn last_explicit_answer_wins() {
        assert_eq!(
            letter("Answer: A. Wait, on reflection the answer is C."),
            Some('C')
        );
        assert_eq!(letter("(A) cat (B) dog (C) owl\nAnswer: B"), Some('B'));
    }

    #[test]
    fn other_letters_never_override_an_answer_statement() {
        assert_eq!(
            letter("Answer: B. The options were (A) a cat and (C) an owl."),
            Some('B')
        );
        assert_eq!(letter("The answer is B, not (A)"), Some('B'));
        assert_eq!(letter("I'd pick (C) here."), Some('C'));
        assert_eq!(letter("(A) is wrong and (B) is right"), None);
        assert_eq!(letter("Option D fits best"), Some('D'));
    }

    #[test]
    fn lone_letters_in_cjk_text_and_words_that_are_not_letters() {
        assert_eq!(letter("これはBだと思います"), Some('B'));
        assert_eq!(letter("I think it is a dog"), None);
        assert_eq!(letter("A dog is sitting"), None);
        assert_eq!(letter("Either B, or C"), None);
    }

    #[test]
    fn out_of_range_letters_are_ignored() {
        assert_eq!(letter("Answer: E"), None);
        assert_eq!(letter("I cannot tell from the image."), None);
    }
}
