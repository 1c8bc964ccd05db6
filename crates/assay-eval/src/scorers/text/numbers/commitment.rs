//! Which number a reply commits to: the rules of the module notes, in order.

use std::sync::OnceLock;

use regex::Regex;

use super::*;
use crate::scorers::text::{is_hangul, is_kanji};

pub(super) fn statement_marks() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?:→|->|⇒|=|equals|comes to|answer|total|altogether|in all|final count|count is|so|therefore|thus|hence|overall|答え|正解|合計|全部で|計|よって|したがって|つまり|最終的|のは|정답|답은|답:|총|모두|합계|따라서|그러므로|결론|것은|즉\s|즉,|全体で|合わせて|i\.e\.|ので、|から、)").expect("valid")
    })
}

/// Words that say a figure is a total ("making 5 cats", "$35 in total", "合わせて", "합쳐서"), or
/// that a question asks one ("altogether", 合計, 전부).
fn total_words() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"\bmak(?:es|ing)\b|\bin total\b|\btotal(?:s|ling|ing)?\b|\baltogether\b|\bin all\b|合わせて|全部で|合計|합쳐|모두 합|총|전부|다 합")
            .expect("valid")
    })
}

pub(super) fn total_before() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?:of the|out of|of all(?: the)?|among(?: the)?|from the)\s*$").expect("valid")
    })
}

pub(super) fn total_after() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // On the same line: "병 4개\n가운데 선반" is a list's next line, not "among the 4".
    R.get_or_init(|| {
        // Nor after a comma: "병 4개, 가운데 칸에 2개" is the next place.
        Regex::new(r"^[^\S\n]*[^\s,、，.。]{0,3}?[^\S\n]*(?:中|のうち|の中|중|가운데)")
            .expect("valid")
    })
}

/// The end of a number's counter or unit written straight after it ("4개가", "4人"), so that
/// a denial after the unit governs the number.
pub(super) fn unit_end(p: &str, end: usize) -> usize {
    let mut e = end;
    for c in p[end..].chars() {
        if is_kanji(c) || is_hangul(c) || c == '%' {
            e += c.len_utf8();
        } else {
            break;
        }
    }
    e
}

/// The clause a figure stands in: from the clause mark before it to the one after it (a comma
/// between digits is part of a figure).
fn clause_around(p: &str, m: &Mention) -> (usize, usize) {
    let mark = |i: usize, c: char| {
        matches!(c, '.' | '。' | ',' | '、' | ';' | '\n' | '!' | '?' | '，')
            && !(matches!(c, ',' | '.')
                && p[..i].ends_with(|d: char| d.is_ascii_digit())
                && p[i + 1..].starts_with(|d: char| d.is_ascii_digit()))
    };
    let from = p[..m.start]
        .char_indices()
        .rev()
        .find(|&(i, c)| mark(i, c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let to = p[m.end..]
        .char_indices()
        .find(|&(i, c)| mark(m.end + i, c))
        .map_or(p.len(), |(i, _)| m.end + i);
    (from, to)
}

/// Whether a question asks the year of a Japanese era ("令和何年", "레이와 몇 년", "which
/// year of Reiwa").
fn asks_era_year(q: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        let eras = crate::scorers::text::dates::ERA_NAMES;
        Regex::new(&format!(
            r"(?:{eras})\s*(?:何|몇|what)|(?:what|which) year of (?:{eras})|元号|연호"
        ))
        .expect("valid")
    })
    .is_match(q)
}

/// The first figure on the one line of two or more labelled lines ("label: …", or a table's
/// rows) whose label the question names.
/// With it, whether that label says the line is final ("최종가", "sale price").
fn labelled_line(p: &str, question: &str, cands: &[Mention]) -> Option<(Mention, bool)> {
    let mut labelled = Vec::new();
    let mut at = 0;
    for line in p.split_inclusive('\n') {
        let start = at;
        at += line.len();
        // A table's row is labelled by its first cell ("| カツ丼 | 900円 |").
        let row = line
            .trim_start()
            .strip_prefix('|')
            .and_then(|r| r.split('|').next());
        // "✔️ 정가 29,900원", "👉 최종 할인가 19,900원": a bulleted line without a colon is
        // labelled by its words before its first figure.
        let bulleted = || {
            let t = line.trim_start();
            t.starts_with(|c: char| {
                !c.is_alphanumeric() && !c.is_whitespace() && !"$€£¥₩(（\"'「*".contains(c)
            })
            .then(|| t.split(|c: char| c.is_ascii_digit()).next())
            .flatten()
            .filter(|l| l.len() < t.len())
            .map(|l| {
                l.trim_end()
                    .trim_end_matches(['$', '€', '£', '¥', '₩', '-', '−', '+'])
            })
        };
        let Some(label) = row
            .or_else(|| line.split_once([':', '：']).map(|(l, _)| l))
            .or_else(bulleted)
        else {
            continue;
        };
        let label = label
            .trim()
            .trim_start_matches(|c: char| !c.is_alphanumeric());
        let label = label.trim_matches(['*', '_', ' ']);
        if label.chars().count() >= 2 {
            labelled.push((label, start, at));
        }
    }
    if labelled.len() < 2 {
        return None;
    }
    // Named as itself, not as the place another is next to ("맨 위 선반 바로 아래 칸").
    let related = |after: &str| {
        let after = after.trim_start();
        [
            "바로", "아래", "밑", "위", "옆", "다음", "below", "above", "under", "next", "beside",
            "の下", "の上", "の隣", "の横", "の次", "の右", "の左",
        ]
        .iter()
        .any(|w| after.starts_with(w))
    };
    let named: Vec<&(&str, usize, usize)> = labelled
        .iter()
        .filter(|(l, _, _)| {
            question
                .match_indices(l)
                .any(|(i, _)| !related(&question[i + l.len()..]))
        })
        .collect();
    // "- 정가: 19,900원\n- 쿠폰 할인: -1,990원\n- **최종가: 17,910원**" asked the price after the
    // coupon: with no label named, the one line labelled final, when the question asks what
    // comes after something or is final.
    let finals: Vec<&(&str, usize, usize)> = labelled
        .iter()
        .filter(|(l, _, _)| {
            let l = l.to_lowercase();
            [
                "final",
                "最終",
                "최종",
                "割引後",
                "할인 후",
                "할인가",
                "sale price",
            ]
            .iter()
            .any(|w| l.contains(w))
        })
        .collect();
    // Not a price before the sale ("before the sale", "할인가가 적용되기 전의 정가").
    let q = question.to_lowercase();
    let before = [
        "before", "original", "regular", "前", "定価", "전의", "전 ", "정가",
    ]
    .iter()
    .any(|w| q.contains(w));
    let asks_final = !before
        && [
            "after",
            "final",
            "sale",
            "後",
            "最終",
            "후",
            "최종",
            "할인가",
        ]
        .iter()
        .any(|w| q.contains(w));
    // "the sale price after the 30% discount" names two labels; the final one answers.
    let named_finals: Vec<&(&str, usize, usize)> = named
        .iter()
        .copied()
        .filter(|l| finals.contains(l))
        .collect();
    let named = if named.is_empty() && asks_final && finals.len() == 1 {
        finals.clone()
    } else if named.len() > 1 && named_finals.len() == 1 && !before {
        named_finals
    } else {
        named
    };
    let [line @ (_, start, end)] = named.as_slice() else {
        return None;
    };
    let last = finals.contains(line);
    let on_line: Vec<&Mention> = cands
        .iter()
        .filter(|m| m.start >= *start && m.end <= *end)
        .collect();
    // "ワイン2本とジュース3本（計5本）": the line's total, when it says one.
    let total = on_line.iter().find(|m| {
        let from = super::super::char_boundary_after(p, m.start.saturating_sub(9));
        statement_marks().is_match(&p[from..m.start])
    });
    total.or(on_line.first()).map(|m| (**m, last))
}

/// Whether a figure is the reply's whole last sentence: after a sentence's end (and perhaps
/// "about", 約, 약), followed only by its unit or counter, a copula and punctuation.
fn alone_at_end(p: &str, m: &Mention) -> bool {
    static REST: OnceLock<Regex> = OnceLock::new();
    let rest = REST.get_or_init(|| {
        Regex::new(r"^\s*(?:[a-z°/]+\.?\s*){0,2}(?:です|だ|でした)?\s*[.。!！*)）]*\s*$")
            .expect("valid")
    });
    let before = p[..m.start].trim_end();
    let before = [
        "about",
        "approximately",
        "around",
        "roughly",
        "約",
        "およそ",
        "약",
        "대략",
    ]
    .iter()
    .find_map(|w| before.strip_suffix(w))
    .unwrap_or(before)
    .trim_end_matches([' ', '*']);
    let opens = before.ends_with(['.', '。', '!', '?', '！', '？', '\n']);
    opens && rest.is_match(&p[unit_end(p, m.end)..])
}

