//! Numbers as a reply states them, and which one it commits to.
//!
//! A number is written in digits ("1,234", "3.5", "４"), in English words ("twenty-one", "a
//! dozen", "none"), in Japanese numerals and counters (五, 十二, 三つ, ひとり, 4人) or in Korean
//! native numerals (다섯, 세 개, 네 명, 열두 마리). Which number a reply commits to
//! ([`committed`]), in order:
//! 1. numbers a denial governs are out ("not 4 but 5", "4ではなく5", "4가 아니라 5");
//! 2. numbers that only restate the question are out ("3月の降水量は117mmです" for "3月の降水量は？");
//! 3. totals a count is taken from are out ("of the 10 people, 4 ...", "10人中4人");
//! 4. counting aloud keeps only where it ends ("1, 2, 3, 4: four birds"), and nothing when it
//!    trails off ("3, 4, 5... there appear to be");
//! 5. a year is out when the reference is not a year ("built in 1998, it is 26 years old");
//! 6. then the number in the last **answer statement** ("the answer is", "in total", "so",
//!    答え, 合計, 全部で, 정답, 총, 모두 ...), else the number the reply **leads with**.
//!
//! When every number is ruled out by 2-5, those rules are not applied (a reply that only restates
//! still answers).

use std::sync::OnceLock;

use regex::Regex;

use super::{char_at, char_before, is_hangul, is_kanji};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mention {
    pub value: f64,
    pub start: usize,
    pub end: usize,
    /// Written in digits (years are only recognised in digits or before 年/년).
    pub digits: bool,
}

const EN_UNITS: &[(&str, f64)] = &[
    ("zero", 0.0),
    ("none", 0.0),
    ("one", 1.0),
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("thirteen", 13.0),
    ("fourteen", 14.0),
    ("fifteen", 15.0),
    ("sixteen", 16.0),
    ("seventeen", 17.0),
    ("eighteen", 18.0),
    ("nineteen", 19.0),
    ("twenty", 20.0),
    ("thirty", 30.0),
    ("forty", 40.0),
    ("fifty", 50.0),
    ("sixty", 60.0),
    ("seventy", 70.0),
    ("eighty", 80.0),
    ("ninety", 90.0),
    ("dozen", 12.0),
];

/// Japanese counters (and units) that may follow a numeral.
const JA_COUNTERS: &str = "段号頁周缶膳錠束人匹頭羽個本枚台冊歳才回件杯着足軒階名分秒時日月年度円倍割点位体機隻粒輪脚組種色列行文字箇ヶ週曲品通棟戸基冊両席";

/// Korean counters that may follow a native numeral.
const KO_COUNTERS: &[&str] = &[
    "명", "개", "마리", "대", "권", "잔", "장", "살", "번", "사람", "그루", "송이", "채", "척",
    "자루", "켤레", "벌", "가지", "군데", "곳", "층", "줄", "쌍", "조각", "병", "통", "봉지", "알",
    "분", "시간", "달", "칸", "개의", "명의",
];

/// Korean particles and copulas that may end a word after a standalone numeral.
const KO_ENDINGS: &[&str] = &[
    "",
    "이",
    "가",
    "은",
    "는",
    "을",
    "를",
    "입니다",
    "이에요",
    "예요",
    "요",
    "이다",
    "다",
    "도",
    "뿐",
    "만",
    "이요",
    "이야",
    "야",
    "입니까",
    "인",
    "이고",
    "고",
];

const KO_TENS: &[(&str, f64)] = &[
    ("스물", 20.0),
    ("스무", 20.0),
    ("서른", 30.0),
    ("마흔", 40.0),
    ("쉰", 50.0),
    ("열", 10.0),
];

/// Korean units: (word, value, standalone form?). Short forms (한, 두, 세, 네) need a counter.
const KO_UNITS: &[(&str, f64, bool)] = &[
    ("하나", 1.0, true),
    ("둘", 2.0, true),
    ("셋", 3.0, true),
    ("넷", 4.0, true),
    ("다섯", 5.0, true),
    ("여섯", 6.0, true),
    ("일곱", 7.0, true),
    ("여덟", 8.0, true),
    ("아홉", 9.0, true),
    ("한", 1.0, false),
    ("두", 2.0, false),
    ("세", 3.0, false),
    ("네", 4.0, false),
];

