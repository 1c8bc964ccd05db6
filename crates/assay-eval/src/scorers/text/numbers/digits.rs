//! Numbers written in digits: "1,234", "3.5", "４", with the words and signs that scale or sign
//! them: "1.2 million", "1.2万", "1億2000万", "1만 2천 5백", "940만", "€3,5 bn" (a decimal comma),
//! "マイナス5", "영하 12".

use super::*;

pub(super) fn digit_mentions(p: &str) -> Vec<Mention> {
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
            } else if (c == b','
                && i + 3 < b.len() + 1
                && b.get(i + 1..i + 4)
                    .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
                && b.get(i + 4).is_none_or(|d| !d.is_ascii_digit()))
                // "1 240 likes", "8 450점": thousands set apart by a space (French, SI).
                || (c == b' '
                    && !text.contains('.')
                    && (1..=3).contains(&text.len())
                    && b.get(i + 1..i + 4)
                        .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
                    && b.get(i + 4).is_none_or(|d| {
                        !d.is_ascii_digit() && !matches!(d, b'-' | b'.' | b',' | b':' | b'/')
                    }))
            {
                i += 1;
            } else if c == b'.'
                && b.get(i + 1).is_some_and(u8::is_ascii_digit)
                && !text.contains('.')
            {
                text.push('.');
                i += 1;
            } else if c == b','
                && !text.contains('.')
                && text.len() <= 3
                && i == start + text.len()
                && (start == 0 || b[start - 1] != b',')
                && decimal_comma(&b[i + 1..])
                && euro_context(p, start, i)
            {
                // "3,5": one or two digits after the comma, then no digit and no further group.
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
        // "영하 12도", "零下5度": below zero in words; "マイナス5度", "minus 3°" only before a
        // temperature ("10 minus 3", "マイナス500円" are sums); "−4": the minus sign.
        let below_zero = !negative && {
            let before = p[..start].trim_end();
            let degrees = ["度", "도", "°", "℃"]
                .iter()
                .any(|u| p[i..].trim_start().starts_with(u));
            ["零下", "氷点下", "영하"]
                .iter()
                .any(|w| before.ends_with(w))
                || p[..start].ends_with('−')
                || (degrees
                    && ["まいなす", "마이너스", "minus"]
                        .iter()
                        .any(|w| before.ends_with(w)))
        };
        if let Ok(v) = text.parse::<f64>() {
            let (v, end) = scaled(p, v, i);
            out.push(Mention {
                value: if negative || below_zero { -v } else { v },
                start: if negative { start - 1 } else { start },
                end,
                digits: true,
            });
            i = end.max(i);
        }
    }
    out
}

/// A decimal comma's tail: one or two digits, then neither a digit nor another ",d" group.
fn decimal_comma(rest: &[u8]) -> bool {
    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    (1..=2).contains(&n)
        && !(rest.get(n) == Some(&b',') && rest.get(n + 1).is_some_and(u8::is_ascii_digit))
}