pub(super) fn year_like(m: &Mention) -> bool {
    m.digits
        && m.value.fract() == 0.0
        && (1000.0..=2999.0).contains(&m.value)
        && m.end - m.start == 4
}

/// A figure with a unit of measure after it ("1500 ms", "2000 m") is no year; a price is not
/// measured here ("合計1980円" may stand beside the count asked for).
fn measured(p: &str, m: &Mention) -> bool {
    use crate::scorers::text::units::{unit_at, Dimension};
    // Symbols that are also words or letters ("the 1990s", "the 2019 bar", "2020 t") do not
    // make a measurement.
    unit_at(&p[m.end..]).is_some_and(|(u, _)| {
        !matches!(u.dimension, Dimension::Currency | Dimension::Proportion)
            && !matches!(
                u.symbol,
                "s" | "bar" | "Pa" | "V" | "A" | "t" | "cal" | "h" | "d" | "week" | "l"
            )
    })
}

/// A first impression the reply takes back ("at first I thought 6", "ぱっと見6台", "처음에 6개").
pub(super) fn retracted(p: &str, m: &Mention, question: Option<&str>) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    let clause_start = p[..m.start]
        .char_indices()
        .rev()
        .find(|(_, c)| matches!(c, ',' | '.' | ';' | '!' | '?' | '\n' | '、' | '。'))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    // A contrast starts the clause that corrects the impression ("6개 같지만 ... 7개").
    let clause_start = [" but ", "however", "지만", "는데", "けど", "けれど", "のに"]
        .iter()
        .filter_map(|w| {
            p[clause_start..m.start]
                .rfind(w)
                .map(|i| clause_start + i + w.len())
        })
        .max()
        .unwrap_or(clause_start);
    // "I count 9 at first, but …": the impression's mark after the figure, in its clause.
    static AFTER: OnceLock<Regex> = OnceLock::new();
    let after = AFTER.get_or_init(|| {
        Regex::new(r"^[^,.;!?\n]{0,16}?\b(?:at first|initially|at first glance)\b").expect("valid")
    });
    R.get_or_init(|| {
        Regex::new(r"at first|initially|first glance|originally|i thought|looked like|looks like|最初|はじめ|初め|ぱっと見|一見|처음|언뜻|얼핏").expect("valid")
    })
    .is_match(&p[clause_start..m.start])
        // Not when the question asks the first figure ("How much was initially deposited?").
        || (after.is_match(&p[m.end..])
            && !question.is_some_and(|q| q.contains("initial") || q.contains("at first")))
}

/// "한 마리도 없습니다", "一人もいません": not even one, a count of zero.
pub(super) fn not_even(p: &str, m: &Mention) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    m.value == 1.0
        && R.get_or_init(|| {
            Regex::new(
                r"^\s*[^\s.,。、]*?(?:도\s*(?:없|안 |보이지)|も(?:いな|いま|な|あり|見当たら))",
            )
            .expect("valid")
        })
        .is_match(&p[m.end..])
}

/// A number given as an addition: "one more", "another 2", "もう一人", "한 명 더".
pub(super) fn is_addition(p: &str, m: &Mention) -> bool {
    let before = &p[..m.start];
    let after = &p[unit_end(p, m.end)..];
    before.trim_end().ends_with("another")
        || before.ends_with("もう")
        || after.starts_with(" more")
        || after.trim_start().starts_with("더")
        || (after.starts_with(' ')
            && after[1..]
                .split(' ')
                .nth(1)
                .is_some_and(|w| w.starts_with('더'))
            && !after[1..].starts_with(|c: char| c.is_ascii()))
}

/// Words after a number that say what it counts are not the asked noun: "3 dogs" when the
/// question counts cats. Function words and a bare number count nothing.
pub(super) fn counts_other(p: &str, m: &Mention) -> bool {
    const FUNCTION: &[&str] = &[
        "and", "or", "of", "in", "on", "at", "is", "are", "was", "were", "there", "but", "also",
        "the", "a", "an", "total", "more", "other", "than", "to", "from", "with", "by", "it",
        "that", "this", "so", "i", "we", "you", "they",
    ];
    let mut to = (m.end + 24).min(p.len());
    while !p.is_char_boundary(to) {
        to -= 1;
    }
    let after = p[m.end..to]
        .split([',', '.', '、', '。', ';', '\n'])
        .next()
        .unwrap_or("");
    match after
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| !w.is_empty())
    {
        Some(w) => after.trim_start().starts_with(w) && !FUNCTION.contains(&w),
        None => false,
    }
}

/// The noun a counting question asks about: "how many cats" → "cat", "車は何台" → "車",
/// "의자는 몇 개" → "의자".
/// Counters of the same things ("3名" counts people as "3人" does; "사과 6알" as "6개").
fn same_counter(a: char, b: char) -> bool {
    const CLASSES: &[&[char]] = &[
        &['人', '名'],
        &['명', '사'],
        // Animals by the head, large or small.
        &['匹', '頭'],
        &['개', '알'],
        &['個', '粒'],
        // Clothes by the piece or the garment, cans by the can or the bottle.
        &['枚', '着'],
        &['本', '缶'],
    ];
    a == b || CLASSES.iter().any(|c| c.contains(&a) && c.contains(&b))
}

/// The counter a question asks a count in ("몇 명" → 명, "何人" → 人).
fn asked_counter(q: &str) -> Option<char> {
    static R: OnceLock<Regex> = OnceLock::new();
    let c = R
        .get_or_init(|| {
            Regex::new(r"몇\s*(\p{Hangul})|何([人個匹台本枚羽頭冊回階杯錠粒袋箱缶足着件通軒])")
                .expect("valid")
        })
        .captures(q)?;
    c.get(1).or(c.get(2))?.as_str().chars().next()
}

pub fn asked_noun(q: &str) -> Option<String> {
    static R: OnceLock<[Regex; 4]> = OnceLock::new();
    let [en, ja, ja_of, ko] = R.get_or_init(|| {
        [
            Regex::new(r"how many ([a-z]+)").expect("valid"),
            Regex::new(r"([^\s、。はがのをにで]+)(?:は|が)(?:何|いくつ|どれくらい)")
                .expect("valid"),
            // "何本の鉛筆が", "いくつのりんごを"
            Regex::new(r"(?:何[^\s、。の]{0,2}|いくつ)の([^\s、。はがのをにで]+?)(?:が|は|を|も)")
                .expect("valid"),
            Regex::new(r"([^\s]+?)(?:은|는|이|가)\s*몇").expect("valid"),
        ]
    });
    if let Some(c) = en.captures(q) {
        let w = c[1].to_string();
        let stem = w
            .strip_suffix("es")
            .filter(|s| s.len() >= 3)
            .or_else(|| w.strip_suffix('s'))
            .unwrap_or(&w);
        return Some(stem.to_string());
    }
    ja.captures(q)
        .or_else(|| ja_of.captures(q))
        .or_else(|| ko.captures(q))
        .map(|c| c[1].to_string())
}

/// Whether the words right after (English) or right before (Japanese, Korean) a number name
/// the noun.
pub(super) fn counts_noun(p: &str, m: &Mention, noun: &str) -> bool {
    let mut to = (m.end + 24).min(p.len());
    while !p.is_char_boundary(to) {
        to -= 1;
    }
    let from = crate::scorers::text::char_boundary_after(p, m.start.saturating_sub(15));
    let after = &p[m.end..to];
    let after = after
        .split([',', '.', '、', '。', ';'])
        .next()
        .unwrap_or("");
    // Up to the next number: "3 dogs and 2 cats" counts dogs with 3.
    let after = after
        .split(|c: char| c.is_ascii_digit())
        .next()
        .unwrap_or("");
    let before = &p[from..m.start];
    let before = before
        .rsplit([',', '.', '、', '。', ';'])
        .next()
        .unwrap_or("");
    if noun.is_ascii() {
        after
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| !w.is_empty())
            .take(3)
            .any(|w| w.starts_with(noun))
    } else {
        before.contains(noun) || after.contains(noun)
    }
}

/// The number a reply commits to, with the rule that chose it (see the module notes).
pub fn committed(
    response: &str,
    question: Option<&str>,
    reference: f64,
) -> Option<(f64, &'static str)> {
    committed_mention(response, question, reference).map(|(m, rule)| (m.value, rule))
}

