//! Clock times written the ways people write them, read to minutes past midnight so that
//! "quarter past three" answers "3:15", "3:30 pm" answers "15:30" and "3時半" answers "3時30分".
//!
//! A time without a half of the day ("3:30", "half past three") is a reading of a clock face and
//! matches either half; "3:30 pm" and "15:30" fix it.

use std::sync::OnceLock;

use regex::{Captures, Regex};

use super::numbers;

/// A time of day: minutes past midnight, and whether the half of the day was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockTime {
    pub minutes: u32,
    pub half_known: bool,
    pub start: usize,
    pub end: usize,
}

impl ClockTime {
    /// The same reading of a clock: equal minutes, or equal on a 12-hour face when either side
    /// did not say which half of the day.
    pub fn same(&self, other: &ClockTime) -> bool {
        if self.half_known && other.half_known {
            self.minutes == other.minutes
        } else {
            self.minutes % 720 == other.minutes % 720
        }
    }
}

const HOUR_WORDS: &str =
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight";

fn patterns() -> &'static [Regex; 4] {
    static R: OnceLock<[Regex; 4]> = OnceLock::new();
    R.get_or_init(|| {
        let h = format!(r"(?P<h>\d{{1,2}}|{HOUR_WORDS})");
        [
            // 3:15, 15:30, 3:30 pm, 3.15pm
            Regex::new(r"(?P<h>(?-u:\b)\d{1,2})\s*[:：]\s*(?P<m>\d{2})(?-u:\b)(?:\s*(?P<ap>a\.?m\.?|p\.?m\.?|午前|午後|오전|오후))?")
                .expect("valid"),
            // quarter past three, half past 3, quarter to four, ten past six, twenty to nine
            Regex::new(&format!(
                r"\b(?:a\s+)?(?P<m>quarter|half|five|ten|twenty|twenty-five|twenty five|\d{{1,2}})(?:\s+minutes)?\s+(?P<rel>past|after|to|before|till)\s+{h}\b(?:\s*(?P<ap>a\.?m\.?|p\.?m\.?))?"
            ))
            .expect("valid"),
            // three o'clock, 3 pm, ten am, three thirty, 3 fifteen
            Regex::new(&format!(
                r"\b{h}\s*(?:(?P<oc>o'?clock|o’clock)|(?P<ap>a\.?m\.?|p\.?m\.?)|\s(?P<mw>fifteen|thirty|forty-five|forty five)\b)"
            ))
            .expect("valid"),
            // 3時15分, 午後3時半, 3시 30분, 오후 3시 반, 三時
            Regex::new(r"(?P<ap>午前|午後|오전|오후)?\s*(?P<h>\d{1,2}|[一二三四五六七八九十]{1,3}|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|열한|열두)\s*(?:時|시)\s*(?:(?P<m>\d{1,2}|[一二三四五六七八九十]{1,3}|[일이삼사오육칠팔구십]{1,3})\s*(?:分|분)(?:\s*(?P<before>前|전))?|(?P<half>半|반))?")
                .expect("valid"),
        ]
    })
}

fn word_value(w: &str) -> Option<u32> {
    let w = w.trim();
    if let Ok(n) = w.parse::<u32>() {
        return Some(n);
    }
    match w {
        "noon" | "midnight" => return Some(12),
        "quarter" => return Some(15),
        "half" => return Some(30),
        "twenty-five" | "twenty five" => return Some(25),
        "forty-five" | "forty five" => return Some(45),
        "한" => return Some(1),
        "두" => return Some(2),
        "세" => return Some(3),
        "네" => return Some(4),
        "열한" => return Some(11),
        "열두" => return Some(12),
        _ => {}
    }
    if let Some(v) = sino_korean(w) {
        return Some(v);
    }
    numbers::whole(w).map(|v| v as u32)
}

/// Sino-Korean numerals for minutes ("십", "이십오", "삼십"), up to 59.
fn sino_korean(w: &str) -> Option<u32> {
    let digit = |c: char| "일이삼사오육칠팔구".find(c).map(|i| i as u32 / 3 + 1);
    let cs: Vec<char> = w.chars().collect();
    if cs.is_empty() || !cs.iter().all(|&c| c == '십' || digit(c).is_some()) {
        return None;
    }
    match cs.iter().position(|&c| c == '십') {
        None if cs.len() == 1 => digit(cs[0]),
        None => None,
        Some(i) => {
            let tens = if i == 0 { 1 } else { digit(cs[0])? };
            let ones = match cs.get(i + 1) {
                Some(&c) => digit(c)?,
                None => 0,
            };
            (i <= 1 && cs.len() <= i + 2).then_some(tens * 10 + ones)
        }
    }
}

fn with_half(hour: u32, minute: u32, ap: Option<&str>) -> Option<(u32, bool)> {
    if hour > 24 || minute > 59 {
        return None;
    }
    let pm = ap.map(|a| a.starts_with('p') || a == "午後" || a == "오후");
    let minutes = match pm {
        Some(true) if hour < 12 => (hour + 12) * 60 + minute,
        Some(false) if hour == 12 => minute,
        _ => (hour % 24) * 60 + minute,
    };
    // A 24-hour figure past noon says the half of the day by itself.
    Some((minutes, pm.is_some() || hour > 12 || hour == 0))
}

