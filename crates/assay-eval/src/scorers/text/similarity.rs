//! How closely a reply describes each option's text when it names no letter and no option word
//! for word ("It's pouring rain outside." for "Rainy", "He is cycling on his bike." for "Riding
//! a bicycle"), with how sure the reading is.
//!
//! Each option's content words are matched against the reply's: the same stem counts 1, one
//! stem inside the other ("paper" in "newspaper", "cycl" in "bicycle") 0.8, otherwise the Dice
//! coefficient of their letter trigrams when at least 0.5. An option's similarity is its best
//! word's. Japanese is compared by its runs of kanji and katakana, Korean by the first two
//! syllables of each word. No thesaurus: words that share no letters ("sofa", "couch") do not
//! meet, and the reading says so by finding nothing.

use super::{is_hangul, is_kanji, is_katakana, nfkc_lower};

const STOP: &[&str] = &[
    "the", "a", "an", "is", "are", "was", "were", "be", "it", "its", "it's", "this", "that",
    "there", "of", "in", "on", "at", "to", "and", "or", "with", "for", "from", "by", "he", "she",
    "they", "his", "her", "their", "him", "them", "i", "you", "we", "my", "your", "our", "some",
    "very", "quite", "looks", "look", "like", "seems", "appears", "image", "picture", "photo",
    "shows", "shown", "while", "down", "up", "out", "outside", "inside", "here", "think", "would",
    "say", "probably", "maybe", "just", "also", "not", "no", "doing", "being", "has", "have",
    "but",
];

fn stem(w: &str) -> String {
    let mut w = w.trim_matches(|c: char| c == '\'' || c == '’').to_string();
    for suffix in ["ing", "ed", "es", "s", "y"] {
        if w.len() > suffix.len() + 2 {
            if let Some(x) = w.strip_suffix(suffix) {
                w = x.to_string();
                break;
            }
        }
    }
    // "cycling" → "cycl", "riding" → "rid": a doubled consonant left by "-ing" is folded.
    w
}

fn trigrams(w: &str) -> Vec<String> {
    let c: Vec<char> = w.chars().collect();
    if c.len() < 3 {
        return vec![w.to_string()];
    }
    c.windows(3).map(|x| x.iter().collect()).collect()
}

fn word_match(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let (short, long) = if a.chars().count() <= b.chars().count() {
        (a, b)
    } else {
        (b, a)
    };
    let min = if short.is_ascii() { 4 } else { 2 };
    if short.chars().count() >= min && long.contains(short) {
        return 0.8;
    }
    if !a.is_ascii() || !b.is_ascii() {
        return 0.0;
    }
    // "borwn" for "brown": two letters swapped, or one wrong, in a word of five letters or more.
    if a.len() == b.len() && a.len() >= 5 {
        let diff: Vec<usize> = (0..a.len())
            .filter(|&i| a.as_bytes()[i] != b.as_bytes()[i])
            .collect();
        let swapped = matches!(diff.as_slice(), [i, j] if *j == i + 1
            && a.as_bytes()[*i] == b.as_bytes()[*j] && a.as_bytes()[*j] == b.as_bytes()[*i]);
        if swapped || diff.len() == 1 {
            return 0.8;
        }
    }
    let (ta, tb) = (trigrams(a), trigrams(b));
    let shared = ta.iter().filter(|t| tb.contains(t)).count();
    let dice = 2.0 * shared as f64 / (ta.len() + tb.len()) as f64;
    // "look" and "cook" share one trigram of two (0.5): not the same word.
    if dice > 0.55 {
        dice
    } else {
        0.0
    }
}

