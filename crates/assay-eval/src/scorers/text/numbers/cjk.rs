//! Japanese numerals and counters (五, 十二, 三つ, ひとり, 4人, さんびき), Korean native numerals
//! (다섯, 세 개, 열두 마리) and Sino-Korean ones (십이번, 만 오천 원).

use super::*;
use crate::scorers::text::{char_at, char_before, is_hangul, is_kanji};

/// Japanese counters (and units) that may follow a numeral.
pub(super) const JA_COUNTERS: &str = "段号頁周缶膳錠束人匹頭羽個本枚台冊歳才回件杯着足軒階名分秒時日月年度円倍割点位体機隻粒輪脚組種色列行文字箇ヶ週曲品通棟戸基冊両席袋箱包瓶玉株巻";

/// Korean counters that may follow a native numeral.
pub(super) const KO_COUNTERS: &[&str] = &[
    "명",
    "개",
    "마리",
    "대",
    "권",
    "잔",
    "장",
    "살",
    "번",
    "사람",
    "그루",
    "송이",
    "채",
    "척",
    "자루",
    "켤레",
    "벌",
    "가지",
    "군데",
    "곳",
    "층",
    "줄",
    "쌍",
    "조각",
    "병",
    "통",
    "봉지",
    "팩",
    "상자",
    "박스",
    "알",
    "분",
    "시간",
    "달",
    "칸",
    "개의",
    "명의",
    "공기",
    "그릇",
    "큰술",
    "작은술",
];

