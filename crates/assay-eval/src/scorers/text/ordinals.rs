//! Ordinals written as words or digits ("third", "3rd", "3番目", "세 번째"), read to their
//! position, so that "She finished third" answers "3rd" and "the 4th floor" answers "fourth".
//! Only a reference that is an ordinal is read this way: "at first I thought" is no position.

use std::sync::OnceLock;

use regex::Regex;

use super::numbers;

const WORDS: &[(&str, u32)] = &[
    ("first", 1),
    ("second", 2),
    ("third", 3),
    ("fourth", 4),
    ("fifth", 5),
    ("sixth", 6),
    ("seventh", 7),
    ("eighth", 8),
    ("ninth", 9),
    ("tenth", 10),
    ("eleventh", 11),
    ("twelfth", 12),
    ("thirteenth", 13),
    ("fourteenth", 14),
    ("fifteenth", 15),
    ("sixteenth", 16),
    ("seventeenth", 17),
    ("eighteenth", 18),
    ("nineteenth", 19),
    ("twentieth", 20),
    ("last", 0),
];

/// An ordinal found in a text: its position (0 for "last") and byte span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ordinal {
    pub position: u32,
    pub start: usize,
    pub end: usize,
}

/// The things benchmarks number in a row: images of a multi-image item, frames and clips of a
/// video, panels of a comic ("Image 2", "the second image", "2枚目", "최初の画像", "이미지 1",
/// "2번 이미지").
const NUMBERED: &str = r"image|picture|photo|frame|clip|video|panel|figure|画像|写真|フレーム|ふれーむ|이미지|사진|그림|영상|프레임|장면";

fn numbered_patterns() -> &'static [Regex; 3] {
    static R: OnceLock<[Regex; 3]> = OnceLock::new();
    R.get_or_init(|| {
        [
            // "image 2", "frame #7", "이미지 1", "画像2"
            Regex::new(&format!(r"(?:\b|^)(?:{NUMBERED})\s*#?\s*(?P<n>\d{{1,2}})(?-u:\b)"))
                .expect("valid"),
            // "2番目の画像" is read as 番目; "2枚目", "3本目", "2回目"; "2번 이미지"
            Regex::new(&format!(
                r"(?P<n>\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s*(?:枚|本|個|回|コマ|こま)目|(?P<k>\d{{1,2}})\s*번\s*(?:{NUMBERED})"
            ))
            .expect("valid"),
            // "最初の画像", "最後の写真", "마지막 이미지"
            Regex::new(&format!(
                r"(?P<first>最初|一番目)の(?:{NUMBERED})|(?P<last>最後)の(?:{NUMBERED})|(?P<klast>마지막)\s*(?:{NUMBERED})"
            ))
            .expect("valid"),
        ]
    })
}

fn patterns() -> &'static [Regex; 3] {
    static R: OnceLock<[Regex; 3]> = OnceLock::new();
    R.get_or_init(|| {
        [
            Regex::new(r"\b(?P<n>\d{1,3})(?:st|nd|rd|th)(?-u:\b)").expect("valid"),
            Regex::new(r"\b(?P<w>[a-z]+)\b").expect("valid"),
            // 3番目, 三番目, 第3, 세 번째, 3번째, 첫 번째, 첫째
            Regex::new(r"(?:第\s*(?P<a>\d+|[一二三四五六七八九十]+))|(?P<b>\d+|[一二三四五六七八九十]+)\s*番目|(?P<c>\d+|첫|두|세|네|다섯|여섯|일곱|여덟|아홉|열)\s*번\s*째|(?P<d>첫|둘|셋|넷)째|(?P<e>\d+|[一二三四五六七八九十]+)\s*位|(?P<f>\d+|일|이|삼|사|오)등").expect("valid"),
        ]
    })
}

fn value(w: &str) -> Option<u32> {
    match w {
        "첫" | "일" => return Some(1),
        "이" => return Some(2),
        "삼" => return Some(3),
        "사" => return Some(4),
        "오" => return Some(5),
        "두" | "둘" => return Some(2),
        "세" | "셋" => return Some(3),
        "네" | "넷" => return Some(4),
        _ => {}
    }
    numbers::whole(w).filter(|v| *v >= 1.0).map(|v| v as u32)
}

