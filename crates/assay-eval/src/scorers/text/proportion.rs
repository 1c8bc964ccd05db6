//! Shares of a whole written as fractions, fraction words or percentages, read to one value in
//! [0, 1], so that "half" answers "50%", "a quarter" answers "25%" and "one third" answers "1/3".

use std::sync::OnceLock;

use regex::Regex;

use super::numbers;

/// A share found in a text, with its byte span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    pub value: f64,
    pub start: usize,
    pub end: usize,
}

const DENOMINATORS: &[(&str, f64)] = &[
    ("half", 2.0),
    ("halves", 2.0),
    ("third", 3.0),
    ("thirds", 3.0),
    ("quarter", 4.0),
    ("quarters", 4.0),
    ("fourth", 4.0),
    ("fourths", 4.0),
    ("fifth", 5.0),
    ("fifths", 5.0),
    ("tenth", 10.0),
    ("tenths", 10.0),
];

fn patterns() -> &'static [Regex; 5] {
    static R: OnceLock<[Regex; 5]> = OnceLock::new();
    R.get_or_init(|| {
        [
            // 1/3, 3/4 (not dates: no third part)
            Regex::new(r"(?:^|[^0-9/])(?P<a>\d{1,3})\s*/\s*(?P<b>\d{1,3})(?:$|[^0-9/])").expect("valid"),
            // 50%, 50 percent, 50パーセント, 50퍼센트
            Regex::new(r"(?P<a>\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b|ぱーせんと|퍼센트|프로)").expect("valid"),
            // a half, one third, two thirds, three quarters, a quarter, half
            Regex::new(r"\b(?:(?P<a>a|an|one|two|three|four|five|six|seven|eight|nine)[\s-]+)?(?P<d>halves|half|thirds|third|quarters|quarter|fourths|fourth|fifths|fifth|tenths|tenth)\b").expect("valid"),
            // 3分の1, 三分の一, 3분의 1
            Regex::new(r"(?P<b>\d+|[一二三四五六七八九十]+)\s*(?:分の|분의)\s*(?P<a>\d+|[一二三四五六七八九十]+)").expect("valid"),
            // 半分, 半数, 절반, 반 (a word of its own)
            // 半額, 반값, half price, half off: a price halved, 50 % off.
            Regex::new(r"半分|半数|半額|절반|반값|half[- ]price|half off|(?:^|\s)반(?:\s*(?:입|이에|이요|정도|쯤)|[.。]|$)").expect("valid"),
        ]
    })
}

fn count(w: &str) -> Option<f64> {
    if w == "a" || w == "an" {
        return Some(1.0);
    }
    numbers::whole(w)
}

/// "6割", "3割5分", "二割": tenths (割) and hundredths (分) of a whole, as Japanese writes shares.
fn wari(p: &str) -> Vec<Share> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"(?P<w>\d{1,2}|[一二三四五六七八九十])\s*割(?:\s*(?P<b>\d|[一二三四五六七八九])\s*分)?")
            .expect("valid")
    });
    r.captures_iter(p)
        .filter_map(|c| {
            let m = c.get(0)?;
            // "2割引" is a discount; "1割未満", "3割以上" bounds; "3〜4割" a range.
            let after = &p[m.end()..];
            let before = p[..m.start()].trim_end();
            if ["引", "未満", "以上", "以下", "弱", "強", "程度"]
                .iter()
                .any(|w| after.starts_with(w))
                || before.ends_with(['〜', '~', '-', '～', '–'])
            {
                return None;
            }
            let w = numbers::whole(&c["w"])?;
            let b = c
                .name("b")
                .map_or(Some(0.0), |b| numbers::whole(b.as_str()))?;
            Some(Share {
                value: (w * 10.0 + b) / 100.0,
                start: m.start(),
                end: m.end(),
            })
        })
        .filter(|s| (0.0..=1.0).contains(&s.value))
        .collect()
}

/// "2割引", "3割引き": a discount of tenths, the share taken off, which answers a question
/// asking the discount (not one asking the share paid, which is the rest).
pub fn discounts(p: &str) -> Vec<Share> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        Regex::new(r"(?P<w>\d{1,2}|[一二三四五六七八九十])\s*割\s*引").expect("valid")
    });
    r.captures_iter(p)
        .filter_map(|c| {
            let m = c.get(0)?;
            Some(Share {
                value: numbers::whole(&c["w"])? / 10.0,
                start: m.start(),
                end: m.end(),
            })
        })
        .filter(|s| (0.0..=1.0).contains(&s.value))
        .collect()
}

/// Whether a question asks a discount ("割引率", "할인율", "What discount", "% off").
pub fn asks_discount(q: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"割引|할인|discount|% off|percent off").expect("valid"))
        .is_match(super::asking_clause(q))
}

