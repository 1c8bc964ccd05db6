//! Calendar dates written the ways people write them, read to (year, month, day) so that
//! "2021-03-05" answers "March 5, 2021", "the 4th of July" answers "July 4", "2023/05/03"
//! answers "5月3日" and "10/9" answers "10월 9일".
//!
//! A date written with its month named, or with the year first, or in 月/日 and 월/일, says which
//! number is the month. "04/07" does not: it is read both ways (month first, as in the US, Japan
//! and Korea, and day first), and it decides only when the reply names no other date.

use std::sync::OnceLock;

use regex::{Captures, Regex};

/// A date found in a text (byte offsets into the prepared text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date {
    pub year: Option<i32>,
    pub month: u32,
    pub day: u32,
    /// The other reading of an all-number date ("04/07": April 7 or 4 July).
    pub swapped: Option<(u32, u32)>,
    pub start: usize,
    pub end: usize,
}

impl Date {
    /// Whether the date says which number is the month.
    pub fn explicit(&self) -> bool {
        self.swapped.is_none()
    }

    /// The same day: month and day equal (in either reading of an all-number date), and the year
    /// too when both give one.
    pub fn same(&self, other: &Date) -> bool {
        let years = match (self.year, other.year) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        let days = |d: &Date| {
            let mut v = vec![(d.month, d.day)];
            v.extend(d.swapped);
            v
        };
        years
            && days(self)
                .iter()
                .any(|md| days(other).iter().any(|o| o == md))
    }
}

const MONTHS: &str = r"(?P<mon>january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)";

fn month_number(name: &str) -> Option<u32> {
    let names = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    names
        .iter()
        .position(|n| name.starts_with(n))
        .map(|i| i as u32 + 1)
}

/// A month's or a day's figure in kanji numerals (一 to 三十一).
const K: &str = "[一二三四五六七八九十]{1,3}";

fn patterns() -> &'static [Regex; 5] {
    static R: OnceLock<[Regex; 5]> = OnceLock::new();
    R.get_or_init(|| {
        let re = |p: &str| Regex::new(p).expect("valid");
        [
            // 2021-03-05, 2023/05/03, 2021.3.5
            re(r"(?-u:\b)(?P<y>\d{4})\s*[-/.]\s*(?P<m>\d{1,2})\s*[-/.]\s*(?P<d>\d{1,2})(?-u:\b)"),
            // 2023年5月3日, 令和5年4月1日, 5月3日, 2021년 10월 9일, 10월 9일
            re(&format!(r"(?:(?:(?P<y>\d{{4}}|[〇一二三四五六七八九]{{4}})|(?P<era>明治|大正|昭和|平成|令和)\s*(?P<ey>\d{{1,2}}|元|{K})(?:\s*\(\s*\d{{4}}\s*\))?)\s*(?:年|년)\s*)?(?P<m>\d{{1,2}}|{K})\s*(?:月|월)\s*(?P<d>\d{{1,2}}|{K})\s*(?:日|일)")),
            // March 5, 2021; Jul. 4th; March the 5th
            re(&format!(
                r"\b{MONTHS}\.?\s+(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(?P<y>\d{{4}})\b)?"
            )),
            // 5 March 2021; the 4th of July
            re(&format!(
                r"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTHS}\b\.?(?:,?\s*(?P<y>\d{{4}})\b)?"
            )),
            // 04/07, 10/9, 3/5/2021
            re(r"(?-u:\b)(?P<a>\d{1,2})\s*/\s*(?P<b>\d{1,2})(?:\s*/\s*(?P<y>\d{4}))?(?-u:\b)"),
        ]
    })
}

/// The year a date gives: written out (two digits before 年/년 are this century's: "26년 8월"),
/// or in a Japanese era (令和5年 is 2023; its first year is 元年).
fn year(c: &Captures) -> Option<i32> {
    if let Some(y) = c.name("y") {
        let y = number(y.as_str())?;
        return Some(if y < 100 { 2000 + y } else { y });
    }
    era_year(c.name("era")?.as_str(), c.name("ey")?.as_str())
}

