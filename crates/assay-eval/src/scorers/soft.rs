//! Normalised soft match for short answers.
//!
//! Correct when, in this order:
//! 1. the normalised response equals the normalised reference (NFKC, case, width, punctuation,
//!    whitespace, thousands separators, katakana = hiragana);
//! 2. for a reference that is one number ("3", "80人", "two", "다섯 명"), the number the
//!    response **commits to** equals it ([`text::numbers::committed`]: denied numbers, restated
//!    ones, totals, counting aloud and years are set aside; the number of the last answer
//!    statement, else the one the response leads with); for a count of zero, a response that
//!    says nothing is there ("none", "いません", "없습니다");
//! 3. the reference occurs in the response **as a word** and no denial governs that occurrence
//!    ([`text::negation`]): for scripts with spaces as a run of whole tokens (a plural "s" on the
//!    last one allowed, not the first word of a compound such as "bus stop"); for Japanese and
//!    Korean by the word edges of [`text::words`] ("京都" is not in "東京都", "서울" is in
//!    "서울에" but not in "서울대학교").
//!
//! Everything else is incorrect. The rule that decided is kept as evidence.

use serde_json::json;

use super::normalize::normalize;
use super::text::asks::{
    asks_emptiness, asks_permitted, asks_prohibited, prohibition_at, says_none_at_all,
};
use super::text::hedges::{
    another_offered_after, bare_list, first_impression, offered_with_another_in,
};
use super::text::{
    self, clock, dates, negation, numbers, ordinals, proportion, restated, units, words,
};
use super::value_rules::{
    date_rule, decade_rule, floor_rule, minutes_rule, month_of_year_rule, ordinal_rule, pair_rule,
    place_rule, share_rule, time_rule, weekday_rule, SEVERAL_DATES_RULE,
};
use super::{ScoreContext, Scored, Scorer};
use assay_core::ItemContent;

pub struct SoftMatch;

/// The rule of a match at the end of a compound word: read as a kind of the reference, unsure.
pub const COMPOUND_RULE: &str = "reference ends a compound word (a kind of it, or another thing)";

/// The rule of a reference's word found in another form: a Korean predicate made a noun (-기,
/// -음) as its stem and an ending ("맑아요" for "맑음"), an English adjective in -y as its verb
/// or noun ("raining" for "rainy"), a material's adjective in -en ("wooden" for "wood"). Read as
/// a match, unsure.
pub const WORD_FORM_RULE: &str =
    "the reference's word in another form (맑아요 for 맑음, raining for rainy, wooden for wood)";

/// Whether a question asks what something is made of.
fn asks_material(q: &str) -> bool {
    let q = q.to_ascii_lowercase();
    ["made of", "made from", "material"]
        .iter()
        .any(|w| q.contains(w))
}

/// A one-word English reference in another form: an adjective in -y answered by its verb or
/// noun ("raining", "rain" for "rainy"; "snowing" for "snowy", "fog" for "foggy"), and, asked a
/// material, a noun answered by its adjective in -en ("wooden" for "wood", "golden" for "gold").
fn english_form_spans(pp: &str, needle: &str, material: bool) -> Vec<(usize, usize)> {
    if needle.is_empty() || !needle.chars().all(|c| c.is_ascii_lowercase()) {
        return Vec::new();
    }
    // "sunny" → "sun", "foggy" → "fog", "rainy" → "rain".
    let base = needle.strip_suffix('y').filter(|b| b.len() >= 3).map(|b| {
        let bytes = b.as_bytes();
        let n = bytes.len();
        if bytes[n - 1] == bytes[n - 2] {
            &b[..n - 1]
        } else {
            b
        }
    });
    let toks = tokens(pp);
    toks.iter()
        .enumerate()
        .filter(|(i, t)| {
            let w = t.2;
            // The verb only as what something is doing ("it's raining", "it is snowing"), not
            // as a modifier ("a winding road").
            let predicative = *i > 0 && matches!(toks[i - 1].2, "is" | "it's" | "'s" | "are");
            let by_base =
                base.is_some_and(|b| w == b || (predicative && w.strip_suffix("ing") == Some(b)));
            let by_en = material
                && (w.strip_suffix("en") == Some(needle) || w.strip_suffix("len") == Some(needle));
            by_base || by_en
        })
        .map(|(_, t)| (t.0, t.1))
        .collect()
}

/// The rule of a proper name followed by a qualifier ("Paris, Texas" for "Paris"): the place
/// named, or another of the same name; read as a match, unsure.
pub const QUALIFIED_RULE: &str =
    "reference followed by a qualifier (the place named, or another of the same name)";

/// The rule of a reply that offers the reference with another answer (its own outcome).
pub const HEDGE_RULE: &str = "reference offered with another answer (a hedge)";

/// Second words that make a one-word noun reference the first half of another thing ("bus
/// stop" is not a bus, "Tokyo Tower" is not Tokyo), unless the question asks for that kind of
/// thing ("Which station is this?" → "Shinjuku Station" names Shinjuku).
const COMPOUND_HEADS: &[&str] = &[
    "stop",
    "station",
    "park",
    "parking",
    "lot",
    "seat",
    "seats",
    "driver",
    "wheel",
    "shop",
    "store",
    "tower",
    "bridge",
    "house",
    "room",
    "stand",
    "tree",
    "trees",
    "juice",
    "pie",
    "sauce",
    "cake",
    "garage",
    "depot",
    "track",
    "tracks",
    "yard",
    "university",
    "college",
    "airport",
    "museum",
    "castle",
    "temple",
    "shrine",
    "stadium",
    "hall",
    "market",
    "building",
];

/// Heads of landmarks named after their city ("London Eye", "Kyoto Imperial Palace"): a second
/// name only when capitalised right after the reference, at most one capitalised word between
/// ("Sydney. Harbour Bridge" names Sydney; "cardboard, square-shaped" is cardboard).
const LANDMARK_HEADS: &[&str] = &[
    "eye",
    "gate",
    "square",
    "palace",
    "cathedral",
    "zoo",
    "aquarium",
    "harbour",
    "harbor",
];

/// Whether the words from `hay[j]` on name a landmark: capitalised, only spaces before each,
/// ending on a landmark's head within two words, and no such head asked for.
fn landmark_after(hay: &[(usize, usize, &str)], j: usize, script: &str, asked: &str) -> bool {
    let Some(mut prev_end) = j.checked_sub(1).and_then(|p| hay.get(p)).map(|t| t.1) else {
        return false;
    };
    for &(s, e, w) in hay.iter().skip(j).take(2) {
        let spaced = script
            .get(prev_end..s)
            .is_some_and(|g| !g.is_empty() && g.trim().is_empty());
        let capital = script
            .get(s..)
            .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_uppercase()));
        if !spaced || !capital {
            return false;
        }
        if LANDMARK_HEADS.contains(&w) {
            return !asked.contains(w);
        }
        prev_end = e;
    }
    false
}

/// References that describe rather than name (colours, sizes, sides, materials): followed by
/// any noun they still say what was asked ("a red stop sign" is red).
const DESCRIBING: &[&str] = &[
    "red", "blue", "green", "yellow", "white", "black", "brown", "gray", "grey", "orange", "pink",
    "purple", "silver", "gold", "golden", "big", "small", "large", "tall", "short", "left",
    "right", "top", "bottom", "wooden", "metal", "plastic", "glass", "old", "new",
];

pub fn soft_match(reference: &str, response: &str) -> (bool, &'static str) {
    soft_match_asked(None, reference, response)
}

/// [`soft_match`] knowing the question, so that numbers which only restate it are set aside.
pub fn soft_match_asked(
    question: Option<&str>,
    reference: &str,
    response: &str,
) -> (bool, &'static str) {
    // '{"rejected_candidates": ["Starbucks"], "answer": "Tim Hortons"}': the answer field is
    // the reply; the other fields are its working.
    if let Some(answer) = text::structured::answer_field(&text::own_turn(response)) {
        if answer.trim().is_empty() {
            return (false, EMPTY_FIELD_RULE);
        }
        return match soft_match_asked(question, reference, &answer) {
            (true, _) => (true, STRUCTURED_RULE),
            miss => miss,
        };
    }
    if let Some(decided) = direction_source_only(question, reference, response) {
        return decided;
    }
    if let Some(decided) = question.and_then(|q| colour_of_another_thing(q, reference, response)) {
        return decided;
    }
    // A markdown table, then the reply's conclusion below it ("| 塩ラーメン | 900円 |…\n\n
    // 1,000円以下は3品です。"): the table is the working, and the conclusion answers when it names
    // a value of its own.
    if let Some(after) = text::after_table(response).filter(|a| concludes(a, question)) {
        let read = read_short(question, reference, after);
        if !matches!(read.1, NO_MATCH | NO_NUMBER) {
            return read;
        }
    }
    if let Some(decided) = term_after_appearance(question, reference, response) {
        return decided;
    }
    if let Some(decided) = question.and_then(|q| colour_only_as_possibility(q, reference, response))
    {
        return decided;
    }
    let read = read_short(question, reference, response);
    if read.1 != NO_MATCH {
        return read;
    }
    [Class::Colour, Class::Direction]
        .into_iter()
        .find_map(|class| term_in_another_form(question, reference, response, class))
        .or_else(|| hanja_in_hangul(question, reference, response))
        .or_else(|| without_admin_suffix(question, reference, response))
        .or_else(|| name_part(question, reference, response))
        .unwrap_or(read)
}

/// An equation, a point or an angle in degrees as a reference (`y = 2x + 1`, `(1, -3)`, `60°`):
/// the reply's last equation in the same variables, its last point, or its angle in radians
/// when it states none in degrees (`2x - y + 1 = 0`, `(-1, -3)`, `θ = π/3`).
fn maths_rule(pr: &str, pp: &str) -> Option<(bool, &'static str)> {
    use text::maths;
    if pr.contains('=') {
        let want = maths::equation(pr)?;
        let vars = want.variables();
        let last = maths::answered_last(pp, |s| {
            maths::equations_in(s)
                .into_iter()
                .filter(|e| e.variables() == vars)
                .collect()
        })?;
        return Some(if last.same(&want) {
            (true, "the same equation, its terms moved or scaled")
        } else {
            (
                false,
                "the reply's last equation in the reference's variables differs",
            )
        });
    }
    if let Some(want) = pr
        .trim_start()
        .starts_with('(')
        .then(|| maths::point(pr))
        .flatten()
    {
        let last = maths::answered_last(pp, maths::points_in)?;
        let same = |a: f64, b: f64| (a - b).abs() < 1e-9;
        return Some(if same(last.0, want.0) && same(last.1, want.1) {
            (true, "the same point")
        } else {
            (
                false,
                "the reply's last point differs (a sign or a coordinate)",
            )
        });
    }
    // "4π" against "π/4", "60°" against "θ = π/3": an angle compared by its value, a multiple
    // of π as one number and not as its figure.
    let (want, same, other) = if pr.contains('π') {
        let [want] = maths::radians_in_degrees(pr)[..] else {
            return None;
        };
        (want, "the same multiple of π", "another multiple of π")
    } else {
        let degrees_like =
            pr.contains('°') || pr.contains("deg") || pr.contains('度') || pr.contains('도');
        let want = degrees_like
            .then(|| maths::degrees_reference(pr))
            .flatten()?;
        static DEGREES: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let degrees = DEGREES.get_or_init(|| {
            regex::Regex::new(r"°|\bdeg(?:rees?)?\b|\d\s*(?:度|도)").expect("valid")
        });
        // A reply that states an angle in degrees is read by the number rules.
        if degrees.is_match(pp) {
            return None;
        }
        (
            want,
            "the same angle, in radians",
            "another angle, in radians",
        )
    };
    let last = maths::last_radians(pp)?;
    Some(if (last - want).abs() < 1e-6 {
        (true, same)
    } else {
        (false, other)
    })
}

/// "32J" answered "32C", "I-35W" answered "I-35E": a reference of a figure with one letter glued
/// after it (a seat, a route, or a figure with a one-letter unit), answered only with the same
/// figure glued to another letter. Such a letter is a code's, whether or not the reference's
/// letter is also a unit's symbol.
fn another_code_letter(pr: &str, pp: &str) -> bool {
    // Most references hold no figure with a letter glued after it.
    if !pr
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && w[1].is_ascii_alphabetic())
    {
        return false;
    }
    static CODE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let code = CODE.get_or_init(|| {
        regex::Regex::new(r"(?:^|[^a-z0-9.])([a-z]*-?)(\d+)([a-z])(?:[^a-z0-9]|$)").expect("valid")
    });
    let Some(want) = code
        .captures(pr.trim())
        .filter(|c| c.get(0).map(|m| m.len()) >= Some(pr.trim().len()))
    else {
        return false;
    };
    let mut other = false;
    for c in code.captures_iter(pp) {
        // "Interstate 35W … I-35E": the reference's figure and letter, whatever the prefix.
        if c[2] == want[2] && c[3] == want[3] {
            return false;
        }
        if c[1] == want[1] && c[2] == want[2] {
            other = true;
        }
    }
    other
}

/// The rule that reads a place without its administrative suffix.
pub const ADMIN_SUFFIX_RULE: &str = "the place named without its administrative suffix";

/// "兵庫です" for "兵庫県", "경기예요" for "경기도": a prefecture, a city or a province named without
/// the suffix that says what kind of place it is (not 北海道, whose 道 is part of the name).
fn without_admin_suffix(
    question: Option<&str>,
    reference: &str,
    response: &str,
) -> Option<(bool, &'static str)> {
    let r = reference.trim();
    let stem = [
        "県",
        "府",
        "都",
        "市",
        "특별시",
        "광역시",
        "특별자치도",
        "도",
    ]
    .iter()
    .find_map(|s| r.strip_suffix(s))
    .filter(|s| {
        s.chars().count() >= 2 && s.chars().all(|c| text::is_kanji(c) || text::is_hangul(c))
    })?;
    // "축구 경기 사진이라 … 알 수 없습니다": a reply that cannot tell names no place, and a
    // stem that modifies the noun after it ("경기 사진", a match's photo) is another word.
    if cannot_tell(&text::prepare(response)) {
        return None;
    }
    let standing = response.match_indices(stem).any(|(i, _)| {
        // "야구 경기가": a noun before it (no particle ends it) makes a compound of it; an
        // adnominal ("근교인 경기 지역") only describes it.
        let modifier = response[..i].strip_suffix(' ').is_some_and(|h| {
            h.chars().next_back().is_some_and(|c| {
                text::is_hangul(c) && !"은는이가을를에도의로와과서인한된던".contains(c)
            })
        });
        if modifier {
            return false;
        }
        let rest = &response[i + stem.len()..];
        let Some(next) = rest.strip_prefix(' ') else {
            return true;
        };
        !next.starts_with(text::is_hangul)
            || [
                "지역", "지방", "쪽", "일대", "북부", "남부", "동부", "서부", "내",
            ]
            .iter()
            .any(|p| next.starts_with(p))
    });
    if !standing {
        return None;
    }
    match read_short(question, stem, response) {
        (true, _) => Some((true, ADMIN_SUFFIX_RULE)),
        _ => None,
    }
}

/// The rule that reads a person's name by its last part.
pub const NAME_PART_RULE: &str = "the last part of the reference's name (a family name)";

/// "Eiffel." for "Gustave Eiffel", "가우디입니다" for "안토니 가우디", "コルビュジエ" for "ル・コルビ
/// ュジエ": a name of several parts answered by its last, unless another first part stands before
/// it ("Paloma Picasso" for "Pablo Picasso"). A judge should confirm it names the same one.
fn name_part(
    question: Option<&str>,
    reference: &str,
    response: &str,
) -> Option<(bool, &'static str)> {
    let parts: Vec<&str> = reference
        .split(|c: char| c.is_whitespace() || "・·･".contains(c))
        .filter(|p| !p.is_empty())
        .collect();
    let [first, .., last] = parts.as_slice() else {
        return None;
    };
    // Only a person asked for ("York" is no answer for "New York").
    if !question.is_some_and(text::asks::asks_person) {
        return None;
    }
    let named = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || !c.is_ascii())
    };
    let long_enough = if last.is_ascii() {
        last.len() >= 4
    } else {
        last.chars().count() >= 2
    };
    if !long_enough || !parts.iter().all(|p| named(p)) {
        return None;
    }
    if !read_short(question, last, response).0 {
        return None;
    }
    // Each mention of the family name, as a word, with the word joined right before it and the
    // word right after it (joined by a space or a ・ only: "**Answer:** Eiffel" has no word
    // before its name).
    let lower = response.to_lowercase();
    let needle = last.to_lowercase();
    let mentions: Vec<(Option<&str>, Option<&str>)> = lower
        .match_indices(&needle)
        .filter(|&(i, _)| {
            !last.is_ascii()
                || (!lower[..i].ends_with(char::is_alphanumeric)
                    && !lower[i + needle.len()..].starts_with(char::is_alphanumeric))
        })
        .filter_map(|(i, _)| {
            // Lower case keeps the offsets of the names compared here (Latin, kana, Hangul).
            let (head, tail) = (response.get(..i)?, response.get(i + needle.len()..)?);
            let gap_start = head.trim_end_matches([' ', '・', '·']).len();
            let before = (head[gap_start..].chars().count() == 1)
                .then(|| {
                    // An initial ("C. P. E. Bach") is a word before the name too.
                    let h = &head[..gap_start];
                    let h = h
                        .strip_suffix('.')
                        .filter(|x| {
                            let mut c = x.chars().rev();
                            c.next().is_some_and(|l| l.is_ascii_uppercase())
                                && c.next().is_none_or(|b| !b.is_alphanumeric())
                        })
                        .unwrap_or(h);
                    let start = h
                        .rfind(|c: char| !c.is_alphanumeric() && c != '\'')
                        .map_or(0, |k| k + h[k..].chars().next().map_or(1, char::len_utf8));
                    &h[start..]
                })
                .filter(|w| !w.is_empty());
            let after = tail
                .strip_prefix(' ')
                .map(|t| t.split(|c: char| !c.is_alphanumeric()).next().unwrap_or(""));
            Some((before, after))
        })
        .collect();
    // Another given name right before the family name names another person ("Paloma
    // Picasso", "カール・フィリップ・エマヌエル・バッハ", "얀 브뤼헐"); a Korean word that says what
    // the person is ("화가 브뤼헐") does not.
    let given = |w: &str| {
        let Some(c) = w.chars().next() else {
            return false;
        };
        if w.eq_ignore_ascii_case(first) || parts.contains(&w) {
            return false;
        }
        // "J. S. Bach" for "Johann Sebastian Bach": the initials of its own given names.
        if w.chars().count() == 1 && parts.iter().any(|p| p.starts_with(w)) {
            return false;
        }
        if c.is_ascii() {
            c.is_uppercase()
        } else if text::is_hangul(c) {
            !w.ends_with([
                '가', '자', '사', '님', '는', '은', '이', '의', '를', '을', '로',
            ])
        } else {
            text::is_katakana(c)
        }
    };
    let other_first = mentions.iter().any(|(b, _)| b.is_some_and(given));
    // A name that goes on ("Bank of America" is no family name "Bank").
    let goes_on = |a: &Option<&str>| {
        a.is_some_and(|w| w == "of" || w.chars().next().is_some_and(char::is_uppercase))
    };
    let all_go_on = !mentions.is_empty() && mentions.iter().all(|(_, a)| goes_on(a));
    (!other_first && !all_go_on).then_some((true, NAME_PART_RULE))
}

/// Whether the text below a table concludes what was asked: it shares a word with the
/// question ("1,000円以下は3品です" asked 1,000円以下のラーメンは何品) or says it is the answer;
/// not a footnote ("※2024年4月時点の価格です", "All prices include 10% sales tax").
fn concludes(after: &str, question: Option<&str>) -> bool {
    let t = after.trim_start();
    if t.starts_with(['※', '*', '注']) || t.to_ascii_lowercase().starts_with("note") {
        return false;
    }
    let said = text::similarity::content_words(t);
    let asked = question
        .map(text::similarity::content_words)
        .unwrap_or_default();
    said.iter().any(|w| asked.contains(w))
        || [
            "answer",
            "so ",
            "total",
            "答え",
            "合計",
            "つまり",
            "정답",
            "따라서",
            "총",
        ]
        .iter()
        .any(|w| t.to_lowercase().contains(w))
}

/// The rule that reads structured output by its answer field.
pub const STRUCTURED_RULE: &str = "the answer field of the reply's JSON or YAML names it";
const EMPTY_FIELD_RULE: &str = "the answer field of the reply's JSON or YAML is empty";
const CLARIFY_RULE: &str = "the reply asks which of several things is meant";

/// The rule that reads a Hangul reference written in Hanja.
pub const HANJA_RULE: &str = "the reference written in Hanja (read by libhangul's Hanja table)";

/// "현판에는 '崇禮門'이라고 적혀 있습니다" for "숭례문": a run of Hanja whose reading is the
/// reference is written in Hangul, and the reply read again, so every other rule still decides.
fn hanja_in_hangul(
    question: Option<&str>,
    reference: &str,
    response: &str,
) -> Option<(bool, &'static str)> {
    let reference = super::normalize::nfkc(reference);
    let rewritten = text::hanja::written_as_reference(reference.trim(), response)?;
    Some(match read_short(question, &reference, &rewritten) {
        (true, _) => (true, HANJA_RULE),
        miss => miss,
    })
}

use text::colours::Class;

/// "He's wearing blue jeans and a plain white shirt." asked the shirt's colour, for "blue": the
/// reference's colour goes with another thing while another colour goes with the thing the
/// question names (English, the colour right before its noun).
fn colour_of_another_thing(
    question: &str,
    reference: &str,
    response: &str,
) -> Option<(bool, &'static str)> {
    use text::colours::{colours, reference_colour};
    let want = reference_colour(&super::normalize::nfkc(reference))?;
    let reply = super::normalize::nfkc(response).to_ascii_lowercase();
    if !reply.is_ascii() {
        return None;
    }
    let asked: Vec<String> = question
        .to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| w.len() >= 3)
        .map(|w| w.trim_end_matches('s').to_string())
        .collect();
    let noun_after = |end: usize| {
        reply[end..]
            .split(|c: char| !c.is_ascii_alphabetic())
            .find(|w| !w.is_empty())
            .map(|w| w.trim_end_matches('s').to_string())
            .filter(|_| reply[end..].starts_with(' '))
    };
    let found = colours(&reply);
    let own_elsewhere = found.iter().filter(|f| f.colour == want.colour).all(|f| {
        noun_after(f.end).is_some_and(|n| {
            !asked.contains(&n) && !["one", "colour", "color"].contains(&n.as_str())
        })
    });
    let other_on_asked = found
        .iter()
        .any(|f| f.colour != want.colour && noun_after(f.end).is_some_and(|n| asked.contains(&n)));
    (found.iter().any(|f| f.colour == want.colour) && own_elsewhere && other_on_asked).then_some((
        false,
        "the reference's colour goes with another thing than the one asked",
    ))
}

/// "왼쪽에서 오른쪽으로 날아가고 있습니다" asked which way the plane flies, for "왼쪽": a direction
/// reference named only where the movement starts (or, for "right", only as "you're right"),
/// while another direction is where it goes; not when the question asks where from.
fn direction_source_only(
    question: Option<&str>,
    reference: &str,
    response: &str,
) -> Option<(bool, &'static str)> {
    use text::colours::{found, reference_term, source};
    let reference = super::normalize::nfkc(reference);
    let want = reference_term(&reference, Class::Direction)?;
    // "Which way is the wind blowing from?": where it starts is what is asked.
    let asks_from = question.is_some_and(|q| {
        let q = q.to_ascii_lowercase();
        [
            "from",
            "どこから",
            "どちらから",
            "どっちから",
            "方から",
            "어디에서",
            "어디서",
            "쪽에서",
            "방향에서",
        ]
        .iter()
        .any(|w| q.contains(w))
    });
    if asks_from {
        return None;
    }
    let reply = super::normalize::nfkc(response);
    let named = found(&reply, Class::Direction);
    let (own, other): (Vec<_>, Vec<_>) = named.iter().partition(|f| f.colour == want.colour);
    let goes_otherwise = other.iter().any(|f| !source(&reply, f));
    // "You're right that it points left", "That's right": correct, not a direction.
    let used_otherwise = own.is_empty() && {
        static IDIOM: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let idiom = IDIOM.get_or_init(|| {
            regex::Regex::new(r"\b(?:you're|you are|that's|that is|quite|exactly|all)\s+right\b")
                .expect("valid")
        });
        let lower = reply.to_ascii_lowercase();
        reference.eq_ignore_ascii_case("right")
            && lower.contains("right")
            && idiom.find_iter(&lower).count() == lower.matches("right").count()
    };
    ((own.iter().all(|f| source(&reply, f)) && !own.is_empty() || used_otherwise)
        && goes_otherwise)
        .then_some((
            false,
            "the reference is where the movement starts, or no direction; another direction is where it goes",
        ))
}

