//! Numbers as a reply states them, and which one it commits to.
//!
//! A number is written in digits ("1,234", "3.5", "４"), in English words ("twenty-one", "a
//! dozen", "none"), in Japanese numerals and counters (五, 十二, 三つ, ひとり, 4人) or in Korean
//! native numerals (다섯, 세 개, 네 명, 열두 마리). Which number a reply commits to
//! ([`committed`]), in order:
//! 1. numbers a denial governs are out ("not 4 but 5", "4ではなく5", "4가 아니라 5");
//! 2. numbers that only restate the question are out ("3月の降水量は117mmです" for "3月の降水量は？");
//! 3. totals a count is taken from are out ("of the 10 people, 4 ...", "10人中4人");
//! 4. counting aloud keeps only where it ends ("1, 2, 3, 4: four birds"), and nothing when it
//!    trails off ("3, 4, 5... there appear to be");
//! 5. a year is out when the reference is not a year ("built in 1998, it is 26 years old");
//! 6. then the number in the last **answer statement** ("the answer is", "in total", "so",
//!    答え, 合計, 全部で, 정답, 총, 모두 ...), else the number the reply **leads with**.
//!
//! When every number is ruled out by 2-5, those rules are not applied (a reply that only restates
//! still answers).

mod cjk;
mod commitment;
mod digits;
mod english;

use cjk::*;
pub use commitment::{asked_noun, clauses, committed, committed_mention, says_absence, HEDGE_RULE};
use digits::*;
use english::*;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mention {
    pub value: f64,
    pub start: usize,
    pub end: usize,
    /// Written in digits (years are only recognised in digits or before 年/년).
    pub digits: bool,
}

/// Every number in a prepared text, in order.
pub fn mentions(p: &str) -> Vec<Mention> {
    let mut out = digit_mentions(p);
    out.extend(english_mentions(p));
    out.extend(kanji_mentions(p));
    out.extend(korean_mentions(p));
    out.extend(sino_korean_mentions(p));
    out.extend(kana_numeral_mentions(p));
    out.extend(roman_mentions(p));
    for (w, v) in JA_KANA {
        for (i, _) in p.match_indices(w) {
            out.push(Mention {
                value: *v,
                start: i,
                end: i + w.len(),
                digits: false,
            });
        }
    }
    let mut out = without_citations(p, era_years(p, out));
    // "completed in the 1920s": a decade is no year (the decade reader reads it).
    for d in super::dates::decades(p) {
        out.retain(|m| m.end <= d.start || m.start >= d.end);
    }
    mixed_fractions(
        p,
        powers_of_ten(p, super::first_of_overlaps(out, |m| (m.start, m.end))),
    )
}

/// "…の塔です[1][2]", "出典[5]によると", "According to [3], …", "Sources: [1] …": a bracketed
/// figure cites a source and is no number of the reply. Not one after ":" or "=" ("Answer: [5]")
/// nor a reply that is nothing else.
fn without_citations(p: &str, mut found: Vec<Mention>) -> Vec<Mention> {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"\[\s*\d{1,2}(?:\s*[,，、]\s*\d{1,2}){0,3}\s*\]").expect("valid")
    });
    if !p.contains('[') {
        return found;
    }
    for m in r.find_iter(p) {
        let before = p[..m.start()].trim_end();
        // "Answer: [5]", "정답은 [7]개입니다", "the count is [7]": stated as the answer.
        let answered = before.ends_with([':', '：', '=', '은', '는', 'は', 'が'])
            || [" is", " are", " was", " be"]
                .iter()
                .any(|w| before.ends_with(w));
        let alone = before.is_empty() && p[m.end()..].trim().is_empty();
        if answered || alone {
            continue;
        }
        found.retain(|x| x.end <= m.start() || x.start >= m.end());
    }
    found
}