const JA_KANA: &[(&str, f64)] = &[
    ("ひとつ", 1.0),
    ("ふたつ", 2.0),
    ("みっつ", 3.0),
    ("よっつ", 4.0),
    ("いつつ", 5.0),
    ("むっつ", 6.0),
    ("ななつ", 7.0),
    ("やっつ", 8.0),
    ("ここのつ", 9.0),
    ("ひとり", 1.0),
    ("ふたり", 2.0),
    ("ぜろ", 0.0),
];

/// Every number in a prepared text, in order.
pub fn mentions(p: &str) -> Vec<Mention> {
    let mut out = digit_mentions(p);
    out.extend(english_mentions(p));
    out.extend(kanji_mentions(p));
    out.extend(korean_mentions(p));
    for (w, v) in JA_KANA {
        for (i, _) in p.match_indices(w) {
            out.push(Mention {
                value: *v,
                start: i,
                end: i + w.len(),
                digits: false,
            });
        }
    }
    out.sort_by_key(|m| m.start);
    // An overlap (a kana word inside a longer one) keeps the first found.
    let mut kept: Vec<Mention> = Vec::with_capacity(out.len());
    for m in out {
        if kept.last().is_none_or(|k| m.start >= k.end) {
            kept.push(m);
        }
    }
    kept
}

fn digit_mentions(p: &str) -> Vec<Mention> {
    let b = p.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        // Part of a word or code ("mp3", "h2o"): not a number.
        let glued = start > 0 && b[start - 1].is_ascii_alphabetic();
        let mut text = String::new();
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() {
                text.push(c as char);
                i += 1;
            } else if c == b','
                && i + 3 < b.len() + 1
                && b.get(i + 1..i + 4)
                    .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
                && b.get(i + 4).is_none_or(|d| !d.is_ascii_digit())
            {
                i += 1;
            } else if c == b'.'
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && !text.contains('.')
            {
                text.push('.');
                i += 1;
            } else {
                break;
            }
        }
        if glued {
            continue;
        }
        let negative = start > 0
            && b[start - 1] == b'-'
            && (start == 1 || !b[start - 2].is_ascii_alphanumeric());
        if let Ok(v) = text.parse::<f64>() {
            out.push(Mention {
                value: if negative { -v } else { v },
                start: if negative { start - 1 } else { start },
                end: i,
                digits: true,
            });
        }
    }
    out
}

fn en_value(w: &str) -> Option<f64> {
    EN_UNITS.iter().find(|(n, _)| *n == w).map(|(_, v)| *v)
}

/// English number words: "twenty-one", "one hundred and five", "a dozen", "none".
fn english_mentions(p: &str) -> Vec<Mention> {
    let words: Vec<(usize, &str)> = word_spans(p);
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (start, w) = words[i];
        let parts: Vec<&str> = w.split('-').collect();
        if !parts
            .iter()
            .all(|x| en_value(x).is_some() || matches!(*x, "hundred" | "thousand" | "million"))
            || en_value(parts[0]).is_none()
        {
            i += 1;
            continue;
        }
        if w == "one"
            && i > 0
            && matches!(
                words[i - 1].1,
                "the"
                    | "this"
                    | "that"
                    | "which"
                    | "each"
                    | "every"
                    | "no"
                    | "any"
                    | "some"
                    | "another"
                    | "a"
                    | "little"
                    | "right"
                    | "left"
            )
        {
            i += 1;
            continue;
        }
        let (mut total, mut current) = (0.0, 0.0);
        let mut end = start + w.len();
        let mut j = i;
        while j < words.len() {
            let (s, w) = words[j];
            if j > i
                && w == "and"
                && words.get(j + 1).is_some_and(|(_, n)| en_value(n).is_some())
                && current >= 100.0
            {
                end = s + w.len();
                j += 1;
                continue;
            }
            let parts: Vec<&str> = w.split('-').collect();
            // Only words written together make one number: "Four. Four people" is two.
            let apart = j > i && !p[end..s].chars().all(char::is_whitespace);
            if j > i
                && (apart
                    || !parts.iter().all(|x| {
                        en_value(x).is_some() || matches!(*x, "hundred" | "thousand" | "million")
                    }))
            {
                break;
            }
            for x in parts {
                match x {
                    "hundred" => current = f64::max(current, 1.0) * 100.0,
                    "thousand" => {
                        total += f64::max(current, 1.0) * 1000.0;
                        current = 0.0;
                    }
                    "million" => {
                        total += f64::max(current, 1.0) * 1_000_000.0;
                        current = 0.0;
                    }
                    _ => current += en_value(x).unwrap_or(0.0),
                }
            }
            end = s + w.len();
            j += 1;
            if en_value(w) == Some(12.0) && w == "dozen" {
                break;
            }
        }
        out.push(Mention {
            value: total + current,
            start,
            end,
            digits: false,
        });
        i = j;
    }
    out
}