const NO_MATCH: &str = "no match";
const NO_NUMBER: &str = "no number in response";

/// The rule that reads a reference's direction written in another of its forms or languages.
pub const DIRECTION_FORM_RULE: &str =
    "the reference's direction in another form or language (left, right)";

/// The rule that reads a reference's colour written in another of its forms or languages.
pub const COLOUR_FORM_RULE: &str =
    "the reference's colour in another form or language (basic colour terms)";

/// "하얀색입니다" for "흰색", "red" for "赤", "빨간색 줄이 더 깁니다" for "빨간 줄": when the
/// reply names the reference's colour only in another form, it is read again with that form
/// written as the reference writes it, so every other rule (denials, hedges, other things named)
/// still decides. Only for a question about colour, when the question is known.
fn term_in_another_form(
    question: Option<&str>,
    reference: &str,
    response: &str,
    class: Class,
) -> Option<(bool, &'static str)> {
    let reference = super::normalize::nfkc(reference);
    let want = text::colours::reference_term(&reference, class)?;
    if question.is_some_and(|q| !text::colours::asks(&super::normalize::nfkc(q), class)) {
        return None;
    }
    let reply = super::normalize::nfkc(response);
    let rewritten = text::colours::written_as_reference(&reference, &want, &reply)?;
    // "The bus is yellow; the car behind it is blue": another colour named, and not denied, may
    // be the answer; which thing each colour belongs to is not read here, so no verdict.
    let prepared = text::prepare(&rewritten);
    let found = text::colours::found(&rewritten, class);
    // "검정이야. 근데 방이 어두워서 진한 남색일 수도 있으니까…": after the colour given, a caveat
    // that another is possible keeps the answer (a hedge that still commits).
    let caveat_possible = |f: &text::colours::Found| {
        let first = found.iter().find(|g| g.colour == want.colour);
        let possible = possible_after(&prepared, f.end);
        first
            .is_some_and(|g| g.end <= f.start && caveat_words().is_match(&prepared[g.end..f.start]))
            && possible
    };
    let another = found.iter().any(|f| {
        f.colour != want.colour
            && negation::denied(&prepared, f.start, f.end).is_none()
            && !text::colours::source(&rewritten, f)
            && !caveat_possible(f)
    });
    if another {
        return None;
    }
    Some(match read_short(question, &reference, &rewritten) {
        (true, _) if class == Class::Direction => (true, DIRECTION_FORM_RULE),
        (true, _) => (true, COLOUR_FORM_RULE),
        miss => miss,
    })
}

/// "画像上は左側に見えますが、これは患者の右側です", "黄色から赤に変わるところですが、現在点灯
/// しているのは黄色です", "It looks orange, but it is actually red": a colour or direction given
/// only as how the thing looks or what it turns into, then a contrast and what it is. The clause
/// after the contrast answers, when it names one term of the class and the clause before it
/// speaks of appearance or change.
fn term_after_appearance(
    question: Option<&str>,
    reference: &str,
    response: &str,
) -> Option<(bool, &'static str)> {
    // The cheapest tests first: this runs on every short answer.
    let reference = super::normalize::nfkc(reference);
    let (class, want) = [Class::Colour, Class::Direction]
        .into_iter()
        .find_map(|class| Some((class, text::colours::reference_term(&reference, class)?)))?;
    let q = super::normalize::nfkc(question?);
    if !text::colours::asks(&q, class) {
        return None;
    }
    let reply = super::normalize::nfkc(response);
    let cut = text::contrast_end(&reply)?;
    static SEEMS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let seems = SEEMS.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:looks?|appears?|seems?|turning|changing)\b|見え|見ると|変わ|보이지만|보이는데|보이나|바뀌")
            .expect("valid")
    });
    if !seems.is_match(&reply[..cut]) {
        return None;
    }
    let after = &reply[cut..];
    // What it is, said of the same thing ("it is actually red", "これは患者の右側", "現在点灯して
    // いるのは黄色"), not of another ("the steering wheels are on the left", "아직 빨간 트럭이").
    static SAME: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let same = SAME.get_or_init(|| {
        regex::Regex::new(r"(?i)^(?:it|it's|it’s|this|that|they|they're|actually|in fact|in reality|really)\b|^(?:これ|それ|あれ|実際|本当|現在|今は|今、|実は)|^(?:이것|그것|이건|그건|실제로|사실|지금|현재)")
            .expect("valid")
    });
    if !same.is_match(after.trim_start_matches([' ', ',', '、', '，'])) {
        return None;
    }
    let prepared = text::prepare(after);
    let named: Vec<&'static str> = text::colours::found(after, class)
        .iter()
        .filter(|f| negation::denied(&prepared, f.start, f.end).is_none())
        .map(|f| f.colour)
        .collect();
    let [one] = named.as_slice() else {
        return None;
    };
    Some(if *one == want.colour {
        (
            true,
            "the clause after a contrast with how it looks names the reference",
        )
    } else {
        (
            false,
            "the clause after a contrast with how it looks names another",
        )
    })
}

/// [`soft_match_asked`] on the reply as written.
fn read_short(question: Option<&str>, reference: &str, response: &str) -> (bool, &'static str) {
    let turn = text::own_turn(response);
    let response = text::latex_plain(&turn);
    let response = response.as_ref();
    let r = normalize(&text::fold_kana(reference));
    let p = normalize(&text::fold_kana(response));
    if r.is_empty() {
        return (false, "empty reference");
    }
    if r == p {
        return (true, "exact after normalisation");
    }
    // "鳥の羽の色は青色です。" answered by "青色です。": the sentence's answer part decides
    // when the reply does not contain the whole sentence.
    if let Some(part) = text::sentence_reference::answer_part(question, reference) {
        if !response.contains(reference.trim()) {
            return soft_match_asked(question, &part, response);
        }
    }
    let pr = text::prepare(reference);
    let pp = text::prepare(response);
    // "…어느 분을 말씀하시는지 알려 주시면": an answer about each of several, and a question back.
    if text::hedges::asks_which_is_meant(&pp) {
        return (false, CLARIFY_RULE);
    }
    // VizWiz's "unanswerable": a reply that declines, making no guess, is the answer.
    if text::declines::unanswerable_reference(&pr) {
        return if text::declines::declines(&pp, question) {
            (true, UNANSWERABLE_RULE)
        } else {
            (
                false,
                "an answer or a guess where the image answers nothing",
            )
        };
    }
    if let Some(decided) = maths_rule(&pr, &pp) {
        return decided;
    }
    // The reply's cheap test first: most name no mix.
    if mixed_with_another(&pr, &pp) && question.is_some_and(asks_breed) {
        return (false, MIX_RULE);
    }
    if another_code_letter(&pr, &pp) {
        return (false, "another code: the letter after the figure differs");
    }
    if clock::time_reference(&pr).is_none() {
        if let Some(want) = text::pairs::pair_reference(&pr) {
            if let Some(decided) = pair_rule(&pp, &want) {
                return decided;
            }
        }
    }
    if let Some(want) = text::weekdays::weekday_reference(&pr) {
        return weekday_rule(&pp, want);
    }
    if let Some(want) = dates::date_reference(&pr) {
        if let Some(decided) = date_rule(&pp, &want) {
            return decided;
        }
    }
    if let Some(want) = dates::decade_reference(&pr) {
        let q = question.map(text::prepare);
        if let Some(decided) = decade_rule(&pp, q.as_deref(), &want) {
            return decided;
        }
    }
    if let Some(want) = dates::month_of_year_reference(&pr) {
        if let Some(decided) = month_of_year_rule(&pp, &want) {
            return decided;
        }
    }
    // "01:12" asked when in the video, answered "00:01:12" or "1分12秒": a place in the video.
    let q = question.map(text::prepare);
    if let Some(want) = text::timestamps::place_reference(&pr, q.as_deref(), &pp) {
        if let Some(decided) = place_rule(&pp, q.as_deref(), want) {
            return decided;
        }
    }
    if let Some(want) = text::timestamps::minutes_reference(&pr)
        .filter(|_| q.as_deref().is_some_and(text::timestamps::asks_video_place))
    {
        if let Some(decided) = minutes_rule(&pp, want) {
            return decided;
        }
    }
    if let Some(want) = clock::time_reference(&pr) {
        return time_rule(&pp, q.as_deref(), &want);
    }
    // "Floor 4" for "4th floor": a floor reference is read as a floor first; a floor that
    // differs leaves an ordinal reference to the ordinal rule ("Floor 2 has the lobby; the
    // optician is up on the fourth").
    let floor = text::floors::floor_reference(&pr).and_then(|want| floor_rule(&pp, want));
    if let Some(want) = ordinals::ordinal_reference(&pr) {
        if let Some(decided) = floor.filter(|d| d.0) {
            return decided;
        }
        return ordinal_rule(&pp, want);
    }
    if let Some(decided) = floor {
        return decided;
    }
    // "In which frame does the glass hit the floor?" for "7", answered "The seventh frame": a
    // place asked is answered by an ordinal.
    if let Some(want) = question
        .filter(|q| ordinals::asks_position(&text::prepare(q)))
        .and_then(|_| text::numbers::numeric_reference(&pr))
        .filter(|v| v.fract() == 0.0 && (1.0..=100.0).contains(v))
    {
        // Only a match decides: "2です。1枚目に写っているのは犬です。" answers with the figure,
        // and "60 fps, the second-highest setting" names a place of another thing.
        if !ordinals::ordinals(&pp).is_empty() {
            let read = ordinal_rule(&pp, want as u32);
            // "in the third frame, 2 seconds after …": a figure with a unit measures; it is no
            // place, so the ordinal answers.
            let measured = || {
                numbers::committed_mention(&pp, None, want)
                    .is_some_and(|(m, _)| units::unit_at(&pp[m.end..]).is_some())
            };
            if read.0 || measured() {
                return read;
            }
        }
    }
    if let Some(want) = proportion::share_reference(&pr) {
        let discount_asked = question.is_some_and(proportion::asks_discount);
        let q = question.map(text::prepare);
        if let Some(decided) = share_rule(&pp, q.as_deref(), want, discount_asked) {
            return decided;
        }
    }
    if let Some(want) = numbers::numeric_reference(&pr) {
        let q = question.map(text::prepare);
        let ref_first = numbers::mentions(&pr).first().copied();
        let ref_unit = ref_first.and_then(|m| {
            units::unit_at(&pr[m.end..])
                .map(|u| u.0)
                .or_else(|| units::unit_before(&pr[..m.start]))
        });
        // Read once: the absent-noun, measure and unit rules below all ask about it.
        let mut committed = numbers::committed_mention(&pp, q.as_deref(), want);
        // "둘레 = 18cm. 참고로 넓이는 27㎠": a figure whose unit measures another kind of quantity
        // answers another question; the figures of the reference's kind are read without it.
        let unit_of = |m: &numbers::Mention| {
            units::unit_at(&pp[m.end..])
                .map(|u| u.0)
                .or_else(|| units::unit_before(&pp[..m.start]))
        };
        if let (Some(ru), Some((got, _))) = (ref_unit, &committed) {
            if unit_of(got).is_some_and(|gu| gu.dimension != ru.dimension) {
                let mut masked = pp.clone().into_bytes();
                for m in numbers::mentions(&pp) {
                    if m.digits && unit_of(&m).is_some_and(|u| u.dimension != ru.dimension) {
                        for b in &mut masked[m.start..m.end] {
                            if b.is_ascii_alphanumeric() {
                                *b = b'_';
                            }
                        }
                    }
                }
                let masked = String::from_utf8(masked).expect("ASCII replaced by ASCII");
                // Only a figure the reply states as a result ("둘레 = … = 18cm"): a reply that
                // answers in another unit ("Answer: 3 hours") keeps its answer.
                let result = |m: &numbers::Mention| {
                    let before = pp[..m.start].trim_end();
                    before.ends_with('=') || before.ends_with('→')
                };
                if let Some(other) = numbers::committed_mention(&masked, q.as_deref(), want)
                    .filter(|(m, _)| result(m))
                {
                    committed = Some(other);
                }
            }
        }
        // "2本の青い羽根ペンが置かれています。鉛筆は見当たりません。" asked how many pencils: the
        // thing counted is said not to be there, so no count of it answers.
        if want != 0.0 {
            if let Some(noun) = q.as_deref().and_then(numbers::asked_noun) {
                let found: Vec<(usize, &str)> = pp.match_indices(noun.as_str()).collect();
                let denied = !found.is_empty()
                    && found
                        .iter()
                        .all(|(i, n)| negation::denied(&pp, *i, i + n.len()).is_some());
                // Only when the figure read counts another thing ("2本の羽根ペン", "볼펜만
                // 3자루", "2 pens"); "2匹います。床の上には猫はいません" counts the asked one.
                let other = committed
                    .as_ref()
                    .is_some_and(|(m, _)| counts_another_thing(&pp, m, &noun));
                if denied && other {
                    return (false, ABSENT_RULE);
                }
            }
        }
        // "大さじ2" answered "小さじ2です": the reference's measure written before its figure,
        // and another size of the same measure there in the reply (the two words end alike).
        if let (Some((got, _)), Some(first)) = (&committed, ref_first) {
            let ref_word = word_ending_at(&pr, first.start);
            let got_word = word_ending_at(&pp, got.start);
            if let (Some(r), Some(g)) = (ref_word, got_word) {
                // The size of the measure: 大さじ / 小さじ / 中さじ, the rest of the word alike.
                let size = |w: &str| -> Option<(char, String)> {
                    let w = w.trim_start_matches(|c: char| !"大小中".contains(c));
                    let mut c = w.chars();
                    let first = c.next().filter(|x| "大小中".contains(*x))?;
                    Some((first, c.collect()))
                };
                if let (Some((a, ra)), Some((b, rb))) = (size(r), size(g)) {
                    if a != b && ra == rb && !ra.is_empty() {
                        return (false, "another size of the measure before the figure");
                    }
                }
            }
        }
        // "트럭이라면 3대, 아니면 2대": numbers offered under conditions, none answered after.
        if let (Some((got, _)), Some((first, end))) = (&committed, text::conditions::span(&pp)) {
            let mut offered: Vec<f64> = numbers::mentions(&pp[..end])
                .iter()
                .filter(|m| m.start > first)
                .map(|m| m.value)
                .collect();
            offered.sort_by(f64::total_cmp);
            offered.dedup();
            if got.start > first && got.start < end && offered.len() >= 2 {
                return (false, "numbers offered under conditions (a hedge)");
            }
        }
        if let Some((got, _)) = &committed {
            let ref_bound = numbers::mentions(&pr)
                .first()
                .is_some_and(|m| bound(&pr, m));
            if bound(&pp, got) && !ref_bound {
                return (
                    false,
                    "a bound, not the number (at least, more than, 以上, 이상)",
                );
            }
        }
        // "The image does not show any apples on the plate — only two oranges and a banana"
        // asked how many apples: the asked thing said to be absent is a count of zero, whatever
        // else is counted.
        if want == 0.0 {
            if let Some(noun) = question
                .map(text::prepare)
                .as_deref()
                .and_then(numbers::asked_noun)
            {
                // The clause that names the asked thing, as a word ("no pencils" says nothing
                // of pens; "バナナはありませんが、りんごは2個" nothing of apples).
                if numbers::clauses(&pp)
                    .any(|c| text::words::names_word(c, &noun) && numbers::says_absence(c))
                {
                    return (
                        true,
                        "says the asked thing is not there, for a count of zero",
                    );
                }
            }
        }
        return match committed {
            Some((_, rule)) if rule == numbers::HEDGE_RULE => (false, rule),
            // "50 on the mph scale, which corresponds to 80 km/h": one reading, restated in the
            // reference's unit.
            Some((got, _))
                if ref_unit.is_some_and(|ru| converted_restatement(&pp, &got, want, &ru)) =>
            {
                (true, CONVERTED_RULE)
            }
            Some((got, rule)) => {
                let got_unit = units::unit_at(&pp[got.end..])
                    .map(|u| u.0)
                    .or_else(|| units::unit_before(&pp[..got.start]));
                match (ref_unit, got_unit) {
                    (Some(ru), Some(gu)) if ru.symbol != gu.symbol => {
                        if units::same_quantity(got.value, &gu, want, &ru) {
                            (true, "the same quantity in another unit")
                        } else if ru.dimension == gu.dimension {
                            (false, "a different quantity (units converted)")
                        } else {
                            (false, "a quantity of another kind (its unit differs)")
                        }
                    }
                    _ if (got.value - want).abs() < 1e-9 => (true, rule),
                    // "€3,5 bn" for "3.5" (a chart in billions): the figure as the reply
                    // scaled it, when the reference names no scale.
                    _ if numbers::scale_word(&pr) == 1.0
                        && numbers::scale_agrees(q.as_deref(), &pp[got.start..got.end])
                        && ((got.value / numbers::scale_word(&pp[got.start..got.end])) - want)
                            .abs()
                            < 1e-9 =>
                    {
                        (
                            true,
                            "the same figure, before the reply's scale (bn, million)",
                        )
                    }
                    _ => (false, "the number the response commits to differs"),
                }
            }
            None if want == 0.0 && numbers::says_absence(&pp) => {
                (true, "says nothing is there, for a count of zero")
            }
            None => (false, NO_NUMBER),
        };
    }
    // A yes/no reference is answered by the reply's polarity, never by the word "no"
    // somewhere in it ("Yes. ... no pedestrians are visible"); a reply that restates the
    // question's fact says yes ("Is the light on?" → "The light is on.").
    if let Some(want) = polarity_word(&pr) {
        // "They look different …, but measured end to end they are the same length",
        // "…長く見えますが、実際には同じ長さです": the clause after a contrast restates too.
        let restated = || {
            question.and_then(|q| {
                restated::restated_polarity(q, response).or_else(|| {
                    // "하지만 안내문에 따르면 평일엔 가게가 열려 있어요": what a notice says or
                    // what is usual is not what the picture shows.
                    after_contrast(response)
                        .filter(|r| !text::hedges::reported_or_usual(r))
                        .and_then(|r| restated::restated_polarity(q, r))
                })
            })
        };
        let got = if question.is_some_and(asks_emptiness) && says_none_at_all(&pp) {
            // "消えていますか？" answered "ついている電気は一つもありません", "비어 있나요?" answered
            // "한 대도 없어요": nothing there is what was asked, so yes.
            Some(true)
        } else {
            // "A small effusion cannot be excluded": a fact restated under a doubt of it
            // answers neither.
            polarity(&pp, question).or_else(|| {
                (!cannot_tell(&pp))
                    .then(|| restated().or_else(|| question.and_then(|q| finding_named(&pp, q))))
                    .flatten()
            })
        };
        return match got {
            Some(got) if got == want => (true, "a yes/no reference: the reply's polarity matches"),
            Some(_) => (false, "a yes/no reference: the reply's polarity differs"),
            None => (false, "a yes/no reference: the reply says neither"),
        };
    }
    let mut by_reading = false;
    let mut by_compound = false;
    // The reply as written (NFKC, lower case, kana not folded), at the same offsets as `pp`:
    // read once for the word finders, the other scripts, the list and the hedge rules.
    let unfolded = text::nfkc_lower(response);
    let spans = if is_unspaced_script(&r) {
        let needle = pr.trim_matches(|c: char| c.is_whitespace() || text::is_clause_mark(c));
        let asked = question.map(text::prepare).unwrap_or_default();
        let script = unfolded.as_str();
        let mut spans = words::occurrences(&pp, script, needle, &asked);
        if spans.is_empty() {
            spans = words::spaced_occurrences(&pp, script, needle, &asked);
        }
        // "佐藤花子" for "佐藤 花子": a name the reference spaces, written without the space.
        if spans.is_empty() && needle.contains(char::is_whitespace) {
            let joined: String = needle.split_whitespace().collect();
            spans = words::occurrences(&pp, script, &joined, &asked);
        }
        if spans.is_empty() {
            let read = reading_spans(&pp, script, needle, &asked);
            by_reading = !read.is_empty();
            if read.is_empty() {
                // The end of a compound, as written or by its reading: unsure (below).
                let mut ends = words::compound_ends(&pp, script, needle, &asked);
                if ends.is_empty() && needle.chars().any(text::is_kanji) {
                    for r in text::readings::of(needle)
                        .iter()
                        .filter(|r| r.chars().count() >= 2)
                    {
                        ends.extend(words::compound_ends(&pp, script, r, &asked));
                    }
                }
                by_compound = !ends.is_empty();
                ends
            } else {
                read
            }
        } else {
            spans
        }
    } else {
        let asked = question.map(text::prepare).unwrap_or_default();
        let runs = token_runs(&pp, &pr, &super::normalize::nfkc(response), &asked);
        if runs.is_empty() {
            let spaced = spacing_spans(&pp, &pr);
            if spaced.is_empty() {
                unit_spans(&pp, &pr)
            } else {
                spaced
            }
        } else {
            runs
        }
    };
    let mut by_script = false;
    // Only in a short reply: in a longer one a word in Latin letters is too often another word
    // ("you" is also 여우, "same" サメ) or names something else ("Kobe beef", "'Busan'행").
    let short_reply = tokens(&pp).len() <= 6;
    let spans = if spans.is_empty() && short_reply {
        let needle = pr.trim_matches(|c: char| c.is_whitespace() || text::is_clause_mark(c));
        let found = text::romanize::spans(&unfolded, needle);
        by_script = !found.is_empty();
        found
    } else {
        spans
    };
    // "Golden Retriever." for ゴールデン・レトリバー: a loanword in the letters it came from, in a
    // reply of any length when its skeleton is long.
    let spans = if spans.is_empty() {
        let needle = pr.trim_matches(|c: char| c.is_whitespace() || text::is_clause_mark(c));
        let found =
            text::romanize::loanword_spans(&unfolded, needle, if short_reply { 3 } else { 5 });
        by_script = !found.is_empty();
        found
    } else {
        spans
    };
    // "맑아요" for "맑음": a Korean predicate made a noun, found as its stem and an ending;
    // "It's raining" for "rainy", "Wooden." for "wood" asked a material.
    let mut by_form = false;
    let spans = if spans.is_empty() {
        let found = if r.chars().any(text::is_hangul) {
            words::korean_form_spans(&pp, pr.trim())
        } else {
            english_form_spans(&pp, pr.trim(), question.is_some_and(asks_material))
        };
        by_form = !found.is_empty();
        found
    } else {
        spans
    };
    if spans.is_empty() {
        return (false, NO_MATCH);
    }
    let negative_reference = has_negation(reference);
    // "What activity is prohibited?" answered "No swimming.", "駐輪禁止": the prohibition
    // states the answer (a plain denial still denies: "Not swimming — fishing is").
    let prohibited = question.is_some_and(asks_prohibited);
    // "Which activity is permitted?" answered "Fishing isn't permitted either; … boating": what
    // is said to be prohibited is denied.
    let permitted = !prohibited && question.is_some_and(asks_permitted);
    // "Not left — it points right; the left arrow is for the harbour": set aside for another
    // answer, so a later mention names the thing, not the answer.
    // Only the reply's first mention: "The truck is red. The sedan is not red, though — it's
    // silver" corrects another thing; and not when a later correction takes it up again
    // ("オレンジ色ではなく赤…いや、やはりオレンジ色です").
    if let Some(&(s, e)) = spans.first() {
        let taken_up = text::corrections::last_end(&pp)
            .is_some_and(|c| c > e && spans.iter().any(|&(x, _)| x >= c));
        // "セダンは赤ではなく銀色で、トラックが赤です": a later mention stated as the answer.
        let affirmed = spans.iter().skip(1).any(|&(_, e)| {
            static A: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
            A.get_or_init(|| {
                regex::Regex::new(
                    r#"^\s*[)）」』"'*]*\s*(?:です|でした|だ[。.]|입니다|이에요|예요|였|[.。!]|$)"#,
                )
                .expect("valid")
            })
            .is_match(&pp[e..])
        });
        if !negative_reference && negation::corrected(&pp, s, e) && !taken_up && !affirmed {
            return (false, CORRECTED_RULE);
        }
    }
    // "猫は箱の中にいます。……よく見ると、猫は箱の外に": corrected to the opposite.
    if let Some(other) = text::corrections::opposite(&pr) {
        if text::corrections::corrected_to(&pp, &spans, other) {
            return (false, CORRECTED_RULE);
        }
    }
    // "… **答え：広島**": an explicit last answer line that names something else decides.
    // After a sentence on its line ("… next to the door. Final answer: bike."), the mark
    // decides against the reference only when the reply took something back before it or the
    // line names the reference's opposite; a synonym there restates.
    let final_line = final_answer_line(&pp).filter(|&(line, opens)| {
        opens
            || text::corrections::last_end(&pp[..line]).is_some()
            || text::corrections::opposite(&pr).is_some_and(|o| {
                tokens(&pp[line..]).iter().any(|t| t.2 == o)
                    || (!o.is_ascii() && pp[line..].contains(o))
            })
    });
    if let Some((line, _)) = final_line {
        // A line in another script ("정답: Seoul" for 서울) is read by no rule here.
        let same_script = |c: char| {
            if c.is_ascii_alphanumeric() {
                r.chars().any(|x| x.is_ascii_alphanumeric())
            } else {
                c.is_alphanumeric() && !r.is_ascii()
            }
        };
        let scripted = pp[line..].chars().any(same_script);
        // "**Answer:** Mt. Fuji" for "Mount Fuji": a line sharing a word with the reference
        // names it another way.
        let line_tokens = tokens(&pp[line..]);
        let shares = tokens(&pr)
            .iter()
            .any(|t| t.2.chars().count() >= 3 && line_tokens.iter().any(|u| u.2 == t.2));
        if scripted && !shares && !spans.iter().any(|&(s, _)| s >= line) {
            return (false, FINAL_LINE_RULE);
        }
    }
    // "알 → 애벌레 → 번데기 → 어른벌레 순서이므로 어른벌레입니다", "…, so it's a moth.": the reply
    // ends concluding with something else; the reference was a step on the way.
    if let Some(start) = concluded_thing(&pp) {
        let thing = &pp[start..];
        // "…, so it's raining": an inference about the scene, no thing named; "…ので、サクラです"
        // for 桜: the same thing in another script.
        // A name ending so ("so it's Beijing") is written with a capital.
        let word = thing.trim_end_matches(|c: char| !c.is_alphanumeric());
        let inference = word.ends_with("ing") && response.contains(word);
        if spans.iter().all(|&(s, _)| s < start)
            && !thing.contains(pr.trim())
            && !inference
            && !read_short(question, reference, thing).0
        {
            return (false, CONCLUDED_OTHER_RULE);
        }
    }
    // "The closest object to the camera is the wooden bench; the bicycle is … further back"
    // asked the nearest object: the reply's opening clause answers, restating the question, and
    // names something else; the reference comes only after it.
    if let Some(end) = question.and_then(|q| answering_clause_end(&pp, &text::prepare(q))) {
        // "The bus is closer. No wait — … so the car is closer": a correction takes the
        // opening clause back.
        // Only when what follows the correction concludes or states the reference ("…, so the
        // car is closer", "…車です"), not a check of another thing ("いや、念のためバスの位置も
        // 確認すると、バスは車のさらに後ろに").
        let taken_back = text::corrections::last_end(&pp).is_some_and(|c| {
            c >= end
                && spans.iter().any(|&(s, e)| {
                    s >= c
                        && (text::conclusions::all(&pp[c..s]).next().is_some()
                            || ["です", "だ", "입니다", "이에요", "예요"]
                                .iter()
                                .any(|w| pp[e..].trim_start().starts_with(w)))
                })
        });
        if spans.iter().all(|&(s, _)| s >= end) && !negative_reference && !taken_back {
            return (false, ANSWER_CLAUSE_RULE);
        }
    }
    let spans: Vec<(usize, usize)> = if negative_reference {
        spans
    } else {
        spans
            .into_iter()
            .filter(|&(s, e)| {
                let prohibition = prohibition_at(&pp, s, e);
                (negation::denied(&pp, s, e).is_none() && !(permitted && prohibition))
                    || (prohibited && prohibition)
            })
            .collect()
    };
    if spans.is_empty() {
        return (false, "reference found but a denial governs it");
    }
    if let Some(q) = question {
        if spans.iter().all(|&(s, _)| labelled_as_another(&pp, q, s)) {
            return (false, ANOTHER_LABEL_RULE);
        }
    }
    // "It looks like a cat, but it's actually a fox", "猫のように見えますが、実はキツネです".
    let spans: Vec<(usize, usize)> = spans
        .into_iter()
        .filter(|&(s, e)| !first_impression(&pp, s, e))
        .collect();
    if spans.is_empty() {
        return (
            false,
            "reference found only as a first impression taken back",
        );
    }
    // "검색창에는 '무선 이어폰 케이스'가 입력되어 있어요" asked the query entered: text read off
    // the image is answered whole, and a quote that says more than the reference is other text.
    if spans.iter().all(|&(s, e)| quoted_with_more(&pp, s, e)) && question.is_some_and(asks_text) {
        return (false, QUOTED_MORE_RULE);
    }
    // "Possible matches:\n• Amanita muscaria: 48%\n• Amanita jacksonii: 31%\n\nI can't confirm the
    // species": the reference only among listed candidates, and the reply declines to choose.
    if candidates_declined(&pp, &spans) {
        return (false, CANDIDATES_DECLINED_RULE);
    }
    // "apple, banana, orange", "햄버거, 감자튀김, 콜라": a bare list of things when one was asked
    // names them all and chooses none.
    if bare_list(&unfolded) && !pr.contains([',', '、']) {
        return (false, LIST_RULE);
    }
    // Kana as written, at the same offsets: an alternative is a noun in kanji or katakana.
    if spans.iter().all(|&(s, e)| {
        // "No smoking or fishing": things a sign prohibits together, not two answers.
        !(prohibited && prohibition_at(&pp, s, e))
            && (offered_with_another_in(&pp, Some(&unfolded), s, e)
                || another_offered_after(&unfolded, e))
    }) {
        return (false, HEDGE_RULE);
    }
    let written = super::normalize::nfkc(response);
    let qualified = |&(_, e): &(usize, usize)| {
        static Q: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        Q.get_or_init(|| regex::Regex::new(r"^,\s*\p{Lu}\p{Ll}+").expect("valid"))
            .is_match(written.get(e..).unwrap_or(""))
    };
    if reference.trim().starts_with(char::is_uppercase) && spans.iter().all(qualified) {
        (true, QUALIFIED_RULE)
    } else if by_script {
        (
            true,
            "response writes the reference in another script (romanised or katakana)",
        )
    } else if by_compound {
        (true, COMPOUND_RULE)
    } else if by_form {
        (true, WORD_FORM_RULE)
    } else if by_reading {
        (true, "response contains reference by its reading (IPAdic)")
    } else if is_unspaced_script(&r) {
        (true, "response contains reference (as a word)")
    } else {
        (true, "response contains reference (whole tokens)")
    }
}

