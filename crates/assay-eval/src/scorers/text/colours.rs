//! The basic colour terms in English, Japanese and Korean, each in the forms a reply writes it:
//! `white` is `白`, `白い`, `白色`, `ホワイト`, `흰색`, `하얀색`, `흰` and `하얗다`. The grading policy
//! accepts "trivial synonyms of a colour (`白色` for 白)", and a colour is the commonest short
//! answer of VQA sets; the forms are a closed class (the eleven basic terms, plus silver and
//! gold), like the unit table, not a dictionary of words.
//!
//! A form is read only where it stands as a word of its own, by the script around it: `red` is
//! not in `reddish` or `red-brown` (a compound colour is another colour), `白` is not in `白菜`
//! or `明白`, `ブルー` is not in `ブルーベリー`, `파랑` is not in `파랑새`, and an attributive
//! `빨간` must modify a following word.

use super::{is_hangul, is_hiragana, is_kanji, is_katakana};

/// How a form's edges are read.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// Latin letters: a word of its own, not joined by a hyphen to another letter.
    Latin,
    /// Japanese: no kanji on either side (a kana form: no kana of its kind either, but a
    /// particle or copula may follow a hiragana form).
    Japanese,
    /// A Korean noun (`빨강`, `흰색`): a particle or copula may follow.
    KoNoun,
    /// A Korean attributive (`빨간`, `흰`): a space, then the word it modifies.
    KoAttributive,
    /// A Korean predicate's stem (`빨갛`, `하얘`): one of its endings follows.
    KoStem,
}

use Kind::*;

/// One colour: the name evidence gives it and its forms by kind.
struct Colour {
    name: &'static str,
    forms: &'static [(Kind, &'static [&'static str])],
}

const COLOURS: &[Colour] = &[
    Colour {
        name: "red",
        forms: &[
            (Latin, &["red"]),
            (
                Japanese,
                &["赤色", "赤い", "赤", "あかいろ", "あかい", "あか", "レッド"],
            ),
            (
                KoNoun,
                &["빨간색", "빨강색", "붉은색", "빨강", "적색", "레드"],
            ),
            (KoAttributive, &["빨간", "붉은"]),
            (KoStem, &["빨갛", "빨개"]),
        ],
    },
    Colour {
        name: "blue",
        forms: &[
            (Latin, &["blue"]),
            (
                Japanese,
                &["青色", "青い", "青", "あおいろ", "あおい", "あお", "ブルー"],
            ),
            (KoNoun, &["파란색", "파랑색", "파랑", "청색", "블루"]),
            (KoAttributive, &["파란"]),
            (KoStem, &["파랗", "파래"]),
        ],
    },
    Colour {
        name: "green",
        forms: &[
            (Latin, &["green"]),
            (
                Japanese,
                &["緑色", "緑", "みどりいろ", "みどり", "グリーン"],
            ),
            (KoNoun, &["초록색", "초록", "녹색"]),
        ],
    },
    Colour {
        name: "yellow",
        forms: &[
            (Latin, &["yellow"]),
            (
                Japanese,
                &["黄色い", "黄色", "きいろい", "きいろ", "イエロー"],
            ),
            (KoNoun, &["노란색", "노랑색", "노랑", "황색", "옐로"]),
            (KoAttributive, &["노란"]),
            (KoStem, &["노랗"]),
        ],
    },
    Colour {
        name: "white",
        forms: &[
            (Latin, &["white"]),
            (
                Japanese,
                &["白色", "白い", "白", "しろいろ", "しろい", "ホワイト"],
            ),
            (KoNoun, &["하얀색", "흰색", "하양", "백색", "화이트"]),
            (KoAttributive, &["하얀", "흰"]),
            (KoStem, &["하얗", "하얘"]),
        ],
    },
    Colour {
        name: "black",
        forms: &[
            (Latin, &["black"]),
            (
                Japanese,
                &["黒色", "黒い", "黒", "くろいろ", "くろい", "ブラック"],
            ),
            (
                KoNoun,
                &["검은색", "검정색", "까만색", "검정", "흑색", "블랙"],
            ),
            (KoAttributive, &["검은", "까만"]),
            (KoStem, &["까맣", "까매"]),
        ],
    },
    Colour {
        name: "brown",
        forms: &[
            (Latin, &["brown"]),
            (Japanese, &["茶色い", "茶色", "ちゃいろ", "ブラウン"]),
            (KoNoun, &["갈색", "밤색", "브라운"]),
        ],
    },
    Colour {
        name: "gray",
        forms: &[
            (Latin, &["gray", "grey"]),
            (
                Japanese,
                &["灰色", "はいいろ", "ねずみ色", "グレー", "グレイ"],
            ),
            (KoNoun, &["회색", "잿빛", "그레이"]),
        ],
    },
    Colour {
        name: "orange",
        forms: &[
            (Latin, &["orange"]),
            (
                Japanese,
                &["オレンジ色", "オレンジ", "橙色", "だいだいいろ"],
            ),
            (KoNoun, &["주황색", "주황", "오렌지색"]),
        ],
    },
    Colour {
        name: "pink",
        forms: &[
            (Latin, &["pink"]),
            (Japanese, &["ピンク色", "ピンク", "桃色", "ももいろ"]),
            (KoNoun, &["분홍색", "분홍", "핑크색", "핑크"]),
        ],
    },
    Colour {
        name: "purple",
        forms: &[
            (Latin, &["purple", "violet"]),
            (
                Japanese,
                &["紫色", "紫", "むらさきいろ", "むらさき", "パープル"],
            ),
            (KoNoun, &["보라색", "보라", "자주색", "퍼플"]),
        ],
    },
    Colour {
        name: "silver",
        forms: &[
            (Latin, &["silver"]),
            (Japanese, &["銀色", "銀", "シルバー"]),
            (KoNoun, &["은색", "은빛", "실버"]),
        ],
    },
    Colour {
        name: "gold",
        forms: &[
            (Latin, &["gold", "golden"]),
            (Japanese, &["金色", "ゴールド"]),
            (KoNoun, &["금색", "금빛", "골드"]),
        ],
    },
];

/// What may follow a hiragana form (a particle, a copula): `しろです`, `あおが`.
const JA_AFTER: &str = "でだがはをにのともやかねよ";
/// What may come before a hiragana form: `はあか`.
const JA_BEFORE: &str = "はのがをにともや";
/// The first syllable of what may follow a Korean noun: particles and the copula (`빨강이에요`,
/// `흰색입니다`, `초록색과`), and `빛` (`초록빛`).
const KO_AFTER_NOUN: &[char] = &[
    '이', '가', '은', '는', '을', '를', '입', '예', '야', '으', '로', '의', '도', '만', '과', '와',
    '에', '빛', '계', '인', '일',
];
/// The first syllable of a Korean colour predicate's endings: `빨갛다`, `빨갛습니다`, `빨개요`,
/// `하얘서`, `까맣고`.
const KO_AFTER_STEM: &[char] = &[
    '다', '습', '고', '지', '네', '게', '던', '요', '서', '졌', '진',
];

/// A colour form found in a text: where it stands and which colour it names.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub colour: &'static str,
}