/// ASCII words with their byte offsets (hyphenated words kept whole).
fn word_spans(p: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() {
            let s = i;
            while i < b.len()
                && (b[i].is_ascii_alphabetic()
                    || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic)))
            {
                i += 1;
            }
            out.push((s, &p[s..i]));
        } else {
            i += 1;
        }
    }
    out
}

fn kanji_digit(c: char) -> Option<u32> {
    "〇一二三四五六七八九"
        .chars()
        .position(|d| d == c)
        .map(|i| i as u32)
}

fn kanji_mentions(p: &str) -> Vec<Mention> {
    let is_num = |c: char| kanji_digit(c).is_some() || "十百千万".contains(c);
    let mut out = Vec::new();
    let mut iter = p.char_indices().peekable();
    while let Some((start, c)) = iter.next() {
        if !is_num(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        let mut run = vec![c];
        while let Some(&(i, n)) = iter.peek() {
            if !is_num(n) {
                break;
            }
            run.push(n);
            end = i + n.len_utf8();
            iter.next();
        }
        // Inside a word (唯一, 一緒, 統一): not a number. After another kanji only 一 is part
        // of a word; 午後三時 is three o'clock.
        let before =
            run == ['一'] && char_before(p, start).is_some_and(|b| is_kanji(b) && !is_num(b));
        let after = char_at(p, end).is_some_and(|a| is_kanji(a) && !JA_COUNTERS.contains(a));
        if before || after {
            continue;
        }
        if let Some(v) = kanji_value(&run) {
            out.push(Mention {
                value: v,
                start,
                end,
                digits: false,
            });
        }
    }
    out
}

/// 十二 = 12, 二十 = 20, 三百五 = 305, 二〇二四 = 2024.
fn kanji_value(run: &[char]) -> Option<f64> {
    if run.iter().all(|c| kanji_digit(*c).is_some()) {
        let s: String = run
            .iter()
            .map(|c| char::from_digit(kanji_digit(*c).unwrap_or(0), 10).unwrap_or('0'))
            .collect();
        return s.parse().ok();
    }
    let (mut total, mut section, mut digit) = (0u64, 0u64, 0u64);
    for c in run {
        match c {
            '十' => {
                section += digit.max(1) * 10;
                digit = 0;
            }
            '百' => {
                section += digit.max(1) * 100;
                digit = 0;
            }
            '千' => {
                section += digit.max(1) * 1000;
                digit = 0;
            }
            '万' => {
                total += (section + digit).max(1) * 10_000;
                section = 0;
                digit = 0;
            }
            c => digit = kanji_digit(*c)? as u64,
        }
    }
    Some((total + section + digit) as f64)
}

fn korean_mentions(p: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    for (start, c) in p.char_indices() {
        if !is_hangul(c) || char_before(p, start).is_some_and(is_hangul) {
            continue;
        }
        let word_end = p[start..]
            .char_indices()
            .find(|(_, c)| !is_hangul(*c))
            .map(|(i, _)| start + i)
            .unwrap_or(p.len());
        let word = &p[start..word_end];
        if word.starts_with("하나도") || word.starts_with("아무도") {
            out.push(Mention {
                value: 0.0,
                start,
                end: start + "하나도".len(),
                digits: false,
            });
            continue;
        }
        let (mut value, mut len, mut standalone) = (0.0, 0, true);
        if let Some((w, v)) = KO_TENS.iter().find(|(w, _)| word.starts_with(w)) {
            value = *v;
            len = w.len();
            standalone = *w != "스무" && *w != "열";
        }
        if let Some((w, v, alone)) = KO_UNITS.iter().find(|(w, _, _)| word[len..].starts_with(w)) {
            value += v;
            len += w.len();
            standalone = *alone;
        }
        if len == 0 {
            continue;
        }
        let rest = &word[len..];
        let next_word = p[word_end..].trim_start_matches(' ');
        let counter = |s: &str| KO_COUNTERS.iter().any(|k| s.starts_with(k));
        let ok = (standalone && KO_ENDINGS.contains(&rest))
            || counter(rest)
            || (rest.is_empty()
                && word_end < p.len()
                && p[word_end..].starts_with(' ')
                && counter(next_word));
        if ok {
            out.push(Mention {
                value,
                start,
                end: start + len,
                digits: false,
            });
        }
    }
    out
}

/// A reference that is one number (with at most a short unit or noun: "80人", "5 apples",
/// "다섯 명", "two"): its value.
pub fn numeric_reference(p: &str) -> Option<f64> {
    let ms = mentions(p);
    let [m] = ms.as_slice() else {
        return None;
    };
    let rest = format!("{} {}", &p[..m.start], &p[m.end..]);
    let latin: Vec<&str> = rest
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .collect();
    let other = rest
        .chars()
        .filter(|c| !c.is_ascii() && !c.is_whitespace())
        .count();
    (latin.len() <= 2
        && latin.iter().map(|w| w.len()).sum::<usize>() <= 14
        && other <= 4
        && (latin.is_empty() || other == 0))
        .then_some(m.value)
}

fn statement_marks() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?:answer|total|altogether|in all|final count|count is|so|therefore|thus|hence|overall|答え|正解|合計|全部で|計|よって|したがって|つまり|最終的|のは|정답|답은|답:|총|모두|합계|따라서|그러므로|결론|것은)").expect("valid")
    })
}