/// [`committed`], with where the number stands (its unit follows it); a hedge's value is NaN.
pub fn committed_mention(
    response: &str,
    question: Option<&str>,
    reference: f64,
) -> Option<(Mention, &'static str)> {
    // "令和何年ですか？" answered "令和2年": the era's own year is asked, not the Western one.
    let era_asked = question.is_some_and(asks_era_year);
    let ms: Vec<Mention> = mentions(response)
        .into_iter()
        .map(|m| {
            if not_even(response, &m) {
                Mention { value: 0.0, ..m }
            } else if era_asked {
                super::era_figure(&response[m.start..m.end])
                    .map_or(m, |v| Mention { value: v, ..m })
            } else {
                m
            }
        })
        .collect();
    let kept: Vec<Mention> = ms
        .iter()
        .copied()
        .filter(|m| {
            crate::scorers::text::negation::denied(response, m.start, unit_end(response, m.end))
                .is_none()
        })
        .filter(|m| !retracted(response, m, question))
        .filter(|m| !variant_suffix(response, m))
        .collect();
    let mut kept = kept;
    // "0:15에 빨간불이 되고 0:45에 … 30초입니다" asked how long: the figures of a clock or a
    // video's places are no count or duration, when the reply gives one besides.
    if response.contains(':') {
        static TIME: OnceLock<Regex> = OnceLock::new();
        let time = TIME.get_or_init(|| {
            Regex::new(r"(?-u:\b)\d{1,2}:\d{2}(?::\d{2})?(?-u:\b)").expect("valid")
        });
        let spans: Vec<(usize, usize)> = time
            .find_iter(response)
            .map(|m| (m.start(), m.end()))
            .collect();
        let inside = |m: &Mention| spans.iter().any(|&(s, e)| m.start >= s && m.end <= e);
        // Only when the figure left is a duration ("30초", "half a minute"): "Kiel won 28:25,
        // with 9 goals", "タイマーは5:00で、出力は600W" keep theirs.
        let timed = |m: &Mention| {
            crate::scorers::text::units::unit_at(&response[m.end..])
                .is_some_and(|(u, _)| u.dimension == crate::scorers::text::units::Dimension::Time)
        };
        if !spans.is_empty() && kept.iter().any(|m| !inside(m) && timed(m)) {
            kept.retain(|m| !inside(m));
        }
    }
    // "How many people are in the second image?" answered "The first image shows 3 people. The
    // second image shows 5": a figure whose clause names another image (or frame) than the one
    // asked answers about that one.
    if let Some(q) = question {
        let asked = crate::scorers::text::ordinals::numbered_items(q);
        if !asked.is_empty() {
            let items = crate::scorers::text::ordinals::numbered_items(response);
            // The image a clause is about opens it ("The first image shows 3", "1枚目には"), and
            // is not compared with ("1枚目と同じく5人", "첫 번째 이미지보다 2명 많은 5명") nor a
            // thing inside the asked one ("in front of the first picture on the wall").
            static COMPARED: OnceLock<Regex> = OnceLock::new();
            let compared = COMPARED.get_or_init(|| {
                Regex::new(r"^\s*(?:と同じ|より|보다|와 같|과 같|처럼|than|like)").expect("valid")
            });
            kept.retain(|m| {
                let (from, to) = clause_around(response, m);
                let named: Vec<u32> = items
                    .iter()
                    .filter(|o| o.start >= from && o.end <= to)
                    .filter(|o| {
                        let lead = response[from..o.start].trim();
                        let opens = lead.is_empty()
                            || ["the", "in the", "in", "on the", "for the"].contains(&lead);
                        opens && !compared.is_match(&response[o.end..])
                    })
                    .map(|o| o.position)
                    .collect();
                named.is_empty() || named.iter().any(|n| asked.iter().any(|a| a.position == *n))
            });
        }
    }
    drop_counting_aloud(response, &mut kept, true);
    if kept.is_empty() {
        return None;
    }
    let asked: Vec<f64> = question
        .map(|q| mentions(q).iter().map(|m| m.value).collect())
        .unwrap_or_default();
    let ref_is_year = reference.fract() == 0.0 && (1000.0..=2999.0).contains(&reference);
    // "How many stops? … 6 stops, with a total length of 2400 m": a count is no measurement.
    let asks_count = question.is_some_and(|q| {
        static C: OnceLock<Regex> = OnceLock::new();
        C.get_or_init(|| {
            Regex::new(r"how many|何[人個匹台本枚羽頭冊つ回]|いくつ|몇").expect("valid")
        })
        .find(q)
        // "How many kilometres …" asks a measurement.
        .is_some_and(|m| crate::scorers::text::units::unit_at(&q[m.end()..]).is_none())
    });
    let mut filtered: Vec<Mention> = kept
        .iter()
        .copied()
        .filter(|m| !asked.contains(&m.value))
        .filter(|m| {
            !total_before().is_match(&response[..m.start])
                && !total_after().is_match(&response[m.end..])
        })
        .filter(|m| ref_is_year || !year_like(m) || (!asks_count && measured(response, m)))
        .collect();
    // A year answers "when"; a count, an age or a duration answers the rest.
    if ref_is_year && filtered.iter().any(year_like) {
        filtered.retain(year_like);
    }
    drop_counting_aloud(response, &mut filtered, false);
    // "One more", "another", "もう一人", "한 명 더": an addition, not the count.
    let additive: Vec<Mention> = filtered
        .iter()
        .copied()
        .filter(|m| !is_addition(response, m))
        .collect();
    if !additive.is_empty() {
        filtered = additive;
    }
    // After a correction ("wait, actually", "いや", "아니", "と思いましたが", "줄 알았는데"), the
    // numbers before it are taken back when the reply gives one after it.
    if let Some(c) = crate::scorers::text::corrections::last_end(response) {
        if filtered.iter().any(|m| m.start >= c) {
            filtered.retain(|m| m.start >= c);
        }
    }
    let mut cands = if filtered.is_empty() { kept } else { filtered };
    // "45 - 22 = 23": the operands of a calculation are out when its result is there.
    let is_result = |m: &Mention| response[..m.start].trim_end().ends_with('=');
    if cands.iter().any(is_result) {
        let operands: Vec<Mention> = cands
            .iter()
            .copied()
            .filter(|m| {
                // "x = 180° − 145° = 35°": a unit's sign may stand between operand and operator.
                let rest = response[unit_end(response, m.end)..]
                    .trim_start_matches(['°', '′', '″', '%'])
                    .trim_start();
                // Markdown's bold ("**70度**") is no multiplication.
                rest.starts_with(['+', '-', '−', '×', '*', '/', '÷', '=', 'x'])
                    && !rest.starts_with("**")
            })
            .collect();
        cands.retain(|m| !operands.contains(m));
    }
    // "3² + 4² = 25이므로 빗변은 5 cm", "= 25이기 때문에": a calculation's result that a Korean
    // connective makes the premise of a later figure is a step, not the answer (not "사과는
    // 3개이므로, … 1개가 남습니다", a count the reply goes on from).
    let premise = |m: &Mention| {
        let run = &response[m.end..unit_end(response, m.end)];
        let because = run.ends_with('기')
            && response[m.end + run.len()..]
                .trim_start()
                .starts_with("때문");
        (run.ends_with("므로") || run.ends_with("니까") || because)
            && is_result(m)
            && cands.iter().any(|o| o.start > m.end)
    };
    let premises: Vec<Mention> = cands.iter().copied().filter(premise).collect();
    if premises.len() < cands.len() {
        cands.retain(|m| !premises.contains(m));
    }
    // The number right after the last answer statement in its sentence.
    let mut stated: Option<Mention> = None;
    // "→ 12", "= 15": a result, but not a part of a breakdown: a list item's ("- front row → 4")
    // or one in brackets ("8 cars in total (sedans = 5, SUVs = 3)").
    let result_mark = |m: &str| matches!(m, "→" | "->" | "⇒" | "=" | "equals" | "comes to");
    let listed_at = |at: usize| {
        let line_start = response[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = response[line_start..at].trim_start();
        ["- ", "* ", "・", "•", "·"]
            .iter()
            .any(|b| line.starts_with(b))
    };
    // One list item with a result is the answer ("・4＋5＝9冊"); several are a breakdown.
    let listed_results = statement_marks()
        .find_iter(response)
        .filter(|m| result_mark(m.as_str()) && listed_at(m.start()))
        .count();
    let breakdown = |at: usize| {
        let line_start = response[..at].rfind('\n').map_or(0, |i| i + 1);
        let listed = listed_results > 1 && listed_at(at);
        let opened = response[line_start..at].rfind(['(', '（']);
        let closed = response[line_start..at].rfind([')', '）']);
        listed || opened.is_some_and(|o| closed.is_none_or(|c| c < o))
    };
    // An answer stated in words ("Answer: 8 cars. By type: sedans = 5", "合計は8台です。内訳：
    // セダン＝5台") outranks the results of a breakdown written after it.
    let worded = |m: &str| !result_mark(m);
    let mut worded_at: Option<usize> = None;
    // "4 chairs, i.e. 2 on each side", "so 3 each": a share of the whole, not the answer.
    static EACH: OnceLock<Regex> = OnceLock::new();
    let each = EACH.get_or_init(|| {
        Regex::new(r"^\s*(?:[a-z]+\s+)?(?:on each|each|per|apiece|a side|a piece)\b|^\s*[^\s、。]{0,3}(?:ずつ|씩)")
            .expect("valid")
    });
    for mark in statement_marks().find_iter(response) {
        if result_mark(mark.as_str())
            && (breakdown(mark.start()) || worded_at.is_some_and(|w| w < mark.start()))
        {
            continue;
        }
        // "250 Calories per serving (… so roughly 625 for the whole package)": a statement in
        // an aside opened after a figure is the aside's.
        let line_start = response[..mark.start()].rfind('\n').map_or(0, |i| i + 1);
        let opened = response[line_start..mark.start()]
            .rfind(['(', '（'])
            .map(|o| line_start + o);
        let closed = response[line_start..mark.start()]
            .rfind([')', '）'])
            .map(|c| line_start + c);
        if let Some(o) = opened.filter(|o| closed.is_none_or(|c| c < *o)) {
            if cands.iter().any(|m| m.end <= o) {
                continue;
            }
        }

        let word_start =
            mark.start() == 0 || !response.as_bytes()[mark.start() - 1].is_ascii_alphabetic();
        let word_end = response
            .as_bytes()
            .get(mark.end())
            .is_none_or(|b| !b.is_ascii_alphabetic());
        if !(word_start && word_end) {
            continue;
        }
        // Not into a bracket opened after it: "8 cars in total (sedans = 5, …)".
        let next = cands.iter().find(|m| {
            m.start >= mark.end()
                && !response[mark.end()..m.start].contains(['.', '。', '\n', '!', '?', '(', '（'])
        });
        let next = next.filter(|m| !each.is_match(&response[unit_end(response, m.end)..]));
        if let Some(m) = next {
            stated = Some(*m);
            if worded(mark.as_str()) {
                worded_at = Some(mark.start());
            }
        }
    }
    // "4 ducks in the water, plus one behind the reeds — 5 ducks": the last figure is the sum
    // of the two before it and counts what the first counted, so those were its parts.
    if stated.is_none() {
        if let [.., a, b, c] = cands.as_slice() {
            // "3개, … 합쳐서 여섯 개": what each counts, by its counter's first letter or word.
            let counted = |m: &Mention| counted_by(response, m);
            // Only an addition said as one ("plus one", "+ 1", "もう1羽", "1마리 더"): "4 ducks
            // swimming and one on the bank — 5 ducks" counts two groups, one of them asked.
            let between = &response[a.end..b.start];
            // "…, making 5 cats", "合わせて5個": the total said as one.
            let total = total_words();
            let added = is_addition(response, b)
                || between.trim_end().ends_with("plus")
                || between.trim_end().ends_with('+')
                || between.contains("もう")
                || total.is_match(&response[b.end..c.start]);
            if added
                && a.value > 0.0
                && b.value > 0.0
                && (a.value + b.value - c.value).abs() < 1e-9
                && !counted(a).is_empty()
                && counted(a) == counted(c)
            {
                stated = Some(*c);
            }
        }
    }
    // "a $20, a $10 and a $5. That makes $35 in total", asked how much there is altogether: a
    // figure said as the total that is the sum of every figure before it counting the same
    // thing (one counter, or one currency's sign before each). Only when the question asks a
    // total ("The burger is $8 and the fries $4 — $12 in total" asked the burger).
    let total = total_words();
    if stated.is_none() && question.is_some_and(|q| total.is_match(q)) {
        let sign = |m: &Mention| {
            response[..m.start]
                .trim_end()
                .chars()
                .next_back()
                .filter(|c| "$£€¥₩".contains(*c))
        };
        // A currency's sign says what a figure counts; the words after it may not ("$35 in
        // total").
        let kind = |m: &Mention| match sign(m) {
            Some(c) => (Some(c), String::new()),
            None => (None, counted_by(response, m)),
        };
        let said_total = |k: usize| {
            let last = &cands[k];
            let sentence_end = response[last.end..]
                .find(['.', '。', '\n'])
                .map_or(response.len(), |i| last.end + i);
            total.is_match(&response[cands[k - 1].end..last.start])
                || total.is_match(&response[last.end..sentence_end])
        };
        let sum_of_before = |k: usize| {
            let last = &cands[k];
            // Only the figures of the same kind ("three bills: a $20, …" counts the bills).
            let same: Vec<&Mention> = cands[..k]
                .iter()
                .filter(|m| kind(m) == kind(last))
                .collect();
            let sum: f64 = same.iter().map(|m| m.value).sum();
            same.len() >= 2
                && same.iter().all(|m| m.value > 0.0)
                && (kind(last).0.is_some() || !kind(last).1.is_empty())
                && (sum - last.value).abs() < 1e-9
        };
        // Not necessarily the last figure ("… makes $35 in total. The 2 coins next to them …").
        if let Some(k) = (2..cands.len())
            .rev()
            .find(|&k| said_total(k) && sum_of_before(k))
        {
            stated = Some(cands[k]);
        }
    }
    // "맨 위 선반: 병 4개\n가운데 선반: 병 2개", asked about the top shelf: of a breakdown's
    // labelled lines, the one whose label the question names.
    // A result read off another line of the breakdown ("- Discount: 30% → $24.00 off") gives way
    // to the final line the question names ("- **Sale price: $56.00**").
    if let Some((m, last)) = question.and_then(|q| labelled_line(response, q, &cands)) {
        let line_of = |at: usize| response[..at].rfind('\n').map_or(0, |i| i + 1);
        if stated.is_none()
            || (last && stated.is_some_and(|s| line_of(s.start) != line_of(m.start)))
        {
            stated = Some(m);
        }
    }
    // "… its tip ends between 12 and 13, about halfway. 12,5 cm.", "3 on the wire and one more
    // on the roof. 4 birds.": a last sentence that is only a figure (with its unit or counter
    // and a copula) states the answer.
    // Not a measure after a count was asked ("4羽のカモ … 約2m。" asked how many ducks).
    if stated.is_none() && cands.len() > 1 {
        let measure = |m: &&Mention| {
            asks_count && crate::scorers::text::units::unit_at(&response[m.end..]).is_some()
        };
        if let Some(last) = cands
            .last()
            .filter(|m| alone_at_end(response, m) && !measure(m))
        {
            stated = Some(*last);
        }
    }
    // "4 of them", "2 of which", "そのうち2人", "그중 2명": the part counted from a whole.
    if let Some(m) = cands.iter().rev().find(|m| partitive(response, m)) {
        // "I count 9 at first, but one of them is the reflection — there are 8 candles": a
        // later figure counting the asked noun answers, not the part set aside.
        // Unless what the part is said to be is what the question asks ("3 of them are red"
        // asked how many are red, "그중 4명이 모자를 썼고" asked who wears a hat).
        let asked_words = question
            .map(crate::scorers::text::similarity::content_words)
            .unwrap_or_default();
        let said =
            crate::scorers::text::similarity::content_words(&response[unit_end(response, m.end)..])
                .into_iter()
                .find(|w| !matches!(w.as_str(), "them" | "which" | "whom" | "those" | "these"));
        let asked_part = said.is_some_and(|w| asked_words.contains(&w));
        let counted_later = !asked_part
            && question.and_then(asked_noun).is_some_and(|noun| {
                cands
                    .iter()
                    .any(|c| c.start > m.end && counts_noun(response, c, &noun))
            });
        // "우유는 모두 여섯 개 있어요. 그중 두 팩은 초코우유예요" asked how many: a whole said as
        // all there is answers, when what the part is said to be is not asked.
        // Unless the part is labelled as asked ("그중 첫 페이지에는 20개" asked the first page).
        let clause_start = response[..m.start]
            .rfind([',', '、', '.', '。'])
            .map_or(0, |i| {
                i + response[i..].chars().next().map_or(1, char::len_utf8)
            });
        let stem = |w: &str| w.chars().take(2).collect::<String>();
        let label_asked =
            crate::scorers::text::similarity::content_words(&response[clause_start..m.start])
                .iter()
                .any(|w| {
                    w.chars().count() >= 2
                        && !matches!(w.as_str(), "그중" | "그중에" | "그중에서")
                        && asked_words.iter().any(|q| stem(q) == stem(w))
                });
        let whole_said = !asked_part
            && !label_asked
            && cands.iter().any(|w| {
                let from =
                    crate::scorers::text::char_boundary_after(response, w.start.saturating_sub(12));
                w.end <= m.start
                    && ["모두", "총", "all", "in total", "全部で", "合計", "全部"]
                        .iter()
                        .any(|t| response[from..w.start].contains(t))
            });
        if stated.is_none_or(|s| s.start < m.start) && !counted_later && !whole_said {
            stated = Some(*m);
        }
    }
    // "열 팩이에요. 한 팩에 100매씩, 총 1,000매입니다" asked "몇 팩", "6 PAIRS, so 12 socks"
    // asked how many pairs: a figure read as the answer that counts another thing (매, socks)
    // gives way to the figures that count what is asked, when they agree.
    if let Some(s) = stated.or(cands.first().copied()) {
        if let Some(m) = question.and_then(|q| counted_as_asked(response, q, &s, &cands)) {
            stated = Some(m);
        }
    }
    // "3 or 4 birds", "3-4", "5匹か6匹": several numbers offered, none committed to.
    if let Some(m) = stated.or(cands.first().copied()) {
        // "7月と8月がほぼ同じ高さ…。7月か8月のどちらかだと思います。": the figure read is offered
        // with another later on.
        // The same count of the same thing, at either end of the pair ("5脚か6脚"), not another
        // thing's range ("5〜6歳", "4 to 5 years old").
        let offered_later = stated.is_none()
            && cands.iter().enumerate().any(|(k, o)| {
                let pair = [Some(o), cands.get(k + 1)];
                o.start > m.start
                    && offered_range(response, o, question)
                    && pair.iter().flatten().any(|x| {
                        x.value == m.value && counted_by(response, x) == counted_by(response, &m)
                    })
                    && !question.is_some_and(|q| labelled_apart(response, q, &m, o))
            });
        // "포장에 '4+1'이라고 적혀 있어요. 4개 아니면 5개인데 … 모르겠어요" asked "몇 개": after the
        // figure read, which counts nothing asked, two figures of the asked counter offered as
        // alternatives.
        let asked_counter_of = |x: &Mention| {
            let k = question.and_then(asked_counter);
            counted_by(response, x)
                .chars()
                .next()
                .is_some_and(|c| k.is_some_and(|k| same_counter(c, k)))
        };
        // Not after a figure that answers with a copula ("모두 여섯이에요. 벤치에 앉은 사람은 두
        // 명이나 세 명"): only one that counts nothing ('4+1').
        let hedged_after = counted_by(response, &m).is_empty()
            && cands.iter().enumerate().any(|(k, o)| {
                o.start > m.end
                    && asked_counter_of(o)
                    && cands.get(k + 1).is_some_and(asked_counter_of)
                    && offered_range(response, o, question)
            });
        if offered_later || hedged_after || offered_range(response, &m, question) {
            return Some((
                Mention {
                    value: f64::NAN,
                    ..m
                },
                HEDGE_RULE,
            ));
        }
    }
    // "1반: 27명 … 3반: 28명" asked "몇 명", no answer stated: a figure with another counter (반)
    // counts none of what is asked, when some figure has the asked counter.
    if let (None, Some(counter)) = (stated, question.and_then(asked_counter)) {
        // After a space too ("네 쌍의 커플"); a word in Latin letters counts in another
        // language, not with another counter.
        let counter_of = |m: &Mention| {
            let c = counted_by(response, m);
            if c.is_ascii() {
                String::new()
            } else {
                c
            }
        };
        let asked = |c: &str| c.chars().next().is_some_and(|c| same_counter(c, counter));
        if cands.iter().any(|m| asked(&counter_of(m))) {
            cands.retain(|m| {
                let c = counter_of(m);
                c.is_empty() || asked(&c)
            });
        }
        // "네 쌍의 커플" asked "몇 명": a count of pairs or groups is not a count of what is asked.
        let groups = |c: &str| {
            ["쌍", "조", "팀", "組", "対", "ぺあ", "세트", "せっと"]
                .iter()
                .any(|g| c.starts_with(g))
        };
        cands.retain(|m| !groups(&counter_of(m)) || asked(&counter_of(m)));
    }
    // Else the numbers that count what the question asks about, when others count other things.
    if let (None, Some(noun)) = (stated, question.and_then(asked_noun)) {
        let counting: Vec<Mention> = cands
            .iter()
            .copied()
            .filter(|m| counts_noun(response, m, &noun))
            .collect();
        if !counting.is_empty() {
            // Japanese and Korean write the noun before its count: numbers that do not count
            // the asked noun count something else ("大人が3人、子どもが2人").
            let cjk = !noun.is_ascii();
            // Nor a part set aside ("one of them is the reflection").
            cands.retain(|m| {
                counting.contains(m)
                    || (!cjk && !counts_other(response, m) && !partitive(response, m))
            });
        }
    }
    let chosen = match stated {
        Some(m) => (m, "the number of the last answer statement"),
        // Every figure was an operand of a cut-off sum ("45 - 22 = 23 -"): none is committed.
        None => (*cands.first()?, "the number the reply leads with"),
    };
    if let Some(m) = question.and_then(|q| labelled(response, q, &chosen.0, &cands, &ms)) {
        return Some((m, LABEL_RULE));
    }
    Some(chosen)
}

pub const LABEL_RULE: &str = "the figure whose label the question names";

/// "아메리카노는 HOT 4,000원, ICE 4,500원" asked the ICE price, "3쿼터 홈팀 24점, 원정팀은 19점" asked
/// the away team's: when the figure chosen is labelled by words the question does not use, the
/// one figure whose label uses only the question's words. A label is what stands before a
/// figure in its clause, back to the figure before it; a label naming the answer itself
/// ("Answer: 24") keeps its figure.
fn labelled(
    p: &str,
    q: &str,
    chosen: &Mention,
    cands: &[Mention],
    all: &[Mention],
) -> Option<Mention> {
    use crate::scorers::text::similarity::content_words;
    let figure_end = |o: &Mention| {
        let counter = unit_end(p, o.end);
        let unit =
            crate::scorers::text::units::unit_at(&p[o.end..]).map_or(o.end, |(_, n)| o.end + n);
        counter.max(unit)
    };
    let label = |m: &Mention| -> (usize, &str) {
        let before = &p[..m.start];
        let clause = before
            .rfind(['\n', ',', '、', ';', '，', '(', '（', '。'])
            .map_or(0, |i| {
                i + before[i..].chars().next().map_or(1, char::len_utf8)
            });
        // "밑변 8 cm, 높이 6 cm이므로 넓이는 24 cm²": a label begins after a connective too.
        let clause = [
            "므로",
            "니까",
            "해서 ",
            "어서 ",
            "아서 ",
            "ので",
            "から",
            " so ",
            "therefore",
            " thus ",
        ]
        .iter()
        .filter_map(|w| before[clause..].rfind(w).map(|i| clause + i + w.len()))
        .max()
        .unwrap_or(clause);
        // After the figure before it and its unit ("40 cm² and its perimeter is 26").
        let previous = all
            .iter()
            .filter(|o| o.end <= m.start)
            .map(figure_end)
            .max()
            .unwrap_or(0)
            .min(m.start);
        (clause, &p[clause.max(previous)..m.start])
    };
    // "2019年は40で、2020年は35": a figure labelled by another figure of its clause, a particle
    // between them.
    let figure_label = |m: &Mention| -> Option<Mention> {
        let (clause, _) = label(m);
        let o = all
            .iter()
            .filter(|o| o.end <= m.start && o.start >= clause)
            .max_by_key(|o| o.end)?;
        let between = p.get(figure_end(o).min(m.start)..m.start)?.trim();
        // Empty when the counter took the particle along ("2019년은" is one run of Hangul).
        matches!(
            between,
            "" | "は" | "の" | "が" | "は、" | "은" | "는" | "의" | ":" | "："
        )
        .then_some(*o)
    };
    let asked_figures: Vec<f64> = mentions(q).iter().map(|m| m.value).collect();
    let year_after = |m: &Mention| -> Option<Mention> {
        static IN: OnceLock<Regex> = OnceLock::new();
        let r = IN.get_or_init(|| Regex::new(r"^\s*(?:[a-z]+\s+)?in\s*$").expect("valid"));
        all.iter()
            .find(|o| o.start > m.end && year_like(o))
            .filter(|o| r.is_match(&p[figure_end(m).min(o.start)..o.start]))
            .copied()
    };
    // A labelled figure ends its clause, with at most a short word after it ("ICE 4,500원,",
    // "원정팀은 19점입니다.", "total $23.40."): "2 are sitting on the bench" is labelled after.
    static ENDS: OnceLock<Regex> = OnceLock::new();
    let ends = ENDS.get_or_init(|| {
        Regex::new(r"^(?:[^\S\n]*[*_]*[^\S\n]*\n|\s*[^\s,、.。;:!?()（）]{0,10}\s*(?:[,、.。;!?()（）]|$|(?:and|but|while|whereas)\b))").expect("valid")
    });
    // "the price before the sale": what comes after "before" is what the asked thing is not
    // yet, so it labels no figure ("Sale price: $84").
    let not_yet = q
        .split_once("before ")
        .map(|(_, after)| content_words(after))
        .unwrap_or_default();
    let asked: Vec<String> = content_words(q)
        .into_iter()
        .filter(|w| !not_yet.contains(w))
        .collect();
    let met = |m: &Mention| {
        let after = &p[unit_end(p, m.end)..];
        // "라떼가 4,000원이고 아메리카노는 3,500원": a connective on the counter ends the clause.
        let run = &p[m.end..unit_end(p, m.end)];
        let joined = ["고", "며", "지만", "므로", "니까"]
            .iter()
            .any(|c| run.ends_with(c));
        // "450 units in 2020 to 520 units in 2021": a year after the figure labels it.
        if let Some(year) = year_after(m).filter(|_| !asked_figures.is_empty()) {
            return Some(if asked_figures.contains(&year.value) {
                2
            } else {
                0
            });
        }
        // "2021년에는 410만 명으로 늘었습니다", "…410万人に増えました": a result's particle and its
        // verb end the clause too (not "50만 명 유치 목표", a target).
        static RESULT: OnceLock<Regex> = OnceLock::new();
        let result = RESULT.get_or_init(|| {
            Regex::new(r"^\s*[^\sの의]{0,6}?(?:(?:으로|로)\s*(?:늘|줄|증가|감소|올랐|내려|바뀌|변했)|(?:に|へ)(?:増え|減|な[りっ]|上が|下が|達し))[^\s.。,、!]{0,10}\s*(?:[.。,、!]|$)")
                .expect("valid")
        });
        if !ends.is_match(after) && !joined && !result.is_match(after) {
            return None;
        }
        if let Some(o) = figure_label(m).filter(|_| !asked_figures.is_empty()) {
            return Some(if asked_figures.contains(&o.value) {
                2
            } else {
                0
            });
        }
        // "Home team: 4 fouls" asked the home team's points: a figure of another thing.
        let counted = after
            .split(|c: char| !c.is_ascii_alphabetic())
            .find(|w| !w.is_empty())
            .filter(|w| after.trim_start().starts_with(w));
        if counted.is_some_and(|w| w.len() >= 4 && !q.contains(w.trim_end_matches('s'))) {
            return Some(0);
        }
        let (_, label) = label(m);
        let label = [
            "約",
            "およそ",
            "대략",
            "약 ",
            "about",
            "around",
            "approximately",
            "roughly",
            // "the sandwich on its own is $5.50": how it is sold, not another thing (unless
            // the question asks that: "単品はいくら").
            "on its own",
            "by itself",
            "単品",
            "단품",
        ]
        .iter()
        .filter(|w| !q.contains(*w))
        .fold(label.to_string(), |l, w| l.replace(w, " "));
        let words = content_words(&label);
        // "税込" in the question's "税込価格": a word of kanji is read inside a longer one, but
        // a label that is the question's word itself ("小学生" beside "学生") ranks above it.
        let inside = |w: &String| {
            w.chars().count() >= 2
                && w.chars().all(crate::scorers::text::is_kanji)
                && asked.iter().any(|a| a.contains(w.as_str()))
        };
        (!words.is_empty()).then(|| {
            if words.iter().all(|w| asked.contains(w)) {
                2
            } else if words.iter().all(|w| asked.contains(w) || inside(w)) {
                1
            } else {
                0
            }
        })
    };
    let names_the_answer = ["answer", "答え", "正解", "정답", "답은", "답:", "final"]
        .iter()
        .any(|w| label(chosen).1.contains(w));
    // Only figures of what the chosen one counts, when both have a counter ("大人330円" against
    // "10分おき"); a Korean particle after a figure ("40이고", "35로") is no counter.
    let counter = |m: &Mention| {
        p[m.end..unit_end(p, m.end)].chars().next().filter(|c| {
            crate::scorers::text::is_kanji(*c) || "원명개분시층번대권잔살년월일초점".contains(*c)
        })
    };
    let levels: Vec<Option<u8>> = cands
        .iter()
        .map(|m| {
            if counter(m).is_none() || counter(chosen).is_none() || counter(m) == counter(chosen) {
                met(m)
            } else {
                None
            }
        })
        .collect();
    let best = levels.iter().flatten().copied().max().unwrap_or(0);
    let chosen_level = met(chosen);
    // The figure read stands unless its label is another thing's, or a label names the
    // question's words more exactly.
    if names_the_answer || chosen_level.is_none_or(|l| l >= best.max(1)) {
        return None;
    }
    let qualified: Vec<Mention> = cands
        .iter()
        .zip(&levels)
        .filter(|(_, l)| **l == Some(best) && best > 0)
        .map(|(m, _)| *m)
        .collect();
    let first = *qualified.first()?;
    qualified
        .iter()
        .all(|m| (m.value - first.value).abs() < 1e-9)
        .then_some(first)
}

/// The rule of a reply that offers several numbers ("3 or 4"): a hedge, its own outcome.
pub const HEDGE_RULE: &str = "several numbers offered (a hedge)";

pub(super) fn partitive(p: &str, m: &Mention) -> bool {
    static R: OnceLock<[Regex; 2]> = OnceLock::new();
    let [after, before] = R.get_or_init(|| {
        [
            Regex::new(r"^\s+of\s+(?:them|those|these|which|whom)\b").expect("valid"),
            // "그중 첫 페이지에는 20개": a few words may say which part.
            Regex::new(r"(?:そのうち|うち|その中で|그중|그 중|그중에|이 중)\s*(?:[^\s、。,.]{1,8}\s+){0,2}[^\s、。,.]{0,8}$")
                .expect("valid"),
        ]
    });
    let from = crate::scorers::text::char_boundary_after(p, m.start.saturating_sub(30));
    after.is_match(&p[m.end..]) || before.is_match(&p[from..m.start])
}

/// "- 5羽\n- 6羽": a list of items that are each a bare figure of the same thing offers them
/// as alternatives (a breakdown labels its items: "- 1반: 27명").
fn listed_alternatives(p: &str, m: &Mention) -> bool {
    let line_start = p[..m.start].rfind('\n').map_or(0, |i| i + 1);
    // An item that is a figure and what it counts ("- 5羽", "- 6 birds"), no label before it
    // ("- 猫 3匹") or after a colon.
    let bare = |line: &str| {
        let item = line.trim_start();
        ["- ", "* ", "・", "•"].iter().any(|b| {
            item.strip_prefix(b).is_some_and(|rest| {
                rest.trim_start().starts_with(|c: char| c.is_ascii_digit())
                    && rest.split_whitespace().count() <= 2
            })
        }) && !item.contains([':', '：'])
    };
    let line_end = p[m.end..].find('\n').map_or(p.len(), |i| m.end + i);
    if !bare(&p[line_start..line_end]) || line_end == p.len() {
        return false;
    }
    let next_end = p[line_end + 1..]
        .find('\n')
        .map_or(p.len(), |i| line_end + 1 + i);
    let next = &p[line_end + 1..next_end];
    bare(next)
        && mentions(next).first().is_some_and(|n| {
            let n = Mention {
                start: line_end + 1 + n.start,
                end: line_end + 1 + n.end,
                ..*n
            };
            n.value != m.value && counted_by(p, &n) == counted_by(p, m)
        })
}

/// The figure that counts what the question asks ("몇 팩" → "열 팩", "how many pairs" → "6
/// pairs"), when the figure read counts another thing with a counter or noun of its own and
/// every figure counting the asked thing has one value. A figure "per" the asked thing ("한
/// 팩에 100매씩", "1袋あたり") counts the other thing.
fn counted_as_asked(p: &str, q: &str, read: &Mention, cands: &[Mention]) -> Option<Mention> {
    let per = |m: &Mention| {
        let gap = p[m.end..].len() - p[m.end..].trim_start().len();
        let end = unit_end(p, m.end + gap);
        let run = &p[m.end..end];
        let rest = &p[end..];
        run.ends_with('에')
            || run.ends_with('당')
            || run.ends_with('씩')
            || [
                "あたり",
                "につき",
                "ごと",
                "ずつ",
                " each",
                " per",
                " apiece",
            ]
            .iter()
            .any(|w| rest.starts_with(w))
    };
    let counter = asked_counter(q);
    let noun = asked_noun(q).filter(|n| n.is_ascii());
    let counts_asked = |c: &str| match (counter, &noun) {
        (Some(k), _) => c.chars().next().is_some_and(|f| same_counter(f, k)),
        (None, Some(n)) => c == n.as_str(),
        _ => false,
    };
    // "세 분" counts people, honoured; "20분" minutes.
    let counter_of = |m: &Mention| {
        let c = counted_by(p, m);
        if c == "분" && !m.digits {
            "명".to_string()
        } else {
            c
        }
    };
    let said = counter_of(read);
    // "Answer: 3 children": a figure the reply labels its answer stays, whatever it counts in
    // other words; and "여섯 개", "六個": the general counter counts anything.
    let labelled_answer = {
        let before = p[..read.start].trim_end();
        [
            "answer:",
            "answer is",
            "答え:",
            "答えは",
            "정답:",
            "정답은",
            "답:",
        ]
        .iter()
        .any(|w| before.ends_with(w))
    };
    if labelled_answer || matches!(said.as_str(), "개" | "個" | "つ") {
        return None;
    }
    // An English word after a figure counts it only as a noun on the same line ("12 socks",
    // not "12\n\nThe carton", "2 are sitting", "3 of them").
    let noun_follows = p[read.end..]
        .trim_start_matches([' ', '"', '\''])
        .starts_with(|c: char| c.is_ascii_alphabetic());
    let function_word = !said.is_empty()
        && said.is_ascii()
        && (!noun_follows
            || matches!(
                said.as_str(),
                "are"
                    | "were"
                    | "is"
                    | "wa"
                    | "of"
                    | "or"
                    | "to"
                    | "and"
                    | "in"
                    | "on"
                    | "at"
                    | "the"
                    | "a"
                    | "more"
                    | "fewer"
                    | "total"
                    | "each"
                    | "per"
                    | "out"
                    | "from"
            ));
    if function_word || partitive(p, read) {
        return None;
    }
    // A counter in the reply's language, or a range that counts nothing ("fits sizes 6-12").
    let other =
        (!said.is_empty() && !counts_asked(&said) && (counter.is_some() != said.is_ascii()))
            || (said.is_empty() && offered_range(p, read, Some(q)));
    // "4 or 5 people": the figure read is offered with one that counts what is asked.
    let offered_with_asked = cands
        .iter()
        .any(|m| m.start > read.end && m.start <= read.end + 8 && counts_asked(&counted_by(p, m)));
    if !other || offered_with_asked {
        return None;
    }
    // Not a part of the whole read ("그중 두 팩은 초코우유").
    let asked: Vec<&Mention> = cands
        .iter()
        .filter(|m| counts_asked(&counter_of(m)) && !per(m) && !partitive(p, m))
        .collect();
    let first = **asked.first()?;
    asked
        .iter()
        .all(|m| m.value == first.value)
        .then_some(first)
}

/// "777-300ER", "A350-900XWB": a figure after a hyphen glued to a figure, with letters glued
/// after it, names a variant of the model before it; it is no second number.
fn variant_suffix(p: &str, m: &Mention) -> bool {
    let before = p[..m.start].strip_suffix('-');
    before.is_some_and(|b| b.ends_with(|c: char| c.is_ascii_digit()))
        && p[m.end..].starts_with(|c: char| c.is_ascii_alphabetic())
        // "10-12min": a range with its unit.
        && crate::scorers::text::units::unit_at(&p[m.end..]).is_none()
}

/// What a figure counts, by its first letter or word ("명" in "다섯 명인데", "people").
fn counted_by(p: &str, m: &Mention) -> String {
    let after = p[m.end..].trim_start();
    match after.chars().next() {
        Some(c) if crate::scorers::text::is_kanji(c) || is_hangul(c) => c.to_string(),
        _ => after
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("")
            .trim_end_matches('s')
            .to_string(),
    }
}

/// "다섯 명인데, 그림자까지 치면 여섯 명", "3人ですが、奥の人を含めると4人", "5 people; counting the
/// one in the mirror, 6 people": a larger count of the same thing offered in the same sentence
/// if more is counted, so the reply commits to neither.
fn counted_again(p: &str, m: &Mention, question: Option<&str>) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    let incl = R.get_or_init(|| {
        Regex::new(r"치면|포함하면|합치면|더하면|含めると|入れると|数えると|含めれば|\bif\s+(?:you\s+)?(?:count|include)\b|\bcounting\b")
            .expect("valid")
    });
    let rest = &p[m.end..];
    let end = rest.find(['.', '。', '!', '?', '\n']).unwrap_or(rest.len());
    let Some(x) = incl.find(&rest[..end]) else {
        return false;
    };
    let what = counted_by(p, m);
    !what.is_empty()
        && mentions(&rest[x.end()..end]).iter().any(|n| {
            let n = Mention {
                start: m.end + x.end() + n.start,
                end: m.end + x.end() + n.end,
                ..*n
            };
            n.value > m.value
                && counted_by(p, &n) == what
                && !question.is_some_and(|q| asks_this_group(p, q, m, &n))
        })
}

