//! Floors of a building as signs and directories write them: "3F", "3階", "3층", "3rd floor",
//! "floor 3"; below ground "B1", "B1F", "B1층", "地下1階", "지하 1층", "basement 1", "basement
//! level 2". A reference that is a floor is answered by the reply's floor no denial governs,
//! whichever way it is written ("B1층" answers "지하 1층"). The ground floor's name differs
//! between countries (a British "ground floor" is an American "1st floor"), so words for it are
//! not read.

use std::sync::OnceLock;

use regex::Regex;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floor {
    /// Above ground from 1; below ground negative (B1 is -1).
    pub level: i32,
    pub start: usize,
    pub end: usize,
}

fn pattern() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"(?x)
            (?:地下|지하|basement\s+(?:level\s+)?)\s*(?P<under>\d{1,3})\s*(?:階|층|f\b|floor\b)?
            | \bb(?P<b>\d{1,3})(?:\s*(?:f\b|階|층|floor\b))?
            | (?P<n>\d{1,3})\s*(?:階|층|f\b|(?:st|nd|rd|th)\s+floor\b|\s*floor\b)
            | \b(?:floor|level)\s+(?P<after>\d{1,3})\b
            | \b(?:on|at|to)\s+the\s+(?P<word>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s+floor\b",
        )
        .expect("valid")
    })
}

/// Every floor a prepared text (ASCII lower case) names, in order.
pub fn floors(p: &str) -> Vec<Floor> {
    pattern()
        .captures_iter(p)
        .filter_map(|c| {
            let whole = c.get(0)?;
            // "5階建て", "5층짜리": a building's height, not a floor.
            let rest = p[whole.end()..].trim_start();
            // "地上5階・地下1階建て": heights joined, the last one marked.
            let joined_height = rest.starts_with(['・', '･', '/', '、'])
                && rest.chars().take(12).collect::<String>().contains('建');
            if ["建", "짜리", "규모"].iter().any(|w| rest.starts_with(w)) || joined_height {
                return None;
            }
            // "Exit B1", "出口B1", "B1 출구": an exit's or a gate's code, when it has no floor's
            // mark.
            if c.name("b").is_some() && !whole.as_str().ends_with(['f', '階', '층', 'r']) {
                let before = p[..whole.start()].trim_end();
                let named = [
                    "exit",
                    "gate",
                    "出口",
                    "출구",
                    "platform",
                    "bus",
                    "vitamin",
                    "ビタミン",
                    "비타민",
                ]
                .iter()
                .any(|w| before.ends_with(w))
                    || ["출구", "出口", "番出口", "exit"]
                        .iter()
                        .any(|w| rest.starts_with(w));
                if named {
                    return None;
                }
            }
            let (level, below) = if let Some(n) = c.name("under").or(c.name("b")) {
                (n.as_str().parse::<i32>().ok()?, true)
            } else if let Some(w) = c.name("word") {
                const WORDS: [&str; 10] = [
                    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                    "ninth", "tenth",
                ];
                (
                    WORDS.iter().position(|x| *x == w.as_str())? as i32 + 1,
                    false,
                )
            } else {
                let n = c.name("n").or(c.name("after"))?;
                (n.as_str().parse::<i32>().ok()?, false)
            };
            // "B1" alone is also a paper size, a vitamin, a bus stop: only with a floor's
            // mark, or in a reply about floors (the reference is one).
            Some(Floor {
                level: if below { -level } else { level },
                start: whole.start(),
                end: whole.end(),
            })
        })
        .filter(|f| f.level != 0)
        .collect()
}

/// A reference that is one floor and nothing else ("지하 1층", "3F", "B2", "3rd floor").
pub fn floor_reference(pr: &str) -> Option<i32> {
    let found = floors(pr.trim());
    match found.as_slice() {
        [f] if f.start == 0 && f.end == pr.trim().len() => Some(f.level),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_read_in_every_notation_and_only_whole_references_are_floors() {
        for (r, level) in [
            ("지하 1층", -1),
            ("b1", -1),
            ("b1층", -1),
            ("地下2階", -2),
            ("basement level 2", -2),
            ("3f", 3),
            ("3階", 3),
            ("3층", 3),
            ("3rd floor", 3),
            ("floor 12", 12),
        ] {
            assert_eq!(floor_reference(r), Some(level), "{r}");
        }
        for r in ["3", "3층 식당가", "b12 bus", "vitamin b1 and b2"] {
            assert_eq!(floor_reference(r), None, "{r}");
        }
        let found: Vec<i32> = floors("식당가는 b1층에 있고, 서점은 3층입니다.")
            .iter()
            .map(|f| f.level)
            .collect();
        assert_eq!(found, [-1, 3]);
        // A building's height and an exit's code are no floors.
        let found: Vec<i32> = floors("5階建てのビルで、レストランは3階にあります。")
            .iter()
            .map(|f| f.level)
            .collect();
        assert_eq!(found, [3]);
        let found: Vec<i32> = floors("use exit b1 and go up; the food court is on 2f.")
            .iter()
            .map(|f| f.level)
            .collect();
        assert_eq!(found, [2]);
        assert_eq!(floors("5층짜리 건물").len(), 0);
    }
}
