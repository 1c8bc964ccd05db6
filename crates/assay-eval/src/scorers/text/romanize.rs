//! The same word in another script: a Korean reference written in Latin letters ("Busan" for
//! 부산, "Seoul" for 서울), a Japanese one in rōmaji ("Shinjuku" for 新宿, "ramen" for ラーメン),
//! and a Latin reference written in katakana or Hangul ("パンダ" for "panda").
//!
//! Hangul is romanised by the Revised Romanization's letter table and kana by Hepburn's; a
//! kanji reference is romanised through its readings ([`super::readings`], IPAdic). Both sides
//! are then compared by a loose key that forgives what other systems and habits write otherwise
//! (Kunrei "si" for "shi", McCune-Reischauer "Pusan" for "Busan", long vowels written twice,
//! "ou" for "ō", macrons). A word shorter than four Latin letters matches nothing: a short word
//! in Latin letters is too often another word.

use unicode_normalization::UnicodeNormalization;

use super::{fold_kana, is_hangul, is_hiragana, is_kanji, is_katakana};

const INITIALS: [&str; 19] = [
    "g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p",
    "h",
];
const MEDIALS: [&str; 21] = [
    "a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we",
    "wi", "yu", "eu", "ui", "i",
];
const FINALS: [&str; 28] = [
    "", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "p", "t", "t", "p", "l", "m", "p", "p",
    "t", "t", "ng", "t", "t", "k", "t", "p", "t",
];
/// A final consonant carried over to a following vowel (한국어 → hangugeo).
const FINALS_BEFORE_VOWEL: [&str; 28] = [
    "", "g", "kk", "ks", "n", "nj", "nh", "d", "r", "lg", "lm", "lb", "ls", "lt", "lp", "lh", "m",
    "b", "bs", "s", "ss", "ng", "j", "ch", "k", "t", "p", "h",
];

/// Hangul syllables in the Revised Romanization (other characters kept).
pub fn hangul(s: &str) -> String {
    let syllables: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &c) in syllables.iter().enumerate() {
        let code = c as u32;
        if !(0xAC00..=0xD7A3).contains(&code) {
            out.push(c);
            continue;
        }
        let n = code - 0xAC00;
        let (ini, med, fin) = (
            (n / 588) as usize,
            ((n % 588) / 28) as usize,
            (n % 28) as usize,
        );
        out += INITIALS[ini];
        out += MEDIALS[med];
        let next_vowel = syllables.get(i + 1).is_some_and(|&d| {
            let d = d as u32;
            (0xAC00..=0xD7A3).contains(&d) && (d - 0xAC00) / 588 == 11
        });
        out += if next_vowel {
            FINALS_BEFORE_VOWEL[fin]
        } else {
            FINALS[fin]
        };
    }
    out
}

