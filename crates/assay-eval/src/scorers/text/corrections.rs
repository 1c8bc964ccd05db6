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
            r"\b(?:wait|actually|on second thought|correction|reconsider(?:ing)?|re-?check(?:ing)?|rethink(?:ing)?",
            r"|looking (?:at (?:it|this|that|them) )?again|at second glance|counting again|(?:up)?on closer (?:look|inspection)|looking closer|look closer|a closer look",
            r"|more carefully|more closely)\b|\bno(?:,|\s*[—–]\s)",
            // いや and いえ as words of their own, not inside タイヤ (folded to たいや) or とはいえ.
            // The interjection いや before a mark or a taking back (not イヤホン, folded to いやほん).
            r"|待って|待てよ|まてよ|(?:^|[^ぁ-ゖァ-ヺー一-鿿])(?:いや(?:[、,。…！!\s0-9一-鿿]|いや|ちが|まて)|いいえ、|いえ、)|やはり|やっぱり|訂正|改めて|と思いましたが|と思ったが|と思ったけど|かと思いきや",
            r"|よく見ると|かもしれませんが|かもしれないが",
            // "아니, 4개", "아니요", "X가 아니라 Y": the interjection and "not X but", not 아니면
            // ("or else") or 아니라고 ("that it is not");
            // "다시 보니" ("looking again"), not any 다시 ("again").
            // 잠깐 as "wait" ("잠깐, …", "잠깐만요"), not the adverb "briefly" (잠깐 고양이가 지나갈).
            r"|잠깐(?:만요|만)?\s*[,，.!…]|잠깐\s*생각해\s*보니|(?:^|[\s.,!?…])아니(?:요)?(?:[,，!…]|\s)|아니(?:라|고)[\s,]|다시 보니|다시 보면|다시 세어|다시 확인|정정|줄 알았는데|줄 알았지만|생각했는데|자세히 보니|일 수도 있지만|일 수도 있으나",
        ))
        .expect("valid pattern")
    })
}

/// The corrections in `text`: the words of [`words`], but not "actually" inside a clause ("it's
/// actually a real cat"), where it stresses what is said instead of taking it back.
pub fn found(text: &str) -> impl Iterator<Item = regex::Match<'_>> {
    words().find_iter(text).filter(move |m| {
        m.as_str() != "actually"
            || !text[..m.start()]
                .trim_end()
                .ends_with(|c: char| c.is_ascii_alphabetic() || c == '\'' || c == '’')
    })
}

/// Whether a correction word is a closer look ("on closer inspection", "よく見ると", "다시
/// 보니"), which may take the answer back or only add a detail, rather than a word that takes
/// back ("wait", "いや", "줄 알았는데").
pub fn observes(word: &str) -> bool {
    [
        "look",
        "clos",
        "careful",
        "inspect",
        "よく見",
        "改めて",
        "보니",
        "보면",
        "다시 세어",
        "다시 확인",
    ]
    .iter()
    .any(|w| word.contains(w))
}

/// Whether `span` holds a correction.
pub fn any_in(span: &str) -> bool {
    found(span).next().is_some()
}

/// Where the last correction in `text` ends.
pub fn last_end(text: &str) -> Option<usize> {
    found(text).last().map(|m| m.end())
}

/// Places and states that come in opposite pairs: a reply that corrects itself to the other one
/// takes back the first ("猫は箱の中にいます。……よく見ると、猫は箱の外に").
const OPPOSITES: &[(&str, &str)] = &[
    ("left", "right"),
    ("top", "bottom"),
    ("above", "below"),
    ("inside", "outside"),
    ("in front", "behind"),
    ("front", "back"),
    ("up", "down"),
    ("open", "closed"),
    ("on", "off"),
    ("左", "右"),
    ("上", "下"),
    ("中", "外"),
    ("内側", "外側"),
    ("前", "後ろ"),
    ("왼쪽", "오른쪽"),
    ("위", "아래"),
    ("안", "밖"),
    ("앞", "뒤"),
];