/// The Japanese eras by name, in kanji, romaji and Hangul: one list for every reader of era
/// years (the Western year of each is [`era_year`]'s).
pub const ERA_NAMES: &str = "令和|平成|昭和|大正|明治|reiwa|heisei|sh[oō]wa|taish[oō]|meiji|레이와|헤이세이|쇼와|다이쇼|메이지";

/// An era's own year as written: digits, kanji numerals or 元 (the first).
pub fn era_number(n: &str) -> Option<i32> {
    match n {
        "元" => Some(1),
        n => number(n),
    }
}

/// The Western year of year `n` of a Japanese era, the era named in kanji, romaji or Hangul, the
/// year in digits, in kanji numerals or as 元 (the first).
pub fn era_year(era: &str, n: &str) -> Option<i32> {
    let before_first = match era {
        "明治" | "meiji" | "메이지" => 1867,
        "大正" | "taisho" | "taishō" | "다이쇼" => 1911,
        "昭和" | "showa" | "shōwa" | "쇼와" => 1925,
        "平成" | "heisei" | "헤이세이" => 1988,
        "令和" | "reiwa" | "레이와" => 2018,
        _ => return None,
    };
    let n = era_number(n)?;
    (n >= 1).then_some(before_first + n)
}

/// "Reiwa 6, April 1", "레이와 6년 4월 1일": an era's year written just before a date without
/// one.
fn era_before(p: &str, start: usize) -> Option<i32> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(&format!(
            r"(?P<era>{ERA_NAMES})\s*(?P<n>\d{{1,2}}|元)\s*(?:년|年|,)?\s*$"
        ))
        .expect("valid")
    });
    let from = super::char_boundary_after(p, start.saturating_sub(32));
    let c = r.captures(&p[from..start])?;
    era_year(&c["era"], &c["n"])
}

/// A date's figure in digits or in kanji numerals (令和五年四月一日, 二〇二四年).
fn number(s: &str) -> Option<i32> {
    s.parse().ok().or_else(|| {
        let run: Vec<char> = s.chars().collect();
        super::numbers::kanji_number(&run).map(|v| v as i32)
    })
}

fn num(c: &Captures, name: &str) -> Option<u32> {
    c.name(name)
        .and_then(|m| number(m.as_str()))
        .and_then(|n| u32::try_from(n).ok())
}

fn valid(month: u32, day: u32) -> bool {
    (1..=12).contains(&month) && (1..=31).contains(&day)
}

/// Every date in a prepared text, in order; where two readings overlap, the first pattern's.
pub fn dates(p: &str) -> Vec<Date> {
    let mut found = Vec::new();
    for (k, r) in patterns().iter().enumerate() {
        for c in r.captures_iter(p) {
            let whole = c.get(0).expect("match");
            let year = year(&c).or_else(|| era_before(p, c.get(0).map_or(0, |m| m.start())));
            let date = |month: u32, day: u32, swapped: Option<(u32, u32)>| Date {
                year,
                month,
                day,
                swapped,
                start: whole.start(),
                end: whole.end(),
            };
            // "the last 2 may be discounts": "may" names the month only with a year or "of".
            let may_verb = k == 3
                && c.name("mon").is_some_and(|m| m.as_str() == "may")
                && year.is_none()
                && !whole.as_str().contains(" of ");
            // "roughly 1/2 of the page", "3/4ほど", "1/3 정도": a fraction, not a date.
            let fraction = k == 4 && year.is_none() && {
                let after = p[whole.end()..].trim_start();
                let before = p[..whole.start()].trim_end();
                [
                    "of",
                    "ほど",
                    "程度",
                    "くらい",
                    "ぐらい",
                    "정도",
                    "가량",
                    "쯤",
                    "이상",
                    "以上",
                ]
                .iter()
                .any(|w| after.starts_with(w))
                    || [
                        "about", "roughly", "around", "nearly", "almost", "約", "약", "대략",
                    ]
                    .iter()
                    .any(|w| before.ends_with(w))
            };
            if may_verb || fraction {
                continue;
            }
            let read = match k {
                0 | 1 => num(&c, "m")
                    .zip(num(&c, "d"))
                    .map(|(m, d)| date(m, d, None)),
                2 | 3 => c
                    .name("mon")
                    .and_then(|m| month_number(m.as_str()))
                    .zip(num(&c, "d"))
                    .map(|(m, d)| date(m, d, None)),
                _ => num(&c, "a").zip(num(&c, "b")).and_then(|(a, b)| {
                    match (valid(a, b), valid(b, a)) {
                        (true, true) if a != b => Some(date(a, b, Some((b, a)))),
                        (true, _) => Some(date(a, b, None)),
                        (false, true) => Some(date(b, a, None)),
                        _ => None,
                    }
                }),
            };
            if let Some(d) = read.filter(|d| valid(d.month, d.day)) {
                found.push(d);
            }
        }
    }
    super::first_of_overlaps(found, |d| (d.start, d.end))
}