/// Large units written after digits: "1.2 million", "3 bn", "1.2万", "1億2000万", "1만 2천
/// 5백", "940만". Returns the value and where the number ends. A Chinese-style unit (万, 億, 만,
/// 억, 千, 천, 百, 백) must be attached to its digits; further groups may follow it after one space
/// in Korean ("1만 2천").
fn scaled(p: &str, value: f64, end: usize) -> (f64, usize) {
    const WORDS: &[(&str, f64)] = &[
        (" million", 1e6),
        (" billion", 1e9),
        (" trillion", 1e12),
        (" thousand", 1e3),
        (" bn", 1e9),
        ("bn", 1e9),
        (" mn", 1e6),
        // "3.2K likes", "12k": thousands as counters of followers and views write them.
        ("k", 1e3),
    ];
    for (w, m) in WORDS {
        if let Some(rest) = p[end..].strip_prefix(w) {
            if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
                return (value * m, end + w.len());
            }
        }
    }
    let unit = |c: char| match c {
        '億' | '억' => Some((1e8, true)),
        '万' | '만' => Some((1e4, true)),
        '千' | '천' => Some((1e3, false)),
        '百' | '백' => Some((1e2, false)),
        _ => None,
    };
    let Some(first) = p[end..].chars().next().and_then(unit) else {
        return (value, end);
    };
    // Sections: a big unit (億, 万) closes what came before it; small ones add within a section.
    let (mut total, mut section, mut at) = (0.0, 0.0, end);
    let mut pending = value;
    let mut next_unit = Some(first);
    loop {
        let Some((m, big)) = next_unit else {
            section += pending;
            break;
        };
        at += p[at..].chars().next().map_or(0, char::len_utf8);
        if big {
            total += (section + pending) * m;
            section = 0.0;
        } else {
            section += pending * m;
        }
        pending = 0.0;
        // "5천만", "5천 만원": a big unit straight after a small one scales the section.
        let spaced_big = usize::from(p[at..].starts_with(' '));
        if let Some(u2) = p[at + spaced_big..]
            .chars()
            .next()
            .and_then(unit)
            .filter(|u| u.1 && !big)
        {
            at += spaced_big;
            next_unit = Some(u2);
            continue;
        }
        // Another group: digits (after one space for Korean) with a unit of its own, or the
        // last digits of the number.
        let rest = &p[at..];
        let skip = usize::from(
            rest.starts_with(' ') && rest[1..].starts_with(|c: char| c.is_ascii_digit()),
        );
        // Digits with thousands commas ("1万2,800円").
        let written: String = rest[skip..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == ',')
            .collect();
        let written = written.trim_end_matches(',');
        let digits: String = written.chars().filter(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        let after = at + skip + written.len();
        let u = p[after..].chars().next().and_then(unit);
        // A last group without a unit only after a big unit: straight after it ("1億2000万",
        // "3万5000"), or after a space when a counter follows ("1만 2500원").
        let counted_after = p[after..].starts_with(|c: char| {
            crate::scorers::text::is_hangul(c) || crate::scorers::text::is_kanji(c)
        });
        if u.is_none() && (!big || (skip == 1 && !counted_after)) {
            break;
        }
        pending = digits.parse().unwrap_or(0.0);
        at = after;
        next_unit = u;
    }
    // "7만 빨간색": 만 is also "only"; as ten thousand a counter, a figure or the end follows it.
    let last = p[..at].chars().next_back();
    if last == Some('만') {
        let rest = &p[at..];
        let word = rest.trim_start();
        let counter = KO_COUNTERS
            .iter()
            .chain(SINO_COUNTERS)
            .chain(&["달러", "엔", "km", "m", "톤"])
            .any(|c| word.starts_with(c));
        let ends =
            word.is_empty() || word.starts_with(|c: char| !crate::scorers::text::is_hangul(c));
        let particle = [
            "이",
            "을",
            "의",
            "에",
            "은",
            "입니다",
            "이에요",
            "정도",
            "가량",
        ]
        .iter()
        .any(|c| rest.starts_with(c));
        if !(counter || ends || particle) {
            return (value, end);
        }
    }
    (total + section, at)
}

/// A decimal comma is read only where European figures are written: after "€" or before a scale
/// or a percent ("€3,5 bn", "3,5 %"); "(2,5)" is a pair and "7,10번" a list.
fn euro_context(p: &str, start: usize, comma: usize) -> bool {
    let before = p[..start].trim_end();
    let tail: String = p[comma + 1..]
        .chars()
        .skip_while(char::is_ascii_digit)
        .take(10)
        .collect();
    let tail = tail.trim_start();
    // "12,5 cm", "3,5 kg", "약 5,5 ㎝": a measure is written with a decimal comma where figures
    // are European; a list of measures is not written "3,5 cm".
    const MEASURES: &[&str] = &[
        "cm",
        "mm",
        "km",
        "kg",
        "mg",
        "ml",
        "m",
        "g",
        "l",
        "kmh",
        "km/h",
        "mph",
        "°",
        "度",
        "도",
        "せんち",
        "きろ",
        "みり",
        "めーとる",
        "센티",
        "킬로",
        "밀리",
        "미터",
        "리터",
    ];
    let measure = MEASURES.iter().any(|w| {
        tail.strip_prefix(w)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphabetic()))
    });
    before.ends_with('€')
        || measure
        || ["bn", "mn", "million", "billion", "%", "€", "eur"]
            .iter()
            .any(|w| tail.starts_with(w))
}