fn total_before() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?:of the|out of|of all(?: the)?|among(?: the)?|from the)\s*$").expect("valid")
    })
}

fn total_after() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^\s*\S{0,3}?\s*(?:中|のうち|の中|중|가운데)").expect("valid"))
}

/// The end of a number's counter or unit written straight after it ("4개가", "4人"), so that
/// a denial after the unit governs the number.
fn unit_end(p: &str, end: usize) -> usize {
    let mut e = end;
    for c in p[end..].chars() {
        if is_kanji(c) || is_hangul(c) || c == '%' {
            e += c.len_utf8();
        } else {
            break;
        }
    }
    e
}

fn year_like(m: &Mention) -> bool {
    m.digits
        && m.value.fract() == 0.0
        && (1000.0..=2999.0).contains(&m.value)
        && m.end - m.start == 4
}

/// A first impression the reply takes back ("at first I thought 6", "ぱっと見6台", "처음에 6개").
fn retracted(p: &str, m: &Mention) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    let clause_start = p[..m.start]
        .char_indices()
        .rev()
        .find(|(_, c)| matches!(c, ',' | '.' | ';' | '!' | '?' | '\n' | '、' | '。'))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    // A contrast starts the clause that corrects the impression ("6개 같지만 ... 7개").
    let clause_start = [" but ", "however", "지만", "는데", "けど", "けれど", "のに"]
        .iter()
        .filter_map(|w| {
            p[clause_start..m.start]
                .rfind(w)
                .map(|i| clause_start + i + w.len())
        })
        .max()
        .unwrap_or(clause_start);
    R.get_or_init(|| {
        Regex::new(r"at first|initially|first glance|originally|i thought|looked like|looks like|最初|はじめ|初め|ぱっと見|一見|처음|언뜻|얼핏").expect("valid")
    })
    .is_match(&p[clause_start..m.start])
}

/// "한 마리도 없습니다", "一人もいません": not even one, a count of zero.
fn not_even(p: &str, m: &Mention) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    m.value == 1.0
        && R.get_or_init(|| {
            Regex::new(
                r"^\s*[^\s.,。、]*?(?:도\s*(?:없|안 |보이지)|も(?:いな|いま|な|あり|見当たら))",
            )
            .expect("valid")
        })
        .is_match(&p[m.end..])
}

