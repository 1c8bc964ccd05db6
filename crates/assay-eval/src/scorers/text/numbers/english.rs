//! Numbers in English words: "twenty-one", "one hundred and five", "a dozen", "none".

use super::*;

pub(super) const EN_UNITS: &[(&str, f64)] = &[
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

pub(super) fn en_value(w: &str) -> Option<f64> {
    EN_UNITS.iter().find(|(n, _)| *n == w).map(|(_, v)| *v)
}

/// English number words: "twenty-one", "one hundred and five", "a dozen", "none".
pub(super) fn english_mentions(p: &str) -> Vec<Mention> {
    // "a twenty-dollar bill", "a three-hour drive": the number before a hyphenated unit (not
    // "one-way", nor "a two-tier cake with 6 candles", "a four-wheel-drive pickup").
    const UNITS: &[&str] = &[
        "dollar",
        "cent",
        "euro",
        "pound",
        "yen",
        "won",
        "peso",
        "year",
        "month",
        "week",
        "day",
        "hour",
        "minute",
        "second",
        "mile",
        "meter",
        "metre",
        "kilometer",
        "kilometre",
        "foot",
        "inch",
        "gallon",
        "liter",
        "litre",
        "percent",
        "person",
        "story",
        "storey",
        "page",
    ];
    let number_part = |x: &str| en_value(x).is_some() || matches!(x, "hundred" | "thousand");
    let words: Vec<(usize, &str)> = word_spans(p)
        .into_iter()
        .map(|(s, w)| {
            if !w.contains('-') {
                return (s, w);
            }
            let parts: Vec<&str> = w.split('-').collect();
            let lead = parts.iter().take_while(|x| number_part(x)).count();
            let unit = parts.get(lead).is_some_and(|u| UNITS.contains(u));
            if lead > 0 && lead < parts.len() && parts[0] != "one" && unit {
                let len = parts[..lead].iter().map(|x| x.len()).sum::<usize>() + lead - 1;
                (s, &w[..len])
            } else {
                (s, w)
            }
        })
        .collect();
    let mut out = Vec::new();
    // "half a minute", "half an hour": a half of the unit after it.
    for k in 0..words.len().saturating_sub(2) {
        let (s, w) = words[k];
        let (a_at, a) = words[k + 1];
        let unit = words[k + 2].1.trim_end_matches('s');
        if w == "half"
            && matches!(a, "a" | "an")
            && matches!(
                unit,
                "minute"
                    | "hour"
                    | "day"
                    | "second"
                    | "mile"
                    | "kilometre"
                    | "kilometer"
                    | "meter"
                    | "metre"
                    | "litre"
                    | "liter"
                    | "dozen"
            )
        {
            // "half a dozen" is six, the dozen taken into it.
            let end = if unit == "dozen" {
                words[k + 2].0 + words[k + 2].1.len()
            } else {
                a_at + a.len()
            };
            out.push(Mention {
                value: if unit == "dozen" { 6.0 } else { 0.5 },
                start: s,
                end,
                digits: false,
            });
        }
    }
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
        // "one and a half kilometres", "two and a quarter cups".
        let mut fraction = 0.0;
        if let [(_, "and"), (_, "a"), (s, part @ ("half" | "quarter")), ..] =
            words[j.min(words.len())..]
        {
            if p[end..s].split_whitespace().collect::<Vec<_>>() == ["and", "a"] {
                fraction = if part == "half" { 0.5 } else { 0.25 };
                end = s + part.len();
                j += 3;
            }
        }
        out.push(Mention {
            value: total + current + fraction,
            start,
            end,
            digits: false,
        });
        i = j;
    }
    out
}

/// ASCII words with their byte offsets (hyphenated words kept whole).
pub(super) fn word_spans(p: &str) -> Vec<(usize, &str)> {
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