/// "手前のテーブルには椅子が6脚あります。奥のテーブルは5脚か6脚か" asked the front table's: the
/// later pair's label (its clause before it) names something the question does not, and the
/// figure's label names something it does; the pair is another thing's.
fn labelled_apart(p: &str, q: &str, m: &Mention, later: &Mention) -> bool {
    use crate::scorers::text::similarity::content_words;
    let label = |x: &Mention| {
        let marks = [',', '.', ';', '。', '、', '!', '?', '\n'];
        let from = crate::scorers::text::after_last(p, x.start, &marks);
        content_words(&p[from..x.start])
    };
    let asked = content_words(crate::scorers::text::asking_clause(q));
    label(later).iter().any(|w| !asked.contains(w)) && label(m).iter().any(|w| asked.contains(w))
}

/// "4 people are sitting on the bench; counting the two standing, 6 people" asked how many sit,
/// "어른은 세 명이고, 아이들까지 합치면 다섯 명" asked the adults: the question names a word of
/// the figure's clause that the other figure's clause lacks, so the figure counts the group
/// asked and the other a larger one; no hedge.
fn asks_this_group(p: &str, q: &str, m: &Mention, other: &Mention) -> bool {
    use crate::scorers::text::similarity::content_words;
    const GENERIC: &[&str] = &["how", "many", "what", "much", "何", "몇", "いくつ", "얼마"];
    let clause = |x: &Mention| {
        let marks = [',', '.', ';', '。', '、', '!', '?', '\n'];
        let from = crate::scorers::text::after_last(p, x.start, &marks);
        let to = p[x.end..].find(marks).map_or(p.len(), |i| x.end + i);
        content_words(&p[from..to])
    };
    let asked: Vec<String> = content_words(crate::scorers::text::asking_clause(q))
        .into_iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .collect();
    let others = clause(other);
    // Not the counter itself with what follows it ("명인" of "명인데" and "명인가요").
    let what = counted_by(p, m);
    clause(m).iter().any(|w| {
        asked.contains(w) && !others.contains(w) && (what.is_empty() || !w.starts_with(&what))
    })
}

