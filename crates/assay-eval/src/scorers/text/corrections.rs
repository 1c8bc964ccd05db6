//! Where a reply takes back what it said before: "wait, actually", "on closer inspection",
//! "いや", "と思いましたが", "아니", "줄 알았는데". One list for every scorer: the option letter
//! after a correction replaces the one before it, and so does the number.

use std::sync::OnceLock;

use regex::Regex;

/// The words that open a correction, in the prepared text (`text::prepare`: lower case, kana
/// folded to hiragana). English words match whole; Japanese and Korean ones anywhere.
pub fn words() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(concat!(
            r"\b(?:wait|actually|on second thought|correction|hmm+|reconsider(?:ing)?|re-?check(?:ing)?|rethink(?:ing)?",
            r"|looking again|counting again|(?:up)?on closer (?:look|inspection)|looking closer|look closer|a closer look",
            r"|more carefully|more closely)\b|\bno,",
            r"|待って|いや|いえ、|やはり|やっぱり|訂正|改めて|と思いましたが|と思ったが|と思ったけど|かと思いきや",
            r"|よく見ると|かもしれませんが|かもしれないが",
            // "아니, 4개", "아니요", "X가 아니라 Y": the interjection and "not X but", not 아니면
            // ("or else") or 아니라고 ("that it is not");
            // "다시 보니" ("looking again"), not any 다시 ("again").
            r"|잠깐|(?:^|[\s.,!?…])아니(?:요)?(?:[,，!…]|\s)|아니(?:라|고)[\s,]|다시 보니|다시 보면|다시 세어|다시 확인|정정|줄 알았는데|줄 알았지만|생각했는데|자세히 보니|일 수도 있지만|일 수도 있으나",
        ))
        .expect("valid pattern")
    })
}

/// Whether `span` holds a correction.
pub fn any_in(span: &str) -> bool {
    words().is_match(span)
}

/// Where the last correction in `text` ends.
pub fn last_end(text: &str) -> Option<usize> {
    words().find_iter(text).last().map(|m| m.end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_in_three_languages_and_not_inside_other_words() {
        for t in [
            "a. wait, it is b",
            "on closer inspection, 4",
            "upon closer inspection, b",
            "3... actually 4",
            "3と思いましたが4です",
            "いや、4つです",
            "3개인 줄 알았는데 4개",
            "아니, 4개",
        ] {
            assert!(any_in(t), "{t}");
        }
        for t in [
            "the closer car has 3 doors",
            "it awaits",
            "factually, 3",
            "no answer: 3",
        ] {
            assert!(!any_in(t), "{t}");
        }
        assert_eq!(last_end("3, wait, 4. actually 5"), Some(20));
    }
}
