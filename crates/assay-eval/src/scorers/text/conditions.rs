//! Answers offered under conditions: "if it's a fox, C; if it's a dog, A", "트럭이라면 3대,
//! 아니면 2대", "猫なら B、犬なら D". Two or more conditions, each with its own answer, commit to
//! none of them unless the reply answers again after them.

use std::sync::OnceLock;

use regex::Regex;

/// Where the reply's conditions begin and where the sentence holding the last of them ends,
/// when it sets two or more ("if it's a fox … if it's a dog", "…라면 C, …라면 A", "猫なら B、犬なら
/// A", "if … otherwise"). An answer given before the first of them is not offered under them
/// ("The answer is B. A would fit only if …"). A Korean or Japanese condition is a word's ending
/// ("여우라면", "猫なら"), never a word of its own ("라면" is also ramen).
pub fn span(l: &str) -> Option<(usize, usize)> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"\bif\b|\botherwise,|\bor else\b|\belse,|[가-힣](?:이)?라면|[가-힣]다면|아니면|그렇지 않으면|[^\s、。,]なら(?:ば)?[、,\s]|[^\s、。,]ならば|だったら|であれば|でなければ|でないなら|そうでなければ").expect("valid")
    });
    let marks: Vec<(usize, usize)> = r.find_iter(l).map(|m| (m.start(), m.end())).collect();
    if marks.len() < 2 {
        return None;
    }
    let first = marks[0].0;
    let last = marks.last()?.1;
    let end = l[last..]
        .find(['.', '。', '!', '?', '\n'])
        .map_or(l.len(), |i| last + i);
    Some((first, end))
}
