//! A yes/no question answered by restating its fact ("Is the light on?" → "The light is on.",
//! "帽子をかぶっていますか？" → "帽子をかぶっています。"): the reply says yes when it states
//! everything the question asks about and adds no other thing, read per script:
//! - English and other spaced scripts: every content word of the question is in the reply
//!   (plural "s" and "-ing" ignored), so "The man is wearing a black hat." restates "Is the
//!   man wearing a hat?" while "The light is off." does not restate "Is the light on?";
//! - Japanese: every run of kanji or katakana in the reply is one of the question's (or, joined
//!   by の, narrows a noun the question leaves bare: "部屋の電気" for "電気"), and the
//!   reply ends in the question's predicate (so "帽子を持っています" is not "帽子をかぶって
//!   いますか");
//! - English words in the question's order ("The cat is bigger than the dog" does not restate
//!   "Is the dog bigger than the cat?");
//! - Korean: the reply ends in the question's predicate (its last two words, compared by their
//!   first syllables) and names no other subject or object ("모자를 쓰고 있습니다" for "남자는
//!   모자를 쓰고 있나요?", not "강아지가 의자 위에 있습니다" for "고양이가 의자 위에 있나요?").
//!   A subject named otherwise ("거실 조명이" for "불이") is not read: unsure, for a judge;
//! - a state replaced by its opposite says no ("Is the door open?" → "The door is shut.").
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
    japanese_spans(s).into_iter().map(|(r, _, _)| r).collect()
}

/// Each run with the char positions it starts and ends at.
fn japanese_spans(s: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 0;
    let mut kind = 0u8;
    let mut n = 0;
    for (i, c) in s.chars().enumerate() {
        let k = if is_kanji(c) {
            1
        } else if is_katakana(c) && c != 'ー' {
            2
        } else {
            0
        };
        if k != kind && !cur.is_empty() {
            out.push((std::mem::take(&mut cur), start, i));
        }
        if k != 0 {
            if cur.is_empty() {
                start = i;
            }
            cur.push(c);
        }
        kind = k;
        n = i + 1;
    }
    if !cur.is_empty() {
        out.push((cur, start, n));
    }
    out
}

/// Runs joined by の to the run after them ("部屋の電気" → ("部屋", "電気")): a modifier and
/// the noun it narrows.
fn japanese_modifiers(s: &str) -> Vec<(String, String)> {
    let chars: Vec<char> = s.chars().collect();
    let spans = japanese_spans(s);
    spans
        .windows(2)
        .filter(|w| chars[w[0].2..w[1].1] == ['の'])
        .map(|w| (w[0].0.clone(), w[1].0.clone()))
        .collect()
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

/// States a yes/no question may ask about, each with its opposite ("Is the door open?" → "The
/// door is shut." says no).
const OPPOSITES: &[(&str, &str)] = &[
    ("open", "closed"),
    ("open", "shut"),
    ("on", "off"),
    ("full", "empty"),
    ("empty", "occupied"),
    ("awake", "asleep"),
    ("wet", "dry"),
    ("clean", "dirty"),
    ("left", "right"),
    ("up", "down"),
    ("inside", "outside"),
    ("indoor", "outdoor"),
    ("day", "night"),
    ("daytime", "nighttime"),
    ("same", "different"),
    ("lit", "unlit"),
];

/// The same for Korean predicates, by the first two syllables of the verb as written before
/// 있다 ("열려 있다" / "닫혀 있다").
const KO_OPPOSITES: &[(&str, &str)] = &[
    ("열려", "닫혀"),
    ("켜져", "꺼져"),
    ("젖어", "말라"),
    ("깨어", "잠들"),
    ("비어", "차"),
];

fn opposite(k: &str) -> Vec<&'static str> {
    OPPOSITES
        .iter()
        .filter_map(|(a, b)| {
            if *a == k {
                Some(*b)
            } else if *b == k {
                Some(*a)
            } else {
                None
            }
        })
        .collect()
}