/// A Japanese reference found by its reading ([`text::readings`]): a kanji reference's kana
/// ("猫" in "ねこです"), or a kanji word of the reply read as a kana reference ("林檎です" for
/// "りんご"). Readings of one kana are too common to mean a word and are not used.
fn reading_spans(pp: &str, script: &str, needle: &str, asked: &str) -> Vec<(usize, usize)> {
    let japanese = needle
        .chars()
        .all(|c| text::is_kanji(c) || text::is_hiragana(c) || c == 'ー');
    if !japanese {
        return Vec::new();
    }
    if needle.chars().any(text::is_kanji) {
        // A reading found in hiragana must be a word of its own: "かわ" (川) is not in
        // "かわいい"; a particle or copula may follow it, and one may precede it.
        const AFTER: &str = "でだがはをにのともやかねよ";
        const BEFORE: &str = "はのがをにともや";
        let edge = |(s, e): (usize, usize)| {
            let before = text::char_before(script, s);
            let after = text::char_at(script, e);
            before.is_none_or(|c| !text::is_hiragana(c) || BEFORE.contains(c))
                && after.is_none_or(|c| !text::is_hiragana(c) || AFTER.contains(c))
        };
        let mut readings = text::readings::of(needle).to_vec();
        if readings.is_empty() {
            readings = text::readings::of_mixed(needle);
        }
        return readings
            .iter()
            .filter(|r| r.chars().count() >= 2)
            .flat_map(|r| words::occurrences(pp, script, r, asked))
            .filter(|&sp| edge(sp))
            .collect();
    }
    if needle.chars().count() < 2 || !pp.chars().any(text::is_kanji) {
        return Vec::new();
    }
    let chars: Vec<(usize, char)> = pp.char_indices().collect();
    let mut out = Vec::new();
    for i in 0..chars.len() {
        if !text::is_kanji(chars[i].1) {
            continue;
        }
        for len in 1..=4 {
            let Some(last) = chars.get(i + len - 1) else {
                break;
            };
            if !text::is_kanji(last.1) {
                break;
            }
            let (s, e) = (chars[i].0, last.0 + last.1.len_utf8());
            let word = &pp[s..e];
            if text::readings::of(word).iter().any(|r| r == needle) {
                out.extend(
                    words::occurrences(pp, script, word, asked)
                        .into_iter()
                        .filter(|sp| sp.0 == s),
                );
            }
        }
    }
    out
}

/// A number given as a bound ("at least 20", "more than 5", "20人以上", "少なくとも", "최소 3개",
/// "10명 이상"): it says where the count starts, not the count.
fn bound(p: &str, m: &numbers::Mention) -> bool {
    use std::sync::OnceLock;
    static BEFORE: OnceLock<regex::Regex> = OnceLock::new();
    static AFTER: OnceLock<regex::Regex> = OnceLock::new();
    let before = BEFORE.get_or_init(|| {
        regex::Regex::new(r"(?:\bat least|\bmore than|\bover|\bfewer than|\bless than|\bat most|\bno more than|\bno fewer than|\bunder|少なくとも|最低でも|最低|최소한?|적어도)\s*$").expect("valid")
    });
    let after = AFTER.get_or_init(|| {
        regex::Regex::new(r"^\s*\S{0,3}?\s*(?:以上|以下|未満|超|이상|이하|미만|넘게|넘는|남짓|\+|\bor more\b|\bor fewer\b|\bor less\b|\bplus\b)").expect("valid")
    });
    let from = text::char_boundary_after(p, m.start.saturating_sub(24));
    before.is_match(&p[from..m.start]) || after.is_match(&p[m.end..])
}

/// The word written right before `end` ("大さじ" in "大さじ2"), of two to six letters.
fn word_ending_at(p: &str, end: usize) -> Option<&str> {
    let before = p[..end].trim_end();
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphabetic()))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let w = &before[start..];
    (w.chars().count() >= 2 && w.chars().count() <= 6).then_some(w)
}

/// Whether the figure at `m` counts a thing named beside it that is not `noun`: a noun after
/// it ("2本の青い羽根ペン", "2 pens") or, in Japanese and Korean, a subject right before it
/// ("볼펜만 3자루", "ペンが2本").
fn counts_another_thing(pp: &str, m: &numbers::Mention, noun: &str) -> bool {
    use std::sync::OnceLock;
    static AFTER_JA: OnceLock<regex::Regex> = OnceLock::new();
    static BEFORE: OnceLock<regex::Regex> = OnceLock::new();
    let after = &pp[m.end..];
    let after_ja = AFTER_JA.get_or_init(|| {
        regex::Regex::new(r"^[^\s、。の]{0,3}の(?:[^\s、。]{0,6}?)([\p{Han}\p{Katakana}ー]{2,}|[\p{Hiragana}ー]{3,})").expect("valid")
    });
    let before = BEFORE.get_or_init(|| {
        regex::Regex::new(r"([\p{Han}\p{Katakana}ー\p{Hangul}\p{Hiragana}]{2,})(?:が|は|も|만|이|가|은|는|도)\s*$").expect("valid")
    });
    // The thing's own name in kana counts it too ("えんぴつが2本" for 鉛筆); a place before
    // には, では, 에는 is no subject ("ソファの上には2匹").
    let readings = text::readings::of(noun);
    let named = |w: &str| {
        !w.contains(noun)
            && !noun.contains(w)
            && !readings.iter().any(|r| w.ends_with(r.as_str()))
            && !w.ends_with(['に', 'で', '에'])
            && !w.ends_with("에서")
    };
    if let Some(c) = after_ja.captures(after) {
        return named(&c[1]);
    }
    if let Some(c) = before.captures(&pp[..m.start]) {
        return named(&c[1]);
    }
    let word = after
        .split(|c: char| !c.is_ascii_alphabetic())
        .find(|w| !w.is_empty())
        .filter(|w| after.trim_start().starts_with(w));
    word.is_some_and(|w| w.len() >= 3 && !w.starts_with(noun) && units::unit_at(w).is_none())
}

const ABSENT_RULE: &str = "the reply says the thing asked about is not there";
const CONVERTED_RULE: &str = "the reading restated in the reference's unit";

/// Whether the sentence of `got` restates it as the reference's figure in the reference's unit
/// after a phrase that says the two are one reading ("corresponds to", "which is", "i.e.",
/// "に相当", "에 해당") or in brackets ("48 km/h (30 mph)").
fn converted_restatement(pp: &str, got: &numbers::Mention, want: f64, unit: &units::Unit) -> bool {
    use std::sync::OnceLock;
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(r"\b(?:corresponds? to|corresponding to|equivalent to|equals|which is|that is|i\.e\.|or about|translates to)\s*(?:about|roughly|approximately|around)?\s*$|(?:に相当|つまり|すなわち|에 해당|즉)\s*[^\s。]{0,4}$")
            .expect("valid")
    });
    let end = pp[got.end..]
        .find(['.', '。', '!', '?', '\n'])
        .map_or(pp.len(), |i| got.end + i);
    // The same unit twice is no conversion ("53 km, which is 35 km farther").
    if units::unit_at(&pp[got.end..]).is_some_and(|(u, _)| u.symbol == unit.symbol) {
        return false;
    }
    numbers::mentions(&pp[..end])
        .into_iter()
        .filter(|m| m.start > got.end)
        .any(|m| {
            let comparative = pp[m.end..end].split_whitespace().take(4).any(|w| {
                matches!(
                    w.trim_matches(|c: char| !c.is_alphanumeric()),
                    "than"
                        | "farther"
                        | "further"
                        | "more"
                        | "less"
                        | "longer"
                        | "shorter"
                        | "higher"
                        | "lower"
                        | "faster"
                        | "slower"
                        | "heavier"
                        | "lighter"
                )
            });
            // "48 km/h (30 mph)": in brackets right after the figure's own unit, not after
            // other words ("faster than the posted limit (30 mph)").
            let between = &pp[got.end..m.start];
            let bracketed = units::unit_at(between).is_some_and(|(_, len)| {
                let rest = between[len..].trim();
                [
                    "(",
                    "(about",
                    "(approximately",
                    "(roughly",
                    "(約",
                    "(약",
                    "(≈",
                    "(~",
                ]
                .contains(&rest)
            });
            (m.value - want).abs() < 1e-9
                && units::unit_at(&pp[m.end..]).is_some_and(|(u, _)| u.symbol == unit.symbol)
                && (r.is_match(between.trim_end()) || bracketed)
                && !comparative
        })
}

/// A unit named by its symbol or the reverse: "kg" for "kilograms", "°C" for "degrees Celsius"
/// ("The y-axis is labeled \"Mass (kg)\"" answers "kilograms").
fn unit_spans(pp: &str, pr: &str) -> Vec<(usize, usize)> {
    let want = pr.trim_matches(|c: char| c.is_whitespace() || text::is_clause_mark(c));
    let Some((unit, used)) = units::unit_at(want) else {
        return Vec::new();
    };
    if used != want.len() {
        return Vec::new();
    }
    // Only a symbol in brackets, as an axis or a column is labelled ("Mass (kg)", "[m/s]"):
    // "second", "foot", "meter" and "g" are words too often.
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let bracketed =
        R.get_or_init(|| regex::Regex::new(r"[(\[]\s*([^()\[\]\s]{1,6})\s*[)\]]").expect("valid"));
    bracketed
        .captures_iter(pp)
        .filter_map(|c| c.get(1))
        .filter(|m| {
            units::unit_at(m.as_str())
                .is_some_and(|(u, n)| n == m.as_str().len() && u.symbol == unit.symbol)
        })
        .map(|m| (m.start(), m.end()))
        .collect()
}

/// A compound written with another spacing: "firetruck" for "fire truck", "fire truck" for
/// "firetruck" (two or three words joined, a plural "s" allowed; a joined word of six letters or
/// more split in two).
fn spacing_spans(pp: &str, pr: &str) -> Vec<(usize, usize)> {
    let want: Vec<&str> = tokens(pr).into_iter().map(|t| t.2).collect();
    let got = tokens(pp);
    let joined = want.concat();
    let mut out = Vec::new();
    if (2..=3).contains(&want.len()) {
        for &(s, e, w) in &got {
            if w == joined || w.strip_suffix('s') == Some(joined.as_str()) {
                out.push((s, e));
            }
        }
    } else if want.len() == 1 && joined.len() >= 6 && joined.is_ascii() {
        for pair in got.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let gap = &pp[a.1..b.0];
            let split = format!("{}{}", a.2, b.2);
            if gap.trim().is_empty()
                && (split == joined || split.strip_suffix('s') == Some(joined.as_str()))
            {
                out.push((a.0, b.1));
            }
        }
    }
    out
}

/// Kana, CJK ideographs or Hangul (the store's definition, shared with search): scripts
/// compared by characters.
pub fn is_unspaced_script(s: &str) -> bool {
    s.chars().any(assay_core::store::items::search::is_cjk)
}

/// Tokens with their byte spans: runs of ASCII letters and digits (an apostrophe inside a word
/// and a decimal point inside a number kept), or runs of other alphanumeric characters.
fn tokens(p: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = p.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (s, c) = chars[i];
        if !c.is_alphanumeric() {
            i += 1;
            continue;
        }
        let ascii = c.is_ascii();
        let mut j = i + 1;
        while j < chars.len() {
            let c = chars[j].1;
            let inner = (c == '\'' || c == '’' || c == '.')
                && chars
                    .get(j + 1)
                    .is_some_and(|n| n.1.is_ascii_alphanumeric())
                && chars[j - 1].1.is_ascii_alphanumeric()
                && (c != '.' || chars[j - 1].1.is_ascii_digit());
            if (c.is_alphanumeric() && c.is_ascii() == ascii) || inner {
                j += 1;
            } else {
                break;
            }
        }
        let e = chars.get(j).map(|x| x.0).unwrap_or(p.len());
        out.push((s, e, &p[s..e]));
        i = j;
    }
    out
}

/// "Toyota's" for "toyota".
fn possessive(h: &str, n: &str) -> bool {
    h.strip_suffix("'s") == Some(n) || h.strip_suffix("’s") == Some(n)
}

/// Where the reference's tokens occur as a run of whole tokens in the response.
fn token_runs(pp: &str, pr: &str, script: &str, asked: &str) -> Vec<(usize, usize)> {
    let hay = tokens(pp);
    let mut needle: Vec<&str> = tokens(pr).into_iter().map(|t| t.2).collect();
    if needle.len() > 1 && matches!(needle[0], "a" | "an" | "the") {
        needle.remove(0);
    }
    let runs = runs_of(&hay, &needle, script, asked);
    // "She's flying a kite" for "flying kite": articles inside a phrase, on either side, are
    // not words of it.
    if runs.is_empty() && needle.len() > 1 {
        let article = |w: &str| matches!(w, "a" | "an" | "the");
        let hay: Vec<_> = hay.into_iter().filter(|t| !article(t.2)).collect();
        let needle: Vec<&str> = needle.into_iter().filter(|w| !article(w)).collect();
        return runs_of(&hay, &needle, script, asked);
    }
    runs
}

fn runs_of(
    hay: &[(usize, usize, &str)],
    needle: &[&str],
    script: &str,
    asked: &str,
) -> Vec<(usize, usize)> {
    if needle.is_empty() || hay.len() < needle.len() {
        return Vec::new();
    }
    let last = needle.len() - 1;
    let same = |h: &str, n: &str, k: usize| {
        let is_last = k == last;
        h == n
            || abbreviates(h, n)
            || abbreviates(n, h)
            // "Mt. Fuji" is Mount Fuji; "Rocky Mt." is a mountain, not the town Rocky Mount.
            || (k == 0 && needle.len() > 1 && h == "mt" && n == "mount")
            || (is_last
                && n.len() >= 3
                && (h.strip_suffix('s') == Some(n)
                    || h.strip_suffix("es") == Some(n)
                    || possessive(h, n)))
    };
    (0..=hay.len() - needle.len())
        .filter(|&i| (0..needle.len()).all(|k| same(hay[i + k].2, needle[k], k)))
        // "Vancouver Is." is the island; "Vancouver is shown" is the verb: an abbreviation that
        // is also a word of its own counts only with its full stop.
        .filter(|&i| {
            (0..needle.len()).all(|k| {
                let (_, e, h) = hay[i + k];
                h == needle[k] || h != "is" || script.get(e..).is_some_and(|r| r.starts_with('.'))
            })
        })
        // "the badge is Toyota's, and …" names Toyota; "Seoul's neighbouring port city" names
        // another thing: a possessive names its word only at its clause's end.
        .filter(|&i| {
            let (_, e, h) = hay[i + last];
            !possessive(h, needle[last])
                || hay.get(i + needle.len()).is_none_or(|next| {
                    script
                        .get(e..next.0)
                        .is_some_and(|gap| gap.contains([',', '.', ';', '!', '?', '—']))
                })
        })
        .filter(|&i| {
            needle.len() > 1
                || DESCRIBING.contains(&needle[0])
                || hay
                    .get(i + needle.len())
                    .is_none_or(|next| !COMPOUND_HEADS.contains(&next.2) || asked.contains(next.2))
        })
        .filter(|&i| needle.len() > 1 || !landmark_after(hay, i + 1, script, asked))
        // "New York" is not York: a capitalised place prefix written before a one-word name.
        .filter(|&i| {
            needle.len() > 1
                || i == 0
                || !changes_the_kind(hay[i - 1].2, needle[0].trim_end_matches('s'))
        })
        .filter(|&i| {
            needle.len() > 1
                || i == 0
                || !PLACE_PREFIXES.contains(&hay[i - 1].2)
                || !script[hay[i - 1].0..].starts_with(|c: char| c.is_ascii_uppercase())
        })
        .map(|i| (hay[i].0, hay[i + last].1))
        .collect()
}

/// Whether `short` is the common abbreviation of `long` on signs, maps and addresses ("Baker
/// St." for "Baker Street", "5th Ave" for "5th Avenue").
fn abbreviates(short: &str, long: &str) -> bool {
    const ABBREVIATIONS: &[(&str, &str)] = &[
        ("st", "street"),
        ("ave", "avenue"),
        ("av", "avenue"),
        ("rd", "road"),
        ("blvd", "boulevard"),
        ("dr", "drive"),
        ("ln", "lane"),
        ("sq", "square"),
        ("hwy", "highway"),
        ("pl", "place"),
        ("ct", "court"),
        ("pkwy", "parkway"),
        ("sta", "station"),
        ("stn", "station"),
        ("univ", "university"),
        ("hosp", "hospital"),
        ("bldg", "building"),
        ("dept", "department"),
        ("intl", "international"),
        ("natl", "national"),
        ("mtn", "mountain"),
        ("ft", "fort"),
        ("pt", "point"),
        ("is", "island"),
        ("lk", "lake"),
    ];
    ABBREVIATIONS.contains(&(short, long))
}

/// Words before a place name that make another place of it ("New York" is not York).
/// A word before a noun that makes it another thing: "a hot dog" is food, "a sea lion" a seal,
/// "a teddy bear" and "a toy car" toys. "A polar bear" stays a bear.
fn changes_the_kind(before: &str, noun: &str) -> bool {
    const ANY: &[&str] = &[
        "toy",
        "stuffed",
        "plush",
        "fake",
        "teddy",
        "inflatable",
        "faux",
        "imitation",
        "artificial",
        "synthetic",
    ];
    const PAIRS: &[(&str, &str)] = &[
        ("hot", "dog"),
        ("prairie", "dog"),
        ("sea", "lion"),
        ("sea", "horse"),
        ("sea", "cow"),
        ("sea", "dog"),
        ("guinea", "pig"),
        ("koala", "bear"),
        ("water", "bear"),
        ("jelly", "fish"),
        ("star", "fish"),
        ("cray", "fish"),
        ("silver", "fish"),
        ("fire", "fly"),
        ("dragon", "fly"),
        ("butter", "fly"),
        ("killer", "whale"),
        ("spider", "crab"),
        ("horseshoe", "crab"),
        ("mountain", "lion"),
        ("ant", "lion"),
        ("french", "fries"),
        ("vegan", "leather"),
        ("vegan", "fur"),
        ("vegan", "suede"),
    ];
    ANY.contains(&before) || PAIRS.iter().any(|(b, n)| *b == before && *n == noun)
}

const PLACE_PREFIXES: &[&str] = &[
    "new", "north", "south", "east", "west", "port", "fort", "san", "santa", "saint", "st", "los",
    "las",
];

const YES: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "correct",
    "true",
    "indeed",
    "そうです",
    "그렇습니다",
    "그래요",
    "はい",
    "ええ",
    "うん",
    "네",
    "예",
    "응",
    "맞아요",
    "맞습니다",
];
const NO: &[&str] = &[
    "no",
    "nope",
    "false",
    "違います",
    "아닙니다",
    "いいえ",
    "いえ",
    "いや",
    "아니요",
    "아니오",
    "아뇨",
    "아니",
];