/// Content words: stems of spaced-script words, runs of kanji or katakana, Korean word heads.
pub fn content_words(s: &str) -> Vec<String> {
    let t = nfkc_lower(s);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut kind = 0u8;
    let flush = |cur: &mut String, kind: u8, out: &mut Vec<String>| {
        if cur.is_empty() {
            return;
        }
        let w = std::mem::take(cur);
        match kind {
            1 if !STOP.contains(&w.as_str()) && w.len() >= 3 => out.push(stem(&w)),
            2 | 3 => out.push(w),
            4 => out.push(w.chars().take(2).collect()),
            _ => {}
        }
    };
    for c in t.chars() {
        let k = if c.is_ascii_alphanumeric() || c == '\'' {
            1
        } else if is_kanji(c) {
            2
        } else if (is_katakana(c) && c != 'ー') || (c == 'ー' && kind == 3) {
            3
        } else if is_hangul(c) {
            4
        } else {
            0
        };
        if k != kind {
            flush(&mut cur, kind, &mut out);
        }
        if k != 0 {
            cur.push(c);
        }
        kind = k;
    }
    flush(&mut cur, kind, &mut out);
    out
}

/// Whether a content word (as [`content_words`] gives it) names the picture or the video
/// itself ("photo", "写真", "사진"), not a thing in it.
pub fn is_scene_word(w: &str) -> bool {
    [
        "photo",
        "photograph",
        "picture",
        "image",
        "video",
        "scene",
        "frame",
        "clip",
    ]
    .iter()
    .any(|s| stem(s) == w)
        || [
            "写真", "画像", "映像", "動画", "場面", "사진", "이미", "영상", "장면", "그림", "화면",
        ]
        .contains(&w)
}

/// Similarity of the reply to one option's text, in [0, 1].
pub fn option_similarity(option: &str, reply_words: &[String]) -> f64 {
    content_words(option)
        .iter()
        .map(|o| {
            reply_words
                .iter()
                .map(|r| word_match(o, r))
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// The share of an option's content words that meet one of the reply's (0.5 or more each).
pub fn words_met(option: &str, reply: &str) -> f64 {
    let words = content_words(reply);
    let own = content_words(option);
    if own.is_empty() {
        return 0.0;
    }
    let met = own
        .iter()
        .filter(|o| words.iter().any(|r| word_match(o, r) >= 0.5))
        .count();
    met as f64 / own.len() as f64
}

/// The option a reply describes, when one stands clearly above the rest: its index and its
/// similarity, with the runner-up's.
pub fn described_option(options: &[&str], reply: &str) -> Option<(usize, f64, f64)> {
    let words = content_words(reply);
    if words.is_empty() || options.len() < 2 {
        return None;
    }
    let sims: Vec<f64> = options
        .iter()
        .map(|o| option_similarity(o, &words))
        .collect();
    let best = (0..sims.len()).max_by(|&a, &b| sims[a].total_cmp(&sims[b]))?;
    let second = sims
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best)
        .map(|(_, s)| *s)
        .fold(0.0, f64::max);
    (sims[best] >= 0.5).then_some((best, sims[best], second))
}

#[cfg(test)]
mod tests {
    use super::described_option;

    #[test]
    fn replies_that_describe_an_option() {
        let w = ["Snowy", "Rainy", "Sunny", "Foggy"];
        assert_eq!(
            described_option(&w, "It's pouring rain outside.").map(|x| x.0),
            Some(1)
        );
        let doing = [
            "Reading a newspaper",
            "Riding a bicycle",
            "Cooking dinner",
            "Painting a fence",
        ];
        assert_eq!(
            described_option(&doing, "He is cycling down the street on his bike.").map(|x| x.0),
            Some(1)
        );
        assert_eq!(
            described_option(&doing, "He's looking through the paper on a bench.").map(|x| x.0),
            Some(0)
        );
        let ja = [
            "新聞を読んでいる",
            "自転車に乗っている",
            "料理をしている",
            "塀を塗っている",
        ];
        assert_eq!(
            described_option(&ja, "キッチンで料理を作っているところです。").map(|x| x.0),
            Some(2)
        );
        let ko = [
            "신문을 읽고 있다",
            "자전거를 타고 있다",
            "요리를 하고 있다",
            "울타리를 칠하고 있다",
        ];
        assert_eq!(
            described_option(&ko, "자전거를 타고 길을 달리고 있어요.").map(|x| x.0),
            Some(1)
        );
        assert_eq!(
            described_option(&w, "It's hard to say from this picture."),
            None
        );
    }
}