/// Whether `reply` restates the fact `question` asks about, affirmatively.
pub fn restates(question: &str, reply: &str) -> bool {
    restated_polarity(question, reply) == Some(true)
}

/// What a reply restating a yes/no question's fact answers: yes when it states it, no when it
/// states its opposite state ("Is the door open?" → "The door is shut."); None when it states
/// something else. A negated restatement is the caller's polarity rule.
pub fn restated_polarity(question: &str, reply: &str) -> Option<bool> {
    let q = nfkc_lower(question);
    // Only the reply's first statement answers: a sentence that asks states nothing, so the
    // question repeated back ("창문이 열려 있습니까? 창문이 열려 있습니까?") restates no fact.
    let r = nfkc_lower(reply);
    let r = r
        .split_inclusive(['.', '。', '!', '！', '?', '？', '\n'])
        .map(|s| s.trim())
        .find(|s| s.chars().any(char::is_alphanumeric) && !s.ends_with(['?', '？']))
        .map_or("", |s| s.trim_end_matches(['.', '。', '!', '！']));
    if q.chars().any(is_hangul) {
        // The predicate decides ("불이 켜져 있나요?" → "거실 조명이 환하게 켜져 있습니다").
        let qk = korean_keys(&q);
        let rk = korean_keys(r);
        let tail = |k: &[String]| k[k.len().saturating_sub(2)..].to_vec();
        // The subject may be named otherwise (조명 for 불), the object may not (안경 for 모자).
        let objects = |s: &str| -> Vec<String> {
            s.split(|c: char| !is_hangul(c))
                .filter(|w| w.ends_with('을') || w.ends_with('를'))
                .map(|w| w.chars().take(2).collect())
                .collect()
        };
        let (qo, ro) = (objects(&q), objects(r));
        // Nor may the subject ("강아지가" for "고양이가 … 있나요?").
        let subjects = |s: &str| -> Vec<String> {
            s.split(|c: char| !is_hangul(c))
                .filter(|w| w.chars().count() >= 2 && w.ends_with(['이', '가', '은', '는']))
                .map(|w| w.chars().take(2).collect())
                .collect()
        };
        let qs = subjects(&q);
        let rs = subjects(r);
        let same_things = ro.iter().all(|o| qo.contains(o))
            && rs.iter().all(|x| qs.contains(x) || qo.contains(x));
        if rk.len() < 2 || qk.len() < 2 || !same_things {
            return None;
        }
        let (qt, rt) = (tail(&qk), tail(&rk));
        if qt == rt {
            return Some(true);
        }
        // "문이 열려 있나요?" → "닫혀 있어요": the state's opposite, with the same ending, says no.
        let opposed = KO_OPPOSITES
            .iter()
            .any(|(a, b)| (qt[0] == *a && rt[0] == *b) || (qt[0] == *b && rt[0] == *a));
        return (opposed && qt[1] == rt[1]).then_some(false);
    }
    if q.chars()
        .any(|c| is_kanji(c) || is_katakana(c) || super::is_hiragana(c))
    {
        let qr = japanese_runs(&q);
        let rr = japanese_runs(r);
        let qp = japanese_predicate(&q);
        let rp = japanese_predicate(r);
        // Every kanji or katakana word of the reply is the question's ("机の下に猫" adds 下),
        // or narrows one of its nouns that the question leaves bare ("部屋の電気" for
        // "電気はついていますか", not "台所の電気" for "居間の電気はついていますか").
        let q_modified: Vec<String> = japanese_modifiers(&q).into_iter().map(|m| m.1).collect();
        // A modifier that picks other or only some of the things ("他の車", "一部の電気") is
        // not a narrowing: the reply then says nothing of the thing asked about.
        const NOT_NARROWING: [&str; 8] = ["他", "別", "一部", "半分", "残", "片方", "一方", "以外"];
        let narrowing: Vec<String> = japanese_modifiers(r)
            .into_iter()
            .filter(|(m, noun)| {
                qr.contains(noun)
                    && !q_modified.contains(noun)
                    && !NOT_NARROWING.iter().any(|w| m.contains(w))
            })
            .map(|m| m.0)
            .collect();
        let within = rr.iter().all(|k| qr.contains(k) || narrowing.contains(k));
        return (!rp.is_empty() && qp == rp && within).then_some(true);
    }
    let qk = latin_keys(&q);
    let rk = latin_keys(r);
    if qk.is_empty() {
        return None;
    }
    let missing: Vec<&String> = qk.iter().filter(|k| !rk.contains(k)).collect();
    // In the question's order: "The cat is bigger than the dog" does not restate "Is the dog
    // bigger than the cat?", nor "The cat is under the table, on a rug" "Is the cat on the table?".
    let in_order = || {
        let mut at = 0;
        qk.iter()
            .all(|k| match rk[at..].iter().position(|r| r == k) {
                Some(i) => {
                    at += i + 1;
                    true
                }
                None => false,
            })
    };
    match missing.as_slice() {
        [] if in_order() => Some(true),
        [] => None,
        [one] if opposite(one).iter().any(|o| rk.iter().any(|k| k == o)) => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::restates;

    #[test]
    fn a_korean_state_replaced_by_its_opposite_says_no() {
        use super::restated_polarity;
        assert_eq!(
            restated_polarity("가게 문이 열려 있나요?", "닫혀 있어요."),
            Some(false)
        );
        assert_eq!(
            restated_polarity("불이 켜져 있나요?", "불이 꺼져 있습니다."),
            Some(false)
        );
        assert_eq!(
            restated_polarity("가게 문이 열려 있나요?", "열려 있어요."),
            Some(true)
        );
        // Another thing's state says nothing of the one asked.
        assert_eq!(
            restated_polarity("가게 문이 열려 있나요?", "창문이 닫혀 있어요."),
            None
        );
    }

    #[test]
    fn a_question_repeated_back_states_nothing() {
        assert!(!restates(
            "창문이 열려 있습니까?",
            "창문이 열려 있습니까? 창문이 열려 있습니까? 창문이 열려 있습니까?"
        ));
        assert!(!restates("Is the light on?", "Is the light on?"));
        assert!(!restates(
            "男性は帽子をかぶっていますか？",
            "男性は帽子をかぶっていますか？"
        ));
        // A question asked back, then the fact stated: the statement answers.
        assert!(restates(
            "Is the light on?",
            "Is the light on? The light is on."
        ));
    }

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
        assert!(!restates(
            "불이 켜져 있나요?",
            "거실 조명이 환하게 켜져 있습니다."
        ));
        assert!(restates("불이 켜져 있나요?", "불이 켜져 있습니다."));
        assert!(!restates(
            "고양이가 의자 위에 있나요?",
            "강아지가 의자 위에 있습니다."
        ));
        assert!(restates("電気はついていますか？", "電気はついています。"));
        // A modifier that narrows the question's bare noun still restates it; one that
        // replaces the question's own modifier does not.
        assert!(restates(
            "電気はついていますか？",
            "部屋の電気はついています。"
        ));
        assert!(!restates(
            "居間の電気はついていますか？",
            "台所の電気はついています。"
        ));
        assert!(restates(
            "居間の電気はついていますか？",
            "居間の電気はついています。"
        ));
        assert!(!restates(
            "電気はついていますか？",
            "部屋の電気は消えています。"
        ));
        // Other or some of them: not the thing asked about.
        for reply in [
            "他の車は止まっています。",
            "別の車は止まっています。",
            "一部の車は止まっています。",
        ] {
            assert!(!restates("車は止まっていますか？", reply), "{reply}");
        }
        assert!(!restates("机の上に猫がいますか？", "机の下に猫がいます。"));
        assert!(!restates(
            "Is the dog bigger than the cat?",
            "The cat is bigger than the dog."
        ));
        assert!(!restates(
            "Is the cat on the table?",
            "The cat is under the table, sitting on a rug."
        ));
        assert_eq!(
            super::restated_polarity("Is the door open?", "The front door is shut."),
            Some(false)
        );
    }
}