/// Every share in a prepared text, in order.
pub fn shares(p: &str) -> Vec<Share> {
    let [slash, percent, words, cjk, half] = patterns();
    let mut out = wari(p);
    let mut push = |value: Option<f64>, start: usize, end: usize| {
        if let Some(value) = value.filter(|v| v.is_finite() && (0.0..=1.0).contains(v)) {
            out.push(Share { value, start, end });
        }
    };
    for c in slash.captures_iter(p) {
        let (a, b) = (&c["a"], &c["b"]);
        let v = a.parse::<f64>().ok().zip(b.parse::<f64>().ok());
        let span = c.name("a").map(|m| m.start()).unwrap_or(0)..c.name("b").map_or(0, |m| m.end());
        push(
            v.filter(|v| v.1 > 0.0).map(|(a, b)| a / b),
            span.start,
            span.end,
        );
    }
    for c in percent.captures_iter(p) {
        let m = c.get(0).expect("whole match");
        push(
            c["a"].parse::<f64>().ok().map(|v| v / 100.0),
            m.start(),
            m.end(),
        );
    }
    for c in words.captures_iter(p) {
        let m = c.get(0).expect("whole match");
        let d = DENOMINATORS
            .iter()
            .find(|(w, _)| *w == &c["d"])
            .map(|(_, d)| *d);
        // "fourth", "fifth", "tenth" alone are ordinals ("the fourth floor"); as shares they
        // take a count ("a fifth", "two fifths").
        let ordinal_like = c.name("a").is_none()
            && !matches!(
                &c["d"],
                "half" | "quarter" | "third" | "thirds" | "quarters"
            );
        // "third" alone is an ordinal too ("she finished third") unless a count precedes it.
        let bare_third = c.name("a").is_none() && c["d"].starts_with("third");
        if ordinal_like || bare_third {
            continue;
        }
        // "more than half", "the bottom half", "the second half": not a share stated.
        let before = p[..m.start()].trim_end();
        let qualified = [
            "more than",
            "less than",
            "over",
            "under",
            "nearly",
            "almost",
            "bottom",
            "top",
            "first",
            "second",
            "other",
            "upper",
            "lower",
            "left",
            "right",
        ]
        .iter()
        .any(|w| before.ends_with(w));
        if qualified && c.name("a").is_none() {
            continue;
        }
        let a = c.name("a").map_or(Some(1.0), |a| count(a.as_str()));
        push(a.zip(d).map(|(a, d)| a / d), m.start(), m.end());
    }
    for c in cjk.captures_iter(p) {
        let m = c.get(0).expect("whole match");
        let v = count(&c["a"]).zip(count(&c["b"])).filter(|v| v.1 > 0.0);
        push(v.map(|(a, b)| a / b), m.start(), m.end());
    }
    for m in half.find_iter(p) {
        // "「半額セール」", "half-price sale": the name of a sale, not a share stated (kana
        // folded: "せーる").
        let named = {
            let rest = p[m.end()..].trim_start();
            [
                "せーる",
                "sale",
                "세일",
                "행사",
                "いべんと",
                "event",
                "day",
                "でー",
                "こーなー",
            ]
            .iter()
            .any(|w| rest.starts_with(w))
        };
        if !named {
            push(Some(0.5), m.start(), m.end());
        }
    }
    super::first_of_overlaps(out, |s| (s.start, s.end))
}

/// A reference that is one share and nothing else ("50%", "1/3", "a quarter", "3分の1").
pub fn share_reference(p: &str) -> Option<f64> {
    let ss = shares(p);
    let [s] = ss.as_slice() else {
        return None;
    };
    let rest = format!("{}{}", &p[..s.start], &p[s.end..]);
    rest.chars()
        .all(|c| c.is_whitespace() || super::is_clause_mark(c))
        .then_some(s.value)
}

/// Whether two shares are the same figure, a rounded percentage included ("33%" for a third).
pub fn same_share(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.005 + 1e-9
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn vals(s: &str) -> Vec<f64> {
        shares(&prepare(s))
            .iter()
            .map(|s| (s.value * 1000.0).round() / 1000.0)
            .collect()
    }

    #[test]
    fn tenths_and_hundredths_in_japanese() {
        assert_eq!(vals("6割です"), vec![0.6]);
        assert_eq!(vals("3割5分"), vec![0.35]);
        assert_eq!(vals("二割"), vec![0.2]);
    }

    #[test]
    fn shares_written_every_way() {
        assert_eq!(vals("Half of it."), vec![0.5]);
        assert_eq!(vals("A quarter."), vec![0.25]);
        assert_eq!(vals("About one third."), vec![0.333]);
        assert_eq!(vals("Three quarters."), vec![0.75]);
        assert_eq!(vals("半分です。"), vec![0.5]);
        assert_eq!(vals("절반입니다."), vec![0.5]);
        assert_eq!(vals("3分の1です"), vec![0.333]);
        assert_eq!(vals("3분의 1"), vec![0.333]);
        assert_eq!(vals("about 64 %"), vec![0.64]);
        assert_eq!(
            vals("She finished third on the fourth lap."),
            Vec::<f64>::new()
        );
        assert_eq!(vals("12/25/2024"), Vec::<f64>::new());
        assert_eq!(vals("More than half, about 60%."), vec![0.6]);
        assert_eq!(vals("반 이상"), Vec::<f64>::new());
    }

    #[test]
    fn references_that_are_one_share() {
        assert_eq!(share_reference(&prepare("50%")), Some(0.5));
        assert!(share_reference(&prepare("1/3")).is_some_and(|v| same_share(v, 0.333)));
        assert_eq!(share_reference(&prepare("5 apples")), None);
    }
}