pub(super) fn offered_range(p: &str, m: &Mention, question: Option<&str>) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    static MAYBE: OnceLock<Regex> = OnceLock::new();
    let or = R.get_or_init(|| {
        // Not across a line: "27명\n- 2반" is a list's next item.
        // "24 °C or 26 °C": the unit may stand apart from its figure.
        Regex::new(r"^[^\S\n]?[^\s:：0-9.]{0,3}?[^\S\n]*(?:\bor\b|\bto\b|-|–|~|〜|か|또는|혹은|아니면|이나|나)\s*(?:[0-9一二三四五六七八九十]|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s)").expect("valid")
    });
    // "5 birds, maybe 6", "4 people, possibly 5", "3羽、もしかしたら4羽", "4마리, 어쩌면 5마리":
    // a second number offered in the same sentence.
    let maybe = MAYBE.get_or_init(|| {
        Regex::new(r"^\s*[,、]?(?:\s*[^\s,、.。!?:0-9]{1,12}){0,6}?\s*[,、]?\s*(?:\(|—|-)?\s*(?:or\s+)?(?:maybe|possibly|perhaps|probably|or so|might be|could be|may be|もしかしたら|もしかすると|あるいは|たぶん|おそらく|어쩌면|아마|아마도|혹시)\s*(?:even\s+|also\s+)?[$€£¥₩]?(?:[0-9一二三四五六七八九十]|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b|(?:한|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s)").expect("valid")
    });
    let rest = &p[m.end..];
    // "777-300ER": a model and its variant, no range.
    let variant = rest.strip_prefix('-').is_some_and(|r| {
        let digits = r.len() - r.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        digits > 0
            && r[digits..].starts_with(|c: char| c.is_ascii_alphabetic())
            && crate::scorers::text::units::unit_at(&r[digits..]).is_none()
    });
    if (or.is_match(rest) && !variant) || counted_again(p, m, question) || listed_alternatives(p, m)
    {
        return true;
    }
    // The words up to "maybe" must not start another thing counted ("3 dogs and maybe 2 cats"),
    // and the second number must count the same thing ("3 people, probably two adults and a
    // child" is a breakdown, not another count).
    if let Some(x) = maybe.find(rest) {
        let between = &rest[..x.end()];
        // "$14, though the large may be $17": another thing, the subject of its own "may be".
        static SUBJECT: OnceLock<Regex> = OnceLock::new();
        let subject = SUBJECT.get_or_init(|| {
            Regex::new(r"\b(?:the|a|an|this|that|its|their)\s+(?:[a-z]+\s+)?([a-z]+)\s+(?:may|might|could)\s+be\b")
                .expect("valid")
        });
        let joined = between
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "and" | "plus" | "also"))
            || ["と", "하고", "그리고"].iter().any(|w| between.contains(w))
            // "though the price may be $17" names the same figure again.
            || subject.captures(between).is_some_and(|c| {
                !matches!(
                    &c[1],
                    "price" | "cost" | "number" | "total" | "figure" | "value" | "answer"
                        | "count" | "amount" | "one" | "reading"
                )
            });
        let word_after = |s: &str| {
            s.split(|c: char| !c.is_alphanumeric())
                .find(|w| !w.is_empty())
                .unwrap_or("")
                .to_string()
        };
        // "$14, though it might be $17": nothing counted right after the first figure.
        let first_counts = if rest.trim_start().starts_with([',', '、']) {
            String::new()
        } else {
            word_after(rest)
        };
        let second = mentions(rest)
            .into_iter()
            .find(|n| n.end >= x.end())
            .map(|n| word_after(&rest[n.end..]))
            .unwrap_or_default();
        let other_thing = !second.is_empty()
            && second.chars().all(|c| c.is_ascii_alphabetic())
            && !first_counts.is_empty()
            && second.trim_end_matches('s') != first_counts.trim_end_matches('s')
            && !matches!(
                second.as_str(),
                "if" | "or" | "but" | "though" | "in" | "on" | "of"
            );
        if !joined && !other_thing {
            return true;
        }
    }
    later_tentative(p, m)
}