/// A reference that is a bare yes or no: true for yes.
fn polarity_word(pr: &str) -> Option<bool> {
    let w = pr.trim_matches(|c: char| c.is_whitespace() || text::is_clause_mark(c));
    if YES.contains(&w) {
        Some(true)
    } else if NO.contains(&w) {
        Some(false)
    } else {
        None
    }
}

/// Words that say the reply cannot tell.
fn unsure_words() -> &'static regex::Regex {
    static UNSURE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    UNSURE.get_or_init(|| {
        regex::Regex::new(r"\b(?:not sure|unsure|(?:don'?t|do not|doesn'?t) know|can'?t (?:\w+ )?tell|cannot (?:\w+ )?tell|can'?t determine|cannot determine|(?:cannot|can'?t) be determined|unable to (?:tell|determine|see|say)|unclear|hard to (?:tell|say)|(?:cannot|can'?t|could not|couldn'?t) (?:be )?(?:excluded?|ruled? out)|not (?:be )?(?:excluded|ruled out))\b|否定でき[なま]|否定はでき|除外でき[なま]|除外はでき|断定でき[なま]|断定はでき|言い切れ[なま]|배제할 수(?:는)? 없|배제하기 어렵|단정할 수(?:는)? 없|단정하기 어렵|わかりません|分かりません|わからな|分からな|判断でき|お答えできません|答えられません|回答できません|確認できません|모르|알 수 없|판단할 수 없|판단하기 어렵|확인할 수 없|답변드리기 어렵").expect("valid")
    })
}

/// Whether the words right after `end`, in its sentence, say the thing is only possible.
fn possible_after(pp: &str, end: usize) -> bool {
    let to = text::char_boundary_after(pp, (end + 30).min(pp.len()));
    regex_possible().is_match(&pp[end..to])
}

/// "검정이야. 근데 … 진한 남색일 수도 있으니까" asked the colour, for 남색: another colour given,
/// and the reference only as a possibility in a caveat after it.
fn colour_only_as_possibility(
    question: &str,
    reference: &str,
    response: &str,
) -> Option<(bool, &'static str)> {
    let nfkc = super::normalize::nfkc;
    // The reference first: most are no colour, and asking the question costs more.
    let reference = nfkc(reference);
    let want = text::colours::reference_term(&reference, Class::Colour)?;
    if !text::colours::asks(&nfkc(question), Class::Colour) {
        return None;
    }
    let reply = nfkc(response);
    let prepared = text::prepare(&reply);
    let found = text::colours::found(&reply, Class::Colour);
    let first = found
        .iter()
        .find(|f| negation::denied(&prepared, f.start, f.end).is_none())?;
    if first.colour == want.colour {
        return None;
    }
    let mut named = found.iter().filter(|f| f.colour == want.colour).peekable();
    let only_possible = named.peek().is_some()
        && named.all(|f| {
            f.start >= first.end
                && caveat_words().is_match(&prepared[first.end..f.start])
                && possible_after(&prepared, f.end)
        });
    only_possible.then_some((
        false,
        "another colour given; the reference only as a possibility after a caveat",
    ))
}

/// Words that say a thing is only possible ("might be", "かもしれ", "수도 있").
fn regex_possible() -> &'static regex::Regex {
    static POSSIBLE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    POSSIBLE.get_or_init(|| {
        regex::Regex::new(
            r"^[^.。!?\n]*?(?:\b(?:might|could|may)\b|かもしれ|可能性|수도 있|가능성)",
        )
        .expect("valid")
    })
}

/// Words that open a caveat after an answer ("but", "ただ", "다만", "하지만").
fn caveat_words() -> &'static regex::Regex {
    static CAVEAT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    CAVEAT.get_or_init(|| {
        regex::Regex::new(
            r"\b(?:but|though|however|although)\b|ただ|ただし|けど|が、|다만|하지만|그런데|근데|지만",
        )
        .expect("valid")
    })
}

/// Whether the reply (prepared) says it cannot tell ("not sure", "わかりません", "알 수 없").
fn cannot_tell(pp: &str) -> bool {
    // "兵庫だと思います。ただ、どの市かまではわかりません": a detail not made out after an
    // answer given.
    let caveat = caveat_words();
    unsure_words().find(pp).is_some_and(|m| {
        caveat
            .find_iter(&pp[..m.start()])
            .last()
            .is_none_or(|c| !pp[..c.start()].chars().any(char::is_alphanumeric))
    })
}

/// A reply's answer to a yes/no question: its first word if that is yes or no, else "no" when
/// its first sentence is negated ("He isn't wearing glasses", "깨끗하지 않아요"); a plain
/// statement answers neither.
fn polarity(pp: &str, question: Option<&str>) -> Option<bool> {
    let unsure = unsure_words();
    // "はい。ただ、傘の色は暗くて確認できません": a detail the reply cannot make out, after a
    // yes or no it gave, takes nothing back.
    let caveat = caveat_words();
    if let Some(m) = unsure.find(pp) {
        let head = &pp[..m.start()];
        // "But honestly, I can't tell either way": a doubt of the answer itself.
        static ALL: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let all = ALL.get_or_init(|| {
            regex::Regex::new(r"\b(?:either way|for (?:sure|certain)|one way or the other)\b|どちらとも|どちらか|本当に|어느 쪽|확실")
                .expect("valid")
        });
        let answered_first = caveat.find_iter(head).last().is_some_and(|c| {
            let first = &head[..c.start()];
            let doubt = &pp[c.end()..text::char_boundary_after(pp, (m.end() + 24).min(pp.len()))];
            // "I can't tell whether he is wearing one" doubts the answer; "… whether it's a
            // smartwatch or an ordinary one" only a detail of the thing.
            let asked = question
                .map(text::similarity::content_words)
                .unwrap_or_default();
            // "whether the watch is digital or analog": alternatives of a detail, even when
            // the thing is named.
            // The rest of the doubt's sentence, not only the window.
            let sentence_end = pp[m.end()..]
                .find(['.', '。', '!', '?', '\n'])
                .map_or(pp.len(), |i| m.end() + i);
            let whether = pp[c.end()..sentence_end]
                .split_once("whether")
                .is_some_and(|(_, w)| {
                    w.contains("or not")
                        || (!w.contains(" or ")
                            && text::similarity::content_words(w)
                                .iter()
                                .any(|x| asked.contains(x)))
                });
            tokens(first)
                .first()
                .is_some_and(|t| polarity_word(t.2).is_some())
                && !unsure.is_match(first)
                && !all.is_match(doubt)
                && !whether
        });
        // "気胸は認めません。…少量の胸水は否定できません": a doubt of another finding, in a
        // sentence that does not name the asked thing, after a sentence that answers.
        let doubt_start = text::after_last(pp, m.start(), &['.', '。', '\n', '!', '?']);
        let asked: Vec<String> = question
            .map(text::similarity::content_words)
            .unwrap_or_default()
            .into_iter()
            .filter(|w| !w.starts_with(['있', '없']))
            .collect();
        let doubt_words = text::similarity::content_words(&pp[doubt_start..m.end()]);
        // Only a doubt that names what it doubts ("X cannot be excluded", "Xは否定できません"),
        // not "I can't tell either way".
        let names_its_object = [
            "exclud",
            "rule",
            "否定",
            "除外",
            "断定",
            "言い切",
            "배제",
            "단정",
        ]
        .iter()
        .any(|w| m.as_str().contains(w));
        let of_another = doubt_start > 0
            && names_its_object
            && !asked.is_empty()
            && !asked.iter().any(|w| doubt_words.contains(w))
            && polarity_plain(&pp[..doubt_start]).is_some();
        if !answered_first && !of_another {
            return None;
        }
    }
    // "Yes and no", "開いているかもしれないし、開いていないかもしれません": both ways.
    static BOTH: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let both = BOTH.get_or_init(|| {
        regex::Regex::new(r"\byes and no\b|\bmight or might not\b|\bmay or may not\b|かもしれないし|かも知れないし|일\s*수도\s*있고|\b(?:likely|probably)\s+yes\b[^.!?]*\b(?:likely|probably)\s+no\b|\b(?:likely|probably)\s+no\b[^.!?]*\b(?:likely|probably)\s+yes\b|\bfifty[- ]fifty\b|\b50\s*/\s*50\b|\b50\s*%\s*(?:chance|likely|probability)|五分五分|반반(?:이|입|정도)")
            .expect("valid")
    });
    if both.is_match(pp) {
        return None;
    }
    // "창문이 열려 있습니까? 창문이 열려 있습니까?": a reply that only asks (the question repeated
    // by a small model) answers neither way.
    let asks_only = pp
        .split_inclusive(['.', '。', '!', '！', '?', '？', '\n'])
        .map(str::trim)
        .filter(|x| x.chars().any(char::is_alphanumeric))
        .all(|x| x.ends_with(['?', '？']));
    if asks_only {
        return None;
    }
    // "Yes, there's a clock. Wait — … a decorative plate. So no.", "いいえ、ありません。…いや、
    // 訂正します。左端に小さな置き時計があります。", "네, 있습니다. 아, 다시 보니 … 케이크는
    // 없습니다.": after a correction, what the reply says then answers.
    if let Some(c) = text::corrections::last_end(pp).filter(|&c| c < pp.len()) {
        let before = &pp[..c];
        let after = &pp[c..];
        let first = polarity_plain(before);
        // A "no" taken back by saying the thing asked about is there (not another thing: "No
        // cat. Hmm, there's a dog though.").
        let asked = question
            .map(text::similarity::content_words)
            .unwrap_or_default();
        // "Hmm, there's a dog on a poster, but that's just a picture": what a contrast then
        // dismisses is not taken back; the clause after the contrast decides.
        static DISMISS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let dismiss = DISMISS.get_or_init(|| {
            regex::Regex::new(r"\bjust (?:a|an|the)\b|\bonly (?:a|an)\b|\bmerely\b|ただの|にすぎ|に過ぎ|일 뿐|일뿐|에 불과")
                .expect("valid")
        });
        let after = after_contrast(after)
            .filter(|t| dismiss.is_match(t))
            .unwrap_or(after);
        // The thing, not the verb of being ("있습" of 있습니까 and 있습니다).
        let names_asked = text::similarity::content_words(after)
            .iter()
            .any(|w| asked.contains(w) && !w.starts_with(['있', '없', '아', '이']));
        // Likewise a "yes" taken back by a denial of it ("… 케이크는 없습니다").
        // The denial names the asked thing ("ぬいぐるみではありません" asked whether the cat is
        // real denies another thing).
        // A bare denial ("없어요.", "ありません。", "No.") denies the thing asked about too,
        // unless it answers a question the reply asks itself ("혹시 강아지도 있을까요? 없어요.").
        let sentences: Vec<&str> = after.split_inclusive(['.', '。', '!', '?', '\n']).collect();
        let denied = sentences.iter().enumerate().any(|(i, s)| {
            let words = text::similarity::content_words(s);
            let answers_own = i > 0 && sentences[i - 1].trim_end().ends_with(['?', '？']);
            polarity_plain(s) == Some(false)
                && (words
                    .iter()
                    .any(|w| asked.contains(w) && !w.starts_with(['있', '없', '아', '이']))
                    || (!answers_own
                        && words.iter().all(|w| {
                            w.starts_with(['있', '없', '아'])
                                || ["no", "not", "none"].contains(&w.as_str())
                        })))
        });
        let then = polarity_plain(after)
            .or_else(|| (first == Some(false) && exists(after) && names_asked).then_some(true))
            .or_else(|| (first == Some(true) && denied && names_asked).then_some(false));
        if let Some(p) = then {
            return Some(p);
        }
    }
    // "There is no bicycle, but there is a motorcycle" asked about the motorcycle: the denial
    // is of another thing; the clause that names the asked thing says it is there.
    // Only a question of being there ("Is there …?", "猫はいますか", "있나요"), not of a state
    // ("この道路は濡れていますか？" answered "…が、道路は乾いています").
    if let (Some(q), Some(rest)) = (
        question.filter(|q| text::asks::asks_existence(q)),
        after_contrast(pp),
    ) {
        let asked = text::similarity::content_words(q);
        let names = |s: &str| {
            text::similarity::content_words(s)
                .iter()
                .any(|w| asked.contains(w))
        };
        // The asked thing as the question names it, each word of it ("a blue car" asked about a
        // red car is another thing), not the picture it is in or the verb of being.
        let names_all = |s: &str| {
            let said = text::similarity::content_words(s);
            modifiers_named(q, &said)
        };
        let head = &pp[..pp.len() - rest.len()];
        if polarity_plain(head) == Some(false)
            && !names(head)
            && names(rest)
            && names_all(rest)
            && exists(rest)
        {
            return Some(true);
        }
    }
    polarity_plain(pp)
}

/// A report's finding on the thing an existence question asks about ("Is there evidence of
/// pneumothorax?" → "Lungs are clear. No evidence of pneumothorax.", "골절이 있습니까?" → "…
/// 골절선이 보입니다"): the sentences that name every word of the asked thing, when they all
/// deny it or all say it is seen.
fn finding_named(pp: &str, question: &str) -> Option<bool> {
    if !text::asks::asks_existence(question) {
        return None;
    }
    static SEEN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let seen = SEEN.get_or_init(|| {
        regex::Regex::new(r"\b(?:is|are) (?:seen|noted|present|identified|visible|observed)\b|認め(?:ます|られます)|見られます|보입니다|보이네요|보여요|관찰됩니다|관찰돼요")
            .expect("valid")
    });
    // The thing, not the verb of being ("있습" of 있습니까, "あります").
    let asked: Vec<String> = text::similarity::content_words(question)
        .into_iter()
        .filter(|w| !w.starts_with(['있', '없']))
        .collect();
    if asked.is_empty() {
        return None;
    }
    let mut said = None;
    for s in pp.split(['.', '。', '!', '?', '\n']) {
        let words = text::similarity::content_words(s);
        // Word for word: "気胸様の透亮像" is something like a pneumothorax, not one.
        let names = asked.iter().all(|a| words.contains(a));
        if !names {
            continue;
        }
        let p = match polarity_plain(s) {
            Some(p) => p,
            None if seen.is_match(s) || exists(s) => true,
            None => continue,
        };
        if said.is_some_and(|x| x != p) {
            return None;
        }
        said = Some(p);
    }
    said
}

/// The reply's last clause after a contrast ("…, but …", "…が、実際には…", "…지만, 실제로는 …").
fn after_contrast(response: &str) -> Option<&str> {
    text::contrast_end(response).map(|e| &response[e..])
}

/// Whether the words `said` hold, for each word of the question they name, the word written
/// right before it in the question when that modifies it ("red" of "a red car", "빨간" of
/// "빨간 차가"): a blue car is not the red one asked about; "on the beach" is a place, not a
/// modifier.
fn modifiers_named(question: &str, said: &[String]) -> bool {
    let words: Vec<Option<String>> = question
        .split_whitespace()
        .map(|w| text::similarity::content_words(w).into_iter().next())
        .collect();
    // "a person riding a bicycle": any one person is a person (a girl riding one is), while "a
    // man wearing a hat" is not answered by a woman wearing one.
    let anyone = |m: &str| {
        [
            "person", "someone", "anyone", "somebody", "anybody", "people", "人", "사람",
        ]
        .iter()
        .any(|p| {
            text::similarity::content_words(p)
                .first()
                .is_some_and(|s| s == m)
        })
    };
    words.windows(2).all(|w| match (&w[0], &w[1]) {
        (Some(m), Some(n)) if said.contains(n) => {
            text::similarity::is_scene_word(m)
                || anyone(m)
                || m.starts_with(['있', '없'])
                || said.contains(m)
        }
        _ => true,
    })
}

/// "あります", "있긴 한데", "There's a stop sign": a clause that says the thing is there.
fn exists(s: &str) -> bool {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(r"\bthere(?:'s| is| are)\b|あります|います|ございます|있습니다|있어요|있네요|있긴|있다고|있어")
            .expect("valid")
    })
    .is_match(s)
}

/// [`polarity`] without a correction.
fn polarity_plain(pp: &str) -> Option<bool> {
    let toks = tokens(pp);
    toks.first()?;
    // "~80% likely yes", "probably no", "80%くらいの確率で、あります", "80% 정도 확률로 있다고
    // 봅니다": a likelihood stated is a commitment.
    static LIKELY: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let likely = LIKELY.get_or_init(|| {
        regex::Regex::new(r"^\W*(?:(?:\d{1,3}\s*%|most|very|quite)\s*)?(?:likely|probably)\s+(?P<en>yes|no)\b|^[^。.、,]{0,16}確率で[、,]?\s*(?P<ja>あります|います|ありません|いません)|^[^.,]{0,16}확률로\s*(?P<ko>있|없)")
            .expect("valid")
    });
    if let Some(c) = likely.captures(pp) {
        return Some(match (c.name("en"), c.name("ja"), c.name("ko")) {
            (Some(w), _, _) => w.as_str() == "yes",
            (_, Some(w), _) => w.as_str().starts_with("あります") || w.as_str() == "います",
            (_, _, Some(w)) => w.as_str() == "있",
            _ => return None,
        });
    }
    // "있긴 한데, 멀리 있어서 …": there is, with a caveat.
    // "있긴 했는데, … 이미 떠나서 없어요": there was, and the clause after says it is gone.
    if pp.trim_start().starts_with("있긴") || pp.trim_start().starts_with("あるには") {
        let rest = pp.find([',', '、', '.', '。']).map_or("", |i| &pp[i + 1..]);
        // "앉을 수는 없어요": what cannot be done with it, not its absence; but "더 이상 볼 수
        // 없어요" (can no longer be seen) is.
        static CANNOT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let cannot = CANNOT.get_or_init(|| {
            regex::Regex::new(r"(\S*)\s*수\s*(?:는|가|도)?\s*없\S*|ことはでき(?:ない|ません)")
                .expect("valid")
        });
        let rest = &*cannot.replace_all(rest, |c: &regex::Captures| {
            let verb = c.get(1).map_or("", |v| v.as_str());
            if ["볼", "보일", "찾을", "확인할"].contains(&verb) {
                c[0].to_string()
            } else {
                String::new()
            }
        });
        // Only a denial of being there ("없어요", "もうありません"), not of being seen well
        // ("잘 보이지 않아요").
        let gone = [
            "없",
            "ありません",
            "いません",
            "もうない",
            "いなくな",
            "なくな",
        ]
        .iter()
        .any(|g| rest.contains(g));
        return Some(!(gone && polarity_plain(rest) == Some(false)));
    }
    // A yes or no standing as its own clause decides ("Yes.", "No, ...", "... — yes, it's on"),
    // not a "no" inside a phrase ("no pedestrians").
    // A contrast may lead it ("I don't see a car, but yes, a bicycle is …"; not "and indeed",
    // which concedes a side point).
    let alone = |&(s, e, _): &(usize, usize, &str)| {
        let mut before = pp[..s].trim_end();
        if let Some(b) = ["but", "though"]
            .iter()
            .find_map(|c| before.strip_suffix(c))
            .filter(|b| b.is_empty() || b.ends_with(|c: char| !c.is_alphanumeric()))
        {
            before = b.trim_end();
        }
        let after = pp[e..].trim_start();
        (before.is_empty() || before.ends_with(|c: char| text::is_clause_mark(c) || c == '-'))
            && (after.is_empty()
                || after.starts_with(|c: char| text::is_clause_mark(c) || c == '-'))
    };
    if let Some(p) = toks
        .iter()
        .filter(|t| alone(t))
        .find_map(|t| polarity_word(t.2))
    {
        return Some(p);
    }
    if let Some(p) = polarity_word(toks[0].2) {
        return Some(p);
    }
    // "…, so yes", "…, which means no": a yes or no the reply ends on.
    if let Some(&(s, _, w)) = toks.last() {
        let before = pp[..s].trim_end();
        let led = [
            "so",
            "thus",
            "hence",
            "therefore",
            "means",
            "answer",
            "i.e",
            "i.e.",
        ]
        .iter()
        .any(|l| before.ends_with(l) || before.ends_with(&format!("{l}:")));
        // "Is it closed? I don't think so — so no": the reply answered a question of its own.
        let own_question = pp[..s].contains('?');
        if let Some(p) = polarity_word(w).filter(|_| led && !own_question) {
            return Some(p);
        }
    }
    let sentence = pp.split(['.', '。', '!', '?', '\n']).next().unwrap_or(pp);
    // "It's not true that he isn't wearing glasses", "寝ていないわけではありません", "맑지 않은 건
    // 아니에요": a denied denial affirms.
    if double_negation(sentence) {
        return Some(true);
    }
    let negated = tokens(sentence).iter().any(|t| {
        matches!(t.2, "not" | "no" | "never" | "none" | "nothing")
            || t.2.ends_with("n't")
            || t.2.ends_with("n’t")
    }) || [
        "ない",
        "ません",
        "ではな",
        "じゃな",
        "않",
        "아니",
        "아닙",
        "없",
        "못",
        "違い",
        "違う",
    ]
    .iter()
    .any(|n| {
        sentence.match_indices(n).any(|(i, _)| {
            let noun_before = *n == "ない" && sentence[..i].ends_with(['の', 'が']);
            !attributive(
                &sentence[i + n.len()..],
                if noun_before { "のない" } else { n },
            )
        })
    });
    // A plain statement is not a "yes": only its denial answers (no).
    negated.then_some(false)
}

/// Whether a Japanese or Korean negation, followed by `rest`, modifies a noun ("フレームのない
/// 眼鏡", "테가 없는 안경") instead of ending the clause: it denies a part of the thing, not the
/// thing asked about. A dependent noun ("ないこと", "없는 것 같아요") still ends the clause.
fn attributive(rest: &str, negation: &str) -> bool {
    let Some(c) = rest.chars().next() else {
        return false;
    };
    match negation {
        // After a noun and の or が only ("フレームのない眼鏡", "縁がない眼鏡"); a verb's denial before a noun
        // ("眼鏡をかけていない男性") still answers.
        "ない" => false,
        "のない" => {
            (text::is_kanji(c) || text::is_katakana(c)) && !rest.starts_with(['事', '様'])
        }
        "없" => ["는 ", "은 "].iter().any(|m| {
            rest.strip_prefix(m).is_some_and(|n| {
                n.starts_with(|c: char| text::is_hangul(c))
                    && !["것", "거", "듯", "편", "걸", "게", "데", "모양"]
                        .iter()
                        .any(|d| n.starts_with(d))
            })
        }),
        _ => false,
    }
}

/// A sentence that denies a denial ("not true that … isn't", "wouldn't say it's not",
/// "ないわけではない", "なくはない", "지 않은 건 아니다", "않았다고 보기는 어렵다").
fn double_negation(sentence: &str) -> bool {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static CONCEDES: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    // "持っていないわけではありませんが、差してはいません": a concession; the clause after it answers.
    let concedes = CONCEDES.get_or_init(|| {
        // "降らないとは言えない空模様ですが、": the clause it ends may run on to its が.
        regex::Regex::new(r"^(?:\S{0,4}?(?:が|けど|けれど|지만|\s*,?\s*but\b)|(?:[^。、,.!?と]|と[^思考])?[^。、,.!?と]{0,9}?(?:ですが|だが|が、|けど|けれど))").expect("valid")
    });
    let r = R.get_or_init(|| {
        regex::Regex::new(r"\b(?:not true|not the case|(?:would|could|can)(?:n'?t|n’t| not)\s+say|cannot say)\b[^.!?;,—–]*(?:\bnot\b|n'?t\b|n’t\b|\bno\b|\bnever\b)|(?:ない|なかった)(?:わけ|訳|こと)(?:では|じゃ|は|も)(?:ない|なかった|ありません|ございません)|なくは(?:ない|ありません)|지\s*않(?:은|는|았던)\s*(?:건|것은|게|것이)\s*아니|(?:않|없)(?:았|었)?다고\s*(?:보기|하기|말하기)(?:는|가|도)?\s*(?:어렵|힘들)|(?:않|없)(?:은|는)\s*(?:건|것은|게)\s*아니|(?:で|じゃ)?ないとは(?:言え|いえ)(?:ない|ません)|아니라고(?:는|도)?\s*(?:할|말할)\s*수\s*없").expect("valid")
    })
    ;
    r.find_iter(sentence)
        .any(|m| !concedes.is_match(&sentence[m.end()..]))
}

pub(crate) const CORRECTED_RULE: &str =
    "the reply sets the reference aside for another answer (not X but Y)";
const FINAL_LINE_RULE: &str = "the reply's final answer line names something else";

const ANSWER_CLAUSE_RULE: &str =
    "the reply's opening clause answers the question with something else";

