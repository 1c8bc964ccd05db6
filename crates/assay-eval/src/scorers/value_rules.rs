//! The short-answer rules for a reference that is one value of a kind the text readers know (a
//! date, a clock time, a score or size, a weekday, an ordinal, a share). Each reads the reply's
//! values of that kind, leaves out those a denial governs, takes the one the reply commits to,
//! and compares it; a value offered with another is a hedge. Only which value is committed to
//! differs between kinds.

use super::soft::HEDGE_RULE;
use super::text::hedges::offered_with_another;
use super::text::{
    self, clock, dates, floors, negation, ordinals, pairs, proportion, timestamps, weekdays,
};

/// A value found in the reply, by where it stands.
trait Found: Copy {
    fn span(&self) -> (usize, usize);
}

macro_rules! found {
    ($($t:ty),*) => {
        $(impl Found for $t {
            fn span(&self) -> (usize, usize) {
                (self.start, self.end)
            }
        })*
    };
}
found!(
    clock::ClockTime,
    floors::Floor,
    dates::Date,
    dates::MonthOfYear,
    dates::Decade,
    timestamps::Place,
    pairs::Pair,
    weekdays::Weekday,
    ordinals::Ordinal,
    proportion::Share
);

/// The values no denial governs ("not Monday but Tuesday" keeps Tuesday).
fn undenied<T: Found>(pp: &str, found: Vec<T>) -> Vec<T> {
    found
        .into_iter()
        .filter(|v| {
            let (s, e) = v.span();
            negation::denied(pp, s, e).is_none()
        })
        .collect()
}

/// The first value after the reply's last correction ("月曜日…いえ、よく見ると火曜日です").
fn after_correction<T: Found>(pp: &str, found: &[T]) -> Option<T> {
    let c = text::corrections::last_end(pp)?;
    found.iter().find(|v| v.span().0 >= c).copied()
}

/// What each verdict of a kind says.
struct Says {
    same: &'static str,
    other: &'static str,
    none: &'static str,
}

/// The verdict on the value committed to: a hedge when it is offered with another (or `hedged`
/// says so), else whether it is the reference's.
fn verdict<T: Found>(
    pp: &str,
    got: Option<T>,
    same: impl Fn(&T) -> bool,
    hedged: impl Fn(&T) -> bool,
    says: Says,
) -> (bool, &'static str) {
    match got {
        Some(v) if offered_with_another(pp, v.span().0, v.span().1) || hedged(&v) => {
            (false, HEDGE_RULE)
        }
        Some(v) if same(&v) => (true, says.same),
        Some(_) => (false, says.other),
        None => (false, says.none),
    }
}

/// The value right after an explicit answer mark ("**Answer:** 7:30 PM", "答え：", "정답:").
fn stated_answer<T: Found>(pp: &str, found: &[T]) -> Option<T> {
    found.iter().copied().find(|v| {
        let from = text::char_boundary_after(pp, v.span().0.saturating_sub(16));
        let before = pp[from..v.span().0].trim_end_matches([' ', '*', '_']);
        [
            "answer:",
            "answer：",
            "答え:",
            "答え：",
            "正解:",
            "回答:",
            "回答：",
            "정답:",
            "답:",
        ]
        .iter()
        .any(|m| {
            // The mark opens its line or follows "final"/最終/최종, not a label's own words
            // ("other answer:", 「反対」の回答：, 응답:).
            before.strip_suffix(m).is_some_and(|prior| {
                let prior = prior.trim_end_matches([' ', '*', '_', '#', '-']);
                prior.is_empty()
                    || prior.ends_with(['\n', '.', '。', '!', ')'])
                    || ["final", "最終", "최종"].iter().any(|f| prior.ends_with(f))
            }) && !(m.starts_with('답') && before.len() == m.len())
        })
    })
}