/// A later sentence offering another figure with the same counter as a possibility ("７台ほど
/// です。奥に隠れている車があれば８台になるかもしれません。", "… there might be 6 birds").
fn later_tentative(p: &str, m: &Mention) -> bool {
    static T: OnceLock<Regex> = OnceLock::new();
    let tentative = T.get_or_init(|| {
        Regex::new(r"かもしれ|かも知れ|可能性|might|may be|could be|possibly|perhaps|maybe|수도\s*있|일지도|가능성").expect("valid")
    });
    let counter = |x: &Mention| {
        let end = unit_end(p, x.end);
        let own = p[x.end..end].trim().to_string();
        if own.is_empty() {
            p[x.end..]
                .split_whitespace()
                .next()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
                .unwrap_or_default()
        } else {
            own
        }
    };
    let mine = counter(m);
    if mine.is_empty() {
        return false;
    }
    // Only a larger figure is another count offered ("８台になるかもしれません"); a smaller one
    // is a part of the first ("5 cars. 2 cars might be taxis.").
    // A smaller one only as the same thing again ("5 birds. It might be 4, though").
    static AGAIN: OnceLock<Regex> = OnceLock::new();
    let again = AGAIN.get_or_init(|| {
        Regex::new(
            r"\b(?:it|that|there)\s+(?:might|may|could)\s+(?:be|also be)\s+(?:only\s+|just\s+)?$",
        )
        .expect("valid")
    });
    // "새는 다섯 마리인데, 여섯 마리일 수도 있어요": another offered in the same sentence.
    static BUT: OnceLock<Regex> = OnceLock::new();
    let but = BUT.get_or_init(|| {
        Regex::new(r"인데|는데|지만|けど|けれど|が、|\bbut\b|\bthough\b").expect("valid")
    });
    let sentence_end_of = |x: &Mention| {
        p[x.end..]
            .find(['.', '。', '!', '?', '\n'])
            .map_or(p.len(), |i| x.end + i)
    };
    if mentions(p).iter().any(|x| {
        x.start > m.end
            && x.value != m.value
            && crate::scorers::text::after_last(p, x.start, &['.', '。', '!', '?', '\n']) < m.end
            && but.is_match(&p[m.end..x.start])
            && tentative.is_match(&p[x.end..sentence_end_of(x)])
            && counter(x).chars().next() == mine.chars().next()
    }) {
        return true;
    }
    mentions(p)
        .iter()
        .filter(|x| {
            x.start > m.end
                && (x.value > m.value
                    || (x.value != m.value
                        && again.is_match(
                            &p[crate::scorers::text::after_last(
                                p,
                                x.start,
                                &['.', '。', '!', '?', '\n'],
                            )..x.start],
                        )))
        })
        .any(|x| {
            let sentence_start =
                crate::scorers::text::after_last(p, x.start, &['.', '。', '!', '?', '\n']);
            let sentence_end = p[x.end..]
                .find(['.', '。', '!', '?', '\n'])
                .map_or(p.len(), |i| x.end + i);
            // "3대인 듯요. 아마 4대일 수도": the counter, without the particle after it.
            let same_counter = if mine.starts_with(|c: char| is_hangul(c) || is_kanji(c)) {
                counter(x).chars().next() == mine.chars().next()
            } else {
                counter(x) == mine
            };
            // A bare figure restating "it" counts what the first one did.
            let bare = counter(x).is_empty()
                || matches!(counter(x).as_str(), "though" | "but" | "or" | "maybe");
            (same_counter || (bare && x.value < m.value))
                && sentence_start > m.end
                && tentative.is_match(&p[sentence_start..sentence_end])
                && crate::scorers::text::negation::denied(p, x.start, x.end).is_none()
        })
}