/// Every ordinal in a prepared text, in order.
pub fn ordinals(p: &str) -> Vec<Ordinal> {
    let [digits, words, cjk] = patterns();
    let mut out = Vec::new();
    let mut push = |c: &regex::Captures, position: Option<u32>| {
        let m = c.get(0).expect("whole match");
        if let Some(position) = position {
            out.push(Ordinal {
                position,
                start: m.start(),
                end: m.end(),
            });
        }
    };
    // The first of a match's groups that holds a figure, read.
    let group = |c: &regex::Captures, names: &[&str]| {
        names
            .iter()
            .find_map(|g| c.name(g))
            .and_then(|g| value(g.as_str()))
    };
    for c in digits.captures_iter(p) {
        push(&c, c["n"].parse().ok());
    }
    for c in words.captures_iter(p) {
        let m = c.get(0).expect("whole match");
        // "at first", "first of all", "First, look …", "1 second": no position.
        let before = p[..m.start()].trim_end();
        let after = p[m.end()..].trim_start();
        let not_a_position = (m.as_str() == "first"
            && (before.ends_with("at")
                || after.starts_with("of all")
                || after.starts_with("glance")
                || after.starts_with("sight")
                || after.starts_with(',')
                || after.starts_with("time")))
            || (m.as_str() == "second"
                && before.ends_with(|c: char| c.is_ascii_digit() || c == 'a'))
            || (m.as_str() == "second" && after.starts_with("s "));
        if not_a_position {
            continue;
        }
        let n = WORDS
            .iter()
            .find(|(w, _)| *w == m.as_str())
            .map(|(_, n)| *n);
        push(&c, n);
    }
    for c in cjk.captures_iter(p) {
        push(&c, group(&c, &["a", "b", "c", "d", "e", "f"]));
    }
    let [named, counted, ends] = numbered_patterns();
    for c in named.captures_iter(p).chain(counted.captures_iter(p)) {
        push(&c, group(&c, &["n", "k"]));
    }
    for c in ends.captures_iter(p) {
        push(&c, Some(if c.name("first").is_some() { 1 } else { 0 }));
    }
    // "Image 1: 4 people": a label of a line, not an answer.
    out.retain(|o| {
        !p[o.end..]
            .trim_start_matches([' ', '*'])
            .starts_with([':', '：'])
    });
    super::first_of_overlaps(out, |o| (o.start, o.end))
}

fn item_kind() -> &'static Regex {
    static ITEM: OnceLock<Regex> = OnceLock::new();
    ITEM.get_or_init(|| Regex::new(&format!(r"(?i)(?:{NUMBERED})")).expect("valid"))
}

/// Whether a text names a kind of thing benchmarks number ("image", "frame", "画像", "이미지"):
/// a cheap test before the numbered items are read.
pub fn names_item_kind(p: &str) -> bool {
    item_kind().is_match(p)
}

/// Where a numbered item's words end: after the noun that follows its ordinal ("첫 번째 이미지",
/// "the second image"), or at the ordinal.
pub fn item_end(p: &str, o: &Ordinal) -> usize {
    static AFTER: OnceLock<Regex> = OnceLock::new();
    let after =
        AFTER.get_or_init(|| Regex::new(&format!(r"^\s*(?:の)?\s*(?:{NUMBERED})")).expect("valid"));
    after.find(&p[o.end..]).map_or(o.end, |m| o.end + m.end())
}

/// Whether a question asks a place in a row ("In which frame …", "何番目", "몇 번째", "which
/// image"), so that a figure answers it as an ordinal.
pub fn asks_position(q: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(&format!(
            r"\b(?:which|what) (?:{NUMBERED}|position|place)\b|何(?:番目|枚目|位)|몇\s*번\s*째|몇\s*등"
        ))
        .expect("valid")
    })
    .is_match(q)
}