/// A number given as an addition: "one more", "another 2", "もう一人", "한 명 더".
fn is_addition(p: &str, m: &Mention) -> bool {
    let before = &p[..m.start];
    let after = &p[unit_end(p, m.end)..];
    before.trim_end().ends_with("another")
        || before.ends_with("もう")
        || after.starts_with(" more")
        || after.trim_start().starts_with("더")
        || (after.starts_with(' ')
            && after[1..]
                .split(' ')
                .nth(1)
                .is_some_and(|w| w.starts_with('더'))
            && !after[1..].starts_with(|c: char| c.is_ascii()))
}

/// Words after a number that say what it counts are not the asked noun: "3 dogs" when the
/// question counts cats. Function words and a bare number count nothing.
fn counts_other(p: &str, m: &Mention) -> bool {
    const FUNCTION: &[&str] = &[
        "and", "or", "of", "in", "on", "at", "is", "are", "was", "were", "there", "but", "also",
        "the", "a", "an", "total", "more", "other", "than", "to", "from", "with", "by", "it",
        "that", "this", "so", "i", "we", "you", "they",
    ];
    let mut to = (m.end + 24).min(p.len());
    while !p.is_char_boundary(to) {
        to -= 1;
    }
    let after = p[m.end..to]
        .split([',', '.', '、', '。', ';', '\n'])
        .next()
        .unwrap_or("");
    match after
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| !w.is_empty())
    {
        Some(w) => after.trim_start().starts_with(w) && !FUNCTION.contains(&w),
        None => false,
    }
}

/// The noun a counting question asks about: "how many cats" → "cat", "車は何台" → "車",
/// "의자는 몇 개" → "의자".
fn asked_noun(q: &str) -> Option<String> {
    static R: OnceLock<[Regex; 3]> = OnceLock::new();
    let [en, ja, ko] = R.get_or_init(|| {
        [
            Regex::new(r"how many ([a-z]+)").expect("valid"),
            Regex::new(r"([^\s、。はがのをにで]+)(?:は|が)(?:何|いくつ|どれくらい)")
                .expect("valid"),
            Regex::new(r"([^\s]+?)(?:은|는|이|가)\s*몇").expect("valid"),
        ]
    });
    if let Some(c) = en.captures(q) {
        let w = c[1].to_string();
        let stem = w
            .strip_suffix("es")
            .filter(|s| s.len() >= 3)
            .or_else(|| w.strip_suffix('s'))
            .unwrap_or(&w);
        return Some(stem.to_string());
    }
    ja.captures(q)
        .or_else(|| ko.captures(q))
        .map(|c| c[1].to_string())
}

/// Whether the words right after (English) or right before (Japanese, Korean) a number name
/// the noun.
fn counts_noun(p: &str, m: &Mention, noun: &str) -> bool {
    let mut to = (m.end + 24).min(p.len());
    while !p.is_char_boundary(to) {
        to -= 1;
    }
    let mut from = m.start.saturating_sub(15);
    while !p.is_char_boundary(from) {
        from += 1;
    }
    let after = &p[m.end..to];
    let after = after
        .split([',', '.', '、', '。', ';'])
        .next()
        .unwrap_or("");
    // Up to the next number: "3 dogs and 2 cats" counts dogs with 3.
    let after = after
        .split(|c: char| c.is_ascii_digit())
        .next()
        .unwrap_or("");
    let before = &p[from..m.start];
    let before = before
        .rsplit([',', '.', '、', '。', ';'])
        .next()
        .unwrap_or("");
    if noun.is_ascii() {
        after
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .take(3)
            .any(|w| w.starts_with(noun))
    } else {
        before.contains(noun) || after.contains(noun)
    }
}