/// The first value after the reply's last mark of a conclusion ("…食べられたので、残りは
/// 4分の1", "so the answer is", "따라서"), when a value follows it.
fn concluded<T: Found>(pp: &str, found: &[T]) -> Option<T> {
    let mark = text::conclusions::last_end(pp)?;
    found.iter().copied().find(|v| v.span().0 >= mark)
}

/// "Doors open at 7 PM and the show starts at 7:30 PM" asked when the show starts: of several
/// different values, the one whose label (its clause's words before it, after the value before
/// it) shares a word with the clause that asks, when the values so labelled agree.
fn asked_by_label<T: Found>(
    pp: &str,
    question: Option<&str>,
    found: &[T],
    same: impl Fn(&T, &T) -> bool,
) -> Option<T> {
    const GENERIC: &[&str] = &["what", "when", "time", "doe", "do", "which", "how", "many"];
    // English words are also compared as written without a plural's or a verb's "s" ("closes"
    // for "close", "Saturday" for "Saturdays"; not "story" for "store").
    let raw = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| w.len() >= 4)
            .map(|w| w.strip_suffix('s').unwrap_or(w).to_string())
            .filter(|w| !GENERIC.contains(&w.as_str()))
            .collect()
    };
    let clause = text::asking_clause(question?);
    let asked_raw = raw(clause);
    // Japanese and Korean words by the content-word reader; English ones only as written (its
    // stems meet across words: "busy" and "bus").
    let asked: Vec<String> = text::similarity::content_words(clause)
        .into_iter()
        .filter(|w| !w.is_ascii() && !GENERIC.contains(&w.as_str()))
        .collect();
    let first = found.first()?;
    if (asked.is_empty() && asked_raw.is_empty()) || found.iter().all(|v| same(v, first)) {
        return None;
    }
    let labelled: Vec<T> = found
        .iter()
        .copied()
        .filter(|v| {
            let (s, _) = v.span();
            let clause = text::after_last(pp, s, &[',', '.', '。', '、', ';', '\n']);
            let previous = found
                .iter()
                .map(|o| o.span().1)
                .filter(|&e| e <= s)
                .max()
                .unwrap_or(0);
            let label = &pp[clause.max(previous)..s];
            text::similarity::content_words(label)
                .iter()
                .any(|w| asked.contains(w))
                || raw(label).iter().any(|w| asked_raw.contains(w))
        })
        .collect();
    let one = *labelled.first()?;
    if labelled.iter().all(|v| same(v, &one)) {
        return Some(one);
    }
    // Labelled values that differ ("全体の4分の3が食べられたので、残りは4分の1"): the one
    // after the reply's last mark of a conclusion, when only it comes after.
    concluded(pp, &labelled)
}

/// The rule of a reply naming several dates: the last one is read, and a judge should confirm
/// it is the one asked about ("issued on Feb 28; the concert is on March 5").
pub const SEVERAL_DATES_RULE: &str = "several dates named: the last one read";

/// The reply's date no denial governs that says which number is the month (the last, when it
/// names several: replies lead with context and end on the answer, and the verdict is unsure);
/// an all-number date ("04/07", read both ways) only when the reply names no other. None when
/// the reply names no date (the words may still match).
pub(super) fn date_rule(pp: &str, want: &dates::Date) -> Option<(bool, &'static str)> {
    let found = undenied(pp, dates::dates(pp));
    let explicit: Vec<&dates::Date> = found.iter().filter(|d| d.explicit()).collect();
    if let Some(d) = explicit.last() {
        let several = explicit.iter().any(|o| !o.same(d));
        return Some(match (d.same(want), several) {
            (ok, true) => (ok, SEVERAL_DATES_RULE),
            (true, false) => (true, "the same date, written otherwise"),
            (false, false) => (false, "the date the response gives differs"),
        });
    }
    if found.is_empty() {
        return None;
    }
    Some(if found.iter().any(|d| d.same(want)) {
        (true, "the same date, in one reading of an all-number date")
    } else {
        (false, "the date the response gives differs")
    })
}

