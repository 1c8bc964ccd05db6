//! Text normalisation shared by scorers: NFKC (full-width to half-width), case, whitespace,
//! punctuation, thousands separators.

use unicode_normalization::UnicodeNormalization;

/// NFKC, except that a power of ten keeps its exponent apart: NFKC reads "10²" as "102", so
/// "5.0×10²" would be 5.0×102; it is "5.0×10^2" here.
pub fn nfkc(s: &str) -> String {
    // The scorers ask for the same few texts (the reference, the reply, the question) many
    // times over one verdict: the last ones are kept, per thread.
    thread_local! {
        static LAST: std::cell::RefCell<Vec<(String, String)>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if let Some(hit) = LAST.with(|l| {
        l.borrow()
            .iter()
            .find(|(k, _)| k == s)
            .map(|(_, v)| v.clone())
    }) {
        return hit;
    }
    let out = nfkc_uncached(s);
    LAST.with(|l| {
        let mut l = l.borrow_mut();
        if l.len() >= 8 {
            l.remove(0);
        }
        l.push((s.to_string(), out.clone()));
    });
    out
}

fn nfkc_uncached(s: &str) -> String {
    // LaTeX as the text it typesets, and the minus sign as "-" (NFKC keeps U+2212).
    let s: &str = &super::text::maths::plain(s);
    const SUPERSCRIPTS: &str = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻";
    if !s.contains("10") || !s.chars().any(|c| SUPERSCRIPTS.contains(c)) {
        return s.nfkc().collect();
    }
    let mut marked = String::with_capacity(s.len() + 4);
    let mut rest = s;
    while let Some(i) = rest.find("10") {
        marked.push_str(&rest[..i + 2]);
        rest = &rest[i + 2..];
        if rest.starts_with(|c: char| SUPERSCRIPTS.contains(c)) {
            marked.push('^');
        }
    }
    marked.push_str(rest);
    marked.nfkc().collect()
}

fn is_punct(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            c,
            '、' | '。'
                | '「'
                | '」'
                | '『'
                | '』'
                | '・'
                | '〜'
                | '～'
                | '…'
                | '“'
                | '”'
                | '‘'
                | '’'
                | '【'
                | '】'
                | '〈'
                | '〉'
                | '《'
                | '》'
                | '·'
        )
}

/// Removes thousands separators between digits ("1,234,567" -> "1234567").
pub fn strip_thousands(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, c) in chars.iter().enumerate() {
        if *c == ',' && i > 0 && chars[i - 1].is_ascii_digit() {
            let next3: Vec<&char> = chars[i + 1..].iter().take(4).collect();
            let three_digits = next3.len() >= 3 && next3[..3].iter().all(|d| d.is_ascii_digit());
            let then_not_digit = next3.get(3).is_none_or(|d| !d.is_ascii_digit());
            if three_digits && then_not_digit {
                continue;
            }
        }
        out.push(*c);
    }
    out
}

/// The comparison form of an answer: NFKC, lower case, no thousands separators, no whitespace
/// and no punctuation (a decimal point between digits is kept).
pub fn normalize(s: &str) -> String {
    let s = strip_thousands(&nfkc(s)).to_lowercase();
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, c) in chars.iter().enumerate() {
        if c.is_whitespace() {
            continue;
        }
        if *c == '.'
            && i > 0
            && chars[i - 1].is_ascii_digit()
            && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
        {
            out.push('.');
            continue;
        }
        if is_punct(*c) {
            continue;
        }
        out.push(*c);
    }
    out
}

/// Numbers in a text, after NFKC and thousands separators are removed.
pub fn numbers(s: &str) -> Vec<f64> {
    let s = strip_thousands(&nfkc(s));
    let mut out = Vec::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<f64>| {
        let t = cur.trim_end_matches('.');
        if let Ok(v) = t.parse::<f64>() {
            out.push(v);
        }
        cur.clear();
    };
    for c in s.chars() {
        if c.is_ascii_digit() || (c == '.' && !cur.is_empty()) || (c == '-' && cur.is_empty()) {
            cur.push(c);
        } else {
            flush(&mut cur, &mut out);
        }
    }
    flush(&mut cur, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_width_case_space_and_punctuation() {
        assert_eq!(normalize("Ｔｏｋｙｏ　Tower!"), "tokyotower");
        assert_eq!(normalize("東京、タワー。"), "東京タワー");
        assert_eq!(normalize("1,234.5 円"), "1234.5円");
    }

    #[test]
    fn numbers_with_separators_and_units() {
        assert_eq!(numbers("降水量は1,170mmで、３月です"), vec![1170.0, 3.0]);
        assert_eq!(numbers("-2.5度"), vec![-2.5]);
    }
}