/// The number a reply commits to, with the rule that chose it (see the module notes).
pub fn committed(
    response: &str,
    question: Option<&str>,
    reference: f64,
) -> Option<(f64, &'static str)> {
    let ms: Vec<Mention> = mentions(response)
        .into_iter()
        .map(|m| {
            if not_even(response, &m) {
                Mention { value: 0.0, ..m }
            } else {
                m
            }
        })
        .collect();
    let kept: Vec<Mention> = ms
        .iter()
        .copied()
        .filter(|m| super::negation::denied(response, m.start, unit_end(response, m.end)).is_none())
        .filter(|m| !retracted(response, m))
        .collect();
    let mut kept = kept;
    drop_counting_aloud(response, &mut kept, true);
    if kept.is_empty() {
        return None;
    }
    let asked: Vec<f64> = question
        .map(|q| mentions(q).iter().map(|m| m.value).collect())
        .unwrap_or_default();
    let ref_is_year = reference.fract() == 0.0 && (1000.0..=2999.0).contains(&reference);
    let mut filtered: Vec<Mention> = kept
        .iter()
        .copied()
        .filter(|m| !asked.contains(&m.value))
        .filter(|m| {
            !total_before().is_match(&response[..m.start])
                && !total_after().is_match(&response[m.end..])
        })
        .filter(|m| ref_is_year || !year_like(m))
        .collect();
    // A year answers "when"; a count, an age or a duration answers the rest.
    if ref_is_year && filtered.iter().any(year_like) {
        filtered.retain(year_like);
    }
    drop_counting_aloud(response, &mut filtered, false);
    // "One more", "another", "もう一人", "한 명 더": an addition, not the count.
    let additive: Vec<Mention> = filtered
        .iter()
        .copied()
        .filter(|m| !is_addition(response, m))
        .collect();
    if !additive.is_empty() {
        filtered = additive;
    }
    // After a correction ("wait, actually", "いや", "아니", "と思いましたが", "줄 알았는데"), the
    // numbers before it are taken back when the reply gives one after it.
    if let Some(c) = super::corrections::last_end(response) {
        if filtered.iter().any(|m| m.start >= c) {
            filtered.retain(|m| m.start >= c);
        }
    }
    let mut cands = if filtered.is_empty() { kept } else { filtered };
    // "45 - 22 = 23": the operands of a calculation are out when its result is there.
    let is_result = |m: &Mention| response[..m.start].trim_end().ends_with('=');
    if cands.iter().any(is_result) {
        let operands: Vec<Mention> = cands
            .iter()
            .copied()
            .filter(|m| {
                let rest = response[unit_end(response, m.end)..].trim_start();
                rest.starts_with(['+', '-', '−', '×', '*', '/', '÷', '=', 'x'])
            })
            .collect();
        cands.retain(|m| !operands.contains(m));
    }
    // The number right after the last answer statement in its sentence.
    let mut stated: Option<Mention> = None;
    for mark in statement_marks().find_iter(response) {
        let word_start =
            mark.start() == 0 || !response.as_bytes()[mark.start() - 1].is_ascii_alphabetic();
        let word_end = response
            .as_bytes()
            .get(mark.end())
            .is_none_or(|b| !b.is_ascii_alphabetic());
        if !(word_start && word_end) {
            continue;
        }
        let next = cands.iter().find(|m| {
            m.start >= mark.end()
                && !response[mark.end()..m.start].contains(['.', '。', '\n', '!', '?'])
        });
        if let Some(m) = next {
            stated = Some(*m);
        }
    }
    // "4 of them", "2 of which", "そのうち2人", "그중 2명": the part counted from a whole.
    if let Some(m) = cands.iter().rev().find(|m| partitive(response, m)) {
        if stated.is_none_or(|s| s.start < m.start) {
            stated = Some(*m);
        }
    }
    // "3 or 4 birds", "3-4", "5匹か6匹": several numbers offered, none committed to.
    if let Some(m) = stated.or(cands.first().copied()) {
        if offered_range(response, &m) {
            return Some((f64::NAN, HEDGE_RULE));
        }
    }
    // Else the numbers that count what the question asks about, when others count other things.
    if let (None, Some(noun)) = (stated, question.and_then(asked_noun)) {
        let counting: Vec<Mention> = cands
            .iter()
            .copied()
            .filter(|m| counts_noun(response, m, &noun))
            .collect();
        if !counting.is_empty() {
            // Japanese and Korean write the noun before its count: numbers that do not count
            // the asked noun count something else ("大人が3人、子どもが2人").
            let cjk = !noun.is_ascii();
            cands.retain(|m| counting.contains(m) || (!cjk && !counts_other(response, m)));
        }
    }
    match stated {
        Some(m) => Some((m.value, "the number of the last answer statement")),
        None => Some((cands[0].value, "the number the reply leads with")),
    }
}