/// Every clock time in a prepared text, in order (an overlap keeps the first found).
pub fn times(p: &str) -> Vec<ClockTime> {
    let mut out: Vec<ClockTime> = Vec::new();
    let [colon, relative, oclock, cjk] = patterns();
    let mut push = |c: &Captures, v: Option<(u32, bool)>| {
        if let Some((minutes, half_known)) = v {
            let m = c.get(0).expect("whole match");
            out.push(ClockTime {
                minutes,
                half_known,
                start: m.start(),
                end: m.end(),
            });
        }
    };
    for c in colon.captures_iter(p) {
        let h = c["h"].parse().ok();
        let m = c["m"].parse().ok();
        let v = h
            .zip(m)
            .and_then(|(h, m)| with_half(h, m, c.name("ap").map(|x| x.as_str())));
        push(&c, v);
    }
    for c in relative.captures_iter(p) {
        let v = (|| {
            let h = word_value(&c["h"])?;
            let m = word_value(&c["m"])?;
            let ap = c.name("ap").map(|x| x.as_str());
            if matches!(&c["rel"], "to" | "before" | "till") {
                let h = if h == 1 { 12 } else { h.checked_sub(1)? };
                with_half(h, 60u32.checked_sub(m)?, ap)
            } else {
                with_half(h, m, ap)
            }
        })();
        push(&c, v);
    }
    for c in oclock.captures_iter(p) {
        // "one american flag": "am" must end its word.
        let end = c.get(0).map_or(0, |m| m.end());
        if p[end..].starts_with(|x: char| x.is_ascii_alphabetic()) {
            continue;
        }
        let v = (|| {
            let h = word_value(&c["h"])?;
            let m = c
                .name("mw")
                .map(|m| word_value(m.as_str()))
                .unwrap_or(Some(0))?;
            // "3 fifteen" without o'clock or am/pm only when written as words or a digit
            // hour ("three thirty").
            with_half(h, m, c.name("ap").map(|x| x.as_str()))
        })();
        if c.name("oc").is_some() || c.name("ap").is_some() || c.name("mw").is_some() {
            push(&c, v);
        }
    }
    for c in cjk.captures_iter(p) {
        // "3時間", "3시간", "시계", "一時停止": a duration or a longer word, not a time of day.
        let end = c.get(0).map_or(0, |m| m.end());
        let next = p[end..].chars().next();
        if c.name("m").is_none()
            && c.name("half").is_none()
            && next.is_some_and(|x| {
                (super::is_kanji(x) && !"頃半".contains(x))
                    || (super::is_hangul(x) && !"입이에예요쯤경정반까부".contains(x))
            })
        {
            continue;
        }

        let v = (|| {
            let h = word_value(&c["h"])?;
            let m = match (c.name("m"), c.name("half")) {
                (Some(m), _) => word_value(m.as_str())?,
                (None, Some(_)) => 30,
                (None, None) => 0,
            };
            let ap = c.name("ap").map(|x| x.as_str());
            // "4時15分前", "4시 15분 전": a quarter to four (not "4時15分前後", about 4:15).
            if c.name("before").is_some() && !p[end..].starts_with(['後', '후']) {
                let h = if h == 1 { 12 } else { h.checked_sub(1)? };
                return with_half(h, 60u32.checked_sub(m)?, ap);
            }
            with_half(h, m, ap)
        })();
        push(&c, v);
    }
    // "noon", "正午", "정오": twelve o'clock in the day; "midnight", "자정": in the night.
    static WORDS: OnceLock<Regex> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        Regex::new(r"\b(?:noon|midday|midnight)\b|正午|真夜中|정오|자정").expect("valid")
    });
    for m in words.find_iter(p) {
        let night = matches!(m.as_str(), "midnight" | "真夜中" | "자정");
        out.push(ClockTime {
            minutes: if night { 0 } else { 720 },
            half_known: true,
            start: m.start(),
            end: m.end(),
        });
    }
    super::first_of_overlaps(out, |t| (t.start, t.end))
}

