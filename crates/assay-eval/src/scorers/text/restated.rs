//! A yes/no question answered by restating its fact ("Is the light on?" → "The light is on.",
//! "帽子をかぶっていますか？" → "帽子をかぶっています。"): the reply says yes when it states
//! everything the question asks about and adds no other thing, read per script:
//! - English and other spaced scripts: every content word of the question is in the reply
//!   (plural "s" and "-ing" ignored), so "The man is wearing a black hat." restates "Is the
//!   man wearing a hat?" while "The light is off." does not restate "Is the light on?";
//! - Japanese: every run of kanji or katakana in the reply is one of the question's, and the
//!   reply ends in the question's predicate (so "帽子を持っています" is not "帽子をかぶって
//!   いますか");
//! - Korean: every word of the reply begins as a word of the question does (its first two
//!   syllables; the predicate's first), the subject may be dropped.
//!
//! A negated restatement is read by the caller's polarity first ("He isn't wearing a hat" is
//! no); this only says whether an affirmative reply restates the question.

use super::{is_hangul, is_kanji, is_katakana, nfkc_lower};

const STOP: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "be",
    "the",
    "a",
    "an",
    "there",
    "any",
    "anything",
    "does",
    "do",
    "did",
    "can",
    "could",
    "you",
    "see",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "of",
    "to",
    "image",
    "picture",
    "photo",
    "photograph",
    "shown",
    "visible",
    "present",
    "some",
    "has",
    "have",
    "he",
    "she",
    "they",
    "his",
    "her",
    "their",
    "at",
    "by",
    "for",
    "with",
];

fn stem(w: &str) -> String {
    let w = w.trim_matches('\'');
    let w = w.strip_suffix("'s").unwrap_or(w);
    let w = if w.len() > 4 {
        w.strip_suffix("ing").unwrap_or(w)
    } else {
        w
    };
    let w = if w.len() > 3 && !w.ends_with("ss") {
        w.strip_suffix('s').unwrap_or(w)
    } else {
        w
    };
    w.to_string()
}

fn latin_keys(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty() && !STOP.contains(w))
        .map(stem)
        .collect()
}

/// Runs of kanji or katakana (the nouns and verb stems a Japanese sentence names).
fn japanese_runs(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut kind = 0u8;
    for c in s.chars() {
        let k = if is_kanji(c) {
            1
        } else if is_katakana(c) && c != 'ー' {
            2
        } else {
            0
        };
        if k != kind && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if k != 0 {
            cur.push(c);
        }
        kind = k;
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The reply's last predicate, as kana after its last kanji or katakana run, up to the polite
/// ending ("かぶっています" → "かぶって").
fn japanese_predicate(s: &str) -> String {
    let body: String = s
        .chars()
        .filter(|c| !c.is_whitespace() && !super::is_clause_mark(*c) && *c != '？' && *c != '?')
        .collect();
    let endings = [
        "いますか",
        "います",
        "ますか",
        "ます",
        "ですか",
        "です",
        "か",
    ];
    let mut b = body.as_str();
    for e in endings {
        if let Some(x) = b.strip_suffix(e) {
            b = x;
            break;
        }
    }
    let tail: String = b
        .chars()
        .rev()
        .take_while(|c| !is_kanji(*c) && !is_katakana(*c))
        .collect::<Vec<char>>()
        .into_iter()
        .rev()
        .collect();
    tail.chars()
        .rev()
        .take(3)
        .collect::<Vec<char>>()
        .into_iter()
        .rev()
        .collect()
}

fn korean_keys(s: &str) -> Vec<String> {
    let words: Vec<&str> = s
        .split(|c: char| !is_hangul(c) && !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let last = words.len().saturating_sub(1);
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let take = if i == last { 1 } else { 2 };
            w.chars().take(take).collect()
        })
        .collect()
}

/// Whether `reply` restates the fact `question` asks about, affirmatively.
pub fn restates(question: &str, reply: &str) -> bool {
    let q = nfkc_lower(question);
    // Only the reply's first sentence answers.
    let r = nfkc_lower(reply);
    let r = r
        .split(['.', '。', '!', '！', '\n'])
        .find(|s| !s.trim().is_empty())
        .unwrap_or("");
    if q.chars().any(is_hangul) {
        let qk = korean_keys(&q);
        let rk = korean_keys(r);
        return rk.len() >= 2 && rk.iter().all(|k| qk.contains(k));
    }
    if q.chars()
        .any(|c| is_kanji(c) || is_katakana(c) || super::is_hiragana(c))
    {
        let qr = japanese_runs(&q);
        let rr = japanese_runs(r);
        let qp = japanese_predicate(&q);
        let rp = japanese_predicate(r);
        return !rr.is_empty() && rr.iter().all(|k| qr.contains(k)) && !rp.is_empty() && qp == rp;
    }
    let qk = latin_keys(&q);
    let rk = latin_keys(r);
    !qk.is_empty() && qk.iter().all(|k| rk.contains(k))
}

#[cfg(test)]
mod tests {
    use super::restates;

    #[test]
    fn a_reply_that_restates_the_question() {
        assert!(restates(
            "Is the man wearing a hat?",
            "The man is wearing a black hat."
        ));
        assert!(restates("Is the light on?", "The light is on."));
        assert!(!restates("Is the light on?", "The light is off."));
        assert!(restates(
            "Are there any cars on the road?",
            "There are two cars on the road."
        ));
        assert!(!restates(
            "Is the man wearing a hat?",
            "The man is wearing glasses."
        ));
        assert!(restates(
            "男性は帽子をかぶっていますか？",
            "帽子をかぶっています。"
        ));
        assert!(!restates(
            "男性は帽子をかぶっていますか？",
            "帽子を持っています。"
        ));
        assert!(!restates(
            "男性は帽子をかぶっていますか？",
            "男性はメガネをかけています。"
        ));
        assert!(restates(
            "남자는 모자를 쓰고 있나요?",
            "모자를 쓰고 있습니다."
        ));
        assert!(!restates(
            "남자는 모자를 쓰고 있나요?",
            "안경을 쓰고 있습니다."
        ));
    }
}