fn stands_alone(text: &str, kind: Kind, form: &str, s: usize, e: usize) -> bool {
    let before = text[..s].chars().next_back();
    let after = text[e..].chars().next();
    let mut rest = text[e..].chars();
    match kind {
        Latin => {
            let letter = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            let joined = |c: Option<char>, next: Option<char>| {
                c == Some('-') && next.is_some_and(char::is_alphabetic)
            };
            let before2 = text[..s].chars().nth_back(1);
            rest.next();
            !letter(before)
                && !letter(after)
                && !joined(before, before2)
                && !joined(after, rest.next())
        }
        Japanese => {
            let (first, last) = (form.chars().next(), form.chars().next_back());
            let katakana = |c: Option<char>| c.is_some_and(|c| is_katakana(c) || c == 'ー');
            let hiragana_but = |c: Option<char>, allowed: &str| {
                c.is_some_and(|c| is_hiragana(c) && !allowed.contains(c))
            };
            let clash_before = (katakana(first) && katakana(before))
                || (first.is_some_and(is_hiragana) && hiragana_but(before, JA_BEFORE));
            let clash_after = (katakana(last) && katakana(after))
                || (last.is_some_and(is_hiragana) && hiragana_but(after, JA_AFTER))
                // 赤ちゃん is a baby.
                || (last.is_some_and(is_kanji) && text[e..].starts_with("ちゃ"));
            let kanji = |c: Option<char>| c.is_some_and(is_kanji);
            // A kanji on a kanji's side makes one word (白菜, 明白, 赤信号); after 赤い it is the
            // thing described (赤い傘).
            let compound = kanji(first) && kanji(before) || kanji(last) && kanji(after);
            !compound && !clash_before && !clash_after
        }
        KoNoun => {
            !before.is_some_and(is_hangul)
                && after.is_none_or(|c| !is_hangul(c) || KO_AFTER_NOUN.contains(&c))
        }
        KoAttributive => {
            !before.is_some_and(is_hangul)
                && after.is_some_and(char::is_whitespace)
                && rest.nth(1).is_some_and(is_hangul)
        }
        KoStem => {
            !before.is_some_and(is_hangul) && after.is_some_and(|c| KO_AFTER_STEM.contains(&c))
        }
    }
}

/// Every colour form standing as a word in `text` (any case, NFKC), longest first where two
/// overlap, in text order.
pub fn colours(text: &str) -> Vec<Found> {
    let lower = text.to_ascii_lowercase();
    let mut found: Vec<Found> = Vec::new();
    let mut forms: Vec<(&'static str, Kind, &'static str)> = COLOURS
        .iter()
        .flat_map(|c| {
            c.forms
                .iter()
                .flat_map(move |(k, fs)| fs.iter().map(move |f| (c.name, *k, *f)))
        })
        .collect();
    forms.sort_by_key(|f| std::cmp::Reverse(f.2.len()));
    for (name, kind, form) in forms {
        for (s, _) in lower.match_indices(form) {
            let e = s + form.len();
            let free = !found.iter().any(|f| f.start < e && s < f.end);
            if free && stands_alone(&lower, kind, form, s, e) {
                found.push(Found {
                    start: s,
                    end: e,
                    colour: name,
                });
            }
        }
    }
    found.sort_by_key(|f| f.start);
    found
}