/// The era's own figure of a year of a Japanese era as [`mentions`] reads it ("令和2" → 2,
/// "平成元" → 1); None for any other span.
pub(super) fn era_figure(span: &str) -> Option<f64> {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        let eras = super::dates::ERA_NAMES;
        regex::Regex::new(&format!(
            r"^(?:{eras})\s*(?P<n>\d{{1,2}}|元|[一二三四五六七八九十]{{1,3}})"
        ))
        .expect("valid")
    });
    let n = r.captures(span)?.name("n")?.as_str();
    super::dates::era_number(n).map(f64::from)
}

/// A kanji numeral run's value (十二 = 12, 二〇二四 = 2024), for the date reader.
pub fn kanji_number(run: &[char]) -> Option<f64> {
    kanji_value(run)
}

/// "令和2年", "平成元年", "Reiwa 6年", "레이와 6년", "令和6(2024)年": a year of a Japanese era is
/// one number, its Western year (2020, 1989, 2024), so that it answers "2020年"; the era's own
/// figure is not a number of the reply.
fn era_years(p: &str, mut found: Vec<Mention>) -> Vec<Mention> {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        let eras = super::dates::ERA_NAMES;
        regex::Regex::new(&format!(r"(?P<era>{eras})\s*(?P<n>\d{{1,2}}|元|[一二三四五六七八九十]{{1,3}})\s*(?:\(\s*\d{{4}}\s*\)\s*)?(?P<y>年|년)"))
            .expect("valid")
    });
    for c in r.captures_iter(p) {
        let Some(year) = super::dates::era_year(&c["era"], &c["n"]) else {
            continue;
        };
        let (start, end) = (
            c.get(0).map_or(0, |m| m.start()),
            c.name("y").map_or(0, |m| m.start()),
        );
        found.retain(|m| m.end <= start || m.start >= end);
        found.push(Mention {
            value: year as f64,
            start,
            end,
            digits: true,
        });
    }
    found
}

/// "2 1/4 cups", "1 1/2": a whole number and a fraction after it are one number (2.25, 1.5).
fn mixed_fractions(p: &str, found: Vec<Mention>) -> Vec<Mention> {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r =
        R.get_or_init(|| regex::Regex::new(r"^ (\d{1,2})/(\d{1,2})(?:$|[^\d/])").expect("valid"));
    let mut out: Vec<Mention> = Vec::with_capacity(found.len());
    let mut skip_to = 0;
    for m in found {
        if m.start < skip_to {
            continue;
        }
        let fraction = r.captures(&p[m.end..]).and_then(|c| {
            let n: f64 = c[1].parse().ok()?;
            let d: f64 = c[2].parse().ok()?;
            // Halves to sixteenths, as recipes and rulers write them; not "2024 3/15" (a date).
            let common = [2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0].contains(&d);
            (d > n && n > 0.0 && common && m.value < 1000.0)
                .then(|| (n / d, m.end + 1 + c[1].len() + 1 + c[2].len()))
        });
        match fraction {
            Some((f, end)) if m.digits && m.value.fract() == 0.0 => {
                skip_to = end;
                out.push(Mention {
                    value: m.value + f,
                    end,
                    ..m
                });
            }
            _ => out.push(m),
        }
    }
    out
}

/// "5.0×10^2", "85 x 10^2", "3 * 10**-3": one number, its power of ten and the exponent's
/// figures taken into it (superscripts come here as "^2": [`crate::scorers::normalize::nfkc`]).
fn powers_of_ten(p: &str, found: Vec<Mention>) -> Vec<Mention> {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"^\s*[×x*·]\s*10\s*(?:\^|\*\*)\s*\{?\s*([-−]?\d{1,2})\s*\}?")
            .expect("valid")
    });
    let mut out: Vec<Mention> = Vec::with_capacity(found.len());
    let mut skip_to = 0;
    for m in found {
        if m.start < skip_to {
            continue;
        }
        match r.captures(&p[m.end..]) {
            Some(c) if m.digits => {
                let exp: i32 = c[1].replace('−', "-").parse().unwrap_or(0);
                let end = m.end + c.get(0).map_or(0, |g| g.end());
                skip_to = end;
                out.push(Mention {
                    value: m.value * 10f64.powi(exp),
                    end,
                    ..m
                });
            }
            _ => out.push(m),
        }
    }
    out
}

