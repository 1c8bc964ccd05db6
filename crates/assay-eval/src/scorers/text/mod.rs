//! Reading a response as a careful grader would: which words a denial governs, which number a
//! reply commits to, and where a Japanese or Korean word begins and ends.
//!
//! Every function here works on one prepared text ([`prepare`]: NFKC, ASCII lower case,
//! katakana folded to hiragana) so that byte offsets found by one rule are valid for the
//! others; the folding keeps every character's byte length.

pub mod asks;
pub use asks::asking_clause;
pub mod clock;
pub mod colours;
pub mod conclusions;
pub mod conditions;
pub mod corrections;
pub mod dates;
pub mod declines;
pub mod floors;
pub mod hanja;
pub mod hedges;
pub mod maths;
pub mod negation;
pub mod numbers;
pub mod ordinals;
pub mod pairs;
pub mod proportion;
pub mod readings;
pub mod restated;
pub mod romanize;
pub mod sentence_reference;
pub mod similarity;
pub mod structured;
pub mod timestamps;
pub mod units;
pub mod weekdays;
pub mod words;

use super::normalize::nfkc;

/// The text after a markdown table (two or more lines that open with "|"), when text follows
/// it.
pub fn after_table(response: &str) -> Option<&str> {
    let mut rows = 0;
    let mut end = None;
    let mut at = 0;
    for line in response.split_inclusive('\n') {
        at += line.len();
        if line.trim_start().starts_with('|') {
            rows += 1;
            end = Some(at);
        }
    }
    let rest = &response[end?..];
    (rows >= 2 && rest.chars().any(char::is_alphanumeric)).then_some(rest)
}

/// NFKC, ASCII lower case, katakana folded to hiragana: the form every rule reads.
pub fn prepare(s: &str) -> String {
    fold_kana(&nfkc(s).to_ascii_lowercase())
}

/// NFKC and ASCII lower case, without kana folding: the reply's scripts as written, with the
/// same byte offsets as [`prepare`].
pub fn nfkc_lower(s: &str) -> String {
    nfkc(s).to_ascii_lowercase()
}

/// The reply without a next turn the model went on to write itself ("…\n\nQuestion: Is the man
/// smiling?\nAnswer: No", "\nUser: …"): small models often continue the conversation, and what
/// they answer there answers another question.
pub fn own_turn(response: &str) -> std::borrow::Cow<'_, str> {
    // A reasoning model's "<think>…</think>" blocks are its thinking, not its reply; so is what
    // comes before a "</think>" that opens a line with no "<think>" (models whose template
    // opens the block). A "</think>" quoted mid-line ("split(\"</think>\")") is text.
    static THINK: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let think = THINK.get_or_init(|| regex::Regex::new(r"(?s)<think>.*?</think>").expect("valid"));
    static CLOSE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let close = CLOSE.get_or_init(|| regex::Regex::new(r"(?m)^\s*</think>").expect("valid"));
    if !response.contains("think>") {
        return std::borrow::Cow::Borrowed(after_thinking(response));
    }
    let mut outside = think.replace_all(response, "\n");
    if !response.contains("<think>") {
        if let Some(m) = close.find_iter(response).last() {
            outside = std::borrow::Cow::Borrowed(&response[m.end()..]);
        }
    }
    if outside.trim().is_empty() {
        outside = std::borrow::Cow::Borrowed(response);
    }
    match outside {
        std::borrow::Cow::Borrowed(s) => std::borrow::Cow::Borrowed(after_thinking(s)),
        std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(after_thinking(&s).to_string()),
    }
}

/// [`own_turn`] once the thinking is gone: no next turn, no footnotes.
fn after_thinking(response: &str) -> &str {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"(?m)^\s*(?:#+\s*)?(?:question|q|human|user|instruction|next question|質問|問題|질문|사용자)\s*\d*\s*[:：]")
            .expect("valid")
    });
    let response = match r.find(response) {
        Some(m) if !response[..m.start()].trim().is_empty() => &response[..m.start()],
        _ => response,
    };
    // Footnotes and sources after the reply ("[1] Printed under DEP …", "【出典: …】",
    // "Sources:"): they describe where the answer came from, and name other figures.
    static NOTES: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let notes = NOTES.get_or_init(|| {
        regex::Regex::new(r"(?m)^\s*(?:\[\^?\d{1,2}\]:?\s|(?:sources?|references?|出典|出所|参考|출처|참고)\s*[:：]|【\s*(?:出典|出所|参考|출처|참고)|※\s*出典)")
            .expect("valid")
    });
    match notes.find(response) {
        Some(m) if !response[..m.start()].trim().is_empty() => &response[..m.start()],
        _ => response,
    }
}