/// A month of a year without its day ("08/2026", "2026-08", "August 2026", "2026年8月",
/// "2026년 8월"), as expiry dates and cards are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonthOfYear {
    pub year: i32,
    pub month: u32,
    pub start: usize,
    pub end: usize,
}

fn month_patterns() -> &'static [Regex; 4] {
    static R: OnceLock<[Regex; 4]> = OnceLock::new();
    R.get_or_init(|| {
        let re = |p: &str| Regex::new(p).expect("valid");
        [
            re(r"(?-u:\b)(?P<m>\d{1,2})\s*[-/.]\s*(?P<y>\d{4})(?-u:\b)"),
            re(r"(?-u:\b)(?P<y>\d{4})\s*[-/.]\s*(?P<m>\d{1,2})(?-u:\b)"),
            re(&format!(r"\b{MONTHS}\.?,?\s+(?:of\s+)?(?P<y>\d{{4}})\b")),
            // "2026年8月", "令和8年8月", "26년 8월" (a two-digit year before 年 or 년 is this
            // century's).
            re(&format!(r"(?:(?P<y>\d{{4}}|\d{{2}})|(?P<era>明治|大正|昭和|平成|令和)\s*(?P<ey>\d{{1,2}}|元|{K}))\s*(?:年|년)\s*(?P<m>\d{{1,2}}|{K})\s*(?:月|월)")),
        ]
    })
}

/// Every month of a year in a prepared text that is not part of a whole date, in order.
pub fn months_of_year(p: &str) -> Vec<MonthOfYear> {
    let days = dates(p);
    let mut found = Vec::new();
    for r in month_patterns() {
        for c in r.captures_iter(p) {
            let whole = c.get(0).expect("match");
            let (start, end) = (whole.start(), whole.end());
            // "2026-08-15", "2026年8月15日": a day follows, so it is a date (not "08/2026. 10
            // of the tablets").
            let rest = &p[end..];
            let day_follows = rest.starts_with(|ch: char| "-/.".contains(ch))
                && rest[1..].starts_with(|ch: char| ch.is_ascii_digit())
                || regex_day().is_match(rest.trim_start());
            if day_follows || days.iter().any(|d| d.start < end && start < d.end) {
                continue;
            }
            let month =
                num(&c, "m").or_else(|| c.name("mon").and_then(|m| month_number(m.as_str())));
            let year = year(&c);
            if let (Some(month), Some(year)) = (month, year) {
                if (1..=12).contains(&month) {
                    found.push(MonthOfYear {
                        year,
                        month,
                        start,
                        end,
                    });
                }
            }
        }
    }
    found.sort_by_key(|m| m.start);
    super::first_of_overlaps(found, |m| (m.start, m.end))
}

fn regex_day() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"^\d{1,2}\s*(?:日|일)").expect("valid"))
}

/// A reference that is one month of a year and nothing else ("08/2026", "2026年8月").
pub fn month_of_year_reference(p: &str) -> Option<MonthOfYear> {
    let t = p.trim_matches(|c: char| c.is_whitespace() || super::is_clause_mark(c));
    if !could_be_date(t) {
        return None;
    }
    match months_of_year(t).as_slice() {
        [m] if m.start == 0 && m.end == t.len() => Some(*m),
        _ => None,
    }
}