/// The rule of a reply that offers several numbers ("3 or 4"): a hedge, its own outcome.
pub const HEDGE_RULE: &str = "several numbers offered (a hedge)";

fn partitive(p: &str, m: &Mention) -> bool {
    static R: OnceLock<[Regex; 2]> = OnceLock::new();
    let [after, before] = R.get_or_init(|| {
        [
            Regex::new(r"^\s+of\s+(?:them|those|these|which|whom)\b").expect("valid"),
            Regex::new(r"(?:そのうち|うち|その中で|그중|그 중|그중에|이 중)\s*[^\s、。,.]{0,8}$")
                .expect("valid"),
        ]
    });
    let mut from = m.start.saturating_sub(30);
    while !p.is_char_boundary(from) {
        from += 1;
    }
    after.is_match(&p[m.end..]) || before.is_match(&p[from..m.start])
}

fn offered_range(p: &str, m: &Mention) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^[^\s:：0-9.]{0,3}?\s*(?:\bor\b|\bto\b|-|–|~|〜|か|또는|혹은|아니면|이나|나)\s*[0-9一二三四五六七八九十]").expect("valid")
    })
    .is_match(&p[m.end..])
}

/// "1, 2, 3, 4": a run of consecutive counts from one keeps only its last number.
/// A count that trails off ("3, 4, 5... there appear to be") keeps nothing: it never arrived.
fn drop_counting_aloud(p: &str, ms: &mut Vec<Mention>, drop_unfinished: bool) {
    let mut i = 0;
    while i < ms.len() {
        if ms[i].value == 1.0 {
            let mut j = i;
            while j + 1 < ms.len() && ms[j + 1].value == ms[j].value + 1.0 {
                j += 1;
            }
            if j - i >= 2 {
                let rest = &p[ms[j].end..];
                let unfinished = rest.starts_with("...") || rest.starts_with('…');
                ms.drain(
                    i..if unfinished && drop_unfinished {
                        j + 1
                    } else {
                        j
                    },
                );
                if !unfinished || drop_unfinished {
                    continue;
                }
            }
        }
        i += 1;
    }
}