/// Roman numerals of four letters or more from a thousand up ("MCMXCVIII", "MMXXIV"), as a year
/// on a stone or a film's credits is written; shorter ones ("mix", "cm", "ml", "xi") are too
/// often words or units, and smaller ones name a king or a sequel ("Henry VIII").
fn roman_mentions(p: &str) -> Vec<Mention> {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"\b(m{0,3})(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})\b")
            .expect("valid")
    });
    let value = |s: &str| {
        let v = |c| match c {
            'm' => 1000,
            'd' => 500,
            'c' => 100,
            'l' => 50,
            'x' => 10,
            'v' => 5,
            _ => 1,
        };
        let digits: Vec<i32> = s.chars().map(v).collect();
        let mut total = 0;
        for (i, d) in digits.iter().enumerate() {
            if digits.get(i + 1).is_some_and(|n| n > d) {
                total -= d;
            } else {
                total += d;
            }
        }
        total
    };
    r.find_iter(p)
        .filter(|m| m.len() >= 4 && m.as_str().starts_with('m'))
        .map(|m| Mention {
            value: f64::from(value(m.as_str())),
            start: m.start(),
            end: m.end(),
            digits: false,
        })
        .collect()
}

/// The English scale word a number was written with ("3.5 bn", "1.2 million"), as its factor; 1
/// for none.
pub fn scale_word(written: &str) -> f64 {
    let w = written.trim_end();
    // "560억", "1.2万": digits and one Chinese-style unit (not "1만 2천", a sum of groups).
    let mut chars = w.chars();
    if let Some(f) = chars.next_back().and_then(|c| match c {
        '億' | '억' => Some(1e8),
        '万' | '만' => Some(1e4),
        _ => None,
    }) {
        if chars
            .as_str()
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
        {
            return f;
        }
    }
    [
        ("trillion", 1e12),
        ("billion", 1e9),
        ("million", 1e6),
        ("thousand", 1e3),
        ("bn", 1e9),
        ("mn", 1e6),
    ]
    .iter()
    .find(|(s, _)| w.ends_with(s))
    .map_or(1.0, |(_, f)| *f)
}

/// Whether the scale a reply writes a figure in ("45万", "3 bn") is the one the question asks in,
/// when it names one ("何千人" asks thousands, so "45万人" is not 45 of them).
pub fn scale_agrees(question: Option<&str>, written: &str) -> bool {
    const SCALES: &[(&str, f64)] = &[
        ("千", 1e3),
        ("천", 1e3),
        ("thousand", 1e3),
        ("万", 1e4),
        ("만", 1e4),
        ("million", 1e6),
        ("億", 1e8),
        ("억", 1e8),
        ("billion", 1e9),
        ("bn", 1e9),
        ("mn", 1e6),
    ];
    let asked: Vec<f64> = question
        .map(|q| {
            SCALES
                .iter()
                .filter(|(w, _)| q.contains(w))
                .map(|(_, f)| *f)
                .collect()
        })
        .unwrap_or_default();
    asked.is_empty() || asked.contains(&scale_word(written))
}

/// The value of a text that is one number and nothing else ("five", "十二", "12").
pub fn whole(s: &str) -> Option<f64> {
    let p = super::prepare(s.trim());
    mentions(&p)
        .first()
        .filter(|m| m.start == 0 && m.end == p.len())
        .map(|m| m.value)
}