/// Whether a reference may be a date or a month of a year at all: two runs of digits, one of six
/// or eight ("20210305"), a month's or an era's word, or a date's kanji or Hangul. Every
/// reference is asked, most are not dates, and the date patterns are many.
fn could_be_date(t: &str) -> bool {
    if !t.is_ascii() {
        return true;
    }
    let (mut runs, mut run, mut long) = (0, 0, false);
    for b in t.bytes().chain(std::iter::once(b' ')) {
        if b.is_ascii_digit() {
            run += 1;
        } else if run > 0 {
            runs += 1;
            long |= run == 6 || run == 8;
            run = 0;
        }
    }
    if runs >= 2 || long {
        return true;
    }
    let b = t.as_bytes();
    const WORDS: [&[u8]; 17] = [
        b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov",
        b"dec", b"reiwa", b"heisei", b"showa", b"taisho", b"meiji",
    ];
    b.windows(3).any(|w| {
        WORDS
            .iter()
            .any(|m| m.len() >= 3 && w.eq_ignore_ascii_case(&m[..3]))
    })
}

/// A reference that is one date and nothing else ("March 5, 2021", "5月3日", "10월 9일").
pub fn date_reference(p: &str) -> Option<Date> {
    let t = p.trim_matches(|c: char| c.is_whitespace() || super::is_clause_mark(c));
    if !could_be_date(t) {
        return None;
    }
    let found = dates(t);
    match found.as_slice() {
        [d] if d.start == 0 && d.end == t.len() && d.explicit() => Some(*d),
        _ => None,
    }
}

/// A decade ("the 1920s", "1920's", "1920年代", "1920년대").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decade {
    pub year: i32,
    pub start: usize,
    pub end: usize,
}

/// Every decade in a prepared text, in order.
pub fn decades(p: &str) -> Vec<Decade> {
    // Every number reading asks this: most texts hold no decade at all.
    if !["0s", "0's", "0’s", "0 s", "年代", "년대"]
        .iter()
        .any(|w| p.contains(w))
    {
        return Vec::new();
    }
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"(?-u:\b)(?P<y>\d{3}0)(?:\s*['’]?s(?-u:\b)|\s*年代|\s*년대)").expect("valid")
    });
    r.captures_iter(p)
        .filter_map(|c| {
            let whole = c.get(0)?;
            Some(Decade {
                year: c["y"].parse().ok()?,
                start: whole.start(),
                end: whole.end(),
            })
        })
        .collect()
}