/// The rule of a clock time whose label names the opposite of the event asked about.
pub const OPPOSITE_EVENT_RULE: &str =
    "a time of the opposite event (closing for opening, arriving for leaving)";

/// The month of a year the reply commits to (after a correction, the first after it; else the
/// last, as replies end on the answer: "EXP 2026-08, so August 2026"), against the reference's.
pub(super) fn month_of_year_rule(
    pp: &str,
    want: &dates::MonthOfYear,
) -> Option<(bool, &'static str)> {
    let found = undenied(pp, dates::months_of_year(pp));
    let got = after_correction(pp, &found).or(found.last().copied())?;
    Some(verdict(
        pp,
        Some(got),
        |m| m.year == want.year && m.month == want.month,
        // Another month named is context ("MFG 02/2024, EXP 08/2026") unless offered with it.
        |_| false,
        Says {
            same: "the same month of the same year",
            other: "another month or year",
            none: "no month of a year in response",
        },
    ))
}

/// The decade a reply states ("a Model T from the 1920s"): after a correction, or after an
/// answer mark, else its first; None when it names no decade (a year is read as a number).
pub(super) fn decade_rule(
    pp: &str,
    question: Option<&str>,
    want: &dates::Decade,
) -> Option<(bool, &'static str)> {
    let found = undenied(pp, dates::decades(pp));
    // "The print looks 1970s, but the car is a 1920s Ford" asked the car's decade: of different
    // decades, the one whose clause names what the question asks about (not one a correction
    // about another thing brings: "…1980년대 제품입니다. 아, 다시 보니 옆에 있는 TV는 1990년대").
    let asked = question
        .map(text::similarity::content_words)
        .unwrap_or_default();
    let about_asked = |d: &dates::Decade| {
        let from = text::after_last(pp, d.start, &['.', '。', ',', '、', '\n', ';']);
        text::similarity::content_words(&pp[from..d.start])
            .iter()
            .any(|w| asked.contains(w))
    };
    let named: Vec<dates::Decade> = found.iter().copied().filter(about_asked).collect();
    let got = match named.as_slice() {
        [one] if found.iter().any(|d| d.year != one.year) => Some(*one),
        _ => None,
    }
    .or_else(|| after_correction(pp, &found))
    .or_else(|| stated_answer(pp, &found))
    .or(found.first().copied())?;
    Some(verdict(
        pp,
        Some(got),
        |d| d.year == want.year,
        |_| false,
        Says {
            same: "the same decade",
            other: "another decade",
            none: "no decade in response",
        },
    ))
}

/// A place in a video ("01:12") against the place the reply states ("00:01:12", "1分12秒"):
/// after a correction, after an answer mark or a conclusion, else its first. A range answers
/// only a question asking roughly, and only when it is narrow (ten seconds at most) and holds
/// the place. None when the reply names no place.
pub(super) fn place_rule(
    pp: &str,
    question: Option<&str>,
    want: u32,
) -> Option<(bool, &'static str)> {
    let found = undenied(pp, timestamps::places(pp));
    // "Dark clouds gather from 0:40 to 0:48, and the rain itself starts at 1:10" asked when
    // the rain starts: the place whose label the question names.
    let got = after_correction(pp, &found)
        .or_else(|| stated_answer(pp, &found))
        .or_else(|| asked_by_label(pp, question, &found, |a, b| a == b))
        .or_else(|| concluded(pp, &found))
        .or(found.first().copied())?;
    let roughly = question.is_some_and(timestamps::asks_roughly);
    if got.from != got.to {
        let holds = got.from <= want && want <= got.to;
        return Some(if roughly && holds && got.to - got.from <= 10 {
            (
                true,
                "a narrow range of places in the video around the reference",
            )
        } else if holds {
            (false, HEDGE_RULE)
        } else {
            (false, "a range of places in the video beside the reference")
        });
    }
    Some(verdict(
        pp,
        Some(got),
        |p| p.from == want,
        |_| false,
        Says {
            same: "the same place in the video",
            other: "another place in the video",
            none: "no place in the video in response",
        },
    ))
}