/// Minutes and seconds left ("4 minutes and 12 seconds left", "four minutes and twelve
/// seconds remaining", "残り4分12秒", "4분 12초 남았") as a game clock or a timer shows them,
/// "4:12": read only when a reply names no clock time, and only as what remains (a drive that
/// "took 4 minutes and 12 seconds" is no clock's reading).
pub fn durations(p: &str) -> Vec<ClockTime> {
    static R: OnceLock<Regex> = OnceLock::new();
    static LEFT: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"(?P<m>\d{1,2}|[a-z]+(?:[- ][a-z]+)?)\s*(?:minutes?|mins?|分|분)\s*(?:and\s+)?(?P<s>\d{1,2}|[a-z]+(?:[- ][a-z]+)?)\s*(?:seconds?|secs?|秒|초)")
            .expect("valid")
    });
    // Said as what remains, right after it or right before it, or as what a clock shows; not
    // as time gone ("took", "elapsed", "지났", "経過").
    let left = LEFT.get_or_init(|| {
        Regex::new(r"\b(?:game clock|shot clock|clock|timer|scoreboard)\b|時計|タイマー|시계|타이머|전광판")
            .expect("valid")
    });
    static NEAR: OnceLock<[Regex; 3]> = OnceLock::new();
    let [after_left, before_left, gone] = NEAR.get_or_init(|| {
        [
            Regex::new(r"^\s*(?:left|remaining|to go|to play|が残|残って|남았|남아|남은)")
                .expect("valid"),
            Regex::new(r"(?:残り|あと|남은\s*시간(?:은|이)?|remaining:?|left:?)\s*$")
                .expect("valid"),
            Regex::new(r"\b(?:took|elapsed|passed|gone|ago|since)\b|経過|過ぎ|지났|지난|걸렸|경과")
                .expect("valid"),
        ]
    });
    let sentence = |at: usize, end: usize| {
        let from = super::after_last(p, at, &['.', '。', '!', '?', '\n']);
        let to = p[end..]
            .find(['.', '。', '!', '?', '\n'])
            .map_or(p.len(), |i| end + i);
        &p[from..to]
    };
    r.captures_iter(p)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let value = |s: &str| {
                let s = s.rsplit(' ').next().unwrap_or(s);
                numbers::whole(s)
                    .or_else(|| numbers::whole(&s.replace('-', " ")))
                    .filter(|v| v.fract() == 0.0 && *v >= 0.0)
                    .map(|v| v as u32)
            };
            let (m, s) = (value(&c["m"])?, value(&c["s"])?);
            let from = super::char_boundary_after(p, whole.start().saturating_sub(24));
            let said = sentence(whole.start(), whole.end());
            let remains = after_left.is_match(&p[whole.end()..])
                || before_left.is_match(&p[from..whole.start()])
                || (left.is_match(said) && !gone.is_match(said));
            (s < 60 && remains).then_some(ClockTime {
                minutes: m * 60 + s,
                half_known: false,
                start: whole.start(),
                end: whole.end(),
            })
        })
        .collect()
}

/// A reference that is one clock time and nothing else ("3:15", "15:30", "3時15分", "3시 반").
pub fn time_reference(p: &str) -> Option<ClockTime> {
    let ts = times(p);
    let [t] = ts.as_slice() else {
        return None;
    };
    let rest = format!("{}{}", &p[..t.start], &p[t.end..]);
    rest.chars()
        .all(|c| c.is_whitespace() || super::is_clause_mark(c) || "頃ごろ쯤경".contains(c))
        .then_some(*t)
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn mins(s: &str) -> Vec<u32> {
        times(&prepare(s)).iter().map(|t| t.minutes).collect()
    }

    #[test]
    fn times_written_every_way() {
        assert_eq!(mins("It's quarter past three."), vec![195]);
        assert_eq!(mins("3:30 pm"), vec![930]);
        assert_eq!(mins("Half past three"), vec![210]);
        assert_eq!(mins("Ten o'clock."), vec![600]);
        assert_eq!(mins("3:15です"), vec![195]);
        assert_eq!(mins("3시 반입니다"), vec![210]);
        assert_eq!(mins("午後3時15分"), vec![915]);
        assert_eq!(mins("a quarter to four"), vec![225]);
        assert_eq!(mins("4時15分前です"), vec![225]);
        assert_eq!(mins("4시 15분 전"), vec![225]);
        assert_eq!(mins("4時15分前後"), vec![255]);
        assert_eq!(mins("4시 15분 전후에"), vec![255]);
        assert_eq!(mins("A quarter to eight."), vec![465]);
        assert_eq!(mins("three thirty"), vec![210]);
        assert_eq!(mins("오후 두 시 십 분"), vec![850]);
        assert_eq!(mins("세 시 이십오 분"), vec![205]);
        assert_eq!(mins("There are 3 cats."), Vec::<u32>::new());
        assert_eq!(mins("두 시계 중 왼쪽은 3시 15분입니다"), vec![195]);
        assert_eq!(mins("3시입니다"), vec![180]);
        assert_eq!(mins("3時頃です"), vec![180]);
        assert_eq!(mins("one american flag at 3:15"), vec![195]);
    }

    #[test]
    fn a_clock_face_matches_either_half_of_the_day() {
        let r = time_reference(&prepare("15:30")).expect("a time");
        let t = times(&prepare("3:30 pm"))[0];
        assert!(r.same(&t));
        let t = times(&prepare("half past three"))[0];
        assert!(r.same(&t));
        let t = times(&prepare("3:30 am"))[0];
        assert!(!r.same(&t));
        assert!(time_reference(&prepare("3 dogs")).is_none());
    }

    #[test]
    fn a_sentence_after_a_wide_full_stop_is_read_whole() {
        // The sentence before a duration ended in "。", three bytes wide: no panic.
        let p = prepare("1分12秒です。シュートは1分10秒に放たれています。");
        assert!(durations(&p).is_empty());
        let p = prepare("試合は続いています。残り4分12秒です。");
        assert_eq!(durations(&p).len(), 1);
    }
}