/// Where the reply's opening clause ends when it states the answer in English by restating
/// the question ("The closest object to the camera is the wooden bench;"): a clause with "is"
/// or "are" that shares two words of the question's asking clause before it and names
/// something after it.
fn answering_clause_end(pp: &str, q: &str) -> Option<usize> {
    use text::similarity::content_words;
    let end = pp.find([';', '.', '!', '?', '\n', '—']).unwrap_or(pp.len());
    let clause = &pp[..end];
    let copula = [" is ", " are ", " was "]
        .iter()
        .filter_map(|c| clause.find(c).map(|i| (i, c.len())))
        .min()?;
    // The alternatives a question offers ("the left or the right?") are candidate answers,
    // not words that restate it: "The one on the right is plain white" describes one of them.
    let asking = text::asking_clause(q).to_lowercase();
    let words: Vec<&str> = asking
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !matches!(*w, "the" | "a" | "an"))
        .collect();
    let offered: Vec<String> = words
        .windows(3)
        .filter(|w| w[1] == "or")
        .flat_map(|w| [w[0], w[2]])
        .flat_map(content_words)
        .collect();
    let all_asked = content_words(&asking);
    let asked: Vec<String> = all_asked
        .iter()
        .filter(|w| !offered.contains(w))
        .cloned()
        .collect();
    let subject = content_words(&clause[..copula.0]);
    let predicate = content_words(&clause[copula.0 + copula.1..]);
    let named = !predicate.is_empty();
    // "The bowl is ceramic" for "What is the soup bowl made of?": a subject that is all the
    // question's words restates it too.
    let restates_with = |asked: &[String]| {
        let shared = subject.iter().filter(|w| asked.contains(w)).count();
        shared >= 2 || (shared >= 1 && shared == subject.len())
    };
    // A subject naming an alternative restates the question only when what is said of it is
    // what the question asks ("The cat is asleep" for "Which is asleep, the cat or the dog?").
    let says_asked = predicate.iter().any(|w| asked.contains(w));
    let restates = restates_with(&asked) || (restates_with(&all_asked) && says_asked);
    (clause.is_ascii() && restates && named && end < pp.len()).then_some(end)
}

/// The rule of a reference stated for another label than the one asked.
const ANOTHER_LABEL_RULE: &str = "the reference is stated for another label than the one asked";

/// "임대인은 박서준, 임차인은 이도윤" asked the 임차인's name, "Landlord: Kim, tenant: Lee" asked the
/// tenant: the reference stands after a label (its clause's words before it, ending in a topic
/// or subject mark, a colon or "is") that shares no word with the asking clause, while a word of
/// the asking clause labels another part of the reply.
fn labelled_as_another(pp: &str, q: &str, s: usize) -> bool {
    use text::similarity::content_words;
    const GENERIC: &[&str] = &[
        "name", "what", "which", "who", "이름", "무엇", "누구", "名前", "何", "誰",
    ];
    let asked: Vec<String> = content_words(text::asking_clause(q))
        .into_iter()
        .filter(|w| !GENERIC.contains(&w.as_str()))
        .collect();
    let clause = text::after_last(pp, s, &[',', '、', '。', '.', ';', '\n', '，', '/']);
    let label = pp[clause..s].trim_end();
    let marked = label.ends_with(['은', '는', '이', '가', ':', 'は', 'が'])
        || label.ends_with(" is")
        || label.ends_with(" was");
    let words = content_words(label);
    // "答えは江戸時代です": a label naming the answer itself is the one asked.
    let answer = ["answer", "答え", "正解", "結論", "정답", "답은", "결론"]
        .iter()
        .any(|w| label.contains(w));
    if asked.is_empty()
        || !marked
        || answer
        || words.is_empty()
        || words.iter().any(|w| asked.contains(w))
    {
        return false;
    }
    // The asked word elsewhere labels something itself: it ends its word with a topic or
    // subject mark or a colon ("임차인은 이도윤", "tenant: Lee"), not a mention in brackets or in
    // passing ("（借主の欄に記載）", "signed the agreement").
    let labels_elsewhere = |w: &str| {
        pp.match_indices(w).any(|(at, _)| {
            if at >= clause && at < s {
                return false;
            }
            // A kanji word as a whole run, not inside a longer one ("最" of "最終的な"; "兄は"
            // is 兄).
            let inside = text::is_kanji(w.chars().next().unwrap_or(' '))
                && (text::char_before(pp, at).is_some_and(text::is_kanji)
                    || text::char_at(pp, at + w.len()).is_some_and(text::is_kanji));
            if inside {
                return false;
            }
            let rest = &pp[at + w.len()..];
            let word_end = rest
                .char_indices()
                .find(|(_, c)| !c.is_alphanumeric() || "はが".contains(*c))
                .map_or(rest.len(), |(i, _)| i);
            let (word, after) = rest.split_at(word_end);
            word.ends_with(['은', '는', '이', '가'])
                || after.starts_with(['は', 'が', ':', '：'])
                || after.starts_with(" is ")
        })
    };
    asked.iter().any(|w| labels_elsewhere(w))
}

/// Where the text of the reply's last explicit answer line begins ("Answer: …", "**Final
/// answer:** …", "答え：…", "정답: …"), when that line names something.
fn final_answer_line(pp: &str) -> Option<(usize, bool)> {
    use std::sync::OnceLock;
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        // At a line's start, or after the sentence before it ("… to the right of the door.
        // Final answer: right.").
        regex::Regex::new(r"(?m)(?:^|[.。!?！？]\s*)[\s*#>_-]*(?:final answer|answer|答え|回答|正解|최종 답|정답|답)\s*[*_]*\s*[:：]")
            .expect("valid")
    });
    let m = r.find_iter(pp).last()?;
    let opens_line = pp[..m.start()].trim_end_matches([' ', '\t']).is_empty()
        || pp[..m.start()].ends_with('\n')
        || pp[m.start()..m.end()].contains('\n');
    let line_end = pp[m.end()..].find('\n').map_or(pp.len(), |i| m.end() + i);
    let named = |s: &str| s.chars().any(char::is_alphanumeric);
    // "**Final answer:**" as a heading: the answer is the next line.
    let start = if named(&pp[m.end()..line_end]) {
        m.end()
    } else {
        let next = pp[line_end..].find(|c: char| !c.is_whitespace())?;
        line_end + next
    };
    let end = pp[start..].find('\n').map_or(pp.len(), |i| start + i);
    // The reply's own last line, not a line of the image quoted in the middle ("正解：京都\nと
    // 書き込まれています").
    (named(&pp[start..end]) && pp[end..].trim().is_empty()).then_some((start, opens_line))
}

const MIX_RULE: &str = "a mix or cross of the reference with another, not the reference";

/// Whether a question asks a breed or a species (where a mix is another answer; "seafood mix"
/// is seafood).
fn asks_breed(question: &str) -> bool {
    let q = question.to_lowercase();
    [
        "breed", "species", "犬種", "猫種", "品種", "품종", "견종", "묘종",
    ]
    .iter()
    .any(|w| q.contains(w))
}

/// "말티즈와 푸들 믹스인 말티푸", "a Poodle and Maltese mix", "柴犬ミックス": every time the reply
/// names the reference, it names one parent of a mix or cross.
fn mixed_with_another(pr: &str, pp: &str) -> bool {
    static MIX: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let mix = MIX.get_or_init(|| {
        regex::Regex::new(r"^(?:[-\s]|\s*(?:and|&|x|×|/)\s*[^\s.,]+\s*|와\s*\S+\s*|과\s*\S+\s*|と\S+の)?(?:(?:mix|cross|hybrid)(?:[^a-z]|$)|믹스|みっくす|雑種|교배|잡종)")
            .expect("valid")
    });
    let r = pr.trim();
    if r.is_empty()
        || ![
            "mix",
            "cross",
            "hybrid",
            "믹스",
            "みっくす",
            "雑種",
            "교배",
            "잡종",
        ]
        .iter()
        .any(|w| pp.contains(w))
    {
        return false;
    }
    let mut named = pp.match_indices(r).peekable();
    named.peek().is_some() && named.all(|(i, _)| mix.is_match(&pp[i + r.len()..]))
}

/// The rule that accepts a decline for a question the image cannot answer.
pub const UNANSWERABLE_RULE: &str =
    "the question cannot be answered from the image, and the reply declines without guessing";

const LIST_RULE: &str = "a bare list of several things, none of them chosen";

const QUOTED_MORE_RULE: &str = "the text quoted as read says more than the reference";

/// Whether a question asks for the text written in the image itself (a query entered, what a
/// sign or a button says), not a name read off it ("the city name on the sign", a title, a
/// brand), which a quote may give with more.
fn asks_text(question: &str) -> bool {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let q = question.to_lowercase();
    let named = [
        "name",
        "title",
        "brand",
        "city",
        "이름",
        "제목",
        "브랜드",
        "도시",
        "名前",
        "名",
        "タイトル",
        "ブランド",
        "都市",
    ]
    .iter()
    .any(|w| q.contains(w));
    !named
        && R.get_or_init(|| {
            regex::Regex::new(r"(?i)\b(?:say|says|said|written|text|read|reads|query|typed|entered)\b|書かれ|書いて|入力|文字|文言|検索語|検索ワード|쓰여|적혀|입력|검색어|문구|글자")
                .expect("valid")
        })
        .is_match(question)
}

/// Whether the span lies inside a quote ('…', "…", 「…」, “…”) that holds a word more than it.
fn quoted_with_more(pp: &str, s: usize, e: usize) -> bool {
    let pairs = [
        ('\'', '\''),
        ('"', '"'),
        ('「', '」'),
        ('『', '』'),
        ('“', '”'),
        ('‘', '’'),
    ];
    pairs.iter().any(|&(open, close)| {
        let Some(o) = pp[..s].rfind(open) else {
            return false;
        };
        // Not a quote closed before the span starts.
        if pp[o + open.len_utf8()..s].contains(close) {
            return false;
        }
        let Some(c) = pp[e..].find(close).map(|i| e + i) else {
            return false;
        };
        // An apostrophe ("it's", "sign's") is no quote mark: a quote opens after a word ends
        // and closes before the next begins.
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
        // Nor is an inch mark (55" Samsung).
        if matches!(open, '\'' | '"')
            && (word(pp[..o].chars().next_back()) || word(pp[c + 1..].chars().next()))
        {
            return false;
        }
        // "「小麦粉（国内製造）」": an aside in brackets says nothing more of the text.
        static ASIDE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let aside =
            ASIDE.get_or_init(|| regex::Regex::new(r"\([^()]*\)|（[^（）]*）").expect("valid"));
        let inside = aside.replace_all(&pp[o + open.len_utf8()..c], "");
        let inside = inside.trim();
        let span = pp[s..e].trim();
        inside.len() > span.len()
            && inside.chars().filter(|c| c.is_alphanumeric()).count()
                > span.chars().filter(|c| c.is_alphanumeric()).count() + 1
    })
}

const CANDIDATES_DECLINED_RULE: &str =
    "the reference only among listed candidates, and the reply declines to choose";

/// Whether every span lies on a list's item (two or more lines opened by a bullet or a
/// number) as a candidate, not as a labelled field ("- Breed: Beagle", "- 犬種：柴犬"), and the
/// text outside the list declines without a guess (any decline: the list holds the answer's
/// candidates, and a labelled field is no candidate).
fn candidates_declined(pp: &str, spans: &[(usize, usize)]) -> bool {
    // A list needs two lines: most replies are one.
    if !pp.contains('\n') {
        return false;
    }
    let mut items = Vec::new();
    let mut outside = String::new();
    let mut at = 0;
    for line in pp.split_inclusive('\n') {
        let t = line.trim_start();
        let bullet = t.starts_with(['-', '*', '•', '・', '·'])
            || t.split_once(['.', ')']).is_some_and(|(n, _)| {
                !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit())
            });
        if bullet {
            items.push((at, at + line.len()));
        } else {
            outside.push_str(line);
        }
        at += line.len();
    }
    let candidate = |s: usize, e: usize| {
        items
            .iter()
            .any(|&(a, b)| a <= s && e <= b && !pp[a..s].trim_end().ends_with([':', '：']))
    };
    items.len() >= 2
        && spans.iter().all(|&(s, e)| candidate(s, e))
        && text::declines::declines(&outside, None)
}

const CONCLUDED_OTHER_RULE: &str = "the reply concludes with something else";

/// Where the thing begins that the reply's last sentence concludes with, when that sentence is
/// a conclusion mark and the thing with a copula alone ("…순서이므로 어른벌레입니다.", "…なので、
/// 成虫です。", "…, so it's a moth."): a short name, nothing else said after it.
fn concluded_thing(pp: &str) -> Option<usize> {
    static R: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let [english, cjk] = R.get_or_init(|| {
        let thing =
            r"(?P<thing>[^\s.,。、!?]{1,12}?)(?:입니다|이에요|예요|이다|です|だ)?\s*[.。!]?\s*$";
        [
            regex::Regex::new(&format!(
                r"^,?\s+(?:it(?:'s| is)|the answer is)\s+(?:an?\s+|the\s+)?{thing}"
            ))
            .expect("valid"),
            regex::Regex::new(&format!(r"^[、,]?\s*{thing}")).expect("valid"),
        ]
    });
    // Most replies hold no mark of a conclusion: the patterns are not run on them.
    if !text::conclusions::any(pp) {
        return None;
    }
    let pp = pp.trim_end();
    let (start, end) = text::conclusions::all(pp).last()?;
    let r = if pp[start..end].is_ascii() {
        english
    } else {
        cjk
    };
    let c = r.captures(&pp[end..])?;
    let thing = c.name("thing")?;
    let word = thing.as_str();
    // "日本サイズだから、海外だとMくらいかな": what holds only under a condition ("if abroad") is
    // not what the reply concludes about the thing asked; "라면" alone is ramen.
    let conditional = ["だと", "なら", "たら", "라면", "이면"]
        .iter()
        .any(|w| word.find(w).is_some_and(|i| i > 0));
    // "결국 포기했네요", "…と言いましたね": a verb that ends the reply, not a thing.
    let verb = ['요', '다', '네'].iter().any(|e| word.ends_with(*e))
        || ["ます", "ました", "ね", "よ"]
            .iter()
            .any(|e| word.ends_with(e));
    // Only a name: no figure (the number rules read those) and no word of being.
    (!conditional && !verb && !word.chars().any(|c| c.is_ascii_digit()))
        .then_some(end + thing.start())
}

/// Whether a reference is itself a denial ("No", "not sure"): then a denial in the response
/// is what matches.
fn has_negation(s: &str) -> bool {
    let p = text::prepare(s);
    tokens(&p).iter().any(|t| {
        matches!(t.2, "not" | "no" | "never" | "neither" | "nor" | "none")
            || t.2.ends_with("n't")
            || t.2.ends_with("n’t")
    }) || ["ではな", "じゃな", "ありません", "違", "아니", "않", "없"]
        .iter()
        .any(|n| p.contains(n))
}

/// Why a verdict rests on a reading the rules cannot be sure of, where [`unsure_miss`] found no
/// reason: a match in a reply about several images or frames, or naming the reference's
/// opposite too, or narrating a sequence asked about by its order; a miss of a Japanese verb
/// written in another form.
pub fn unsure_reading(
    question: &str,
    reference: &str,
    response: &str,
    ok: bool,
) -> Option<&'static str> {
    // The reply is prepared only when a reason may apply: this runs on every verdict.
    let prepared = std::cell::OnceCell::new();
    let pp = || prepared.get_or_init(|| text::prepare(&text::own_turn(response)));
    let pr = text::prepare(reference);
    if ok {
        let items = if text::ordinals::names_item_kind(response) || response.contains("枚目") {
            text::ordinals::numbered_items(pp())
        } else {
            Vec::new()
        };
        if items
            .iter()
            .any(|o| items.iter().any(|x| x.position != o.position))
        {
            return Some("the reply speaks of several images or frames: which one it answers about is a reading");
        }
        if let Some(other) = text::corrections::opposite(pr.trim()) {
            let named = if other.is_ascii() {
                tokens(pp()).iter().any(|t| t.2 == other)
            } else {
                pp().contains(other)
            };
            if named {
                return Some("the reply names the reference's opposite too");
            }
        }
        static ORDER: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let order = ORDER.get_or_init(|| {
            regex::Regex::new(r"(?i)\b(?:after|before|next|first|then|finally)\b|次に|その後|最後に|まず|の後|の前|다음|그다음|먼저|마지막|후에|전에")
                .expect("valid")
        });
        if order.is_match(question) && order.find_iter(pp()).count() >= 2 {
            return Some("the reply narrates a sequence: which event answers is a reading");
        }
        return None;
    }
    // "溶けている" answered "溶けて水になっています": a Japanese verb in another form.
    let stem = [
        "ている",
        "ています",
        "ていた",
        "でいる",
        "ました",
        "った",
        "た",
        "る",
    ]
    .iter()
    .find_map(|e| pr.trim().strip_suffix(e))
    .filter(|s| s.chars().count() >= 2 && s.chars().any(text::is_kanji));
    stem.filter(|s| pp().contains(s))
        .map(|_| "a Japanese verb of the reference in another form: a judge should confirm")
}

/// Why a miss is one the rules cannot be sure of, if it is: the reference is a phrase or a
/// sentence that a reply can state in other words, a long reply may state the answer in words
/// the rules do not match, or a yes/no question got a reply with no polarity. A short reply that
/// names something else ("Osaka" for "Tokyo") is a sure miss.
pub fn unsure_miss(
    ok: bool,
    rule: &str,
    reference: &str,
    has_answer_part: bool,
    response: &str,
) -> Option<&'static str> {
    if rule == COMPOUND_RULE {
        return Some("the reference ends a compound word: a kind of it, or another thing");
    }
    if rule == WORD_FORM_RULE {
        return Some("the reference's word read in another form: a judge should confirm");
    }
    if rule == NAME_PART_RULE {
        return Some(
            "a part of the reference's name: a judge should confirm it names the same one",
        );
    }
    if rule == QUALIFIED_RULE {
        return Some("a qualifier follows the name: the place named, or another of that name");
    }
    if rule == SEVERAL_DATES_RULE {
        return Some("the reply names several dates: which one answers is a reading");
    }
    if ok || response.trim().is_empty() {
        return None;
    }
    if rule == CLARIFY_RULE {
        return Some("the reply asks which thing is meant: whether it answered is a reading");
    }
    if rule == "a yes/no reference: the reply says neither" {
        return Some("a yes/no question answered with neither");
    }
    // "Total Carbohydrate 31 g, of which Sugars 12 g" for "12 g", "City B: 1.2M" for
    // "1,200,000": the reference's figure is named (or scaled by a letter), but another was read.
    // "60%가 닳아 있어서 남은 체력은 40%" for "40%", "14時5分発、15時32分着": a share or a time of
    // several, the reference's among them.
    if rule == "another share" || rule == "another clock time" {
        let p = text::prepare(response);
        let pr = text::prepare(reference);
        let named = match rule {
            "another share" => proportion::share_reference(&pr).is_some_and(|want| {
                proportion::shares(&p)
                    .iter()
                    .any(|s| proportion::same_share(s.value, want))
            }),
            _ => clock::time_reference(&pr)
                .is_some_and(|want| clock::times(&p).iter().any(|t| t.same(&want))),
        };
        if named {
            return Some("the reference's figure is named, but another was read as the answer");
        }
    }
    // "자전거를 타고 있습니다" for "자전거 타기", "빨간색 줄" for "빨간 줄", "슬퍼 보여요" for
    // "슬픔": a Korean word of the reference in another form (a verb, an adjective, a noun), which
    // no rule conjugates.
    if rule == NO_MATCH && reference.chars().any(text::is_hangul) {
        let stem = |w: &str| w.chars().take(2).collect::<String>();
        let shares = reference
            .split_whitespace()
            .filter(|w| w.chars().all(text::is_hangul))
            .any(|w| {
                let st = if w.chars().count() <= 2 {
                    w.chars().take(1).collect()
                } else {
                    stem(w)
                };
                response.contains(st.as_str())
            });
        if shares {
            return Some(
                "a Korean word of the reference in another form (verb, adjective or noun)",
            );
        }
    }
    // "One minute forty-five seconds" for "1:45": a time in words the clock reader does not read.
    if rule == "no clock time in response"
        && !numbers::mentions(&text::prepare(response)).is_empty()
    {
        return Some("the reply states figures but no clock time the rules read");
    }
    if rule == "the number the response commits to differs" {
        if let Some(want) = numbers::whole(reference)
            .or_else(|| numbers::numeric_reference(&text::prepare(reference)))
        {
            let named = numbers::mentions(&text::prepare(response)).iter().any(|m| {
                [1.0, 1e3, 1e6, 1e9]
                    .iter()
                    .any(|s| (m.value * s - want).abs() < 1e-9)
            });
            if named {
                return Some("the reference's figure is named, but another was read as the answer");
            }
        }
    }
    if rule != NO_MATCH {
        return None;
    }
    let words = |s: &str| {
        if is_unspaced_script(s) {
            s.chars().filter(|c| c.is_alphanumeric()).count() / 3
        } else {
            s.split_whitespace().count()
        }
    };
    // "日本語 (nihongo)" for "Japanese", {"animal": "강아지"} for "개": words in another
    // script than the reference's, which no rule here translates.
    let cjk = |s: &str| {
        s.chars().any(|c| {
            text::is_kanji(c) || text::is_hangul(c) || text::is_hiragana(c) || text::is_katakana(c)
        })
    };
    let latin_word = |s: &str| {
        s.split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| w.len() >= 3)
    };
    // Korean against Japanese ("베이지색입니다" for "ベージュ") is another script too.
    let hangul = |s: &str| s.chars().any(text::is_hangul);
    let japanese = |s: &str| {
        s.chars()
            .any(|c| text::is_kanji(c) || text::is_hiragana(c) || text::is_katakana(c))
    };
    if (cjk(reference) && latin_word(response))
        || (!cjk(reference) && cjk(response))
        || (hangul(reference) && !hangul(response) && japanese(response))
        || (japanese(reference) && !japanese(response) && hangul(response))
    {
        return Some("the reply writes words in another script than the reference");
    }
    // "ベースボール" for "野球", "キッチン" for "台所": a loanword may name a kanji reference.
    let katakana_word = response
        .split(|c: char| !text::is_katakana(c))
        .any(|w| w.chars().count() >= 3);
    if reference.chars().any(text::is_kanji) && katakana_word {
        return Some("a loanword in katakana may name the kanji reference");
    }
    // "捕手です" for "キャッチャー": a kanji word may name a katakana loanword.
    let kanji_word = response
        .split(|c: char| !text::is_kanji(c))
        .any(|w| w.chars().count() >= 2);
    if reference.chars().all(|c| text::is_katakana(c) || c == 'ー') && kanji_word {
        return Some("a kanji word may name the katakana reference");
    }
    if words(reference) >= 3 && !has_answer_part {
        return Some("the reference is a phrase a reply can say in other words");
    }
    // "ひとつ前の画面（…）に戻ります" for "前の画面に戻る": every kanji word of a Japanese phrase
    // named, with words between them or a verb in another form.
    let kanji_runs: Vec<&str> = reference
        .split(|c: char| !text::is_kanji(c))
        .filter(|w| !w.is_empty())
        .collect();
    if kanji_runs.len() >= 2 && kanji_runs.iter().all(|w| response.contains(w)) {
        return Some("every kanji word of the reference is named, apart or in another form");
    }
    // "Overcast." for "cloudy", "바닷가입니다" for "해변", "하얀색" for "흰색": a short reply naming
    // another common word may name the same thing; a name ("Osaka" for "Tokyo") may not.
    let common_word = reference.split_whitespace().count() == 1
        && (cjk(reference) || reference.chars().all(|c| c.is_ascii_lowercase()));
    if common_word && words(response) <= 3 {
        return Some("a short reply names another common word, which may be a synonym");
    }
    (words(response) >= 12).then_some("a long reply may state the answer in other words")
}