/// "2분" asked roughly how many minutes into a video, answered "약 1분 58초": a place read to
/// the nearest minute. None when the reply names no place with seconds.
pub(super) fn minutes_rule(pp: &str, want: u32) -> Option<(bool, &'static str)> {
    let found = undenied(pp, timestamps::places(pp));
    // "…comes at 1:42, where the host says to bake it for 25 minutes": whole minutes stated
    // are the number rule's.
    if found.iter().any(|p| p.from == p.to && p.from % 60 == 0) {
        return None;
    }
    let got = after_correction(pp, &found)
        .or_else(|| concluded(pp, &found))
        .or(found.first().copied())
        .filter(|p| p.from == p.to && p.from % 60 != 0)?;
    Some(if (got.from + 30) / 60 == want {
        (true, "the place in the video, to the nearest minute asked")
    } else {
        (false, "another minute of the video")
    })
}

/// The reply's first clock time no denial governs (after a correction, the first after it).
pub(super) fn time_rule(
    pp: &str,
    question: Option<&str>,
    want: &clock::ClockTime,
) -> (bool, &'static str) {
    let mut times = undenied(pp, clock::times(pp));
    // "4 minutes and 12 seconds left" for a game clock's "4:12".
    if times.is_empty() && !want.half_known {
        times = undenied(pp, clock::durations(pp));
    }
    // "10時を指していますが、…夜の10時、つまり22時": a reference that fixes the half of the
    // day is answered by the last time that fixes it too.
    let fixed = (want.half_known && times.first().is_some_and(|t| !t.half_known))
        .then(|| times.iter().rev().find(|t| t.half_known).copied())
        .flatten();
    let tentative = |t: &clock::ClockTime| {
        static T: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let r = T.get_or_init(|| {
            regex::Regex::new(r"\b(?:maybe|perhaps|possibly|might|could)\b|もしかすると|もしかしたら|かも|수도\s*있|아마|일지도")
                .expect("valid")
        });
        // A later, different time offered as a possibility ("たぶん9時、もしかすると10時かも").
        times.iter().any(|o| {
            o.start > t.end && !o.same(t) && {
                let end = pp[o.end..]
                    .find(['.', '。', '!', '?', '\n'])
                    .map_or(pp.len(), |i| o.end + i);
                r.is_match(&pp[t.end..end])
            }
        })
    };
    let chosen = after_correction(pp, &times)
        .or(fixed)
        .or_else(|| stated_answer(pp, &times))
        .or_else(|| asked_by_label(pp, question, &times, |a, b| a.same(b)))
        .or(times.first().copied());
    // "the store closes at 8:00 PM" asked when it opens: the time of another event, named in
    // the time's clause before it or right after it ("夜9時閉店").
    if let (Some(t), Some(q)) = (chosen, question) {
        let (s, e) = t.span();
        let marks = ['.', '。', '\n', ';', ',', '、'];
        let after = pp[e..].find(marks).map_or(pp.len(), |i| e + i);
        let label = format!(
            "{}{}",
            &pp[text::after_last(pp, s, &marks)..s],
            &pp[e..after]
        );
        if text::asks::names_opposite_event(q, &label) {
            return (false, OPPOSITE_EVENT_RULE);
        }
    }
    // "either 3:15 or 3:45": offered with another, a hedge.
    verdict(
        pp,
        chosen,
        |t| t.same(want),
        tentative,
        Says {
            same: "the same clock time",
            other: "another clock time",
            none: "no clock time in response",
        },
    )
}