/// Korean particles and copulas that may end a word after a standalone numeral.
pub(super) const KO_ENDINGS: &[&str] = &[
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

pub(super) const KO_TENS: &[(&str, f64)] = &[
    ("스물", 20.0),
    ("스무", 20.0),
    ("서른", 30.0),
    ("마흔", 40.0),
    ("쉰", 50.0),
    ("열", 10.0),
];

/// Korean units: (word, value, standalone form?). Short forms (한, 두, 세, 네) need a counter.
pub(super) const KO_UNITS: &[(&str, f64, bool)] = &[
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

pub(super) const JA_KANA: &[(&str, f64)] = &[
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

pub(super) fn kanji_digit(c: char) -> Option<u32> {
    "〇一二三四五六七八九"
        .chars()
        .position(|d| d == c)
        .map(|i| i as u32)
}

pub(super) fn kanji_mentions(p: &str) -> Vec<Mention> {
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
pub(super) fn kanji_value(run: &[char]) -> Option<f64> {
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

pub(super) fn korean_mentions(p: &str) -> Vec<Mention> {
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

/// Sino-Korean digits and multipliers, as the kanji [`kanji_value`] reads.
fn sino_korean(c: char) -> Option<char> {
    let i = "영공일이삼사오육륙칠팔구십백천만"
        .chars()
        .position(|d| d == c)?;
    "〇〇一二三四五六六七八九十百千万".chars().nth(i)
}

/// Counters and units written after a Sino-Korean numeral, besides the native ones.
pub(super) const SINO_COUNTERS: &[&str] = &[
    "번",
    "원",
    "층",
    "호",
    "년",
    "월",
    "일",
    "분",
    "초",
    "세",
    "회",
    "개월",
    "킬로",
    "미터",
    "센티",
    "밀리",
    "그램",
    "리터",
    "시간",
    "제곱",
    "도",
    "퍼센트",
    "점",
    "등",
    "인분",
    "주년",
    "호선",
    "동",
];

/// Sino-Korean numerals: a run of 일이삼…구 with at least one of 십백천만 (a lone digit syllable is
/// too often a word: 이 "this", 사 "company"), at a word's start, ending the word or followed by a
/// counter or a particle; groups after 만 may follow a space ("만 오천 원").
pub(super) fn sino_korean_mentions(p: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = p.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if sino_korean(c).is_none() || (i > 0 && is_hangul(chars[i - 1].1)) {
            i += 1;
            continue;
        }
        let mut run = Vec::new();
        let mut j = i;
        loop {
            while let Some(k) = chars.get(j).and_then(|(_, c)| sino_korean(*c)) {
                run.push(k);
                j += 1;
            }
            // "만 오천": a space after 만, then more of the number.
            let spaced = run.last() == Some(&'万')
                && chars.get(j).is_some_and(|(_, c)| *c == ' ')
                && chars
                    .get(j + 1)
                    .is_some_and(|(_, c)| sino_korean(*c).is_some());
            if !spaced {
                break;
            }
            j += 1;
        }
        let end = chars.get(j).map_or(p.len(), |(b, _)| *b);
        let word_end = p[end..]
            .char_indices()
            .find(|(_, c)| !is_hangul(*c))
            .map_or(p.len(), |(k, _)| end + k);
        let rest = &p[end..word_end];
        let counted = |s: &str| {
            SINO_COUNTERS
                .iter()
                .chain(KO_COUNTERS)
                .any(|k| s.starts_with(k))
        };
        let next_word = p[word_end..].trim_start_matches(' ');
        // A counter must follow (천사 is an angel, 천장 a ceiling, 십대 the teens): written apart
        // after a lone 천/백/십/만 ("천 원"), attached or apart after a longer numeral ("십이번").
        let apart = rest.is_empty() && p[word_end..].starts_with(' ') && counted(next_word);
        let ends_well = apart || (run.len() >= 2 && counted(rest));
        let multiplied = run.iter().any(|c| "十百千万".contains(*c));
        if multiplied && ends_well {
            if let Some(v) = kanji_value(&run) {
                out.push(Mention {
                    value: v,
                    start,
                    end,
                    digits: false,
                });
            }
        }
        i = j.max(i + 1);
    }
    out
}

/// Japanese numerals in kana, longest first ("じゅう" before "じゅっ"), with the kanji they stand
/// for; the sound changes before a counter (いっ, ろっ, はっ, じゅっ, びゃく, ぜん) included.
const KANA_NUMERALS: &[(&str, char)] = &[
    ("きゅう", '九'),
    ("じゅう", '十'),
    ("じゅっ", '十'),
    ("ひゃく", '百'),
    ("びゃく", '百'),
    ("ぴゃく", '百'),
    ("いち", '一'),
    ("いっ", '一'),
    ("さん", '三'),
    ("よん", '四'),
    ("ろく", '六'),
    ("ろっ", '六'),
    ("なな", '七'),
    ("しち", '七'),
    ("はち", '八'),
    ("はっ", '八'),
    ("じっ", '十'),
    ("せん", '千'),
    ("ぜん", '千'),
    ("まん", '万'),
    ("に", '二'),
    ("ご", '五'),
    ("よ", '四'),
];

/// Counter readings a kana numeral must be followed by (alone, さん is a word).
const KANA_COUNTERS: &[&str] = &[
    "ひき",
    "びき",
    "ぴき",
    "ほん",
    "ぼん",
    "ぽん",
    "こ",
    "にん",
    "まい",
    "だい",
    "さつ",
    "さい",
    "かい",
    "けん",
    "ちゃく",
    "そく",
    "ぞく",
    "とう",
    "えん",
    "ふん",
    "ぷん",
    "びょう",
    "ばん",
    "かげつ",
    "ねん",
    "がつ",
    "にち",
];

/// Words that read like a numeral and a counter but are not ("にほん" is Japan, "いっぱい" a lot).
const KANA_NOT_NUMBERS: &[&str] = &[
    "にほん",
    "いっぱい",
    "いっさい",
    "いっしょ",
    "さんかく",
    "いちばん",
    "いちど",
];

/// Japanese numerals written in kana before a counter ("さんびき", "にほん", "じゅうにまい"), at a
/// word's start.
pub(super) fn kana_numeral_mentions(p: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    for (start, c) in p.char_indices() {
        if !crate::scorers::text::is_hiragana(c)
            || char_before(p, start).is_some_and(crate::scorers::text::is_hiragana)
        {
            continue;
        }
        if KANA_NOT_NUMBERS.iter().any(|w| p[start..].starts_with(w)) {
            continue;
        }
        let mut at = start;
        let mut run = Vec::new();
        while let Some((w, k)) = KANA_NUMERALS.iter().find(|(w, _)| p[at..].starts_with(w)) {
            // A counter that begins like a numeral ("にん" after "さん") ends the number.
            if !run.is_empty() && KANA_COUNTERS.iter().any(|c| p[at..].starts_with(c)) {
                break;
            }
            run.push(*k);
            at += w.len();
        }
        let Some(counter) = KANA_COUNTERS.iter().find(|c| p[at..].starts_with(*c)) else {
            continue;
        };
        let after = at + counter.len();
        let ends = char_at(p, after).is_none_or(|a| {
            !crate::scorers::text::is_hiragana(a) || "ですだがはをにのもよねいあ".contains(a)
        });
        // A numeral of one kana (に, ご, よ) is too often a particle or a word's start, except
        // before a counter no word begins with after it ("にひき", "ごにん").
        let short_ok = ["ひき", "びき", "ぴき", "にん", "まい", "だい", "さつ"].contains(counter);
        if run.is_empty() || (at - start < "いち".len() && !short_ok) || !ends {
            continue;
        }
        if let Some(v) = kanji_value(&run) {
            out.push(Mention {
                value: v,
                start,
                end: at,
                digits: false,
            });
        }
    }
    out
}