/// A reply that says nothing is there ("none", "there are no dogs", "いません", "없습니다").
pub fn says_absence(p: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"\b(?:none|zero|nobody|no one|not any|n't any|no [a-z]+)\b|いない|いません|ありません|ない|なし|見当たらな|없|아무도|하나도").expect("valid")
    })
    .is_match(p)
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn values(s: &str) -> Vec<f64> {
        mentions(&prepare(s)).iter().map(|m| m.value).collect()
    }

    fn pick(resp: &str, q: Option<&str>, r: f64) -> Option<f64> {
        committed(&prepare(resp), q.map(prepare).as_deref(), r).map(|x| x.0)
    }

    #[test]
    fn numbers_in_every_script() {
        assert_eq!(values("1,234 and 3.5 and -2"), vec![1234.0, 3.5, -2.0]);
        assert_eq!(
            values("twenty-one birds and one hundred and five cars"),
            vec![21.0, 105.0]
        );
        assert_eq!(values("五人と十二匹と三つ"), vec![5.0, 12.0, 3.0]);
        assert_eq!(values("唯一の一緒"), Vec::<f64>::new());
        assert_eq!(values("午後三時です"), vec![3.0]);
        assert_eq!(
            values("다섯 명, 세 개, 열두 마리, 둘이"),
            vec![5.0, 3.0, 12.0, 2.0]
        );
        assert_eq!(values("세계에서 네, 맞습니다"), Vec::<f64>::new());
        assert_eq!(values("mp3 h2o"), Vec::<f64>::new());
        assert_eq!(values("the one on the left has 3"), vec![3.0]);
        assert_eq!(values("ひとりとふたつ"), vec![1.0, 2.0]);
    }

    #[test]
    fn the_number_a_reply_commits_to() {
        assert_eq!(pick("There are 3 dogs and 2 cats.", None, 3.0), Some(3.0));
        assert_eq!(pick("Not 4 but 5.", None, 5.0), Some(5.0));
        assert_eq!(
            pick("Of the 10 people, 4 are wearing hats.", None, 4.0),
            Some(4.0)
        );
        assert_eq!(
            pick("10人中4人が帽子をかぶっています", None, 4.0),
            Some(4.0)
        );
        assert_eq!(
            pick("Built in 1998, it is 26 years old.", None, 26.0),
            Some(26.0)
        );
        assert_eq!(
            pick("Built in 1998, it is 26 years old.", None, 1998.0),
            Some(1998.0)
        );
        assert_eq!(pick("1, 2, 3, 4 — four birds.", None, 4.0), Some(4.0));
        assert_eq!(
            pick("Counting: 1, 2, 3, 4, 5... there appear to be", None, 5.0),
            None
        );
        assert_eq!(
            pick("**Four.** Four people are visible.", None, 4.0),
            Some(4.0)
        );
        assert_eq!(pick("There is only one cat.", None, 1.0), Some(1.0));
        assert_eq!(
            pick(
                "There are 6 people, and 4 of them are wearing hats.",
                None,
                4.0
            ),
            Some(4.0)
        );
        assert_eq!(pick("So, 45 - 22 = 23.", None, 23.0), Some(23.0));
        assert_eq!(
            pick(
                "大人が3人、子どもが2人います。",
                Some("子どもは何人いますか？"),
                2.0
            ),
            Some(2.0)
        );
        assert!(pick("There are 3 or 4 birds.", None, 3.0).is_some_and(f64::is_nan));
        assert_eq!(
            pick("3月の降水量は117mmです。", Some("3月の降水量は？"), 117.0),
            Some(117.0)
        );
        assert_eq!(
            pick("At first I saw 6, but the answer is 7.", None, 7.0),
            Some(7.0)
        );
        assert_eq!(pick("4ではなく5です", None, 5.0), Some(5.0));
        assert_eq!(pick("4개가 아니라 5개입니다", None, 5.0), Some(5.0));
        assert_eq!(
            pick(
                "I can see 3 dogs and 2 cats.",
                Some("How many cats are there?"),
                2.0
            ),
            Some(2.0)
        );
        assert_eq!(
            pick("At first I thought 6, but there are 8 apples.", None, 6.0),
            Some(8.0)
        );
        assert_eq!(
            pick("1998年に建てられたので、築26年です。", None, 26.0),
            Some(26.0)
        );
        assert_eq!(
            pick("築26年なので、1998年ごろの建築です。", None, 1998.0),
            Some(1998.0)
        );
        assert_eq!(pick("새는 한 마리도 없습니다.", None, 0.0), Some(0.0));
        assert_eq!(
            pick("There are 3 cats... wait, actually 4.", None, 3.0),
            Some(4.0)
        );
        assert_eq!(
            pick("4人…いや、右端にもう一人いるので5人です。", None, 5.0),
            Some(5.0)
        );
        assert_eq!(
            pick(
                "두 명... 아니, 뒤에 한 명 더 있어서 세 명입니다.",
                None,
                3.0
            ),
            Some(3.0)
        );
        assert_eq!(
            pick("4人だと思いましたが、よく見ると3人でした。", None, 4.0),
            Some(3.0)
        );
        assert_eq!(
            pick(
                "2. There are also 3 more birds on the roof.",
                Some("How many birds are on the fence?"),
                2.0
            ),
            Some(2.0)
        );
        assert_eq!(
            pick(
                "**Answer:** 12\n\nTwo rows of six eggs.",
                Some("How many eggs?"),
                12.0
            ),
            Some(12.0)
        );
        assert_eq!(
            pick(
                "2番線と3番線がありますが、停まっているのは3番線です。",
                None,
                3.0
            ),
            Some(3.0)
        );
    }

    #[test]
    fn references_that_are_one_number() {
        assert_eq!(numeric_reference(&prepare("80人")), Some(80.0));
        assert_eq!(numeric_reference(&prepare("5 apples")), Some(5.0));
        assert_eq!(numeric_reference(&prepare("다섯 명")), Some(5.0));
        assert_eq!(numeric_reference(&prepare("two")), Some(2.0));
        assert_eq!(numeric_reference(&prepare("3 dogs and 2 cats")), None);
        assert_eq!(numeric_reference(&prepare("Tokyo")), None);
    }
}
