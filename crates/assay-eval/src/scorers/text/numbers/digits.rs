//! Numbers written in digits: "1,234", "3.5", "４".

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