/// The opposite of a reference that is one side of a pair ("left" → "right", "中" → "外").
pub fn opposite(reference: &str) -> Option<&'static str> {
    let r = reference.trim();
    OPPOSITES.iter().find_map(|&(a, b)| {
        if r == a {
            Some(b)
        } else if r == b {
            Some(a)
        } else {
            None
        }
    })
}

/// Whether the reply, after its last correction, names `other` (a whole word in English) and
/// every mention of the reference (`spans`) came before that correction.
pub fn corrected_to(pp: &str, spans: &[(usize, usize)], other: &str) -> bool {
    let Some(c) = last_end(pp) else {
        return false;
    };
    if spans.iter().any(|&(s, _)| s >= c) {
        return false;
    }
    let after = &pp[c..];
    if other.is_ascii() {
        // "I have this right", "that's right": correct, not a side.
        static IDIOM: OnceLock<Regex> = OnceLock::new();
        let idiom = IDIOM.get_or_init(|| {
            Regex::new(r"(?:\b(?:this|that|it|you're|that's|all|quite|exactly)\s+right\b|\bright\s+(?:now|away)\b)")
                .expect("valid")
        });
        after.match_indices(other).any(|(i, _)| {
            let b = after.as_bytes();
            let before_ok = i == 0 || !b[i - 1].is_ascii_alphanumeric();
            let end = i + other.len();
            before_ok
                && b.get(end).is_none_or(|x| !x.is_ascii_alphanumeric())
                && !idiom
                    .find_iter(after)
                    .any(|m| m.start() <= i && end <= m.end())
        })
    } else {
        // A word of its own: 外 after の or に (not 下 in 靴下), 밖 after a space (not the
        // particle 밖에 in "한 마리밖에").
        after
            .match_indices(other)
            .any(|(i, _)| match after[..i].chars().next_back() {
                None => true,
                Some(b) if super::is_hangul(b) => false,
                Some(b) if super::is_kanji(b) || super::is_katakana(b) => false,
                Some(b) if super::is_hiragana(b) => "のにがはをとで".contains(b),
                Some(_) => true,
            })
    }
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
            "3. actually, 4",
            "4つ、いや5つ",
            "4つ、いいえ、5つ",
            "잠깐, 토끼네요",
            "looking at it again, it's a blanket",
        ] {
            assert!(any_in(t), "{t}");
        }
        for t in [
            "the closer car has 3 doors",
            "it awaits",
            "factually, 3",
            "no answer: 3",
            "yes — it's actually a real cat",
            "大きなたいやが4つ",
            "とはいえ、バスです",
            "いやほんは見えません",
            "途中で잠깐 고양이가 지나갈 뿐",
        ] {
            assert!(!any_in(t), "{t}");
        }
        assert_eq!(last_end("3, wait, 4. actually 5"), Some(20));
    }

    #[test]
    fn a_correction_to_the_opposite_takes_the_first_back() {
        assert_eq!(opposite("中"), Some("外"));
        assert_eq!(opposite("right"), Some("left"));
        assert_eq!(opposite("red"), None);
        let p = "猫は箱の中にいます。……よく見ると、猫は箱の外にいて";
        let s = p.find('中').unwrap();
        assert!(corrected_to(p, &[(s, s + 3)], "外"));
        let p = "it is on the left. actually, looking closer, it leans on the wall, left side";
        assert!(!corrected_to(p, &[(12, 16), (69, 73)], "right"));
        let p = "机の上にあります。よく見ると、靴下でした";
        assert!(!corrected_to(p, &[(6, 9)], "下"));
        let p = "机の上にあります。よく見ると、机の下でした";
        assert!(corrected_to(p, &[(6, 9)], "下"));
        let p = "상자 안에 있어요. 다시 보니 한 마리밖에 없네요";
        assert!(!corrected_to(p, &[(7, 10)], "밖"));
        let p = "상자 안에 있어요. 다시 보니 상자 밖에 있네요";
        assert!(corrected_to(p, &[(7, 10)], "밖"));
        let p = "it sits to the left. hmm, let me check that i have this right… yes.";
        assert!(!corrected_to(p, &[(15, 19)], "right"));
        let p = "left. wait, the rightmost one? no, left";
        assert!(
            !corrected_to(p, &[(0, 4)], "right"),
            "rightmost is another word"
        );
    }
}