/// A reference that is one decade and nothing else ("1920s", "the 1920s", "1920年代").
pub fn decade_reference(p: &str) -> Option<Decade> {
    let t = p.trim_matches(|c: char| c.is_whitespace() || super::is_clause_mark(c));
    let t = t.strip_prefix("the ").unwrap_or(t);
    match decades(t).as_slice() {
        [d] if d.start == 0 && d.end == t.len() => Some(*d),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(s: &str) -> (Option<i32>, u32, u32) {
        let d = dates(s);
        assert_eq!(d.len(), 1, "{s}: {d:?}");
        (d[0].year, d[0].month, d[0].day)
    }

    #[test]
    fn only_a_text_that_may_be_a_date_is_read_for_one() {
        for t in [
            "2021-03-05",
            "20210305",
            "March 5",
            "令和3年",
            "3월",
            "5 dec",
        ] {
            assert!(could_be_date(t), "{t}");
        }
        for t in ["a123", "x", "42", "the red car"] {
            assert!(!could_be_date(t), "{t}");
        }
    }

    #[test]
    fn every_written_form_reads_to_the_same_day() {
        assert_eq!(one("2021-03-05"), (Some(2021), 3, 5));
        assert_eq!(one("taken on 2023/05/03 (a holiday)"), (Some(2023), 5, 3));
        assert_eq!(one("2023年5月3日です"), (Some(2023), 5, 3));
        assert_eq!(one("10월 9일이에요"), (None, 10, 9));
        assert_eq!(one("発行日:令和5年4月1日"), (Some(2023), 4, 1));
        assert_eq!(one("平成元年1月8日"), (Some(1989), 1, 8));
        assert_eq!(one("昭和64年1月7日"), (Some(1989), 1, 7));
        assert_eq!(one("令和6(2024)年4月1日"), (Some(2024), 4, 1));
        assert_eq!(one("令和五年四月一日に発行"), (Some(2023), 4, 1));
        assert_eq!(one("二〇二四年十二月二十五日"), (Some(2024), 12, 25));
        assert_eq!(one("平成元年一月八日"), (Some(1989), 1, 8));
        assert_eq!(one("it's dated reiwa 6, april 1."), (Some(2024), 4, 1));
        assert_eq!(one("레이와 6년 4월 1일로 적혀"), (Some(2024), 4, 1));
        assert_eq!(one("march 5, 2021"), (Some(2021), 3, 5));
        assert_eq!(one("on jul. 4th"), (None, 7, 4));
        assert_eq!(one("the 4th of july"), (None, 7, 4));
        assert_eq!(one("5 march 2021"), (Some(2021), 3, 5));
        assert_eq!(one("it says 25/12"), (None, 12, 25));
    }

    #[test]
    fn an_all_number_date_is_read_both_ways_unless_one_is_impossible() {
        let d = dates("04/07");
        assert_eq!((d[0].month, d[0].day, d[0].swapped), (4, 7, Some((7, 4))));
        let july_4 = date_reference("july 4").expect("a date");
        assert!(d[0].same(&july_4));
        assert!(!dates("the 4th of april")[0].same(&july_4));
        assert!(dates("13/13").is_empty());
        assert!(dates("it covers roughly 1/2 of the page").is_empty());
        assert!(dates("カレンダーの3/4ほどが隠れて").is_empty());
        assert!(dates("the last 2 may be discounts").is_empty());
        assert_eq!(dates("the 2nd of may").len(), 1);
    }

    #[test]
    fn a_month_of_a_year_is_read_in_every_form_and_not_inside_a_date() {
        let one = |s: &str| {
            let m = months_of_year(s);
            assert_eq!(m.len(), 1, "{s}: {m:?}");
            (m[0].year, m[0].month)
        };
        assert_eq!(
            one("exp 2026-08, so august 2026".split(',').next().unwrap()),
            (2026, 8)
        );
        assert_eq!(one("so august 2026"), (2026, 8));
        assert_eq!(one("08/2026"), (2026, 8));
        assert_eq!(one("使用期限は2026年8月です"), (2026, 8));
        assert_eq!(one("2026년 8월까지"), (2026, 8));
        assert_eq!(one("사용기한 26년 8월"), (2026, 8));
        assert_eq!(one("使用期限:令和8年8月"), (2026, 8));
        assert_eq!(one("使用期限:令和八年八月"), (2026, 8));
        assert_eq!(one("exp 08/2026. 10 of the 12 tablets"), (2026, 8));
        assert!(months_of_year("2026-08-15").is_empty());
        assert!(months_of_year("2026年8月15日").is_empty());
        assert!(month_of_year_reference("08/2026").is_some());
        assert!(month_of_year_reference("2026").is_none());
    }

    #[test]
    fn decades_in_three_languages() {
        let years = |s: &str| decades(s).iter().map(|d| d.year).collect::<Vec<_>>();
        assert_eq!(
            years("a model t from the 1920s, or the 1930's"),
            vec![1920, 1930]
        );
        assert_eq!(years("1950年代後半と1960년대"), vec![1950, 1960]);
        assert_eq!(years("built in 1925, 1920 seats"), Vec::<i32>::new());
        assert!(decade_reference("the 1920s").is_some());
        assert!(decade_reference("1920年代").is_some());
        assert!(decade_reference("1920").is_none());
        assert!(decade_reference("1920s cars").is_none());
    }

    #[test]
    fn a_reference_is_a_date_only_when_it_is_nothing_else() {
        assert!(date_reference("5月3日").is_some());
        assert!(date_reference("march 5, 2021").is_some());
        assert!(
            date_reference("3/5").is_none(),
            "an all-number reference says no order"
        );
        assert!(date_reference("the parade on march 5").is_none());
        assert!(date_reference("12").is_none());
    }
}
