//! The words that mark a conclusion ("so", "したがって", "따라서"): one list, read by every rule
//! that looks for what a reply concludes (the number, the share, the letter, the angle, the
//! thing after the last such word).

use regex::Regex;
use std::sync::OnceLock;

/// English marks, read as whole words.
const ENGLISH: [&str; 4] = ["so", "therefore", "thus", "hence"];

/// Japanese and Korean marks. "から" alone is also "from", and "ので" is also the start of a
/// folded katakana word ("のデータ" → "のでーた"): both count only before their comma.
const CJK: [&str; 13] = [
    "したがって",
    "従って",
    "よって",
    "つまり",
    "なので",
    "だから",
    "ので、",
    "から、",
    "따라서",
    "그러므로",
    "그래서",
    "결국",
    "므로",
];

/// The marks as one regex alternation (no group), for rules that read what follows a mark.
pub fn alternation() -> &'static str {
    static A: OnceLock<String> = OnceLock::new();
    A.get_or_init(|| {
        let english = ENGLISH.map(|w| format!(r"\b{w}\b"));
        english
            .iter()
            .map(String::as_str)
            .chain(CJK)
            .collect::<Vec<_>>()
            .join("|")
    })
}

/// Whether a prepared text holds any mark at all: a cheap test before a rule runs its regex.
pub fn any(pp: &str) -> bool {
    ENGLISH.iter().chain(CJK.iter()).any(|w| pp.contains(w))
}

fn marks() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(alternation()).expect("valid"))
}

/// Each mark in a prepared text, as (start, end). "によって" ("depending on"), "に従って"
/// ("following") are no marks, and the Japanese adverbs open a clause: "排水口のつまり" is a clog.
pub fn all(pp: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    marks()
        .find_iter(pp)
        .filter(|m| {
            let before = pp[..m.start()].chars().next_back();
            let adverb = matches!(m.as_str(), "したがって" | "従って" | "よって" | "つまり");
            !adverb
                || before.is_none_or(|c| c.is_whitespace() || "。、,.!?！？」）)…:：".contains(c))
        })
        .map(|m| (m.start(), m.end()))
}

/// Where the text's last mark of a conclusion ends.
pub fn last_end(pp: &str) -> Option<usize> {
    if !any(pp) {
        return None;
    }
    all(pp).last().map(|(_, e)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_mark_is_found_in_each_language() {
        let p = "a is wrong, so b. therefore c";
        assert_eq!(last_end(p), Some(p.find("therefore").unwrap() + 9));
        let p = "赤いので、答えはりんごです";
        assert_eq!(
            last_end(p),
            Some(p.find("ので、").unwrap() + "ので、".len())
        );
        let p = "날개가 있으므로 새입니다";
        assert_eq!(last_end(p), Some(p.find("므로").unwrap() + "므로".len()));
    }

    #[test]
    fn words_that_only_contain_a_mark_are_not_marks() {
        assert_eq!(last_end("also the soup is hot"), None);
        assert_eq!(last_end("光の当たり方によって色が違う"), None);
        assert_eq!(last_end("駅から歩いて5分"), None);
        assert_eq!(last_end("月別のでーたになっています"), None);
        assert_eq!(last_end("原因は排水口のつまりのようです"), None);
        assert_eq!(last_end("この表示に従って避難します"), None);
        assert!(last_end("つまり、猫です").is_some());
    }
}
