//! Places in a video written the ways people write them, read to seconds from its start, so that
//! "00:01:12", "1分12秒", "1분 12초" and "at the 72-second mark" answer "01:12", and "45秒" answers
//! "00:45". A video benchmark writes a place as `mm:ss`; a clock reading of the same figures is
//! [`super::clock`]'s. A range ("1:20-1:25", "0:35에서 0:40 사이") is read as one, so that a rule
//! can tell a narrow range around the answer from one beside it.

use std::sync::OnceLock;

use regex::{Captures, Regex};

use super::numbers;

/// A place in a video, or a range of places, in seconds from its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub from: u32,
    /// The range's end; `from` for a single place.
    pub to: u32,
    pub start: usize,
    pub end: usize,
}

const WORD_NUMBER: &str = r"\d{1,4}|(?:twenty|thirty|forty|fifty)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|[一二三四五六七八九十]{1,3}";

fn one_pattern() -> String {
    format!(
        r"(?:(?P<h>\d{{1,2}}):(?P<hm>\d{{2}}):(?P<hs>\d{{2}})|(?P<m>\d{{1,3}}):(?P<s>\d{{2}})|(?:(?P<wm>{WORD_NUMBER})\s*(?:minutes?|mins?|分|분)\s*(?:and\s+)?)?(?P<ws>{WORD_NUMBER})\s*(?:-?\s*seconds?(?:\s+mark)?|secs?|s(?-u:\b)|秒|초)|(?P<om>{WORD_NUMBER})\s*(?:minutes?|mins?|分|분)(?:\s*(?:into|in|mark|後|쯤|경))?)"
    )
}

fn patterns() -> &'static (Regex, Regex) {
    static R: OnceLock<(Regex, Regex)> = OnceLock::new();
    R.get_or_init(|| {
        let one = one_pattern();
        // "between 0:38 and 0:45", "1:20-1:25", "0:35에서 0:40"; not "at 1:09 and 1:12 is
        // when …", two places.
        let range = format!(
            r"(?:between\s+(?P<a1>{a1})\s*and|(?P<a>{a})\s*(?:-|–|—|~|〜|to|から|에서|부터))\s*(?P<b>{b})",
            a1 = one.replace("?P<", "?P<a1_"),
            a = one.replace("?P<", "?P<a_"),
            b = one.replace("?P<", "?P<b_"),
        );
        (
            Regex::new(&one).expect("valid"),
            Regex::new(&range).expect("valid"),
        )
    })
}

fn figure(s: &str) -> Option<u32> {
    let s = s.trim();
    s.parse()
        .ok()
        .or_else(|| numbers::whole(s).map(|v| v as u32))
        .or_else(|| numbers::whole(&s.replace('-', " ")).map(|v| v as u32))
}

/// Seconds of one place, its groups named with `prefix`.
fn seconds(c: &Captures, prefix: &str) -> Option<u32> {
    let g = |n: &str| c.name(&format!("{prefix}{n}")).map(|m| m.as_str());
    if let (Some(h), Some(m), Some(s)) = (g("h"), g("hm"), g("hs")) {
        let (h, m, s): (u32, u32, u32) = (h.parse().ok()?, m.parse().ok()?, s.parse().ok()?);
        return (m < 60 && s < 60).then_some(h * 3600 + m * 60 + s);
    }
    if let (Some(m), Some(s)) = (g("m"), g("s")) {
        let (m, s): (u32, u32) = (m.parse().ok()?, s.parse().ok()?);
        return (s < 60).then_some(m * 60 + s);
    }
    if let Some(s) = g("ws") {
        let minutes = g("wm").map_or(Some(0), figure)?;
        return Some(minutes * 60 + figure(s)?);
    }
    g("om").and_then(figure).map(|m| m * 60)
}