const KANA: &[(&str, &str)] = &[
    ("きゃ", "kya"),
    ("きゅ", "kyu"),
    ("きょ", "kyo"),
    ("しゃ", "sha"),
    ("しゅ", "shu"),
    ("しょ", "sho"),
    ("ちゃ", "cha"),
    ("ちゅ", "chu"),
    ("ちょ", "cho"),
    ("にゃ", "nya"),
    ("にゅ", "nyu"),
    ("にょ", "nyo"),
    ("ひゃ", "hya"),
    ("ひゅ", "hyu"),
    ("ひょ", "hyo"),
    ("みゃ", "mya"),
    ("みゅ", "myu"),
    ("みょ", "myo"),
    ("りゃ", "rya"),
    ("りゅ", "ryu"),
    ("りょ", "ryo"),
    ("ぎゃ", "gya"),
    ("ぎゅ", "gyu"),
    ("ぎょ", "gyo"),
    ("じゃ", "ja"),
    ("じゅ", "ju"),
    ("じょ", "jo"),
    ("びゃ", "bya"),
    ("びゅ", "byu"),
    ("びょ", "byo"),
    ("ぴゃ", "pya"),
    ("ぴゅ", "pyu"),
    ("ぴょ", "pyo"),
    ("しぇ", "she"),
    ("じぇ", "je"),
    ("ちぇ", "che"),
    ("てぃ", "ti"),
    ("でぃ", "di"),
    ("ふぁ", "fa"),
    ("ふぃ", "fi"),
    ("ふぇ", "fe"),
    ("ふぉ", "fo"),
    ("うぃ", "wi"),
    ("うぇ", "we"),
    ("うぉ", "wo"),
    ("ゔぁ", "va"),
    ("とぅ", "tu"),
    ("どぅ", "du"),
    ("あ", "a"),
    ("い", "i"),
    ("う", "u"),
    ("え", "e"),
    ("お", "o"),
    ("か", "ka"),
    ("き", "ki"),
    ("く", "ku"),
    ("け", "ke"),
    ("こ", "ko"),
    ("さ", "sa"),
    ("し", "shi"),
    ("す", "su"),
    ("せ", "se"),
    ("そ", "so"),
    ("た", "ta"),
    ("ち", "chi"),
    ("つ", "tsu"),
    ("て", "te"),
    ("と", "to"),
    ("な", "na"),
    ("に", "ni"),
    ("ぬ", "nu"),
    ("ね", "ne"),
    ("の", "no"),
    ("は", "ha"),
    ("ひ", "hi"),
    ("ふ", "fu"),
    ("へ", "he"),
    ("ほ", "ho"),
    ("ま", "ma"),
    ("み", "mi"),
    ("む", "mu"),
    ("め", "me"),
    ("も", "mo"),
    ("や", "ya"),
    ("ゆ", "yu"),
    ("よ", "yo"),
    ("ら", "ra"),
    ("り", "ri"),
    ("る", "ru"),
    ("れ", "re"),
    ("ろ", "ro"),
    ("わ", "wa"),
    ("ゐ", "i"),
    ("ゑ", "e"),
    ("を", "o"),
    ("ん", "n"),
    ("が", "ga"),
    ("ぎ", "gi"),
    ("ぐ", "gu"),
    ("げ", "ge"),
    ("ご", "go"),
    ("ざ", "za"),
    ("じ", "ji"),
    ("ず", "zu"),
    ("ぜ", "ze"),
    ("ぞ", "zo"),
    ("だ", "da"),
    ("ぢ", "ji"),
    ("づ", "zu"),
    ("で", "de"),
    ("ど", "do"),
    ("ば", "ba"),
    ("び", "bi"),
    ("ぶ", "bu"),
    ("べ", "be"),
    ("ぼ", "bo"),
    ("ぱ", "pa"),
    ("ぴ", "pi"),
    ("ぷ", "pu"),
    ("ぺ", "pe"),
    ("ぽ", "po"),
    ("ゔ", "vu"),
    ("ぁ", "a"),
    ("ぃ", "i"),
    ("ぅ", "u"),
    ("ぇ", "e"),
    ("ぉ", "o"),
    ("ゃ", "ya"),
    ("ゅ", "yu"),
    ("ょ", "yo"),
];