/// A score or a size against the reply's first pair of its kind that no denial governs and that
/// is not a clock time ("at 10:45 it was 2-1"); None when the reply states no such pair.
pub(super) fn pair_rule(pp: &str, want: &pairs::Pair) -> Option<(bool, &'static str)> {
    use std::sync::OnceLock;
    static FINAL: OnceLock<regex::Regex> = OnceLock::new();
    let times = clock::times(pp);
    let found: Vec<pairs::Pair> = undenied(pp, pairs::pairs(pp, want.kind))
        .into_iter()
        .filter(|p| !times.iter().any(|t| t.start < p.end && p.start < t.end))
        .collect();
    // "At halftime it was 1-1 … the final score was 2-1": the pair stated as the result, or the
    // first after a correction, before the first.
    let fin = FINAL.get_or_init(|| {
        regex::Regex::new(r"\bfinal\b|\bended\b|\bfull[- ]time\b|最終|試合終了|최종|경기 종료")
            .expect("valid")
    });
    let stated = found.iter().copied().find(|p| {
        let sentence = pp[..p.start]
            .char_indices()
            .rev()
            .find(|(_, c)| matches!(c, '.' | '。' | '!' | '?' | '\n'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        fin.is_match(&pp[sentence..p.start])
    });
    let got = stated
        .or(after_correction(pp, &found))
        .or(found.first().copied())?;
    Some(verdict(
        pp,
        Some(got),
        |p| p.same(want),
        |_| false,
        Says {
            same: "the same pair (a score in its order, a size in either)",
            other: "another pair (score or size)",
            none: "",
        },
    ))
}

/// A weekday reference against the reply's first weekday no denial governs (after a
/// correction, the first after it).
pub(super) fn weekday_rule(pp: &str, want: usize) -> (bool, &'static str) {
    let found = undenied(pp, weekdays::weekdays(pp));
    verdict(
        pp,
        after_correction(pp, &found).or(found.first().copied()),
        |w| w.day == want,
        |_| false,
        Says {
            same: "the same weekday (long or short form)",
            other: "another weekday",
            none: "no weekday in response",
        },
    )
}

/// The reply's first ordinal no denial governs.
pub(super) fn ordinal_rule(pp: &str, want: u32) -> (bool, &'static str) {
    let found = undenied(pp, ordinals::ordinals(pp));
    // The position the reply states as its answer ("finished third", "came in 2nd", "is
    // fourth."), before one that names a thing ("the second runner from the left").
    // Not "in frame 6", where an image or a frame is where something is seen.
    let items = ordinals::numbered_items(pp);
    let stated = found.iter().copied().find(|o| {
        let rest = pp[o.end..].trim_start();
        rest.is_empty()
            || rest.starts_with(|c: char| text::is_clause_mark(c))
            || rest.starts_with("place")
            || !items.contains(o)
                && pp[..o.start]
                    .trim_end()
                    .rsplit(' ')
                    .next()
                    .is_some_and(|w| {
                        matches!(
                            w,
                            "finished" | "came" | "placed" | "ranked" | "in" | "is" | "was" | "at"
                        )
                    })
    });
    // "이미지 1에는 8명, 이미지 2에는 5명이 있습니다. 따라서 이미지 1입니다.": a conclusion or a
    // correction decides.
    let got = after_correction(pp, &found)
        .or_else(|| concluded(pp, &found))
        .or(stated)
        .or(found.first().copied());
    verdict(
        pp,
        got,
        |o| o.position == want,
        |_| false,
        Says {
            same: "the same position (ordinal)",
            other: "another position (ordinal)",
            none: "no ordinal in response",
        },
    )
}

/// A share reference against the reply's first share no denial governs (a discount too, "2割引",
/// when the question asks the discount); None when the reply states no share (a bare number then
/// answers "50%" by the number rule).
pub(super) fn share_rule(
    pp: &str,
    question: Option<&str>,
    want: f64,
    discount_asked: bool,
) -> Option<(bool, &'static str)> {
    let found = undenied(pp, proportion::shares(pp));
    // A figure ("60%", "1/3") before a word ("more than half, about 60%"), and a discount
    // ("2割引") only after both.
    let figure = found
        .iter()
        .copied()
        .find(|s| pp[s.start..s.end].starts_with(|c: char| c.is_ascii_digit()));
    let discount = || {
        discount_asked
            .then(|| undenied(pp, proportion::discounts(pp)).first().copied())
            .flatten()
    };
    // A discount asked ("割引率は") is answered by the discount before any other share ("2割引
    // … 消費税10%").
    // "最初は62%と読みましたが…\n最終回答：65%": a share after an answer mark first, then the
    // share whose label the question names ("4分の3が食べられたので、残りは4分の1").
    let stated = stated_answer(pp, &found).or_else(|| {
        asked_by_label(pp, question, &found, |a, b| {
            proportion::same_share(a.value, b.value)
        })
    });
    let got = if discount_asked {
        discount().or(stated).or(figure).or(found.first().copied())
    } else {
        stated.or(figure).or(found.first().copied())
    };
    let Some(got) = got else {
        return decimal_share(pp, question, want);
    };
    // "I'd say 3/8 or 1/2": two shares offered, neither chosen.
    let offered = found.iter().find_map(|s| {
        text::hedges::offered_with_another(pp, s.start, s.end)
            .then(|| {
                found.iter().find(|t| {
                    t.start > s.end
                        && t.start - s.end <= 24
                        && !proportion::same_share(t.value, s.value)
                })
            })
            .flatten()
    });
    // "3分の1か4分の1か迷いましたが、…4分の1です": the two weighed, then a contrast and the
    // share chosen after it.
    let got = match offered {
        Some(pair) => {
            let later = &pp[pair.end..];
            let chosen = text::contrast_end(later)
                .and_then(|c| found.iter().find(|x| x.start >= pair.end + c).copied());
            match chosen {
                Some(chosen) => chosen,
                None => return Some((false, text::numbers::HEDGE_RULE)),
            }
        }
        None => got,
    };
    Some(verdict(
        pp,
        Some(got),
        |s| proportion::same_share(s.value, want),
        |_| false,
        Says {
            same: "the same share (fraction or percentage)",
            other: "another share",
            none: "",
        },
    ))
}

/// "12 of the 16 squares are blue, so … 0.75 of the grid" for "3/4": a reply that states no
/// share answers a fraction by the decimal it commits to (a bare "75" is no share: "50%" is
/// answered by a bare "50" through the number rule, which reads the reference as 50).
fn decimal_share(pp: &str, question: Option<&str>, want: f64) -> Option<(bool, &'static str)> {
    let (got, _) = text::numbers::committed_mention(pp, question, want)?;
    // A decimal with a unit measures something ("radius 0.75 cm", "0.25리터").
    let decimal = pp[got.start..got.end].contains('.')
        && text::units::unit_at(&pp[got.end..]).is_none()
        && !pp[got.end..]
            .trim_start()
            .starts_with(|c: char| text::is_hangul(c) || text::is_kanji(c));
    (decimal && want < 1.0).then(|| {
        if proportion::same_share(got.value, want) {
            (true, "the same share, as a decimal")
        } else {
            (false, "another share, as a decimal")
        }
    })
}

/// A floor reference against the reply's first floor no denial governs (after a correction,
/// the first after it), in any notation ("B1층" for "지하 1층"); None when the reply names no
/// floor (a bare figure is then read as a number).
pub(super) fn floor_rule(pp: &str, want: i32) -> Option<(bool, &'static str)> {
    let found = undenied(pp, floors::floors(pp));
    let got = after_correction(pp, &found).or(found.first().copied())?;
    Some(verdict(
        pp,
        Some(got),
        |f| f.level == want,
        |_| false,
        Says {
            same: "the same floor (B1, 地下1階, 지하 1층, basement 1)",
            other: "another floor",
            none: "",
        },
    ))
}
