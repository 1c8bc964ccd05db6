//! Days of the week in their long and short forms: "Wednesday", "Wed", "水曜日", "水曜", "(水)",
//! "수요일", "수요". A reference that is a weekday is answered by the reply's first weekday no
//! denial governs.

/// Each day's spellings in a prepared text (ASCII lower case), Monday first.
const DAYS: [&[&str]; 7] = [
    &["monday", "mon", "月曜日", "月曜", "월요일", "월요"],
    &["tuesday", "tues", "tue", "火曜日", "火曜", "화요일", "화요"],
    &["wednesday", "wed", "水曜日", "水曜", "수요일", "수요"],
    &[
        "thursday",
        "thurs",
        "thu",
        "木曜日",
        "木曜",
        "목요일",
        "목요",
    ],
    &["friday", "fri", "金曜日", "金曜", "금요일", "금요"],
    &["saturday", "sat", "土曜日", "土曜", "토요일", "토요"],
    &["sunday", "sun", "日曜日", "日曜", "일요일", "일요"],
];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weekday {
    /// 0 for Monday.
    pub day: usize,
    pub start: usize,
    pub end: usize,
}

fn word_at(p: &str, start: usize, spelling: &str) -> bool {
    if !spelling.is_ascii() {
        return true;
    }
    let end = start + spelling.len();
    let before = p[..start].chars().next_back();
    let after = p[end..].chars().next();
    before.is_none_or(|c| !c.is_ascii_alphanumeric())
        && after.is_none_or(|c| !c.is_ascii_alphanumeric())
}

/// Every weekday a prepared text names, in order (the longest spelling at a place).
pub fn weekdays(p: &str) -> Vec<Weekday> {
    let mut found = Vec::new();
    for (day, spellings) in DAYS.iter().enumerate() {
        for s in spellings.iter() {
            for (i, _) in p.match_indices(s) {
                // "sun" and "sat" are English words too: a short form needs a full stop, a comma,
                // a bracket or the end of a line after it.
                let short = s.is_ascii() && s.len() <= 4;
                let closes = p[i + s.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| matches!(c, '.' | ',' | ')' | '\n'));
                if word_at(p, i, s) && (!short || closes) {
                    found.push(Weekday {
                        day,
                        start: i,
                        end: i + s.len(),
                    });
                }
            }
        }
    }
    found.sort_by_key(|w| (w.start, std::cmp::Reverse(w.end)));
    super::first_of_overlaps(found, |w| (w.start, w.end))
}

/// A reference that is one weekday and nothing else.
pub fn weekday_reference(p: &str) -> Option<usize> {
    let t = p
        .trim()
        .trim_matches(|c: char| c.is_ascii_punctuation() || super::is_clause_mark(c));
    match weekdays(t).as_slice() {
        [one] if one.start == 0 && one.end == t.len() => Some(one.day),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    #[test]
    fn long_and_short_forms_name_the_same_day() {
        assert_eq!(weekday_reference(&prepare("水曜日")), Some(2));
        assert_eq!(weekday_reference(&prepare("Wednesday")), Some(2));
        assert_eq!(weekday_reference(&prepare("금요일")), Some(4));
        let days =
            |s: &str| -> Vec<usize> { weekdays(&prepare(s)).iter().map(|w| w.day).collect() };
        assert_eq!(days("水曜です。"), vec![2]);
        assert_eq!(days("It is on Wed."), vec![2]);
        assert_eq!(days("금요일이 아니라 목요일입니다."), vec![4, 3]);
        assert_eq!(days("5月3日(土)"), Vec::<usize>::new());
        assert!(days("We sat on the sunny bench").is_empty());
        assert_eq!(weekday_reference(&prepare("Wed is the day")), None);
    }
}