/// Every place and range of places in a prepared text, in order.
pub fn places(p: &str) -> Vec<Place> {
    let (one, range) = patterns();
    let mut out = Vec::new();
    for c in range.captures_iter(p) {
        let whole = c.get(0).expect("match");
        let a = seconds(&c, "a_").or_else(|| seconds(&c, "a1_"));
        if let (Some(a), Some(b)) = (a, seconds(&c, "b_")) {
            if a <= b {
                out.push(Place {
                    from: a,
                    to: b,
                    start: whole.start(),
                    end: whole.end(),
                });
            }
        }
    }
    for m in p.match_indices("half a minute") {
        out.push(Place {
            from: 30,
            to: 30,
            start: m.0,
            end: m.0 + m.1.len(),
        });
    }
    for c in one.captures_iter(p) {
        let whole = c.get(0).expect("match");
        // "The video is 2:30 long": its length, no place in it.
        let rest = p[whole.end()..].trim_start();
        if ["long", "in length", "in total", "の長さ", "길이"]
            .iter()
            .any(|w| rest.starts_with(w))
        {
            continue;
        }
        if let Some(s) = seconds(&c, "") {
            out.push(Place {
                from: s,
                to: s,
                start: whole.start(),
                end: whole.end(),
            });
        }
    }
    super::first_of_overlaps(out, |t| (t.start, t.end))
}

/// A reference that is a place in a video: `mm:ss` or `hh:mm:ss` ("00:45", "01:12"), when the
/// question asks about a video or asks for `mm:ss`, the reference is written as video players
/// write it (a leading zero, hours) and the question asks no time of day, or the reply writes
/// a place in seconds ("00:01:12", "45秒", "the 45-second mark").
pub fn place_reference(pr: &str, question: Option<&str>, reply: &str) -> Option<u32> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| Regex::new(r"^(?:(\d{1,2}):)?(\d{1,2}):(\d{2})$").expect("valid"));
    let c = r.captures(pr.trim())?;
    let h: u32 = c.get(1).map_or(Some(0), |h| h.as_str().parse().ok())?;
    let (m, s): (u32, u32) = (c[2].parse().ok()?, c[3].parse().ok()?);
    static CLOCK: OnceLock<Regex> = OnceLock::new();
    let clock = CLOCK.get_or_init(|| {
        // "am" and "pm" as words of their own, not inside "team" or "upmost".
        Regex::new(r"(?i)clock|what time|time of day|o'clock|何時|時計|時刻|몇 시|시계|시각|\d\s*(?:a\.?m|p\.?m)(?:\.|\b)|\bleft\b|\bremain|timer|scoreboard|残り|タイマー|たいまー|남은|남았|타이머|전광판")
            .expect("valid")
    });
    static SECONDS: OnceLock<Regex> = OnceLock::new();
    let seconds = SECONDS.get_or_init(|| {
        Regex::new(r"(?-u:\b)00:\d{2}:\d{2}|\d\s*(?:-?\s*seconds?\b|秒|초)").expect("valid")
    });
    let padded = c
        .get(2)
        .is_some_and(|m| m.as_str().len() == 2 && m.as_str().starts_with('0'));
    // "오전 9시 30분", "6時58分", "7:50 pm": the reply reads a clock.
    static HOUR: OnceLock<Regex> = OnceLock::new();
    let hour = HOUR.get_or_init(|| {
        Regex::new(r"\d\s*(?:時|시)|(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉|열|열한|열두)\s*시\s|午前|午後|오전|오후|(?-u:\b)(?:a\.?m|p\.?m)(?-u:\b)|o'clock")
            .expect("valid")
    });
    let asks_clock = question.is_some_and(|q| clock.is_match(q)) || hour.is_match(reply);
    // A clock read or a time of day asked decides first ("It shows 12:15 a.m." for "00:15").
    let video = !asks_clock
        && (question.is_some_and(asks_video_place)
            || m == 0
            || c.get(1).is_some()
            || (question.is_some() && (padded || seconds.is_match(reply))));
    (video && s < 60).then_some(h * 3600 + m * 60 + s)
}

/// A reference that is whole minutes ("2分", "2 minutes", "2분").
pub fn minutes_reference(pr: &str) -> Option<u32> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| Regex::new(r"^(\d{1,3})\s*(?:minutes?|mins?|分|분)$").expect("valid"));
    r.captures(pr.trim())?[1].parse().ok()
}

/// Whether a question asks where in a video something happens.
pub fn asks_video_place(q: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"video|clip|footage|mm:ss|\bseconds\b|\bsecond mark|what second|exact second|動画|映像|何分何秒|何秒|영상|동영상|몇 분 몇 초|몇 초|시점")
            .expect("valid")
    })
    .is_match(q)
}