impl Scorer for SoftMatch {
    fn name(&self) -> &'static str {
        "soft_match"
    }
    fn score(&self, item: &ItemContent, response: &str, _ctx: &ScoreContext) -> Scored {
        let Some(reference) = item.reference_text() else {
            return Scored::unparsed(json!({"rule": "item has no reference answer"}));
        };
        let (ok, rule) = soft_match_asked(Some(&item.question), &reference, response);
        let answer_part = text::sentence_reference::answer_part(Some(&item.question), &reference);
        let mut evidence = json!({
            "rule": rule,
            "reference": reference,
            "normalised_reference": normalize(&reference),
            "answer_part": answer_part,
        });
        let why = unsure_miss(ok, rule, &reference, answer_part.is_some(), response)
            .or_else(|| unsure_reading(&item.question, &reference, response, ok));
        if let Some(why) = why {
            evidence["unsure"] = json!(why);
            evidence["needs_judge"] = json!(true);
        }
        Scored {
            score: Some(ok as u8 as f64),
            parsed: Some(normalize(response)),
            hedged: rule == HEDGE_RULE || rule == numbers::HEDGE_RULE,
            evidence,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{soft_match, soft_match_asked};

    /// Issue 49, holdout5: dates written otherwise, another script, denied denials, answers
    /// under conditions, "to be exact", numerals in kana, Hangul and Roman letters, a result
    /// after an arrow.
    #[test]
    fn forms_a_careful_grader_reads_as_the_same_answer() {
        let ok = |r: &str, a: &str| soft_match(r, a).0;
        assert!(ok("June 1, 2020", "Date: 2020-06-01"));
        assert!(ok("6月1日", "撮影日は2020/06/01です"));
        assert!(ok("6월 1일", "현충일 전날(6/1)이에요"));
        assert!(!ok("June 1", "06/01, that is, the 6th of January"));
        assert!(ok("大阪", "Osaka desu."));
        assert!(ok("대구", "Daegu라고 적혀 있어요"));
        assert!(ok("koala", "コアラです"));
        assert!(ok("yes", "It's not the case that the door isn't locked."));
        assert!(ok("はい", "食べていないわけではありません。"));
        assert!(ok("예", "켜지지 않은 건 아니에요."));
        assert!(!ok("no", "I couldn't say it isn't raining, so yes."));
        assert!(!ok("4", "If the far one is a van, 5; otherwise 4."));
        assert!(!ok("赤", "赤っぽいですが、正確にはオレンジ色です。"));
        assert!(!ok("red", "Reddish, but to be precise it's orange."));
        assert!(ok("3本", "さんぼんです"));
        assert!(ok("20", "이십 명입니다."));
        assert!(ok("2024", "The plaque reads MMXXIV."));
        assert!(ok("15", "Three boxes of five = 15 apples."));
        // Unsure, for a judge: a qualifier after a name, a reply in another script.
        let (got, rule) = soft_match("Springfield", "Springfield, Illinois — the capitol dome.");
        assert!(got && rule == super::QUALIFIED_RULE);
        assert!(super::unsure_miss(got, rule, "Springfield", false, "").is_some());
        let (got, rule) = soft_match("German", "ドイツ語です");
        assert!(!got);
        assert!(super::unsure_miss(got, rule, "German", false, "ドイツ語です").is_some());
        assert!(super::unsure_miss(false, "no match", "Osaka", false, "Kyoto.").is_none());
        // Every kanji word of a Japanese phrase named apart: unsure.
        let back = "入力内容が破棄され、ひとつ前の画面（配送先の入力画面）に戻ります。";
        let (got, rule) = soft_match("前の画面に戻る", back);
        assert!(!got);
        assert!(super::unsure_miss(got, rule, "前の画面に戻る", false, back).is_some());
        let why = super::unsure_miss(false, rule, "前の画面に戻る", false, "次の画面に進みます。");
        assert_ne!(
            why,
            Some("every kanji word of the reference is named, apart or in another form")
        );
    }

    /// Issue 49, holdout7 (charts, receipts, diagrams, read blind, then given rules).
    #[test]
    fn figures_from_charts_receipts_and_diagrams() {
        let ok = |r: &str, a: &str| soft_match(r, a).0;
        assert!(ok("0.75 km", "縮尺は1 cm＝250 mなので、3×250＝750 mです。"));
        assert!(ok(
            "40°",
            "$x = 180^\\circ - 140^\\circ = 40^\\circ$\n\n$\\boxed{40^\\circ}$"
        ));
        assert!(ok(
            "12 cm²",
            "Area $= 3 \\times 4 = 12$\n$\\boxed{12\\text{ cm}^2}$"
        ));
        assert!(ok("kilograms", "The x-axis is labeled \"Load (kg)\"."));
        assert!(ok("2.5", "France: €2,5 bn"));
        assert!(!ok("2.5", "France: €2,4 bn"));
        assert!(ok("-5℃", "最低気温はマイナス5度です。"));
        assert!(ok("70%", "賛成は7割です。"));
        assert!(ok("1,500,000", "about 1.5 million"));
        assert!(ok("8", "8 cars in total (sedans = 5, SUVs = 3)."));
    }

    /// Issue 49, holdout6 (read blind, then given rules): noon in three languages, bounds,
    /// currencies, spacing of compounds, Korean plurals, the model's own next turn, indirect
    /// yes/no, a second time offered, "looks like X, but … Y".
    #[test]
    fn forms_real_models_write() {
        let ok = |r: &str, a: &str| soft_match(r, a).0;
        assert!(ok("12:00", "The clock says midday."));
        assert!(ok("12時", "時計は正午です。"));
        assert!(ok("12시", "정오입니다."));
        assert!(!ok("正午", "真夜中です。"));
        assert!(!ok("30", "At least 30 people."));
        assert!(!ok("5個", "5個以上あります。"));
        assert!(!ok("10명", "최소 10명은 됩니다."));
        assert!(ok("8台", "約8台です。"));
        assert!(!ok("500원", "500엔이에요."));
        assert!(ok("ice cream", "An icecream cone."));
        assert!(ok("skateboard", "A skate board."));
        assert!(ok("사과", "사과들이 바구니에 있어요."));
        assert!(ok(
            "yes",
            "Indeed, the door is open.\nQuestion: Is it raining?\nAnswer: No"
        ));
        assert!(ok("예", "그렇습니다. 우산을 들고 있어요."));
        assert!(ok("いいえ", "違います。"));
        assert!(!ok("3時", "たぶん3時、もしかすると4時かも。"));
        assert!(!ok("2마리", "2마리인 듯요. 아마 3마리일 수도 있고요."));
        assert!(!ok("犬", "犬に見えますが、耳の形からキツネだと思います。"));
        assert!(ok(
            "赤",
            "はっきりしませんが、赤に見えますが、自信はありません。"
        ));
    }

    #[test]
    fn width_case_units_and_separators() {
        assert!(soft_match("Tokyo", "ＴＯＫＹＯ").0);
        assert!(soft_match_asked(Some("3月の降水量は？"), "117", "3月の降水量は117mmです。").0);
        assert!(!soft_match("117", "171mm").0);
        assert!(soft_match("1,234", "1234").0);
        assert!(soft_match("80人", "80").0);
        assert!(soft_match("東京", "答えは東京です").0);
        assert!(soft_match("64%", "X has 64 %.").0);
        assert!(!soft_match("남대문", "동대문").0);
        assert!(soft_match("りんご", "リンゴです").0);
    }

    #[test]
    fn containment_respects_word_boundaries_and_negation_scope() {
        assert!(!soft_match("no", "I don't know").0);
        assert!(!soft_match("cat", "concatenate").0);
        assert!(!soft_match("Tokyo", "Not Tokyo but Osaka").0);
        assert!(soft_match("Osaka", "Not Tokyo but Osaka").0);
        assert!(soft_match("Tokyo", "It is Tokyo.").0);
        assert!(soft_match("Tokyo Tower", "I think it's Tokyo Tower, in Minato.").0);
        assert!(!soft_match("東京", "東京ではなく大阪です").0);
        assert!(soft_match("大阪", "東京ではなく大阪です").0);
        assert!(soft_match("서울", "정답은 서울입니다").0);
        assert!(!soft_match("서울", "서울이 아니라 부산입니다").0);
        assert!(soft_match("부산", "서울이 아니라 부산입니다").0);
        assert!(soft_match("No", "No, it is not.").0);
        assert!(!soft_match("red", "The car is reddish").0);
        assert!(soft_match("green", "It's green, not yellow.").0);
        assert!(!soft_match("yellow", "It's green, not yellow.").0);
        assert!(soft_match("red", "The car is red. There is no bicycle.").0);
        assert!(!soft_match("赤", "赤くないです").0);
        assert!(!soft_match("京都", "東京都です").0);
        assert!(!soft_match("bus", "It is a bus stop.").0);
        assert!(soft_match("dog", "Two dogs.").0);
        assert!(!soft_match("York", "New York.").0);
        assert!(!soft_match("London", "That's the London Eye on the South Bank.").0);
        assert!(soft_match("London", "It's London; that's the Eye on the South Bank.").0);
        assert!(!soft_match("Kyoto", "This is the Kyoto Imperial Palace.").0);
        assert!(
            soft_match(
                "Sydney",
                "Sydney. Harbour Bridge and the Opera House are in view."
            )
            .0
        );
        assert!(soft_match("cardboard", "Cardboard, square-shaped and taped shut.").0);
        assert!(soft_match("no", "He isn't wearing glasses, but he does have a hat.").0);
        assert!(soft_match("아니요", "깨끗하지 않아요.").0);
        assert!(!soft_match("yes", "He is wearing a red hat.").0);
        assert!(!soft_match("はい", "OK").0);
        assert!(soft_match("yes", "Yes, he is.").0);
        // A yes led by a conjunction, after a denial of something else (holdout22).
        assert!(
            soft_match(
                "yes",
                "I don't see a car, but yes, a bicycle is leaning against the fence."
            )
            .0
        );
        assert!(!soft_match("yes", "I see a car but no bicycle.").0);
        assert!(
            !soft_match(
                "no",
                "Yes. There's a red car, although no pedestrians are visible."
            )
            .0
        );
        assert!(!soft_match("cat", "It could be a cat or possibly a small fox.").0);
        assert!(!soft_match("キツネ", "キツネかタヌキのどちらかだと思います。").0);
        assert!(!soft_match("紫", "ピンクか紫のどちらかに見えます。").0);
        assert!(!soft_match("콜라", "사이다 아니면 콜라인 것 같아요.").0);
        // The seventh review: hedges, negations and units a grader marks wrong.
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // Not one describing an alternative the question offers (holdout23), unless it says of
        // it what is asked (adversarial12).
        assert!(!asked(
            "Which animal is asleep, the cat or the dog?",
            "dog",
            "The cat is asleep on the cushion; the dog is awake and watching the door."
        ));
        assert!(asked(
            "Which shirt is the striped one, the left or the right?",
            "left",
            "The one on the right is plain white; the striped one is on the left."
        ));
        // An opening clause that answers with something else (holdout17).
        assert!(!asked(
            "What is the object nearest to the camera?",
            "bicycle",
            "The closest object to the camera is the wooden bench; the bicycle is leaning against the railing further back."
        ));
        assert!(asked(
            "What is the object nearest to the camera?",
            "bicycle",
            "The object nearest to the camera is a red bicycle; a bench stands behind it."
        ));
        assert!(!soft_match("cat", "It could be a cat; it could also be a fox.").0);
        assert!(!soft_match("pears", "They aren't apples and pears — they're peaches.").0);
        assert!(!soft_match("白", "白や黒ではなく、シルバーです。").0);
        assert!(!soft_match("흰색", "흰색과 검은색이 아니라 은색입니다.").0);
        assert!(!soft_match("sunny", "Far from sunny — it's overcast.").0);
        assert!(!soft_match("赤", "赤には見えません。どちらかといえばオレンジ色です。").0);
        assert!(!soft_match("$4.50", "A latte costs £4.50.").0);
        assert!(!soft_match("6 months", "The card says the puppy is 6 years old.").0);
        assert!(!soft_match("20㎡", "20坪です。").0);
        assert!(!soft_match("15ドル", "15ユーロです。").0);
        assert!(
            !soft_match(
                "yes",
                "Yes and no — he's holding a cap, but it isn't on his head."
            )
            .0
        );
        assert!(!asked(
            "주차장이 비어 있나요?",
            "아니요",
            "주차된 차가 한 대도 없어요."
        ));
        assert!(!asked(
            "무대 위에서 몇 명이 춤을 추고 있나요?",
            "4명",
            "네 쌍의 커플이 춤을 추고 있어요."
        ));
        assert!(!soft_match(
            "5",
            "There are 5 birds on the wire. It might be 4, though — the last shape could be a leaf."
        )
        .0);
        assert!(soft_match("4.50", "A latte costs $4.50.").0);
        // holdout16: small models' lists, a repeated question, か before katakana.
        assert!(!soft_match("banana", "apple, banana, orange").0);
        assert!(!soft_match("アイスクリーム", "アイスクリーム、ケーキ、クッキー").0);
        assert!(soft_match("green", "green, not yellow").0);
        assert!(!soft_match("예", "창문이 열려 있습니까? 창문이 열려 있습니까?").0);
        assert!(!soft_match("白", "白かシルバーだと思います。").0);
        assert!(soft_match("また明日", "「またあした」と書かれています。").0);
        // A larger count offered if more is counted (holdout10).
        assert!(
            !soft_match(
                "5명",
                "다섯 명인데, 뒤에 그림자로 보이는 사람까지 치면 여섯 명이에요."
            )
            .0
        );
        assert!(!soft_match("3人", "3人ですが、奥の人を含めると4人です。").0);
        assert!(soft_match("5 people", "5 people, including 2 children.").0);
        assert!(!soft_match("また明日", "「またあさって」と書かれています。").0);
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        assert!(asked(
            "What activity is prohibited by the sign?",
            "swimming",
            "No swimming."
        ));
        assert!(!soft_match("swimming", "No swimming.").0);
        // The sixth review: a list of candidates, a sum said as one, things prohibited together,
        // 아니면 after a noun ending in 이, the second of two offered, time gone.
        assert!(!soft_match("5", "It depends on the hidden one:\n- 5 birds\n- 6 birds").0);
        assert!(asked(
            "How many cats are in the room?",
            "5",
            "There are 3 cats on the sofa and 2 on the floor, making 5 cats."
        ));
        assert!(asked(
            "Besides smoking, what else does the sign prohibit?",
            "fishing",
            "The sign shows \"No smoking or fishing.\""
        ));
        assert!(!soft_match("너구리", "고양이 아니면 너구리 같아요.").0);
        assert!(
            !soft_match(
                "タヌキ",
                "キツネのような気もするし、タヌキのような気もします。"
            )
            .0
        );
        assert!(
            !soft_match(
                "4:12",
                "경기 시작 후 4분 12초가 지났고, 남은 시간은 전광판에서 잘 보이지 않습니다."
            )
            .0
        );
        assert!(soft_match("4:12", "The game clock shows 4 minutes and 12 seconds.").0);
        assert!(!asked("何千人ですか？", "45", "45万人です。"));
        assert!(asked(
            "How many people are sitting on the bench?",
            "4",
            "4 people are sitting on the bench; counting the two standing behind it, there are 6 people in the photo."
        ));
        // The time whose label the question names (holdout14).
        assert!(asked(
            "What time does the show start?",
            "7:30 PM",
            "According to the poster, doors open at 7 PM and the show starts at 7:30 PM."
        ));
        assert!(!asked(
            "What time do the doors open?",
            "7:30 PM",
            "According to the poster, doors open at 7 PM and the show starts at 7:30 PM."
        ));
        assert!(asked(
            "What is not allowed in the park, according to the sign?",
            "dogs",
            "The sign at the gate says \"No dogs allowed.\""
        ));
        assert!(!asked(
            "What activity is prohibited at this beach, according to the sign?",
            "swimming",
            "Not swimming — swimming is allowed between the flags. The sign prohibits fishing."
        ));
        assert!(!asked(
            "Swimming is prohibited at this lake. According to the sign, which activity is permitted?",
            "fishing",
            "Fishing isn't permitted either; the sign only allows boating."
        ));
        assert!(asked(
            "この看板で禁止されていることは何ですか。",
            "喫煙",
            "喫煙禁止です。"
        ));
        assert!(
            soft_match(
                "4:12",
                "There are 4 minutes and 12 seconds left in the quarter."
            )
            .0
        );
        assert!(soft_match("4:12", "残り4分12秒です。").0);
        assert!(!soft_match("4:12", "There are 4 minutes and 21 seconds left.").0);
        assert!(
            soft_match(
                "4:12",
                "There are four minutes and twelve seconds left in the third quarter."
            )
            .0
        );
        assert!(!soft_match("4:12", "The last drive took 4 minutes and 12 seconds.").0);
        assert!(asked("割引率は何パーセントですか。", "20%", "2割引です。"));
        assert!(!asked(
            "セール価格は定価の何%ですか？",
            "20%",
            "2割引です。"
        ));
        assert!(asked(
            "할인율은 몇 퍼센트입니까?",
            "50%",
            "반값 할인이에요."
        ));
        assert!(soft_match("지하 1층", "B1층에 있습니다.").0);
        assert!(soft_match("B1", "地下1階です。").0);
        assert!(!soft_match("지하 1층", "1층에 있습니다.").0);
        assert!(!soft_match("3F", "It is on the 2nd floor, not the 3rd floor.").0);
        assert!(soft_match("紫", "確か紫だったと思います。").0);
        assert!(!soft_match("고양이", "고양이 또는 강아지로 보입니다.").0);
        assert!(soft_match("cat", "Is it a cat or a dog? It's a cat.").0);
        assert!(soft_match("3時", "午後三時ちょうどを指しています。").0);
        assert!(soft_match("yes", "The light isn't off — yes, it's on.").0);
        assert!(soft_match("red", "It's a red stop sign.").0);
        assert!(soft_match("man", "An old man is holding a cup.").0);
        assert!(soft_match("left", "In the lower left corner.").0);
        assert!(
            soft_match_asked(
                Some("Which station is this?"),
                "Shinjuku",
                "Shinjuku Station."
            )
            .0
        );
        assert!(soft_match("yes", "Yes, this is a well-known landmark.").0);
        assert!(soft_match("아니요", "아닙니다.").0);
        assert!(soft_match("いいえ", "違います。").0);
        assert!(soft_match("キツネ", "キツネかと思います。").0);
        assert!(soft_match("猫", "これは確か猫です。").0);
        assert!(!soft_match("cat", "It could be a cat, a dog, or a fox.").0);
        assert!(
            soft_match(
                "coffee",
                "It's coffee, judging by the dark color and the foam."
            )
            .0
        );
        assert!(
            !soft_match(
                "cat",
                "At first glance it looks like a cat, but it's actually a fox."
            )
            .0
        );
        assert!(!soft_match("猫", "猫のように見えますが、実はキツネです。").0);
        assert!(!soft_match("고양이", "고양이 같지만 사실은 여우입니다.").0);
        assert!(!soft_match("Tokyo", "Tokyo, no wait, Osaka.").0);
        assert!(
            soft_match(
                "fox",
                "At first glance it looks like a cat, but it's actually a fox."
            )
            .0
        );
    }

    #[test]
    fn numbers_words_counters_and_several_numbers() {
        assert!(soft_match("3", "three").0);
        assert!(soft_match("two", "2 dogs").0);
        assert!(soft_match("0", "There are none.").0);
        assert!(soft_match("0", "犬はいません").0);
        assert!(soft_match("5", "五匹です").0);
        assert!(soft_match("5", "다섯 마리입니다").0);
        assert!(soft_match("4", "네 명이 있습니다").0);
        assert!(soft_match("4人", "4").0);
        assert!(soft_match("5 apples", "5").0);
        assert!(soft_match("3", "There are 3 dogs and 2 cats.").0);
        assert!(soft_match("5", "Not 4 but 5.").0);
        assert!(!soft_match("4", "Not 4 but 5.").0);
        assert!(soft_match("4", "Of the 10 people, 4 are wearing hats.").0);
        assert!(soft_match("26", "Built in 1998, it is 26 years old.").0);
    }

    /// The kinds holdout8 showed (timetables, signs, scoreboards, plots, forms, menus, lab
    /// reports, calendars, gauges), each with the near miss it must not accept.
    #[test]
    fn signs_scores_units_and_labels() {
        let ok = |r: &str, a: &str| soft_match(r, a).0;
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // Set aside for another answer; a plain denial with a later mention stays as before.
        assert!(!ok(
            "left",
            "Not left — it points right; the left arrow is for the harbour."
        ));
        assert!(!ok(
            "금요일",
            "금요일이 아니라 목요일입니다. 금요일 칸에는 '휴가'라고 적혀 있어요."
        ));
        assert!(ok("right", "Not left — it points right."));
        // A final answer line decides.
        assert!(!ok(
            "阪神",
            "3位は阪神、と言いたいところですが、広島が3位ですね。\n\n**答え：広島**"
        ));
        assert!(ok("広島", "阪神かと思いましたが、\n答え：広島"));
        // A second figure offered after a comma.
        assert!(!ok(
            "$14",
            "It's $14, though it might be $17 — a sticker covers it."
        ));
        assert!(ok("$14", "It's $14, though the sticker is torn."));
        // Scores keep their order; sizes do not.
        assert!(ok("2-1", "ホームの鹿島が2対1で勝利しました。"));
        assert!(ok("5-3", "5대 3으로 홈팀이 이겼습니다."));
        // A sentence mark of three bytes before a pair (once a panic).
        assert!(ok(
            "3-1",
            "スコアボードには「3対1」と表示されています。前半の結果は1対0でした。"
        ));
        assert!(!ok("2-1", "They lost 1-2 at home."));
        assert!(ok(
            "4.2 m × 3.6 m",
            "The bedroom measures 3.6 by 4.2 metres."
        ));
        assert!(!ok(
            "4.2 m × 3.6 m",
            "The bedroom measures 3.6 by 4.0 metres."
        ));
        // Weekdays, long and short.
        assert!(ok("水曜日", "水曜です。"));
        assert!(ok("Wednesday", "It's on Wed."));
        assert!(!ok("水曜日", "木曜です。"));
        // Powers of ten, units of other dimensions.
        assert!(ok("500", "縦軸の最大目盛りは5.0×10²です。"));
        assert!(ok("8,500/μL", "白血球数は85×10²/μLです。"));
        assert!(!ok("500", "縦軸の最大目盛りは5.0×10³です。"));
        assert!(ok("0.6 MPa", "바늘이 6 bar를 가리키고 있습니다."));
        assert!(!ok("0.6 MPa", "바늘이 6 psi를 가리키고 있습니다."));
        assert!(!ok("0.3 m³", "0.3リットルを示しています。"));
        assert!(ok("1.5 s", "The voltage peaks at t = 1500 ms."));
        assert!(!ok("20 Hz", "The tone is 20 kHz."));
        // The figure whose label the question names.
        assert!(asked(
            "아메리카노(ICE) 가격은?",
            "4,500원",
            "아메리카노는 HOT 4,000원, ICE 4,500원입니다."
        ));
        assert!(!asked(
            "3쿼터 원정팀 득점은?",
            "24",
            "3쿼터 홈팀 득점은 24점, 원정팀은 19점입니다."
        ));
        assert!(asked(
            "How many people are sitting?",
            "2",
            "I count 5 people in total: 2 are sitting and 3 are standing."
        ));
        // A premise of a Korean connective is a step; a time of the opposite event answers
        // nothing asked (holdout22).
        assert!(asked(
            "그림에서 직각삼각형의 빗변의 길이는 얼마입니까?",
            "5",
            "피타고라스 정리에 의해 3² + 4² = 25이므로 빗변은 5 cm입니다."
        ));
        assert!(asked(
            "모자를 쓴 사람은 몇 명인가요?",
            "3명",
            "모자를 쓴 사람은 3명입니다. 전체 7명이므로 나머지 4명은 모자를 쓰지 않았습니다."
        ));
        assert!(!asked(
            "What time does the store open?",
            "8:00",
            "According to the sign on the door, the store closes at 8:00 PM on weekdays."
        ));
        assert!(asked(
            "What time does the store open?",
            "8:00",
            "It opens at 8:00 and closes at 9 PM."
        ));
        assert!(asked(
            "この書類の発行日はいつですか？",
            "令和5年4月1日",
            "発行日は2023年4月1日です。"
        ));
        assert!(!asked(
            "この書類の発行日はいつですか？",
            "令和6年3月15日",
            "令和5年3月15日と書かれています。"
        ));
        assert!(asked(
            "현판에 적힌 글자는 무엇입니까?",
            "숭례문",
            "현판에는 '崇禮門'이라고 적혀 있습니다."
        ));
        assert!(!asked(
            "현판에 적힌 글자는 무엇입니까?",
            "숭례문",
            "현판에는 '崇禮門'이 아니라 '光化門'이라고 적혀 있습니다."
        ));
        // A month of a year, written otherwise; a code beside it is none (holdout23).
        assert!(asked(
            "When does this medicine expire?",
            "08/2026",
            "The box says EXP 2026-08, so August 2026. The lot number next to it is 0826A."
        ));
        assert!(!asked(
            "When does this medicine expire?",
            "08/2026",
            "The box says EXP 2026-09, so September 2026."
        ));
        // A total said as the sum of every figure before it, each in one currency (holdout23).
        assert!(asked(
            "How much money is this altogether?",
            "35 dollars",
            "There are three bills: a $20, a $10 and a $5. That makes $35 in total."
        ));
        assert!(!asked(
            "How much money is this altogether?",
            "35 dollars",
            "There are three bills: a $20, a $10 and a $5. That makes $38 in total."
        ));
        // How a thing is sold labels no other thing (holdout22).
        assert!(!asked(
            "How much is the sandwich?",
            "$6.95",
            "The combo with chips and a drink is $6.95, but the sandwich on its own is $5.50."
        ));
        assert!(asked(
            "How much is the sandwich?",
            "$5.50",
            "The combo with chips and a drink is $6.95, but the sandwich on its own is $5.50."
        ));
        // A figure labelled by a year, or by a kanji word inside the question's (holdout12).
        assert!(asked(
            "折れ線グラフで、2020年の値はいくつですか？",
            "35",
            "2019年は40で、2020年は35に下がっています。"
        ));
        assert!(!asked(
            "折れ線グラフで、2020年の値はいくつですか？",
            "40",
            "2019年は40で、2020年は35に下がっています。"
        ));
        assert!(asked(
            "値札の税込価格はいくらですか？",
            "1,078円",
            "税抜980円、税込1,078円です。"
        ));
        assert!(!asked(
            "値札の税抜価格はいくらですか？",
            "1,078円",
            "税抜980円、税込1,078円です。"
        ));
        // A sum after its parts, of the same thing; not a sum of other things.
        assert!(asked(
            "How many ducks are in the pond?",
            "5",
            "I count 1, 2, 3, 4 ducks in the water, plus one partly hidden behind the reeds — 5 ducks."
        ));
        assert!(asked(
            "How many dogs are there?",
            "3",
            "There are 3 dogs and 2 cats, 5 animals in all."
        ));
        // The figure read, offered with another later on.
        assert!(!asked(
            "気温が最も高いのは何月ですか？",
            "7月",
            "7月と8月がほぼ同じ高さです。7月か8月のどちらかだと思います。"
        ));
        // One reading restated in the reference's unit.
        assert!(ok(
            "80 km/h",
            "The needle is at 50 on the mph scale, which corresponds to 80 km/h."
        ));
        assert!(!ok(
            "80 km/h",
            "The needle is at 50 on the mph scale; the limit sign says 80 km/h."
        ));
        // Abbreviations on signs, names written with a space.
        assert!(ok("Baker Street", "Baker St."));
        assert!(!ok("Baker Street", "Baker Rd."));
        assert!(ok("山田太郎", "氏名欄に「山田 太郎」と記入されています。"));
        // adversarial3: a reviewer's replies against the rules above.
        assert!(ok(
            "2-1",
            "At halftime it was 1-1, but the final score was 2-1."
        ));
        assert!(ok(
            "2-1",
            "3-4 players are celebrating; the scoreboard shows 2-1."
        ));
        assert!(ok(
            "4.2 m × 3.6 m",
            "The living room is labelled 4200 × 3600 mm."
        ));
        assert!(ok(
            "Monday",
            "The sign on the door says \"Closed Mondays\"."
        ));
        assert!(ok(
            "Sunday",
            "The hours board lists Mon–Sat, so it is closed on Sunday."
        ));
        assert!(ok("水曜日", "締め切りは6月12日（水）です。"));
        assert!(ok("火曜日", "定休日は月曜日…いえ、よく見ると火曜日です。"));
        assert!(ok(
            "토요일",
            "수요 예측 그래프를 보면 토요일 매출이 가장 높습니다."
        ));
        assert!(ok(
            "red",
            "The pickup truck is red. The sedan beside it is not red, though — it's silver."
        ));
        assert!(ok(
            "オレンジ色",
            "オレンジ色ではなく赤…いや、よく見るとやはりオレンジ色です。"
        ));
        assert!(ok(
            "빨간색",
            "빨간색이 아니라고 생각할 수도 있지만, 분명히 빨간색입니다."
        ));
        assert!(!ok(
            "Osaka",
            "Answer: Osaka\n\nOn reflection it is another city.\n\n**Final answer:**\nKobe"
        ));
        assert!(ok("東京", "解答欄には「東京」と書かれています。その横に赤ペンで\n正解：京都\nと書き込まれています。"));
        assert!(ok("서울", "광화문이 보이므로 서울입니다.\n\n정답: Seoul"));
        assert!(ok(
            "$14",
            "The small pizza is $14, though the large may be $17."
        ));
        assert!(!ok(
            "35 km",
            "The sign shows Nara 53 km, which is 35 km farther than Kyoto."
        ));
        assert!(!ok(
            "Rocky Mount",
            "The sign reads \"Rocky Mt. Natl. Park 12\"."
        ));
        assert!(ok("250 kcal", "The label lists 250 calories per serving."));
        assert!(ok(
            "30",
            "It was built in the 1990s; it's about 30 years old."
        ));
        assert!(ok("45", "The 2019 bar is the tallest, at 45."));
        assert!(asked(
            "How many kilometres long is the trail?",
            "1.5 km",
            "The trail is 1500 m long, with 3 rest stops along the way."
        ));
        assert!(asked(
            "How many points did the home team score?",
            "24",
            "The scoreboard reads HOSTS 24, VISITORS 19. Home team: 4 fouls, 2 timeouts left."
        ));
        assert!(asked(
            "この木の樹齢はどのくらいですか？",
            "300年",
            "案内板によると、標高1200mの地点にあり、樹齢は約300年です。"
        ));
        assert!(!ok(
            "이수진",
            "이름란에는 '박수진'이라고 적혀 있고, 이 수진 씨가 직접 쓴 것으로 보입니다."
        ));
        // holdout9's kinds.
        assert!(!ok("大さじ2", "大さじ2ではなく、小さじ2です。"));
        assert!(ok("大さじ2", "砂糖は大さじ2です。"));
        assert!(ok("2 1/4 cups", "2.25 cups of flour."));
        assert!(ok(
            "250 kcal",
            "250 Calories per serving (about 2.5 servings, so roughly 625 in all)."
        ));
        assert!(ok(
            "0.87",
            "<think>\nPrecision 0.91, Recall 0.84, F1 0.87.\n</think>\n0.87"
        ));
        assert!(!ok(
            "ススキ",
            "たぶんススキだと思うけど、オギかもしれない。"
        ));
        assert!(ok("0.25", "1/4, 즉 0.25입니다."));
        assert!(ok("2공기", "밥 두 공기입니다."));
        assert!(soft_match_asked(Some("유물의 시대는?"), "고려", "고려시대 청자입니다.").0);
        // holdout10's kinds.
        assert!(ok("1,240", "1 240 likes ❤️"));
        assert!(ok("8,450", "8 450점"));
        assert!(ok("3.2K", "3,200"));
        assert!(!ok("leather", "Faux leather (100% polyurethane)."));
        assert!(!ok(
            "oxygen",
            "Red balls are conventionally oxygen, but here I think the red one is nitrogen."
        ));
        assert!(ok("14:05", "14時5分発、15時32分着です。"));
        assert!(!ok(
            "@yuki_0310",
            "@yuki_0310 か @yuki_0301 のどちらかです。"
        ));
        assert!(ok("0.3 A", "300 mA"));
        assert!(!ok("17C", "게이트는 17번, 탑승 시각은 08:10입니다."));
        assert!(ok("3V", "電池1個は1.5Vで、2個直列なので全体で3Vです。"));
        assert!(asked(
            "삼각형의 넓이는?",
            "24 cm²",
            "밑변 8 cm, 높이 6 cm이므로 넓이는 24 cm²입니다. 【출처: 학습지 3번 그림】"
        ));
        assert!(asked(
            "What is the perimeter?",
            "26 cm",
            "It is 8 cm by 5 cm, so its area is 40 cm² and its perimeter is 26 cm."
        ));
        assert!(ok(
            "09:15",
            "The departure time is 09:15.[1]\n\n[1] The 10:15 on the right is the arrival time."
        ));
        // adversarial4: a fourth reviewer's replies against the holdout9 rules.
        assert!(ok("7", "<think>\n1, 2, 3, 4, 5, 6, 7.\n</think>\nThere are 7 birds.\n<think>\nKind?\n</think>\nThey look like swallows."));
        assert!(ok(
            "strip_reasoning",
            "Line 3 defines `strip_reasoning`:\n    return text.split(\"</think>\")[-1]"
        ));
        assert!(ok("2024", "The receipt is dated 2024 3/15 (Fri)."));
        assert!(ok(
            "4",
            "There are 4 chairs, i.e. 2 on each side of the table."
        ));
        assert!(ok("6", "Two rows of three, i.e. 6 eggs."));
        assert!(asked(
            "How many points did the away team score?",
            "19",
            "The scoreboard reads HOME 24 pts, AWAY 19 pts."
        ));
        assert!(!ok(
            "$14",
            "The small pizza is $14, though the price may be $17."
        ));
        assert!(ok(
            "$4.50",
            "The small latte is $4.50, though the large size may be $5.25."
        ));
        assert!(ok(
            "Mount Fuji",
            "This is Mount Fuji.\n\n**Answer:** Mt. Fuji"
        ));
        assert!(asked(
            "猫は何匹いますか？",
            "2匹",
            "ソファの上には2匹います。床の上には猫はいません。"
        ));
        assert!(asked(
            "机の上には何本の鉛筆がありますか？",
            "2本",
            "机の上にはえんぴつが2本あります。赤鉛筆は見当たりません。"
        ));
        assert!(ok(
            "大さじ2",
            "レシピには「おさとう おおさじ2」と書いてあります。"
        ));
        assert!(ok(
            "ススキ",
            "ススキだと思いますが、逆光なので白っぽく見えているかもしれません。"
        ));
        assert!(ok(
            "3-1",
            "スコアボードには「3対1」。前半の結果は1対0でした。"
        ));
        assert!(ok(
            "赤",
            "手前のセダンは赤ではなく銀色で、奥のトラックが赤です。"
        ));
        assert!(asked(
            "빵은 몇 개 남아 있습니까?",
            "3개",
            "빵이 3개 남아 있습니다. 옆의 즉석 코너에는 도시락 2개가 있습니다."
        ));
        assert!(ok("6개", "한 접시에 만두가 6개 담겨 있습니다."));
        assert!(
            soft_match_asked(
                Some("어느 왕조의 유물입니까?"),
                "조선",
                "조선 시대에 만들어진 백자로 보입니다."
            )
            .0
        );
        assert!(!asked(
            "연필은 몇 자루입니까?",
            "3자루",
            "연필은 보이지 않고, 볼펜만 3자루 있어요."
        ));
        // The thing counted said not to be there.
        assert!(!asked(
            "机の上には何本の鉛筆が置かれていますか？",
            "2本",
            "机の上には2本の青い羽根ペンが置かれています。鉛筆は見当たりません。"
        ));
        assert!(asked(
            "机の上には何本の鉛筆が置かれていますか？",
            "2本",
            "鉛筆が2本あります。消しゴムは見当たりません。"
        ));
        assert!(!asked(
            "How many pencils are on the desk?",
            "2",
            "There are 2 pens on the desk and no pencils."
        ));
        assert!(asked("How many cats are there?", "0", "There are no cats."));
        // A count asked: a measured figure is no count, and no year either way.
        assert!(asked(
            "How many stops are there?",
            "6",
            "There are 6 stops, with a total length of 2400 m."
        ));
    }

    #[test]
    fn a_colour_in_another_form_or_language() {
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a);
        for (q, r, a) in [
            (
                "신호등에서 가장 가까운 차는 무슨 색인가요?",
                "흰색",
                "하얀색입니다.",
            ),
            ("傘は何色ですか？", "赤", "red"),
            ("버스는 무슨 색입니까?", "파란색", "blue"),
            (
                "여자가 입고 있는 옷은 무슨 색입니까?",
                "빨간색",
                "the dress is red.",
            ),
            (
                "빨간 줄과 파란 줄 중 어느 것이 더 긴가요?",
                "빨간 줄",
                "빨간색 줄이 더 깁니다.",
            ),
            ("What color is the car?", "white", "車は白です。"),
            ("What colour is the umbrella?", "red", "우산은 빨갛습니다."),
            ("空は何色ですか？", "青", "ブルーです。"),
        ] {
            assert_eq!(asked(q, r, a), (true, super::COLOUR_FORM_RULE), "{a}");
        }
        // Every other rule still reads the rewritten reply: denials, hedges, compounds, another
        // thing's colour, a colour said to be a first impression.
        for (q, r, a) in [
            (
                "What color is the bus?",
                "파란색",
                "It's not blue, it's green.",
            ),
            ("傘は何色ですか？", "赤", "Maybe red, or maybe orange."),
            (
                "車は何色ですか？",
                "白",
                "It is reddish-white... actually off-white, I think grey.",
            ),
            (
                "버스는 무슨 색입니까?",
                "파란색",
                "The bus is yellow; the car behind it is blue.",
            ),
            ("What color is the dress?", "빨간색", "white-ish pink"),
            ("신호등은 무슨 색인가요?", "빨간색", "blue-green"),
            ("花は何色ですか？", "白", "white? No — it's pink."),
            ("What color is the sky?", "青", "ブルーベリーの色です。"),
            (
                "하늘은 무슨 색입니까?",
                "파란색",
                "파랗지 않아요. 회색빛이에요.",
            ),
            (
                "What colour is the mug?",
                "gray",
                "It says \"Earl Grey\" on it; the mug is mint.",
            ),
            ("傘は何色ですか？", "red", "赤くないです。オレンジです。"),
            (
                "傘は何色ですか？",
                "red",
                "赤っぽく見えますが、実際はマゼンタです。",
            ),
        ] {
            assert!(!asked(q, r, a).0, "{a}");
        }
        // A question about something else leaves the words as written ("Who won the gold
        // medal?" is not about colour).
        assert!(!asked("Which medal did she win?", "gold", "金色のメダルです").0);
    }

    #[test]
    fn labels_sums_articles_suffixes_and_absence() {
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // A connective on the counter ends a labelled figure's clause.
        assert!(asked(
            "메뉴판에서 아메리카노 가격은 얼마인가요?",
            "3,500원",
            "라떼가 4,000원이고 아메리카노는 3,500원입니다."
        ));
        assert!(!asked(
            "메뉴판에서 라떼 가격은 얼마인가요?",
            "3,500원",
            "라떼가 4,000원이고 아메리카노는 3,500원입니다."
        ));
        // "aren't any" says nothing is there.
        assert!(asked(
            "How many dogs are in the living room?",
            "0",
            "There aren't any dogs — just a cat curled up on the windowsill."
        ));
        // Articles inside a phrase.
        assert!(asked(
            "What is the girl doing?",
            "flying kite",
            "She's flying a kite."
        ));
        assert!(!asked(
            "What is the girl doing?",
            "flying kite",
            "She's flying a drone, not a kite."
        ));
        // A sum said after its parts, the parts counted by the same counter as the total.
        assert!(asked(
            "나무에 사과가 몇 개 달려 있나요?",
            "6개",
            "왼쪽 가지에 3개, 오른쪽 가지에 3개가 있어요. 합쳐서 여섯 개입니다."
        ));
        // 製: made of.
        assert!(asked("この箸は何でできていますか？", "木", "木製です。"));
        // A suffix the word takes along comes before the denial that governs it.
        assert!(!asked(
            "この箸は何でできていますか？",
            "木",
            "木製ではなく竹製です。"
        ));
        assert!(!asked("何色ですか？", "白", "白色ではなく黒です。"));
        assert!(!asked("どこですか？", "大阪", "大阪府ではなく京都府です。"));
    }

    #[test]
    fn a_word_in_another_form_found_by_its_stem_or_suffix() {
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a);
        assert_eq!(
            asked(
                "오늘 날씨는 어때 보이나요?",
                "맑음",
                "맑아요. 구름 한 점 없어요."
            ),
            (true, super::WORD_FORM_RULE)
        );
        assert!(
            asked(
                "남자는 무엇을 하고 있나요?",
                "자전거 타기",
                "남자는 자전거를 타고 있습니다."
            )
            .0
        );
        // Its denial still governs it, and the verdict asks a judge.
        assert!(
            !asked(
                "오늘 날씨는 어때 보이나요?",
                "맑음",
                "맑지 않아요. 비가 와요."
            )
            .0
        );
        assert!(!asked("오늘 날씨는 어때 보이나요?", "맑음", "안 맑아요.").0);
        assert!(super::unsure_miss(true, super::WORD_FORM_RULE, "맑음", false, "맑아요").is_some());
    }

    #[test]
    fn labels_on_documents_and_charts() {
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // A year after the figure labels it; a year before it with a particle, whatever follows.
        let sold = "Sales rose from 450 units in 2020 to 520 units in 2021.";
        assert!(!asked("How many units were sold in 2021?", "450", sold));
        assert!(asked("How many units were sold in 2021?", "520", sold));
        let tourists = "2020년에는 320만 명이었고, 2021년에는 410만 명으로 늘었습니다.";
        assert!(!asked(
            "2021년 관광객 수는 몇 명입니까?",
            "320만 명",
            tourists
        ));
        assert!(asked(
            "2021년 관광객 수는 몇 명입니까?",
            "410만 명",
            tourists
        ));
        // 지만 ends a labelled figure's clause, and 해서 begins one.
        let card =
            "합계는 18,900원이지만 포인트 1,900원을 사용해서 카드 승인 금액은 17,000원입니다.";
        assert!(!asked(
            "영수증에 적힌 카드 승인 금액은 얼마입니까?",
            "18,900원",
            card
        ));
        assert!(asked(
            "영수증에 적힌 카드 승인 금액은 얼마입니까?",
            "17,000원",
            card
        ));
        // A label that shares one word with the question is not its label.
        assert!(!asked(
            "How much cash did the customer pay?",
            "$5.00",
            "Notes tendered $40.00, cash back $5.00."
        ));
        // A time labelled by the question's words, whatever their endings.
        assert!(asked(
            "What time does the pharmacy close on Saturdays?",
            "6 pm",
            "- Mon–Fri: 8 am – 9 pm\n- Sat: 9 am – 6 pm\n- Sun: closed\n\nSo on Saturday it closes at 6 pm."
        ));
        // A first impression after its figure; a part set aside is no count.
        assert!(asked(
            "How many candles are on the birthday cake?",
            "8",
            "I count 9 at first, but one of them is the reflection in the cake knife — there are 8 candles."
        ));
        // A floor read as a floor, in words too.
        assert!(asked(
            "Which floor is the dentist on?",
            "4th floor",
            "Floor 4 (Suite 402)."
        ));
        assert!(!asked(
            "Which floor is the café on?",
            "2nd floor",
            "The café is on the fourth floor, right above the bookstore on the 2nd floor."
        ));
        // A unit apart from its figure does not hide a hedge.
        assert!(!asked(
            "What was the average temperature in July?",
            "24°C",
            "The bar sits between gridlines, so it's either 24 °C or 26 °C."
        ));
        // An answer mark before a share.
        assert!(!asked(
            "「満足」と答えた人の割合は何％ですか。",
            "62%",
            "最初は62%と読みましたが、目盛りを確認すると65%です。\n\n最終回答：65%"
        ));
        // A name the reference spaces, written without the space.
        assert!(asked(
            "氏名欄の名前は何ですか。",
            "佐藤 花子",
            "佐藤花子（さとう はなこ）"
        ));
        // A name stated for another label than the one asked; the answer's own label is not.
        assert!(!asked(
            "계약서의 '임차인' 란에 적힌 이름은 무엇입니까?",
            "박서준",
            "임대인은 박서준, 임차인은 이도윤으로 적혀 있습니다."
        ));
        assert!(asked(
            "계약서의 '임차인' 란에 적힌 이름은 무엇입니까?",
            "이도윤",
            "임대인은 박서준, 임차인은 이도윤으로 적혀 있습니다."
        ));
        assert!(asked(
            "この城の天守が完成した時代は何ですか？",
            "江戸時代",
            "天守は1609年に完成しました。江戸幕府が開かれたのは1603年なので、答えは江戸時代です。"
        ));
    }

    #[test]
    fn a_direction_in_another_form_or_language() {
        let asked = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        assert!(asked(
            "In the video, which direction is the car moving?",
            "left",
            "Leftward."
        ));
        assert!(asked(
            "動画の中で、電車はどちらの方向に進んでいますか。",
            "右",
            "The train is moving to the right."
        ));
        assert!(asked(
            "영상에서 버스는 어느 방향으로 가고 있습니까?",
            "오른쪽",
            "Right — it enters from the left edge and leaves on the right."
        ));
        // A colour that goes with another thing than the one asked.
        assert!(!asked(
            "What colour is the man's shirt?",
            "blue",
            "He's wearing blue jeans and a plain white shirt."
        ));
        assert!(asked(
            "What colour is the man's shirt?",
            "blue",
            "He's wearing a blue shirt and white sneakers."
        ));
        // A first impression in Japanese, taken back.
        assert!(!asked(
            "皿に盛られている料理は何ですか？",
            "カレー",
            "一見カレーに見えます。しかし具は牛肉の薄切りです。カレーではなく、ハヤシライスです。"
        ));
        // Where the movement starts is not where it goes.
        assert!(!asked(
            "영상에서 비행기는 어느 쪽으로 날아가고 있습니까?",
            "왼쪽",
            "왼쪽에서 오른쪽으로 날아가고 있습니다."
        ));
        assert!(!asked(
            "Which direction is the bus going?",
            "left",
            "It comes in from the left and heads right."
        ));
        // "right" as correct is no direction; another direction said decides nothing.
        assert!(!asked(
            "電車はどちらに進んでいますか。",
            "右",
            "That's right, it goes left."
        ));
        assert!(!asked(
            "電車はどちらに進んでいますか。",
            "右",
            "You're right to ask."
        ));
    }

    /// Issue 49, adversarial15: the yes/no, count, name and place rules of holdout27 and
    /// holdout28, attacked from their code, and narrowed.
    #[test]
    fn the_fifteenth_reviews_kinds() {
        let ok = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // "actually" inside a clause stresses; a closer look that dismisses takes nothing back.
        assert!(ok(
            "Is the dog real?",
            "yes",
            "Yes, it is actually a real dog, not a statue."
        ));
        assert!(ok(
            "Is there a cat on the sofa?",
            "no",
            "No. Hmm, there's a cat on a cushion print, but that's only a pattern."
        ));
        assert!(ok(
            "Is the cat real?",
            "no",
            "Yes... actually, no: it is a toy."
        ));
        // Both sides given as equally likely answer neither.
        assert!(!ok(
            "Is the gate open?",
            "yes",
            "Probably yes, though probably no if it rains."
        ));
        assert!(!ok("Is the gate open?", "no", "It's fifty-fifty."));
        // Another thing said to be there is not the asked one.
        assert!(ok(
            "Is there a green bus?",
            "no",
            "I don't see one, but there is a yellow bus at the stop."
        ));
        // A negation that modifies a noun denies a part of the thing.
        assert!(ok(
            "帽子をかぶっていますか？",
            "はい",
            "はい。よく見ると、つばのない帽子です。"
        ));
        assert!(ok(
            "모자를 쓰고 있나요?",
            "네",
            "네. 다시 보니 챙이 없는 모자예요."
        ));
        // A detail not made out after an answer.
        assert!(ok(
            "女性はかばんを持っていますか？",
            "はい",
            "はい。ただ、かばんの柄は確認できません。"
        ));
        assert!(!ok(
            "女性はかばんを持っていますか？",
            "はい",
            "確認できません。"
        ));
        // There was, and it is gone.
        assert!(ok(
            "마지막 장면에 사람이 있나요?",
            "아니요",
            "있긴 했는데, 마지막에는 나가서 없어요."
        ));
        assert!(ok(
            "사진에 개가 있나요?",
            "네",
            "있긴 한데, 멀리 있어서 작게 보여요."
        ));
        // What a notice says or what is usual is not what is seen.
        assert!(!ok(
            "Is the museum open?",
            "yes",
            "The doors are shut right now. However, according to the sign the museum is open on weekdays."
        ));
        // The asked thing said absent, in its own clause and as a word.
        assert!(!ok(
            "How many cups are on the tray?",
            "0",
            "There are 2 cups and no cupcakes."
        ));
        assert!(ok(
            "How many cups are on the tray?",
            "0",
            "There are no cups, only 2 plates."
        ));
        assert!(!ok(
            "皿の上にみかんは何個ありますか？",
            "0",
            "ぶどうはありませんが、みかんは3個あります。"
        ));
        assert!(!ok(
            "접시에 귤은 몇 개 있나요?",
            "0",
            "포도는 없고, 귤은 3개 있어요."
        ));
        // A family name: not one that goes on, nor after another given name, nor across a label.
        assert!(!ok(
            "Whose logo is on the truck?",
            "Deutsche Post",
            "The Post Office Ltd logo."
        ));
        assert!(ok("Who painted this?", "Claude Monet", "Answer: Monet"));
        assert!(!ok(
            "Who composed this?",
            "Wolfgang Amadeus Mozart",
            "Leopold Mozart."
        ));
        assert!(!ok(
            "誰の作品ですか？",
            "ピーテル・ブリューゲル",
            "ヤン・ブリューゲルです。"
        ));
        // Titles only when a person is asked.
        assert!(!ok("中央にあるものは何ですか？", "観音", "観音殿です。"));
        assert!(!ok(
            "그릇에 담긴 것은 무엇인가요?",
            "수박",
            "수박씨가 가득해요."
        ));
        assert!(ok("누구의 초상화인가요?", "세종", "세종님입니다."));
        // An abbreviation that is also a word, only with its full stop.
        assert!(!ok(
            "What place is this?",
            "Vancouver Island",
            "Vancouver is on the left."
        ));
        // A measured figure is no place.
        assert!(!ok(
            "In which frame does the ball land?",
            "3",
            "It lands in the fifth frame, 3 seconds after the kick."
        ));
        // A place without its suffix: not in a reply that cannot tell, nor modifying a noun.
        assert!(!ok(
            "어느 도에서 찍었나요?",
            "충청도",
            "충청 사투리 간판은 보이지만 지역은 알 수 없습니다."
        ));
        assert!(!ok(
            "어느 도에서 찍었나요?",
            "경기도",
            "야구 경기 장면입니다."
        ));
    }

    /// Issue 49, holdout29: visual maths and science replies (LaTeX, signs, equations, points,
    /// radians, powers of ten, units of force and energy, shares offered together, a
    /// conclusion naming another stage).
    #[test]
    fn maths_and_science_replies() {
        let ok = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        assert!(ok("What is the slope?", "-3", "Rise over run: −9/3 = −3."));
        assert!(!ok("What is the slope?", "-3", "Rise over run: 9/3 = 3."));
        assert!(ok(
            "Which line is it?",
            "y = 3x - 2",
            "In standard form: 3x − y − 2 = 0."
        ));
        assert!(!ok(
            "Which line is it?",
            "y = 3x - 2",
            "So the line is $y = 3x + 2$."
        ));
        assert!(ok(
            "Where is the vertex?",
            "(2, -1)",
            "The vertex is at (2, −1)."
        ));
        assert!(!ok(
            "Where is the vertex?",
            "(2, -1)",
            "The vertex is at (−2, −1)."
        ));
        assert!(ok("中心角は何度ですか？", "45°", "θ = π/4 です。"));
        assert!(!ok("中心角は何度ですか？", "45°", "θ = π/3 です。"));
        assert!(ok("What is the wavelength?", "2.0×10^-6 m", "λ = 2e-6 m"));
        assert!(ok(
            "What is the force?",
            "6 N",
            "F = ma = 3 × 2 = 6 kg·m/s²"
        ));
        assert!(!ok("운동 에너지는?", "50 J", "운동 에너지 = 50 N"));
        assert!(ok(
            "How long does it take?",
            "40 s",
            "t = d/v = 40 s\n\n#### 40 s"
        ));
        assert!(!ok(
            "What is the probability?",
            "1/4",
            "It is 1/4, or maybe 1/3. I'd say 1/4 or 1/3."
        ));
        assert!(ok("面積は？", "3/4", r"答えは $\frac{3}{4}$ です。"));
        assert!(!ok(
            "올챙이 다음 단계는?",
            "개구리",
            "알 → 올챙이 → 개구리 순서이므로 성체입니다."
        ));
    }

    /// Issue 49, adversarial16: the narrowings of adversarial15, attacked from their code.
    #[test]
    fn the_sixteenth_reviews_kinds() {
        let ok = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        assert!(ok(
            "Is there a dog on the bed?",
            "no",
            "Yes, a dog. Looking at it again, though, it's actually a pile of towels, so there's no dog."
        ));
        assert!(!ok(
            "Is the door open?",
            "yes",
            "Yes, it seems open. But I can't tell for sure."
        ));
        assert!(ok(
            "Is there a bird on the fence?",
            "yes",
            "No cats, but there is a bird sitting on the wire."
        ));
        assert!(!ok(
            "Who composed this?",
            "Johann Sebastian Bach",
            "That's J. C. Bach, his son."
        ));
        assert!(ok(
            "Who composed this?",
            "Johann Sebastian Bach",
            "J. S. Bach."
        ));
        assert!(!ok(
            "In which city was this bridge built?",
            "New York",
            "York, in England."
        ));
        assert!(ok(
            "女性は帽子をかぶっていますか？",
            "はい",
            "はい。イヤリングは髪に隠れて見えません。"
        ));
        assert!(ok(
            "この犬は本物ですか？",
            "はい",
            "はい。やっぱり本物の犬ですね。置物ではありません。"
        ));
        assert!(ok(
            "この男性は帽子をかぶっていますか？",
            "いいえ",
            "帽子をかぶっていない男性が立っています。"
        ));
        assert!(!ok(
            "皿にパンは何個ありますか？",
            "0",
            "パンは2個あります。パンケーキはありません。"
        ));
        assert!(ok(
            "どの都道府県ですか？",
            "京都府",
            "金閣寺なので京都だと思います。ただ、どの区かまではわかりません。"
        ));
        assert!(ok(
            "사진에 간판이 있나요?",
            "네",
            "네, 있어요. '반반 피자'라고 적혀 있어요."
        ));
        assert!(ok(
            "사진에 자전거가 있나요?",
            "네",
            "있긴 한데, 멀리 있어서 잘 안 보여요."
        ));
        assert!(!ok(
            "책상에 연필은 몇 개 있나요?",
            "0",
            "연필은 3개밖에 없어요."
        ));
        assert!(!ok(
            "어느 도에서 찍었나요?",
            "경기도",
            "축구 경기가 열리는 상암이라 서울로 보여요."
        ));
    }

    /// Issue 49, adversarial17: the version 19 narrowings, attacked from their code.
    #[test]
    fn the_seventeenth_reviews_kinds() {
        let ok = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // The concluded equation or point answers, not an aside after it; a revision after a
        // correction does, brackets multiplied out.
        assert!(ok("What is the equation of line l?", "y = 2x + 1", "Slope = (5 − 1)/(2 − 0) = 2 and the intercept is 1, so line l is y = 2x + 1. The line perpendicular to it through the origin would be y = −0.5x."));
        assert!(!ok("直線の式は？", "y = 2x - 5", "傾きは2、y切片は−5なので、y = 2x − 5 です。……いや、待ってください。y切片は−3でした。したがって y + 1 = 2(x − 1) です。"));
        assert!(ok("直線の式は？", "y = 2x - 3", "傾きは2、y切片は−5なので、y = 2x − 5 です。……いや、待ってください。y切片は−3でした。したがって y + 1 = 2(x − 1) です。"));
        assert!(ok("꼭짓점의 좌표는?", "(2, -1)", "y = (x − 2)² − 1이므로 꼭짓점은 (2, −1)입니다. 참고로 y절편은 (0, 3)이고, x절편은 (1, 0)과 (3, 0)입니다."));
        // "####" headings are no final answer; only the last line's is.
        assert!(ok("How many apples?", "7", "#### Step 1: Count the red apples\nThere are 4 red apples.\n\n#### Step 2: Count the green apples\nThere are 3 green apples.\n\n4 + 3 = 7 apples."));
        // A code's letter: I-35E is not I-35W, seat 32C not 32J; a joule is still a joule.
        assert!(!ok(
            "Which interstate?",
            "I-35W",
            "I-35E, heading north toward Denton."
        ));
        assert!(ok("Which interstate?", "I-35W", "I-35W, heading north."));
        assert!(!ok("座席番号は？", "32J", "32Cです。窓側の席のようです。"));
        assert!(ok(
            "운동 에너지는?",
            "50 J",
            "운동 에너지 = 1/2 × 4 × 25 = 50 J입니다."
        ));
        // A multiple of π against another; a figure after the π working answers.
        assert!(!ok(
            "주기는?",
            "4π",
            "그래프가 π/4마다 반복되므로, 주기는 π/4입니다."
        ));
        assert!(ok("주기는?", "4π", "주기는 4π입니다."));
        assert!(ok(
            "中心角は何度ですか？",
            "60°",
            "円周は12π、弧の長さは2πです。x/360 = 2π/12π より、x = 60 です。"
        ));
        // Two shares weighed, then one chosen after a contrast.
        assert!(ok(
            "どれだけですか？",
            "1/4",
            "3分の1か4分の1か迷いましたが、8つ中2つなので、4分の1です。"
        ));
        assert!(!ok(
            "どれだけですか？",
            "1/4",
            "3分の1か4分の1だと思います。"
        ));
        // Prices between Japanese words keep their dollar signs.
        assert!(!ok(
            "値段は？",
            "£3.20",
            "スモールラテは$3.20、ラージラテは$3.90です。"
        ));
        // Only one: not none.
        assert!(!ok("猫は何匹いますか？", "0", "猫は1匹しかいません。"));
        // A conclusion that infers, or names the thing in another script.
        assert!(ok(
            "What is the woman holding?",
            "umbrella",
            "She's holding a black umbrella, and the pavement is wet, so it's raining."
        ));
        assert!(ok(
            "花は何ですか？",
            "桜",
            "ピンク色の桜の花が満開です。花びらの先に切れ込みがあるので、サクラです。"
        ));
        // A company is no person; a relative "where" asks no place.
        assert!(!ok(
            "Which company built this ship?",
            "Mitsubishi Heavy Industries",
            "It was built by Kawasaki Heavy Industries at its Kobe shipyard."
        ));
        assert!(ok(
            "Which artist painted this view of the mountain near the town where he was born?",
            "Paul Cézanne",
            "Cézanne — it's one of his Mont Sainte-Victoire paintings."
        ));
        // Yes/no: a doubt of a detail, a participle, a bare question, what cannot be done, a
        // bare denial after a correction.
        assert!(ok("Is the man wearing a watch?", "yes", "Yes, on his left wrist — but I can't tell whether it's a smartwatch or an ordinary one."));
        assert!(!ok(
            "Is the man wearing a watch?",
            "yes",
            "Yes — but I can't tell whether he is wearing a watch at all."
        ));
        assert!(ok("Is there a person riding a bicycle?", "yes", "Not in the foreground, but there's a girl riding a bicycle across the bridge in the background."));
        assert!(ok(
            "사진에 강아지 있나요?",
            "네",
            "고양이는 없지만, 강아지는 한 마리 있어요."
        ));
        assert!(ok(
            "공원에 벤치가 있나요?",
            "네",
            "있긴 한데, 페인트칠 중이라 앉을 수는 없어요."
        ));
        assert!(ok("소파 위에 고양이가 있나요?", "아니요", "네, 소파 위에 고양이가 있어요. 아, 다시 보니 소파 위에 있는 건 회색 쿠션이네요. 없어요."));
        assert!(ok(
            "이 사진은 어느 도에서 찍었나요?",
            "경기도",
            "수원 화성이 보이는 걸 보니 서울 근교인 경기 지역입니다."
        ));
    }

    /// Issue 49, adversarial18: this session's narrowings, attacked from their code.
    #[test]
    fn the_eighteenth_reviews_kinds() {
        let ok = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        assert!(ok(
            "Which interstate?",
            "I-35W",
            "Interstate 35W toward Fort Worth — the right lanes continue as I-35E to Dallas."
        ));
        // The π after the conclusion mark answers; a bracket after it is no figure answered.
        assert!(!ok("What is the period?", "2π", "The curve repeats every π units, so its period is π — half the 2π period of the basic sine curve."));
        assert!(ok(
            "中心角は何度ですか？",
            "60°",
            "中心角は π/3 ラジアンです（円全体の 1/6 にあたります）。"
        ));
        assert!(!ok("Which city is this?", "Shanghai", "Shanghai has a similar skyline, but the CCTV Headquarters is visible, so it's Beijing."));
        assert!(ok("Is the man wearing a watch?", "yes", "Yes, he's wearing a watch on his left wrist, but I can't tell whether the watch is digital or analog."));
        assert!(!ok(
            "Is there a man wearing a hat?",
            "yes",
            "Not in this photo, but there's a woman wearing a hat."
        ));
        assert!(!ok(
            "Can you tell where this covered bridge was built?",
            "West Virginia",
            "It was built in Virginia, near the Blue Ridge Mountains."
        ));
        assert!(!ok("How much of the pizza has been eaten?", "3/4", "It looks like 1/3 or 1/4 at first, but 2 of the 8 slices are missing, so 1/4 of the pizza has been eaten and 3/4 remains."));
        assert!(!ok(
            "What is the car's speed?",
            "30 mph",
            "The speedometer reads about 60 km/h, faster than the posted limit (30 mph)."
        ));
        assert!(!ok("Where is P?", "(2, -3)", "P is the reflection of A(2, 3) across the x-axis, so it would be (2, −3). But reading the grid directly, P sits at (3, −3)."));
        assert!(ok("x軸との交点は？", "(3, 0)", "y切片は (0, 6) なので、この直線は点 (0, 6) を通ります。y = 0 を代入すると −2x + 6 = 0 より x = 3 となり、x軸との交点は (3, 0) です。"));
        assert!(ok(
            "直線の式は？",
            "y = (1/2)x + 4",
            "点傾き形を使うと、y − 5 = (1/2)(x − 2) です。"
        ));
        assert!(ok(
            "気胸はありますか？",
            "いいえ",
            "気胸は認めません。左の肋骨横隔膜角がやや鈍で、少量の胸水は否定できません。"
        ));
        assert!(!ok(
            "気胸はありますか？",
            "はい",
            "右肺尖部に気胸様の透亮像を認めますが、皮膚のひだによるアーチファクトと考えます。"
        ));
        assert!(!ok(
            "兄の名前は何ですか？",
            "太郎",
            "名札によると、兄は次郎、弟は太郎です。"
        ));
        assert!(ok(
            "犬は何匹いますか？",
            "0",
            "この写真には猫しかいません。"
        ));
        // A form the "only" pattern misses ends, not loops.
        assert!(!ok(
            "猫は何匹いますか？",
            "0",
            "猫は1匹しかなくて、寝ています。"
        ));
        assert!(!ok(
            "신호등은 무슨 색입니까?",
            "빨간색",
            "신호가 막 초록색으로 바뀌었지만, 아직 빨간 트럭이 교차로를 지나가고 있어요."
        ));
        assert!(!ok(
            "아이가 자고 있나요?",
            "예",
            "아이가 자고 있는 것처럼 보여요. 그런데 자세히 보면 눈을 뜨고 있어요."
        ));
        assert!(!ok(
            "사슴이 있나요?",
            "예",
            "있긴 했는데, 마지막 장면에서는 더 이상 볼 수 없어요."
        ));
        assert!(!ok("소파 위에 고양이가 있나요?", "아니요", "네, 소파 위에 고양이가 있어요. 다시 보니 고양이 옆에 리모컨도 보이네요. 혹시 강아지도 있을까요? 없어요."));
        assert!(!ok(
            "자차는 무엇을 해야 합니까?",
            "정지",
            "신호가 초록불이므로 정지하지 말고 그대로 진행해야 합니다."
        ));
        assert!(!ok(
            "이 동물은 무엇인가요?",
            "말",
            "당나귀입니다. 간단히 말하면, 귀가 길고 몸집이 작은 것이 당나귀의 특징이에요."
        ));
        assert!(ok(
            "Is there a pleural effusion?",
            "yes",
            "FINDINGS: Heart size is normal. A small right pleural effusion is noted."
        ));
    }

    /// Issue 49, holdout30: specialist items (radiology reports, driving scenes, instruments).
    #[test]
    fn specialist_reports_units_and_lights() {
        let ok = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // A finding that cannot be excluded is a doubt, not a yes or a no.
        assert!(!ok(
            "Is there a pleural effusion?",
            "yes",
            "A small left pleural effusion cannot be excluded; recommend a lateral view."
        ));
        assert!(!ok(
            "気胸はありますか？",
            "いいえ",
            "気胸は否定できません。追加撮影をお勧めします。"
        ));
        assert!(!ok(
            "종양이 있습니까?",
            "아니요",
            "종양을 배제할 수 없습니다."
        ));
        assert!(!ok(
            "결함이 있습니까?",
            "아니요",
            "결함이 없다고 단정할 수는 없습니다."
        ));
        // A report's finding that names the asked thing answers it.
        assert!(ok(
            "Is there evidence of pneumothorax?",
            "no",
            "FINDINGS: Lungs are clear. No evidence of pneumothorax. Heart size is normal."
        ));
        assert!(!ok(
            "Is there evidence of pneumothorax?",
            "yes",
            "FINDINGS: Lungs are clear. No evidence of pneumothorax. Heart size is normal."
        ));
        assert!(ok(
            "골절이 있습니까?",
            "예",
            "우측 요골 원위부에 피질의 단절과 골절선이 보입니다."
        ));
        // Another thing seen is no finding on the asked one.
        assert!(!ok(
            "골절이 있습니까?",
            "예",
            "우측 요골 원위부에 부종이 보입니다."
        ));
        // A temperature's scale named before the figure, a conversion in brackets.
        assert!(ok("温度は？", "20℃", "目盛りは華氏68度を指しています。"));
        assert!(!ok("温度は？", "20℃", "目盛りは摂氏68度を指しています。"));
        assert!(ok(
            "What is the speed?",
            "30 mph",
            "The ego car is travelling at roughly 48 km/h (30 mph)."
        ));
        assert!(!ok(
            "What is the speed?",
            "30 mph",
            "The ego car is travelling at roughly 60 km/h (40 mph)."
        ));
        // How it looks, a contrast, then what it is.
        assert!(ok(
            "病変は左右どちらにありますか？",
            "右",
            "画像上は左側に見えますが、これは患者の右側です。"
        ));
        assert!(!ok(
            "信号機は何色ですか？",
            "赤",
            "黄色から赤に変わるところですが、現在点灯しているのは黄色です。"
        ));
        assert!(ok(
            "What colour is the car?",
            "red",
            "It looks orange in this light, but it is actually red."
        ));
        // A Sino-Korean noun made a verb, unless the verb is denied.
        assert!(ok(
            "자차는 무엇을 해야 합니까?",
            "정지",
            "보행자가 있으므로 정지선 앞에서 정지해야 합니다."
        ));
        assert!(!ok("표정은?", "행복", "행복해 보이지 않아요. 울상이에요."));
        // A disclaimer before one diagnosis; one kanji of the question is no label.
        assert!(ok(
            "この所見から最も考えられる診断は何ですか？",
            "肺炎",
            "私は医師ではありませんが、浸潤影は肺炎を示唆します。最終的な判断は放射線科医にご相談ください。"
        ));
        // A traffic light's colour by its Korean name.
        assert!(ok("신호등은 무슨 색입니까?", "초록색", "초록불입니다."));
        assert!(!ok("신호등은 무슨 색입니까?", "초록색", "빨간불입니다."));
    }

    /// Issue 49, holdout31: accessibility photos, GUI agents, shopping pages, species.
    #[test]
    fn accessibility_shopping_and_species_replies() {
        let ok = |q: &str, r: &str, a: &str| soft_match_asked(Some(q), r, a).0;
        // "Unanswerable" is answered by a decline, and not by a guess.
        let label = "What does this label say?";
        assert!(ok(
            label,
            "unanswerable",
            "Sorry, the label isn't in the frame. Try again."
        ));
        assert!(!ok(
            label,
            "unanswerable",
            "It's blurry, but it looks like Tylenol."
        ));
        assert!(!ok(
            label,
            "Tylenol",
            "Sorry, the label isn't in the frame."
        ));
        assert!(ok(
            "약 이름이 뭐예요?",
            "답변 불가",
            "글자를 읽을 수 없어요. 다시 찍어 주세요."
        ));
        // The figure that counts what is asked, not another thing's.
        let packs = "이 묶음 상품에 물티슈가 몇 팩 들어 있나요?";
        assert!(ok(
            packs,
            "10",
            "열 팩이에요. 한 팩에 100매씩, 총 1,000매입니다."
        ));
        assert!(!ok(
            packs,
            "1000",
            "열 팩이에요. 한 팩에 100매씩, 총 1,000매입니다."
        ));
        let pairs = "How many pairs of socks come in the pack?";
        assert!(ok(
            pairs,
            "6",
            "The package says \"6 PAIRS\", so 12 socks in total."
        ));
        assert!(!ok("How many people?", "5", "There are 4 or 5 people."));
        assert!(ok(
            "何袋入っていますか？",
            "20",
            "「二十袋入」と書かれています。"
        ));
        // A breakdown's final line.
        let coupon = "쿠폰 적용 후 가격은 얼마인가요?";
        let lines = "- 정가: 19,900원\n- 쿠폰 10% 할인: -1,990원\n- **최종가: 17,910원**";
        assert!(ok(coupon, "17,910원", lines));
        assert!(!ok(coupon, "19,900원", lines));
        // A model and its variant, not a range.
        assert!(ok(
            "What aircraft is this?",
            "Boeing 777",
            "A Boeing 777-300ER."
        ));
        assert!(!ok(
            "What aircraft is this?",
            "Boeing 787",
            "A Boeing 777-300ER."
        ));
        // A mix is not its parent breed; vegan leather is not leather.
        assert!(!ok("What breed?", "poodle", "A Poodle and Maltese mix."));
        assert!(!ok(
            "이 강아지의 품종은?",
            "푸들",
            "말티즈와 푸들 믹스인 말티푸로 보여요."
        ));
        assert!(ok("What breed?", "poodle", "A standard poodle."));
        assert!(!ok(
            "What material?",
            "leather",
            "It's vegan leather (polyurethane)."
        ));
        // A loanword in the letters it came from.
        assert!(ok(
            "犬種は？",
            "ゴールデン・レトリバー",
            "Golden Retriever. Its coat is golden."
        ));
        assert!(!ok(
            "犬種は？",
            "ゴールデン・レトリバー",
            "Labrador Retriever."
        ));
        // Text read off the image is said whole.
        let query = "검색창에 입력된 검색어는 무엇인가요?";
        assert!(!ok(
            query,
            "무선 이어폰",
            "검색창에는 '무선 이어폰 케이스'가 입력되어 있어요."
        ));
        assert!(ok(
            query,
            "무선 이어폰",
            "검색창에는 '무선 이어폰'이 입력되어 있어요."
        ));
        assert!(ok(
            "What does the sign say?",
            "STOP",
            "The sign's text is STOP, it's red."
        ));
        // Candidates listed and none confirmed.
        let mushroom = "What species of mushroom is this?";
        let listed =
            "Possible matches:\n• Amanita muscaria (fly agaric): 48%\n• Amanita jacksonii: 31%\n\n";
        assert!(!ok(
            mushroom,
            "fly agaric",
            &format!("{listed}I can't confirm the species.")
        ));
        assert!(ok(
            mushroom,
            "fly agaric",
            &format!("{listed}It's most likely the fly agaric.")
        ));
        // A colour given, then a caveat that another is possible.
        let trousers = "이 바지 무슨 색이야?";
        let caveat = "검정이야. 근데 방이 좀 어두워서 진한 남색일 수도 있으니까, 다시 찍어 봐.";
        assert!(ok(trousers, "검은색", caveat));
        assert!(!ok(trousers, "남색", caveat));
        assert!(!ok(trousers, "검은색", "검정이나 남색이야."));
        // The nineteenth review's narrowings.
        let chips = "What flavor are these chips?";
        assert!(!ok(
            chips,
            "unanswerable",
            "These are Pringles, Sour Cream & Onion. The expiration date isn't visible, though."
        ));
        assert!(!ok(
            "What medicine is this?",
            "unanswerable",
            "I can't read the label. If I had to guess, I'd say it's ibuprofen."
        ));
        assert!(ok(
            "What color is the bowl?",
            "red",
            "It's a red mixing bowl."
        ));
        let beagle = "- Breed: Beagle\n- Coat: tricolor\n\nI can't tell how old the dog is.";
        assert!(ok("What breed is the dog?", "beagle", beagle));
        assert!(ok(
            "What brand name is written on the TV?",
            "Samsung",
            "It's a 55\" Samsung TV — the sticker says \"4K UHD\"."
        ));
        assert!(ok(
            "男性が修理しているものは何ですか？",
            "トイレ",
            "トイレを修理しています。原因は排水口のつまりのようです。"
        ));
        assert!(ok(
            "상자 안에 있는 동물은?",
            "고양이",
            "고양이예요. 결국 포기했네요."
        ));
        assert!(!ok(
            "그릇에 담긴 음식은 무엇인가요?",
            "짬뽕",
            "짬뽕과 비슷하지만, 면이 꼬불꼬불해요. 그래서 라면입니다."
        ));
        assert!(ok(
            "How many kids are on the slide?",
            "3",
            "Answer: 3 children. One kid is at the top."
        ));
        assert!(ok(
            "어르신은 몇 명인가요?",
            "3",
            "어르신은 모두 세 분이에요. 그 옆에 아이 한 명이 서 있어요."
        ));
        assert!(ok(
            "우유는 몇 팩 있나요?",
            "6",
            "우유는 모두 여섯 개 있어요. 그중 두 팩은 초코우유예요."
        ));
        assert!(!ok("お皿の食べ物は？", "パンケーキ", "Pink macarons."));
        assert!(ok("何のスポーツ？", "テニス", "Tennis."));
        // A conclusion under a condition is not the reply's.
        assert!(ok(
            "このTシャツのサイズは？",
            "L",
            "タグはLだよ。日本サイズだから、海外だとMくらいかな。"
        ));
    }
}
