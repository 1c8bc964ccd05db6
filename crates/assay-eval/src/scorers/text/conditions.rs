//! Answers offered under conditions: "if it's a fox, C; if it's a dog, A", "트럭이라면 3대,
//! 아니면 2대", "猫なら B、犬なら D". Two or more conditions, each with its own answer, commit to
//! none of them unless the reply answers again after them.

use std::sync::OnceLock;

use regex::Regex;

/// The end of the sentence holding the last of two or more conditions ("if it's a fox … if it's
/// a dog", "…라면 C, …라면 A", "猫なら B、犬なら A", "if … otherwise"), if the reply sets them.
pub fn end(l: &str) -> Option<usize> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"\bif\b|\botherwise\b|\bif not\b|\belse\b|(?:이)?라면|다면|아니면|그렇지 않으면|なら(?:ば)?[、,\s]|ならば|だったら|であれば|でなければ|でないなら|そうでなければ").expect("valid")
    });
    let marks: Vec<usize> = r.find_iter(l).map(|m| m.end()).collect();
    if marks.len() < 2 {
        return None;
    }
    let last = *marks.last()?;
    let end = l[last..]
        .find(['.', '。', '!', '?', '\n'])
        .map_or(l.len(), |i| last + i);
    Some(end)
}