/// Whether a question asks roughly ("roughly when", "おおよそ", "대략"), so that a narrow range
/// around the answer answers it.
pub fn asks_roughly(q: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        // Not "turn around", 약국, 子供の頃.
        Regex::new(r"\broughly\b|\babout when\b|\baround when\b|\bapproximately\b|\bapprox\b|\bestimate|おおよそ|およそ|だいたい|大体|いつ頃|いつごろ|대략|쯤|(?:^|\s)약\s")
        .expect("valid")
    })
    .is_match(q)
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn read(s: &str) -> Vec<(u32, u32)> {
        places(&prepare(s)).iter().map(|p| (p.from, p.to)).collect()
    }

    #[test]
    fn places_in_a_video_are_read_to_seconds() {
        assert_eq!(read("dives at 00:01:12, just as"), vec![(72, 72)]);
        assert_eq!(read("1分12秒です。"), vec![(72, 72)]);
        assert_eq!(read("1분 12초쯤입니다."), vec![(72, 72)]);
        assert_eq!(read("45秒のところです。"), vec![(45, 45)]);
        assert_eq!(read("45초 지점에서"), vec![(45, 45)]);
        assert_eq!(
            read("at the 45-second mark (0:45)"),
            vec![(45, 45), (45, 45)]
        );
        assert_eq!(read("Around 1:20-1:25."), vec![(80, 85)]);
        assert_eq!(read("1:20〜1:25あたりです。"), vec![(80, 85)]);
        assert_eq!(read("0:35에서 0:40 사이입니다."), vec![(35, 40)]);
        assert_eq!(read("about two minutes in"), vec![(120, 120)]);
        assert_eq!(read("At 1 min 12 s."), vec![(72, 72)]);
        assert_eq!(read("Half a minute in"), vec![(30, 30)]);
        assert_eq!(
            read("The video is 2:30 long; the goal comes at 1:12."),
            vec![(72, 72)]
        );
        assert_eq!(
            read("struck at 1:09 and 1:12 is when"),
            vec![(69, 69), (72, 72)]
        );
        assert_eq!(read("Between 0:38 and 0:45."), vec![(38, 45)]);
        assert!(!asks_roughly("when does the man turn around?"));
        assert!(asks_roughly("roughly when does the dog jump?"));
    }

    #[test]
    fn a_reference_is_a_place_when_the_question_is_about_a_video() {
        let at = |r: &str, q: &str, reply: &str| place_reference(r, Some(q), reply);
        assert_eq!(place_reference("00:45", None, ""), Some(45));
        assert_eq!(
            at("01:12", "when in the video does he dive?", "1:12"),
            Some(72)
        );
        assert_eq!(
            at("01:12", "ゴールが決まるのは何分何秒ですか？", ""),
            Some(72)
        );
        assert_eq!(
            at("01:12", "when does the goalkeeper dive?", "1:12"),
            Some(72)
        );
        assert_eq!(at("1:12", "when does he dive?", "at 00:01:12"), Some(72));
        assert_eq!(at("1:12", "when does he dive?", "at 1:12"), None);
        assert_eq!(at("03:15", "what time does the shop open?", "3:15"), None);
        assert_eq!(
            at("09:30", "KTX 승차권에 적힌 출발 시각은?", "오전 9시 30분"),
            None
        );
        assert_eq!(at("06:58", "大田に着くのは？", "6時58分に着きます"), None);
        assert_eq!(
            at("00:15", "What time does the clock show?", "12:15 a.m."),
            None
        );
        // "team" and "am I" hold no time of day: the question asks a place in the video.
        assert_eq!(
            at(
                "00:45",
                "when in the video am i holding the cup?",
                "at the 45-second mark."
            ),
            Some(45)
        );
        assert_eq!(
            at(
                "00:45",
                "when in the video does the home team score?",
                "at the 45-second mark."
            ),
            Some(45)
        );
        assert_eq!(
            at("10:30", "영상 속 시계는 몇 시를 가리키나요?", "10시 30분"),
            None
        );
        assert_eq!(at("3:15 pm", "video", ""), None);
    }
}