/// "1, 2, 3, 4": a run of consecutive counts from one keeps only its last number.
/// A count that trails off ("3, 4, 5... there appear to be") keeps nothing: it never arrived.
pub(super) fn drop_counting_aloud(p: &str, ms: &mut Vec<Mention>, drop_unfinished: bool) {
    let mut i = 0;
    while i < ms.len() {
        if ms[i].value == 1.0 {
            let mut j = i;
            while j + 1 < ms.len() && ms[j + 1].value == ms[j].value + 1.0 {
                j += 1;
            }
            if j - i >= 2 {
                let rest = &p[ms[j].end..];
                let unfinished = rest.starts_with("...") || rest.starts_with('…');
                ms.drain(
                    i..if unfinished && drop_unfinished {
                        j + 1
                    } else {
                        j
                    },
                );
                if !unfinished || drop_unfinished {
                    continue;
                }
            }
        }
        i += 1;
    }
}

/// The clauses of a text: its sentences cut again at commas, semicolons, dashes, "and", "but"
/// and a Japanese or Korean contrast.
pub fn clauses(p: &str) -> impl Iterator<Item = &str> {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"[.。!?！？\n—;；,、]|\band\b|\bbut\b|が、|けど|지만").expect("valid")
    })
    .split(p)
}

/// A reply that says nothing is there ("none", "there are no dogs", "いません", "없습니다").
pub fn says_absence(p: &str) -> bool {
    // "2개밖에 없어요", "2個しかありません", "1匹しかいません": only so many, not none ("猫しか
    // いません", only cats, is none of another thing).
    if p.contains("밖에 없")
        || p.contains("しかな")
        || p.contains("しかありません")
        || p.contains("しかいな")
        || p.contains("しかいません")
    {
        static ONLY: OnceLock<Regex> = OnceLock::new();
        let only = ONLY.get_or_init(|| {
            Regex::new(r"(?:[0-9一二三四五六七八九十百]|ひと|ふた|한|두|세|네|다섯|여섯|일곱|여덟|아홉|열)[^\s。、.,]{0,4}?(?:밖에\s*없\S*|しか(?:ない|なかった|なく|ありません|ございません|いない|いなかった|いなく|いません))")
                .expect("valid")
        });
        let rest = only.replace_all(p, "");
        // Only while something was cut: a form the pattern misses must not recurse for ever.
        if rest.len() < p.len() {
            return says_absence(&rest);
        }
    }
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"\b(?:none|zero|nobody|no one|not any|[a-z]*n['’]t any|no [a-z]+|(?:not|[a-z]*n['’]t)\s+(?:[a-z]+\s+){1,2}any)\b|いない|いません|ありません|ない|なし|見当たらな|없|아무도|하나도").expect("valid")
    })
    .is_match(p)
}