/// The numbered things ([`NUMBERED`]) a text names by their place: "the first image", "Image
/// 2", "2枚目", "最初の画像", "七番目のフレーム", "두 번째 이미지", "이미지 1", "2번 이미지".
pub fn numbered_items(p: &str) -> Vec<Ordinal> {
    if !names_item_kind(p) && !p.contains("枚目") {
        return Vec::new();
    }
    let item = item_kind();
    static AFTER: OnceLock<Regex> = OnceLock::new();
    let after =
        AFTER.get_or_init(|| Regex::new(&format!(r"^\s*(?:の)?\s*(?:{NUMBERED})")).expect("valid"));
    ordinals(p)
        .into_iter()
        .filter(|o| {
            (item.is_match(&p[o.start..o.end]) || after.is_match(&p[o.end..]))
                // "2枚目" counts sheets: an image of a multi-image item.
                || p[o.start..o.end].ends_with("枚目")
        })
        .collect()
}

/// A reference that is one ordinal, with at most a short noun ("3rd", "fourth", "2nd place",
/// "4th floor", "3番目", "두 번째").
pub fn ordinal_reference(p: &str) -> Option<u32> {
    let os = ordinals(p);
    let [o] = os.as_slice() else {
        return None;
    };
    let rest = format!("{} {}", &p[..o.start], &p[o.end..]);
    let words: Vec<&str> = rest
        .split(|c: char| c.is_whitespace() || super::is_clause_mark(c))
        .filter(|w| !w.is_empty() && !matches!(*w, "the" | "a"))
        .collect();
    (words.len() <= 1 && words.iter().all(|w| w.chars().count() <= 8)).then_some(o.position)
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn pos(s: &str) -> Vec<u32> {
        ordinals(&prepare(s)).iter().map(|o| o.position).collect()
    }

    #[test]
    fn ordinals_in_every_script() {
        assert_eq!(pos("She finished third."), vec![3]);
        assert_eq!(pos("It's on the 4th floor."), vec![4]);
        assert_eq!(pos("三番目です"), vec![3]);
        assert_eq!(pos("세 번째입니다"), vec![3]);
        assert_eq!(pos("첫 번째 차"), vec![1]);
        assert_eq!(pos("There are 3 cats."), Vec::<u32>::new());
        assert_eq!(pos("二位です"), vec![2]);
        assert_eq!(pos("2등입니다"), vec![2]);
        assert_eq!(ordinal_reference(&prepare("2位")), Some(2));
        assert_eq!(ordinal_reference(&prepare("3rd")), Some(3));
        assert_eq!(ordinal_reference(&prepare("fourth floor")), Some(4));
        assert_eq!(
            ordinal_reference(&prepare("the first car on the left")),
            None
        );
        assert_eq!(ordinal_reference(&prepare("Tokyo")), None);
        assert_eq!(ordinal_reference(&prepare("Image 1")), Some(1));
        assert_eq!(ordinal_reference(&prepare("the second image")), Some(2));
        assert_eq!(ordinal_reference(&prepare("1枚目")), Some(1));
        assert_eq!(ordinal_reference(&prepare("첫 번째 이미지")), Some(1));
        assert_eq!(pos("最初の画像です。2枚目には犬はいません。"), vec![1, 2]);
        assert_eq!(pos("2번 이미지입니다. 이미지 1에는"), vec![2, 1]);
        assert_eq!(
            pos("Image 1: 4 people.\nImage 2: 7 people.\n\nImage 2 has more."),
            vec![2]
        );
        assert_eq!(
            pos("The seventh frame. In frame 6 it's still falling."),
            vec![7, 6]
        );
        assert_eq!(pos("3 images of 2 cats"), Vec::<u32>::new());
        let items = |s: &str| {
            numbered_items(&prepare(s))
                .iter()
                .map(|o| o.position)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            items("The first image shows 3 people; the second image shows 5. She came third."),
            vec![1, 2]
        );
        assert_eq!(items("七番目のフレームです。1枚目には"), vec![7, 1]);
        assert_eq!(items("두 번째 이미지에는 5명, 세 번째 줄"), vec![2]);
        assert_eq!(ordinal_reference(&prepare("1 second")), None);
        assert_eq!(
            pos("At first glance it leads, but it finished third."),
            vec![3]
        );
    }
}