/// Kana (either script) in Hepburn: a small っ doubles the next consonant, ー repeats the vowel
/// before it.
pub fn kana(s: &str) -> String {
    let s = fold_kana(s);
    let mut out = String::new();
    let mut double = false;
    let mut rest = s.as_str();
    while let Some(c) = rest.chars().next() {
        if c == 'っ' {
            double = true;
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == 'ー' {
            if let Some(v) = out.chars().next_back().filter(|v| "aeiou".contains(*v)) {
                out.push(v);
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let found = KANA.iter().find(|(k, _)| rest.starts_with(k));
        match found {
            Some((k, r)) => {
                if double {
                    out.push_str(&r[..1]);
                }
                out += r;
                rest = &rest[k.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        double = false;
    }
    out
}

/// The loose key two romanisations of one word share.
pub fn key(s: &str) -> String {
    let mut k: String = s
        .nfkd()
        .filter(|c| c.is_ascii_alphabetic())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    for (from, to) in [
        ("tsu", "tu"),
        ("shi", "si"),
        ("chi", "ti"),
        ("sh", "sy"),
        ("ch", "ty"),
        ("ji", "zi"),
        ("j", "zy"),
        ("fu", "hu"),
        ("eo", "o"),
        ("eu", "u"),
        ("ae", "e"),
        ("ou", "o"),
        ("g", "k"),
        ("d", "t"),
        ("b", "p"),
        ("r", "l"),
        ("mp", "np"),
        ("mm", "nm"),
    ] {
        k = k.replace(from, to);
    }
    let mut out = String::with_capacity(k.len());
    for c in k.chars() {
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

/// The romanisations of a Japanese or Korean reference word (one for Hangul or kana, one per
/// reading for kanji), as keys; empty for anything else.
fn reference_keys(reference: &str) -> Vec<String> {
    let r = reference.trim();
    let romanised: Vec<String> = if !r.is_empty() && r.chars().all(is_hangul) {
        vec![hangul(r)]
    } else if !r.is_empty() && r.chars().all(|c| is_hiragana(c) || is_katakana(c)) {
        vec![kana(r)]
    } else if r.chars().any(is_kanji)
        && r.chars()
            .all(|c| is_kanji(c) || is_hiragana(c) || is_katakana(c))
    {
        super::readings::of(r).iter().map(|k| kana(k)).collect()
    } else {
        Vec::new()
    };
    romanised
        .iter()
        .filter(|w| w.len() >= 4)
        .map(|w| key(w))
        .collect()
}

/// Korean particles and copulas that follow a word ("서울입니다", "부산에서").
const KOREAN_ENDINGS: &[&str] = &[
    "이라고",
    "라고",
    "입니다",
    "이에요",
    "예요",
    "에요",
    "이다",
    "에서",
    "으로",
    "로",
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "에",
    "도",
    "요",
];

/// Spans of `script` (the reply, NFKC and lower case; its offsets are the prepared text's) that
/// write the reference in another script.
pub fn spans(script: &str, reference: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let keys = reference_keys(reference);
    if !keys.is_empty() {
        // The reply's words in Latin letters.
        let mut at = 0;
        for word in script.split(|c: char| !c.is_ascii_alphabetic() && c != '-') {
            let s = at;
            at += word.len()
                + script[at + word.len()..]
                    .chars()
                    .next()
                    .map_or(0, char::len_utf8);
            if !word.is_empty() && keys.contains(&key(word)) {
                out.push((s, s + word.len()));
            }
        }
        return out;
    }
    let r = reference.trim();
    if r.is_empty() || !r.chars().all(|c| c.is_ascii_alphabetic()) {
        return out;
    }
    if r.len() < 4 {
        return out;
    }
    let want = key(r);
    // Katakana and Hangul runs of the reply.
    let chars: Vec<(usize, char)> = script.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let kind = |c: char| {
            if is_katakana(c) {
                1
            } else if is_hangul(c) {
                2
            } else {
                0
            }
        };
        let k = kind(chars[i].1);
        if k == 0 {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && kind(chars[j].1) == k {
            j += 1;
        }
        let s = chars[i].0;
        let e = chars.get(j).map_or(script.len(), |c| c.0);
        let run = &script[s..e];
        let mut candidates = vec![(run, e)];
        if k == 2 {
            for ending in KOREAN_ENDINGS {
                if let Some(stem) = run.strip_suffix(ending) {
                    candidates.push((stem, s + stem.len()));
                }
            }
        }
        for (word, end) in candidates {
            let roman = if k == 1 { kana(word) } else { hangul(word) };
            if key(&roman) == want {
                out.push((s, end));
                break;
            }
        }
        i = j;
    }
    out
}

/// The consonants of a romanised Japanese or Korean word, as a loanword's skeleton: the
/// vowels that katakana and Hangul add between consonants ("naiki", "riteuribeo") dropped, and
/// the letters that the two scripts cannot tell apart made one (l and r, b and v, d and t).
fn skeleton_of_romanised(s: &str) -> String {
    let mut k = s.to_string();
    for (from, to) in [
        ("tsu", "t"),
        ("shi", "s"),
        ("chi", "t"),
        ("sh", "s"),
        ("ch", "t"),
        ("j", "s"),
    ] {
        k = k.replace(from, to);
    }
    consonants(&k)
}

/// The skeletons of an English word or phrase ("Golden Retriever" → the consonants that
/// ゴールデン・レトリバー keeps), the spellings of one sound ("ph", "ck", a soft "c") read as
/// katakana hears them: with a silent r after a vowel dropped ("retriever" → レトリバー) and
/// kept (ラブラドール).
fn skeletons_of_english(s: &str) -> [String; 2] {
    let mut k: String = s
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    for (from, to) in [
        ("ph", "f"),
        ("th", "s"),
        ("sh", "s"),
        ("ch", "t"),
        ("ck", "k"),
        ("gh", ""),
        ("qu", "k"),
        ("x", "ks"),
        ("ce", "se"),
        ("ci", "si"),
        ("cy", "sy"),
        ("c", "k"),
    ] {
        k = k.replace(from, to);
    }
    let kept_r = consonants(&k);
    let vowel = |c: char| "aeiouy".contains(c);
    let chars: Vec<char> = k.chars().collect();
    let kept: String = chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| {
            // "retriever", "corner": an r after a vowel, before a consonant or the end.
            !(c == 'r'
                && i > 0
                && vowel(chars[i - 1])
                && chars.get(i + 1).is_none_or(|n| !vowel(*n)))
        })
        .map(|(_, c)| *c)
        .collect();
    [consonants(&kept), kept_r]
}

/// Vowel groups of a word: its syllables, roughly.
fn vowel_groups(s: &str) -> usize {
    let mut n = 0;
    let mut in_vowel = false;
    for c in s.chars() {
        let v = "aeiouy".contains(c.to_ascii_lowercase());
        if v && !in_vowel {
            n += 1;
        }
        in_vowel = v;
    }
    n
}

/// The syllables of an English word, a silent final "e" not one ("bike").
fn syllables_of_english(s: &str) -> usize {
    let w: String = s
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_lowercase();
    let silent =
        w.len() > 2 && w.ends_with('e') && !"aeiouy".contains(&w[w.len() - 2..w.len() - 1]);
    vowel_groups(&w) - usize::from(silent && vowel_groups(&w) > 1)
}

/// The syllables of a romanised word, the vowel katakana and Hangul add after a final
/// consonant not one ("tenisu", "teniseu").
fn syllables_of_romanised(s: &str) -> usize {
    let n = vowel_groups(s);
    let epenthetic = [
        "su", "seu", "ku", "keu", "to", "teu", "do", "deu", "gu", "geu", "pu", "peu",
    ]
    .iter()
    .any(|e| s.ends_with(e));
    n - usize::from(epenthetic && n > 1)
}

fn consonants(k: &str) -> String {
    let mut out = String::new();
    for c in k.chars() {
        let c = match c {
            'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'w' | 'h' => continue,
            'g' | 'q' => 'k',
            'd' => 't',
            'b' | 'v' => 'p',
            'r' => 'l',
            'z' | 'j' => 's',
            c if c.is_ascii_alphabetic() => c,
            _ => continue,
        };
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

/// Spans of `script` (the reply, NFKC and lower case) that write a katakana or Hangul
/// reference (a loanword, a brand) in English letters, one to three words ("Golden Retriever"
/// for ゴールデン・レトリバー), when their skeletons agree and hold at least `min` consonants: a
/// shorter skeleton is too often another word.
pub fn loanword_spans(script: &str, reference: &str, min: usize) -> Vec<(usize, usize)> {
    let r: String = reference
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '・' | '･' | '·' | '-'))
        .collect();
    let romanised = if !r.is_empty() && r.chars().all(is_hangul) {
        hangul(&r)
    } else if !r.is_empty() && r.chars().all(|c| is_hiragana(c) || is_katakana(c)) {
        kana(&r)
    } else {
        return Vec::new();
    };
    let want = skeleton_of_romanised(&romanised);
    // Three consonants only with the same syllables ("tennis" for テニス, not "pink" for
    // パンケーキ) and no r that katakana would drop ("dark" is not 트럭).
    let three = want.chars().count() == 3;
    if want.chars().count() < min {
        return Vec::new();
    }
    let mut words = Vec::new();
    let mut at = 0;
    for w in script.split(|c: char| !c.is_ascii_alphabetic()) {
        if !w.is_empty() {
            words.push((at, at + w.len()));
        }
        at += w.len()
            + script[at + w.len()..]
                .chars()
                .next()
                .map_or(0, char::len_utf8);
    }
    let mut out = Vec::new();
    for i in 0..words.len() {
        for j in i..words.len().min(i + 3) {
            // Only words next to each other, with a space or a hyphen between.
            if j > i && !matches!(&script[words[j - 1].1..words[j].0], " " | "-") {
                break;
            }
            let (s, e) = (words[i].0, words[j].1);
            let english = &script[s..e];
            let [dropped, kept] = skeletons_of_english(english);
            let same = if three {
                dropped == want
                    && syllables_of_english(english) == syllables_of_romanised(&romanised)
            } else {
                dropped == want || kept == want
            };
            if same {
                out.push((s, e));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loanwords_match_their_english_spelling_by_the_consonants() {
        let found = |script: &str, r: &str| !loanword_spans(script, r, 3).is_empty();
        assert!(found(
            "golden retriever. the coat…",
            "ゴールデン・レトリバー"
        ));
        assert!(found("it is a golden retriever", "골든 리트리버"));
        assert!(found("a labrador", "ラブラドール"));
        assert!(!found("a labrador retriever", "ゴールデン・レトリバー"));
        assert!(!found("nike", "나이키"), "two consonants are too few");
        assert!(found("tennis", "テニス"));
        assert!(found("tennis", "테니스"));
        assert!(!found("pink macarons", "パンケーキ"));
        assert!(!found("a dark suv", "트럭"));
    }

    #[test]
    fn hangul_and_kana_romanise_by_their_tables() {
        assert_eq!(hangul("부산"), "busan");
        assert_eq!(hangul("서울"), "seoul");
        assert_eq!(hangul("경복궁"), "gyeongbokgung");
        assert_eq!(hangul("한국어"), "hangugeo");
        assert_eq!(kana("しんじゅく"), "shinjuku");
        assert_eq!(kana("ラーメン"), "raamen");
        assert_eq!(kana("きって"), "kitte");
        assert_eq!(kana("とうきょう"), "toukyou");
    }

    #[test]
    fn the_key_forgives_other_systems_and_long_vowels() {
        assert_eq!(key("raamen"), key("ramen"));
        assert_eq!(key("Tōkyō"), key("toukyou"));
        assert_eq!(key("Pusan"), key("busan"));
        assert_eq!(key("sinzyuku"), key("Shinjuku"));
        assert_ne!(key("seoul"), key("busan"));
    }

    #[test]
    fn a_reference_is_found_written_in_another_script() {
        let found = |reply: &str, reference: &str| !spans(reply, reference).is_empty();
        assert!(found("busan이라고 영어로 적혀 있어요.", "부산"));
        assert!(found("<answer>ramen</answer>", "ラーメン"));
        assert!(found("it's a giant panda", "パンダ"));
        assert!(found("パンダです", "panda"));
        assert!(found("서울입니다", "seoul"));
        assert!(!found("it's a bus", "バス"), "a key under four letters");
        assert!(!found("osaka desu", "とうきょう"));
    }
}