/// A reference that is one number (with at most a short unit or noun: "80人", "5 apples",
/// "다섯 명", "two"): its value.
pub fn numeric_reference(p: &str) -> Option<f64> {
    let ms = mentions(p);
    let [m] = ms.as_slice() else {
        return None;
    };
    // "17C", "23A", "B12", "@yuki_0310": a seat, a gate, a platform, a handle; a code,
    // compared as text.
    let glued_letter = |s: &str| {
        let mut c = s.chars();
        let letter = c.next().filter(char::is_ascii_alphabetic);
        let alone = c.next().is_none_or(|x| !x.is_ascii_alphanumeric());
        // A seat's or gate's letter (A to F), or a letter that is no unit ("500m", "2L", "3V"
        // are measures).
        letter.is_some_and(|l| {
            alone && (('a'..='f').contains(&l) || super::units::unit_at(&l.to_string()).is_none())
        })
    };
    // "D4827-1936": two digits or more glued after a letter anywhere make the reference a code
    // ("m2", "km3" are units' powers).
    let coded = p
        .as_bytes()
        .windows(3)
        .any(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_digit() && w[2].is_ascii_digit());
    if coded {
        return None;
    }
    if m.digits
        && m.value.fract() == 0.0
        && (glued_letter(&p[m.end..])
            || p[..m.start]
                .chars()
                .next_back()
                .is_some_and(|x| x.is_ascii_alphabetic() || x == '_')
            || p.contains(['@', '#']))
    {
        return None;
    }
    // A known unit is a unit whatever its script ("20 °C", "5 km/h", "3キロメートル").
    if p[..m.start].trim().is_empty() {
        if let Some((_, len)) = super::units::unit_at(&p[m.end..]) {
            if p[m.end + len..].trim().is_empty() {
                return Some(m.value);
            }
        }
    }
    // "μL", "µg": the micro sign is a Latin unit's prefix.
    let rest = format!("{} {}", &p[..m.start], &p[m.end..]).replace(['μ', 'µ'], "u");
    let latin: Vec<&str> = rest
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .collect();
    let other = rest
        .chars()
        .filter(|c| !c.is_ascii() && !c.is_whitespace())
        .count();
    (latin.len() <= 2
        && latin.iter().map(|w| w.len()).sum::<usize>() <= 14
        && other <= 4
        && (latin.is_empty() || other == 0))
        .then_some(m.value)
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn values(s: &str) -> Vec<f64> {
        mentions(&prepare(s)).iter().map(|m| m.value).collect()
    }

    fn pick(resp: &str, q: Option<&str>, r: f64) -> Option<f64> {
        committed(&prepare(resp), q.map(prepare).as_deref(), r).map(|x| x.0)
    }

    #[test]
    fn numbers_in_every_script() {
        assert_eq!(values("1,234 and 3.5 and -2"), vec![1234.0, 3.5, -2.0]);
        assert_eq!(
            values("twenty-one birds and one hundred and five cars"),
            vec![21.0, 105.0]
        );
        assert_eq!(values("this is a twenty-dollar bill"), vec![20.0]);
        assert_eq!(
            values("approximately one and a half kilometres, two and a quarter cups"),
            vec![1.5, 2.25]
        );
        assert_eq!(values("one and a dog"), vec![1.0]);
        assert_eq!(values("it stays red for half a minute"), vec![0.5]);
        assert_eq!(values("half a dozen eggs"), vec![6.0]);
        assert_eq!(values("a one-way street"), Vec::<f64>::new());
        assert_eq!(values("a two-tier cake with 6 candles"), vec![6.0]);
        assert_eq!(values("五人と十二匹と三つ"), vec![5.0, 12.0, 3.0]);
        assert_eq!(values("唯一の一緒"), Vec::<f64>::new());
        assert_eq!(values("午後三時です"), vec![3.0]);
        assert_eq!(
            values("다섯 명, 세 개, 열두 마리, 둘이"),
            vec![5.0, 3.0, 12.0, 2.0]
        );
        assert_eq!(values("세계에서 네, 맞습니다"), Vec::<f64>::new());
        assert_eq!(values("mp3 h2o"), Vec::<f64>::new());
        assert_eq!(values("the one on the left has 3"), vec![3.0]);
        assert_eq!(values("ひとりとふたつ"), vec![1.0, 2.0]);
    }

    #[test]
    fn the_labelled_line_the_question_names_and_a_last_bare_figure() {
        let q = Some("맨 위 선반에 있는 병은 몇 개입니까?");
        let r = "맨 위 선반: 병 4개\n가운데 선반: 병 2개\n아래 선반: 병 6개";
        assert_eq!(pick(r, q, 4.0), Some(4.0));
        let q = Some("How many bottles are on the bottom shelf?");
        let r = "- Top shelf: 4 bottles\n- Bottom shelf: 6 bottles";
        assert_eq!(pick(r, q, 6.0), Some(6.0));
        let q = Some("一番上の棚には瓶が何本ありますか？");
        let r = "・一番上の棚：ワイン2本とジュース3本（計5本）\n・真ん中の棚：ワイン4本\n・一番下の棚：空です";
        assert_eq!(pick(r, q, 5.0), Some(5.0));
        let q = Some("맨 위 칸의 병은 몇 개인가요?");
        let r = "맨 위 칸에 병 4개, 가운데 칸에 2개, 맨 아래 칸에 3개가 있습니다.";
        assert_eq!(pick(r, q, 4.0), Some(4.0));
        let q = Some("この店のカツ丼はいくらですか？");
        let r = "| メニュー | 価格 |\n|---|---|\n| 親子丼 | 800円 |\n| カツ丼 | 900円 |\n| 天丼 | 1,000円 |\n\n※2024年4月時点の価格です。";
        assert_eq!(pick(r, q, 900.0), Some(900.0));
        let q = Some("How many people are in the second image?");
        let r = "The first image shows 3 people sitting at a picnic table. The second image shows 5 people standing by the lake.";
        assert_eq!(pick(r, q, 3.0), Some(5.0));
        let r = "There are 5 people in the second image, compared with 3 in the first image.";
        assert_eq!(pick(r, q, 5.0), Some(5.0));
        let q = Some("2枚目の画像には何人写っていますか？");
        assert_eq!(pick("1枚目の画像には3人が写っています。", q, 3.0), None);
        let q = Some("신호등이 빨간불인 시간은 얼마나 됩니까?");
        let r = "0:15에 빨간불이 되고 0:45에 초록불로 바뀌니까 30초입니다.";
        assert_eq!(pick(r, q, 30.0), Some(30.0));
        let r = "I see 3 on the wire and one more on the roof. 4 birds.";
        assert_eq!(pick(r, Some("How many birds?"), 4.0), Some(4.0));
        let r = "I see 3 on the wire. The roof has 4 birds.";
        assert_eq!(pick(r, Some("How many birds?"), 4.0), Some(3.0));
    }

    #[test]
    fn a_bracketed_figure_that_cites_a_source_is_no_number() {
        assert_eq!(
            values("出典[5]によると、この塔は三重塔です。"),
            Vec::<f64>::new()
        );
        assert_eq!(
            values("three floors [5] plus a basement [2, 3]."),
            vec![3.0]
        );
        assert_eq!(values("[3]에 따르면 이 석탑은 5층"), vec![5.0]);
        assert_eq!(values("Answer: [5]"), vec![5.0]);
        assert_eq!(values("정답은 [7]개입니다."), vec![7.0]);
        assert_eq!(values("[5]"), vec![5.0]);
        assert_eq!(values("box [0.42, 0.31]"), vec![0.42, 0.31]);
    }

    #[test]
    fn a_year_of_a_japanese_era_is_its_western_year() {
        assert_eq!(values("令和2年です"), vec![2020.0]);
        assert_eq!(values("平成元年に建てられた"), vec![1989.0]);
        assert_eq!(values("昭和三十年、5人"), vec![1955.0, 5.0]);
        assert_eq!(values("令和6(2024)年"), vec![2024.0]);
        assert_eq!(values("Reiwa 6年 and 레이와 6년"), vec![2024.0, 2024.0]);
        assert_eq!(
            values("令和0年"),
            vec![0.0],
            "no era year 0: the figure stays"
        );
        assert!(pick("令和2年です。", Some("何年？"), 2020.0) == Some(2020.0));
        assert_eq!(
            pick("令和2年です。", Some("令和何年ですか？"), 2.0),
            Some(2.0)
        );
        assert_eq!(
            pick(
                "레이와 2년이라고 새겨져 있습니다.",
                Some("연도는 레이와 몇 년인가요?"),
                2.0
            ),
            Some(2.0)
        );
    }

    /// Issue 49, holdout7 (charts, receipts, diagrams): scale words and units, decimal commas,
    /// below zero in words.
    #[test]
    fn scales_decimal_commas_and_signs() {
        assert_eq!(values("about 1.2 million visitors"), vec![1.2e6]);
        assert_eq!(
            values("1.2万人、1億2000万円、5千万円"),
            vec![1.2e4, 1.2e8, 5e7]
        );
        assert_eq!(
            values("1만 2천 5백 원, 940만 명, 3억 원"),
            vec![12_500.0, 9.4e6, 3e8]
        );
        assert_eq!(values("€3,5 bn"), vec![3.5e9]);
        assert_eq!(values("rows 1,5,7 and 1,500"), vec![1.0, 5.0, 7.0, 1500.0]);
        assert_eq!(
            values("12,5 cm, 約3,5 cm, 약 5,5 ㎝, 2,5kg"),
            vec![12.5, 3.5, 5.5, 2.5]
        );
        assert_eq!(values("1,5 mice and 3,5 many"), vec![1.0, 5.0, 3.0, 5.0]);
        assert_eq!(values("マイナス5度、영하 12도"), vec![-5.0, -12.0]);
    }

    #[test]
    fn sino_korean_and_kana_numerals() {
        assert_eq!(values("이십오 번 버스, 만 오천 원"), vec![25.0, 15000.0]);
        assert_eq!(values("삼백 명이 왔어요"), vec![300.0]);
        // 이 "this", 사람, 백화점, 만약: words, not numbers.
        assert_eq!(values("이 사람은 백화점에 만약 갔다면"), Vec::<f64>::new());
        assert_eq!(
            values("さんびきです。じゅうにまい、ろっぽん"),
            vec![3.0, 12.0, 6.0]
        );
        assert_eq!(values("にほんのいっぱいのさんぽ"), Vec::<f64>::new());
        assert_eq!(values("にひきいるよ、ごにん"), vec![2.0, 5.0]);
        assert_eq!(values("built in MCMXCVIII, chapter XII"), vec![1998.0]);
        assert_eq!(values("Henry VIII and his court"), Vec::<f64>::new());
        assert_eq!(values("천장, 십대, 천사입니다, 천 원"), vec![1000.0]);
        assert_eq!(values("いちばん奥"), Vec::<f64>::new());
        assert_eq!(values("mix 2 ml of milk"), vec![2.0]);
    }

    #[test]
    fn the_number_a_reply_commits_to() {
        assert_eq!(pick("There are 3 dogs and 2 cats.", None, 3.0), Some(3.0));
        assert_eq!(pick("Not 4 but 5.", None, 5.0), Some(5.0));
        assert_eq!(
            pick("Of the 10 people, 4 are wearing hats.", None, 4.0),
            Some(4.0)
        );
        assert_eq!(
            pick("10人中4人が帽子をかぶっています", None, 4.0),
            Some(4.0)
        );
        assert_eq!(
            pick("Built in 1998, it is 26 years old.", None, 26.0),
            Some(26.0)
        );
        assert_eq!(
            pick("Built in 1998, it is 26 years old.", None, 1998.0),
            Some(1998.0)
        );
        assert_eq!(pick("1, 2, 3, 4 — four birds.", None, 4.0), Some(4.0));
        assert_eq!(
            pick("Counting: 1, 2, 3, 4, 5... there appear to be", None, 5.0),
            None
        );
        assert_eq!(
            pick("**Four.** Four people are visible.", None, 4.0),
            Some(4.0)
        );
        assert_eq!(pick("There is only one cat.", None, 1.0), Some(1.0));
        assert_eq!(
            pick(
                "There are 6 people, and 4 of them are wearing hats.",
                None,
                4.0
            ),
            Some(4.0)
        );
        assert_eq!(pick("So, 45 - 22 = 23.", None, 23.0), Some(23.0));
        assert_eq!(
            pick(
                "大人が3人、子どもが2人います。",
                Some("子どもは何人いますか？"),
                2.0
            ),
            Some(2.0)
        );
        assert!(pick("There are 3 or 4 birds.", None, 3.0).is_some_and(f64::is_nan));
        assert!(pick("There are 5 birds, maybe 6.", None, 5.0).is_some_and(f64::is_nan));
        assert_eq!(
            pick(
                "I count 3 people — probably two adults and a child.",
                None,
                3.0
            ),
            Some(3.0)
        );
        assert_eq!(
            pick("There are 5 cars. 2 cars might be taxis.", None, 5.0),
            Some(5.0)
        );
        assert_eq!(
            pick("3月の降水量は117mmです。", Some("3月の降水量は？"), 117.0),
            Some(117.0)
        );
        assert_eq!(
            pick("At first I saw 6, but the answer is 7.", None, 7.0),
            Some(7.0)
        );
        assert_eq!(pick("4ではなく5です", None, 5.0), Some(5.0));
        assert_eq!(pick("4개가 아니라 5개입니다", None, 5.0), Some(5.0));
        assert_eq!(
            pick(
                "I can see 3 dogs and 2 cats.",
                Some("How many cats are there?"),
                2.0
            ),
            Some(2.0)
        );
        assert_eq!(
            pick("At first I thought 6, but there are 8 apples.", None, 6.0),
            Some(8.0)
        );
        assert_eq!(
            pick("1998年に建てられたので、築26年です。", None, 26.0),
            Some(26.0)
        );
        assert_eq!(
            pick("築26年なので、1998年ごろの建築です。", None, 1998.0),
            Some(1998.0)
        );
        assert_eq!(pick("새는 한 마리도 없습니다.", None, 0.0), Some(0.0));
        assert_eq!(
            pick("There are 3 cats... wait, actually 4.", None, 3.0),
            Some(4.0)
        );
        assert_eq!(
            pick("4人…いや、右端にもう一人いるので5人です。", None, 5.0),
            Some(5.0)
        );
        assert_eq!(
            pick(
                "두 명... 아니, 뒤에 한 명 더 있어서 세 명입니다.",
                None,
                3.0
            ),
            Some(3.0)
        );
        assert_eq!(
            pick("4人だと思いましたが、よく見ると3人でした。", None, 4.0),
            Some(3.0)
        );
        assert_eq!(
            pick(
                "2. There are also 3 more birds on the roof.",
                Some("How many birds are on the fence?"),
                2.0
            ),
            Some(2.0)
        );
        assert_eq!(
            pick(
                "**Answer:** 12\n\nTwo rows of six eggs.",
                Some("How many eggs?"),
                12.0
            ),
            Some(12.0)
        );
        assert_eq!(
            pick(
                "2番線と3番線がありますが、停まっているのは3番線です。",
                None,
                3.0
            ),
            Some(3.0)
        );
    }

    #[test]
    fn references_that_are_one_number() {
        assert_eq!(numeric_reference(&prepare("80人")), Some(80.0));
        assert_eq!(numeric_reference(&prepare("5 apples")), Some(5.0));
        assert_eq!(numeric_reference(&prepare("다섯 명")), Some(5.0));
        assert_eq!(numeric_reference(&prepare("two")), Some(2.0));
        assert_eq!(numeric_reference(&prepare("3 dogs and 2 cats")), None);
        assert_eq!(numeric_reference(&prepare("Tokyo")), None);
    }
}