/// The one colour a reference names (`흰색`, `赤`, `빨간 줄`, `red`), if it names exactly one.
pub fn reference_colour(reference: &str) -> Option<Found> {
    let found = colours(reference);
    let first = *found.first()?;
    found
        .iter()
        .all(|f| f.colour == first.colour)
        .then_some(first)
}

/// Whether a question asks about colour: it says so (`colour`, `色`, `색`, `빛`) or names one
/// (`빨간 줄과 파란 줄 중`).
pub fn asks_colour(question: &str) -> bool {
    let q = question.to_ascii_lowercase();
    ["color", "colour", "色", "색", "빛"]
        .iter()
        .any(|w| q.contains(w))
        || !colours(&q).is_empty()
}

/// The reply with every other form of `want`'s colour written as the reference writes it
/// (`하얀색입니다` → `흰색입니다` for `흰색`; `the dress is red` → `the dress is  赤 ` for `赤`),
/// spaced apart when the reference's form is in Latin letters; None when the reply names the
/// colour in no other form.
pub fn written_as_reference(reference: &str, want: &Found, reply: &str) -> Option<String> {
    let form = &reference[want.start..want.end];
    let latin = form.is_ascii();
    let mut out = String::with_capacity(reply.len() + 8);
    let mut at = 0;
    let mut changed = false;
    for f in colours(reply) {
        if f.colour != want.colour || reply[f.start..f.end].eq_ignore_ascii_case(form) {
            continue;
        }
        out.push_str(&reply[at..f.start]);
        if latin {
            out.push(' ');
        }
        out.push_str(form);
        if latin {
            out.push(' ');
        }
        at = f.end;
        changed = true;
    }
    out.push_str(&reply[at..]);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<&'static str> {
        colours(text).iter().map(|f| f.colour).collect()
    }

    #[test]
    fn each_language_names_a_colour_in_its_forms() {
        assert_eq!(names("The dress is RED."), ["red"]);
        assert_eq!(names("赤い傘です"), ["red"]);
        assert_eq!(names("傘はレッドです"), ["red"]);
        assert_eq!(names("하얀색입니다."), ["white"]);
        assert_eq!(names("흰색이에요"), ["white"]);
        assert_eq!(names("빨간색 줄이 더 깁니다"), ["red"]);
        assert_eq!(names("빨간 줄"), ["red"]);
        assert_eq!(names("우산은 빨갛습니다"), ["red"]);
        assert_eq!(names("하늘이 파래요"), ["blue"]);
        assert_eq!(names("灰色とグレー"), ["gray", "gray"]);
    }

    #[test]
    fn a_form_inside_another_word_is_not_a_colour() {
        assert!(names("reddish-brown").is_empty());
        assert_eq!(names("赤い傘"), ["red"]);
        assert_eq!(names("a red-brown door"), Vec::<&str>::new());
        assert!(names("white-ish").is_empty());
        assert!(names("redistribution").is_empty());
        assert!(names("白菜です").is_empty());
        assert!(names("明白です").is_empty());
        assert!(names("金曜日").is_empty());
        assert!(names("ブルーベリー").is_empty());
        assert!(names("オレンジジュース").is_empty());
        assert!(names("あかちゃん").is_empty());
        assert!(names("파랑새").is_empty());
        assert!(names("노래를 불러요").is_empty());
        assert!(names("그린 그림").is_empty());
        assert!(names("새빨간").is_empty());
    }

    #[test]
    fn a_reference_names_one_colour() {
        assert_eq!(reference_colour("빨간 줄").map(|f| f.colour), Some("red"));
        assert_eq!(reference_colour("흰색").map(|f| f.colour), Some("white"));
        assert!(reference_colour("red and white").is_none());
        assert!(reference_colour("Tokyo").is_none());
    }

    #[test]
    fn the_reply_is_written_in_the_references_form() {
        let want = reference_colour("흰색").unwrap();
        assert_eq!(
            written_as_reference("흰색", &want, "하얀색입니다.").as_deref(),
            Some("흰색입니다.")
        );
        let want = reference_colour("赤").unwrap();
        assert_eq!(
            written_as_reference("赤", &want, "red").as_deref(),
            Some("赤")
        );
        let want = reference_colour("red").unwrap();
        assert_eq!(
            written_as_reference("red", &want, "빨간색입니다").as_deref(),
            Some(" red 입니다")
        );
        // Another colour is left as written, and no rewrite is none.
        assert!(written_as_reference("red", &want, "It is blue.").is_none());
    }

    #[test]
    fn a_question_about_colour() {
        assert!(asks_colour("What color is the bus?"));
        assert!(asks_colour("傘は何色ですか？"));
        assert!(asks_colour("빨간 줄과 파란 줄 중 어느 것이 더 긴가요?"));
        assert!(!asks_colour("What is the man holding?"));
    }
}
