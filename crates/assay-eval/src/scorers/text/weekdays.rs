//! Days of the week in their long and short forms: "Wednesday", "Wed", "Mondays", "水曜日",
//! "水曜", "(水)", "수요일", "(수)" (a bare "수요" is also "demand"). A reference that is a weekday is answered by the reply's first weekday no
//! denial governs.

/// Each day's spellings in a prepared text (ASCII lower case), Monday first.
#[rustfmt::skip]
const DAYS: [&[&str]; 7] = [
    &["mondays", "monday", "mon", "月曜日", "月曜", "(月)", "월요일", "(월)"],
    &["tuesdays", "tuesday", "tues", "tue", "火曜日", "火曜", "(火)", "화요일", "(화)"],
    &["wednesdays", "wednesday", "wed", "水曜日", "水曜", "(水)", "수요일", "(수)"],
    &["thursdays", "thursday", "thurs", "thu", "木曜日", "木曜", "(木)", "목요일", "(목)"],
    &["fridays", "friday", "fri", "金曜日", "金曜", "(金)", "금요일", "(금)"],
    &["saturdays", "saturday", "sat", "土曜日", "土曜", "(土)", "토요일", "(토)"],
    &["sundays", "sunday", "sun", "日曜日", "日曜", "(日)", "일요일", "(일)"],
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
                let closes = p[i + s.len()..].chars().next().is_none_or(|c| {
                    matches!(c, '.' | ',' | ')' | '\n' | '-' | '–' | '—' | '~' | '/')
                });
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
    let found = super::first_of_overlaps(found, |w| (w.start, w.end));
    // "Mon–Sat", "月曜〜金曜", "월요일부터 금요일까지": the days of a range are not a day named.
    let joined = |a: &Weekday, b: &Weekday| {
        let between = p[a.end..b.start].trim();
        matches!(
            between,
            "-" | "–" | "—" | "~" | "〜" | "～" | "to" | "through" | "から" | "부터"
        )
    };
    found
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            !(found.get(i + 1).is_some_and(|n| joined(w, n))
                || i.checked_sub(1).is_some_and(|k| joined(&found[k], w)))
        })
        .map(|(_, w)| *w)
        .collect()
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
        assert_eq!(days("5月3日(土)"), vec![5]);
        assert_eq!(days("Closed Mondays."), vec![0]);
        assert_eq!(days("Open Mon–Sat, closed on Sunday."), vec![6]);
        assert!(days("수요 예측 그래프").is_empty());
        assert!(days("We sat on the sunny bench").is_empty());
        assert_eq!(weekday_reference(&prepare("Wed is the day")), None);
    }
}