/// A reply's LaTeX read as plain text ([`maths::plain`]), and its `\boxed{…}` unwrapped:
/// `\boxed{40^\circ}` is "40°", `30\text{ cm}^2` is "30 cm2". Models trained on maths write
/// their short answers this way.
pub fn latex_plain(response: &str) -> std::borrow::Cow<'_, str> {
    let plain = maths::plain(response);
    if !plain.contains("\\boxed") {
        return plain;
    }
    static BOXED: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let boxed = BOXED.get_or_init(|| regex::Regex::new(r"\\boxed\s*\{([^{}]*)\}").expect("valid"));
    std::borrow::Cow::Owned(boxed.replace_all(&plain, "$1").into_owned())
}

/// Katakana to hiragana (ァ-ヶ to ぁ-ゖ), so "リンゴ" and "りんご" compare equal. Byte lengths
/// are kept (both blocks are three bytes in UTF-8), and the long-vowel mark stays.
pub fn fold_kana(s: &str) -> String {
    s.chars()
        .map(|c| match c as u32 {
            0x30A1..=0x30F6 => char::from_u32(c as u32 - 0x60).unwrap_or(c),
            _ => c,
        })
        .collect()
}

pub fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

pub fn is_kanji(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x3005)
}

pub fn is_katakana(c: char) -> bool {
    matches!(c as u32, 0x30A0..=0x30FF | 0x31F0..=0x31FF)
}

pub fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x309F)
}

/// Spans sorted by start with overlaps dropped, the first found kept (a kana word inside a
/// longer one, "a quarter" inside "a quarter to four"): the readers of numbers, times and shares
/// share it.
pub fn first_of_overlaps<T>(mut found: Vec<T>, span: impl Fn(&T) -> (usize, usize)) -> Vec<T> {
    found.sort_by_key(|x| span(x).0);
    let mut kept: Vec<T> = Vec::with_capacity(found.len());
    for x in found {
        if kept.last().is_none_or(|k| span(&x).0 >= span(k).1) {
            kept.push(x);
        }
    }
    kept
}

/// `at`, or the first character boundary after it: where a window reaching back a number of
/// bytes may start in text of several scripts.
pub fn char_boundary_after(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Where the text's last contrast ends ("…, but …", "…が、実際には…", "…지만, …").
pub fn contrast_end(s: &str) -> Option<usize> {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(
            // 지만 as a verb's ending ("있지만,"), not inside 이미지만 ("only the image").
            r"(?i)\bbut\b|\bhowever\b|が、|けど、|しかし|実際には|지만(?:[,\s]|$)|실제로는|하지만",
        )
        .expect("valid")
    });
    r.find_iter(s).last().map(|m| m.end())
}

/// Where the text after the last of `marks` before `at` begins (0 when none): the start of the
/// clause or sentence holding `at`.
pub fn after_last(s: &str, at: usize, marks: &[char]) -> usize {
    s[..at]
        .rfind(marks)
        .map_or(0, |i| i + s[i..].chars().next().map_or(1, char::len_utf8))
}

/// The character before byte offset `at`, if any.
pub fn char_before(s: &str, at: usize) -> Option<char> {
    s[..at].chars().next_back()
}

/// The character at byte offset `at`, if any.
pub fn char_at(s: &str, at: usize) -> Option<char> {
    s[at..].chars().next()
}

/// Punctuation and symbols that end a clause or a list item.
pub fn is_clause_mark(c: char) -> bool {
    matches!(
        c,
        ',' | '.'
            | ';'
            | ':'
            | '!'
            | '?'
            | '('
            | ')'
            | '['
            | ']'
            | '\n'
            | '、'
            | '。'
            | '—'
            | '–'
            | '「'
            | '」'
            | '『'
            | '』'
            | '"'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_keeps_offsets() {
        let s = "リンゴ ABC りんご";
        let p = prepare(s);
        assert_eq!(p, "りんご abc りんご");
        assert_eq!(p.len(), s.len());
    }
}
