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
    /// A direction in Latin letters: as [`Kind::Latin`], and only where a direction is said
    /// ("to the right", "turning left", "Left."), not "That's right" or "right away".
    LatinDirection,
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

/// The closed classes of words read in their forms and languages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Colour,
    Direction,
}

/// One colour (or direction): the name evidence gives it and its forms by kind.
struct Colour {
    name: &'static str,
    latin: &'static [&'static str],
    japanese: &'static [&'static str],
    ko_noun: &'static [&'static str],
    ko_attributive: &'static [&'static str],
    ko_stem: &'static [&'static str],
}

impl Colour {
    fn forms(&self) -> impl Iterator<Item = (Kind, &'static str)> + '_ {
        let latin = if DIRECTIONS.iter().any(|d| d.name == self.name) {
            LatinDirection
        } else {
            Latin
        };
        [
            (latin, self.latin),
            (Japanese, self.japanese),
            (KoNoun, self.ko_noun),
            (KoAttributive, self.ko_attributive),
            (KoStem, self.ko_stem),
        ]
        .into_iter()
        .flat_map(|(k, fs)| fs.iter().map(move |f| (k, *f)))
    }
}

const NONE: &[&str] = &[];

/// The basic terms first, then colours between them that a reply names instead (navy, beige,
/// teal, 水色, 연두): each is its own colour, so "a navy jacket" is no "black", and a reply that
/// names one beside the reference's colour names another colour.
const COLOURS: &[Colour] = &[
    Colour {
        name: "red",
        latin: &["red"],
        japanese: &[
            "赤色",
            "赤い",
            "真っ赤",
            "赤",
            "あかいろ",
            "まっか",
            "レッド",
        ],
        ko_noun: &[
            "빨간색",
            "빨강색",
            "붉은색",
            "빨강",
            "적색",
            "레드",
            "빨간불",
        ],
        ko_attributive: &["빨간", "붉은", "새빨간"],
        ko_stem: &["빨갛", "빨개"],
    },
    Colour {
        name: "blue",
        latin: &["blue"],
        japanese: &[
            "青色",
            "青い",
            "真っ青",
            "青",
            "あおいろ",
            "まっさお",
            "ブルー",
        ],
        ko_noun: &["파란색", "파랑색", "파랑", "청색", "블루"],
        ko_attributive: &["파란", "새파란"],
        ko_stem: &["파랗", "파래"],
    },
    Colour {
        name: "green",
        latin: &["green"],
        japanese: &["緑色", "緑", "みどりいろ", "グリーン"],
        ko_noun: &["초록색", "초록", "녹색", "초록불", "녹색불"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "yellow",
        latin: &["yellow"],
        japanese: &["黄色い", "黄色", "きいろい", "きいろ", "イエロー"],
        ko_noun: &["노란색", "노랑색", "노랑", "황색", "옐로", "노란불"],
        ko_attributive: &["노란", "샛노란"],
        ko_stem: &["노랗"],
    },
    Colour {
        name: "white",
        latin: &["white"],
        japanese: &[
            "白色",
            "白い",
            "真っ白",
            "白",
            "しろいろ",
            "まっしろ",
            "ホワイト",
        ],
        ko_noun: &["하얀색", "흰색", "하양", "백색", "화이트"],
        ko_attributive: &["하얀", "흰", "새하얀"],
        ko_stem: &["하얗", "하얘"],
    },
    Colour {
        name: "black",
        latin: &["black"],
        japanese: &["黒色", "黒い", "真っ黒", "黒", "まっくろ", "ブラック"],
        ko_noun: &["검은색", "검정색", "까만색", "검정", "흑색", "블랙"],
        ko_attributive: &["검은", "까만", "새까만"],
        ko_stem: &["까맣", "까매"],
    },
    Colour {
        name: "brown",
        latin: &["brown"],
        japanese: &["茶色い", "茶色", "ちゃいろ", "ブラウン"],
        ko_noun: &["갈색", "밤색", "브라운"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "gray",
        latin: &["gray", "grey"],
        japanese: &["灰色", "はいいろ", "ねずみ色", "グレー", "グレイ"],
        ko_noun: &["회색", "잿빛", "그레이"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "orange",
        latin: &["orange"],
        japanese: &["オレンジ色", "橙色", "だいだいいろ"],
        ko_noun: &["주황색", "주황", "오렌지색", "주황불"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "pink",
        latin: &["pink"],
        japanese: &["ピンク色", "ピンク", "桃色", "ももいろ"],
        ko_noun: &["분홍색", "분홍", "핑크색", "핑크"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "purple",
        latin: &["purple", "violet"],
        japanese: &["紫色", "紫", "むらさきいろ", "パープル"],
        ko_noun: &["보라색", "보라", "자주색", "퍼플"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "silver",
        latin: &["silver"],
        japanese: &["銀色", "銀", "シルバー"],
        ko_noun: &["은색", "은빛", "실버"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "gold",
        latin: &["gold", "golden"],
        japanese: &["金色", "ゴールド"],
        ko_noun: &["금색", "금빛", "골드"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "navy",
        latin: &["navy"],
        japanese: &["紺色", "紺", "ネイビー"],
        ko_noun: &["남색", "감색", "네이비"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "light blue",
        latin: &["light blue", "sky blue", "baby blue"],
        japanese: &["水色", "空色", "スカイブルー"],
        ko_noun: &["하늘색", "연파랑"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "teal",
        latin: &["teal", "turquoise", "cyan", "aqua", "mint"],
        japanese: &["青緑", "ターコイズ", "シアン"],
        ko_noun: &["청록색", "청록", "민트색"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "yellow-green",
        latin: &["lime", "chartreuse"],
        japanese: &["黄緑色", "黄緑", "ライム"],
        ko_noun: &["연두색", "연두"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "beige",
        latin: &["beige", "tan", "khaki", "cream", "ivory"],
        japanese: &["ベージュ", "クリーム色", "アイボリー", "カーキ", "肌色"],
        ko_noun: &[
            "베이지색",
            "베이지",
            "크림색",
            "아이보리",
            "카키색",
            "살구색",
        ],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "magenta",
        latin: &[
            "magenta", "fuchsia", "crimson", "maroon", "burgundy", "scarlet",
        ],
        japanese: &["マゼンタ", "えんじ色", "深紅", "ワインレッド", "赤紫"],
        ko_noun: &["자홍색", "자홍", "버건디", "와인색", "검붉은색", "자줏빛"],
        ko_attributive: &["검붉은"],
        ko_stem: NONE,
    },
    Colour {
        name: "lavender",
        latin: &["lavender", "lilac"],
        japanese: &["ラベンダー色", "薄紫"],
        ko_noun: &["연보라색", "연보라", "라벤더색"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
];

/// Left and right, the directions a video or a scene question asks (up, down and the compass
/// points are left out: "up" and "down" are too often other words).
const DIRECTIONS: &[Colour] = &[
    Colour {
        name: "left",
        latin: &["left", "leftward", "leftwards"],
        japanese: &["左側", "左方向", "左", "ひだり"],
        ko_noun: &["왼쪽", "왼편", "좌측", "좌회전"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
    Colour {
        name: "right",
        latin: &["right", "rightward", "rightwards"],
        japanese: &["右側", "右方向", "右", "みぎ"],
        ko_noun: &["오른쪽", "오른편", "우측", "우회전"],
        ko_attributive: NONE,
        ko_stem: NONE,
    },
];

/// What may follow a hiragana form (a particle, a copula): `まっしろです`, `きいろが`.
const JA_AFTER: &str = "でだがはをにのともやかねよ";
/// What may come before a hiragana form: `はきいろ`.
const JA_BEFORE: &str = "はのがをにともや";
/// What may follow a Korean noun as the rest of its word: particles, whole (`흰색이`, `빨강과`),
/// and the copula's beginnings (`흰색이에요`, `빨강입니다`, `하양인`), so that `백색가전`,
/// `골드만삭스` and `파랑새` are other words.
const KO_PARTICLES: &[&str] = &[
    "이",
    "가",
    "은",
    "는",
    "을",
    "를",
    "의",
    "도",
    "로",
    "으로",
    "와",
    "과",
    "에",
    "에서",
    "이나",
    "나",
    "이랑",
    "랑",
    "처럼",
    "보다",
    "빛",
    "계열",
    "이고",
    "이며",
    "이라",
    "이지만",
];
const KO_COPULA: &[&str] = &[
    "이에", "예요", "에요", "입니", "이다", "이야", "야", "인", "일", "이었", "였", "이네", "네",
    "이지", "이죠", "죠", "이었", "인데",
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
    kind: Kind,
    pub class: Class,
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Latin => "latin",
            LatinDirection => "latin-direction",
            Japanese => "japanese",
            KoNoun => "ko-noun",
            KoAttributive => "ko-attributive",
            KoStem => "ko-stem",
        })
    }
}

/// Whether the Latin word at `s..e` of `written` is part of a name: capitalised, beside another
/// capitalised word with only a space between ("Earl Grey", "Red Bull", "White Sox").
fn in_a_name(written: &str, s: usize, e: usize) -> bool {
    let capital = |w: &str| w.starts_with(|c: char| c.is_ascii_uppercase());
    if !capital(&written[s..e]) {
        return false;
    }
    const QUOTES: &[char] = &['"', '\'', '“', '”', '‘', '’', '(', ')', '「', '」'];
    let word = |w: &str| capital(w) && w.chars().all(char::is_alphabetic);
    let word_before = written[..s].strip_suffix(' ').is_some_and(|head| {
        let token = head.rsplit(' ').next().unwrap_or("");
        let bare = token.trim_start_matches(QUOTES);
        let quoted = bare.len() < token.len();
        let rest = head[..head.len() - token.len()].trim_end();
        // Not the sentence's first word ("Red. …", "Answer: Red"), unless a quote opens it.
        word(bare) && (quoted || !rest.is_empty() && !rest.ends_with(['.', '!', '?', ':', '\n']))
    });
    let word_after = written[e..].strip_prefix(' ').is_some_and(|tail| {
        let token = tail.split(' ').next().unwrap_or("");
        word(
            token
                .trim_end_matches(QUOTES)
                .trim_end_matches(['.', ',', ';', '!', '?']),
        )
    });
    word_before || word_after
}

fn stands_alone(written: &str, text: &str, kind: Kind, form: &str, s: usize, e: usize) -> bool {
    let before = text[..s].chars().next_back();
    let after = text[e..].chars().next();
    let mut rest = text[e..].chars();
    match kind {
        LatinDirection => {
            let said = text[..s]
                .trim_end()
                .rsplit(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or("");
            // "Right, so looking at …": a filler that opens the reply is no direction.
            let opens = (text[..s].trim().is_empty()
                || text[..s].trim_end().ends_with(['\n', '.', ':', '*', '"']))
                && !text[e..].starts_with(',');
            let direction_said = opens
                || matches!(
                    said,
                    "the"
                        | "to"
                        | "turn"
                        | "turns"
                        | "turning"
                        | "turned"
                        | "moving"
                        | "going"
                        | "heading"
                        | "headed"
                        | "facing"
                        | "veers"
                        | "veering"
                        | "from"
                        | "toward"
                        | "towards"
                        | "moves"
                        | "goes"
                        | "is"
                        | "heads"
                        | "head"
                        | "drives"
                        | "flies"
                        | "walks"
                        | "runs"
                        | "points"
                        | "pointing"
                        | "leans"
                );
            direction_said && stands_alone(written, text, Latin, form, s, e)
        }
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
                && !in_a_name(written, s, e)
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
            let word: String = text[e..].chars().take_while(|c| is_hangul(*c)).collect();
            // "보라 씨", "보라 님": a person's name.
            let named = [" 씨", " 님"].iter().any(|h| text[e..].starts_with(h));
            // "회색빛이에요": the colour's light.
            let word = word
                .strip_prefix('빛')
                .map_or(word.clone(), |w| w.to_string());
            !before.is_some_and(is_hangul)
                && !named
                && (word.is_empty()
                    || KO_PARTICLES.contains(&word.as_str())
                    || KO_COPULA.iter().any(|c| word.starts_with(c)))
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
    found(text, Class::Colour)
}

/// Every form of a word of `class` standing as a word in `text`, as [`colours`] reads colours.
pub fn found(text: &str, class: Class) -> Vec<Found> {
    use aho_corasick::AhoCorasick;
    use std::sync::OnceLock;
    type Forms = (Vec<(&'static str, Kind, &'static str)>, AhoCorasick);
    static FORMS: OnceLock<[Forms; 2]> = OnceLock::new();
    let tables = FORMS.get_or_init(|| {
        [COLOURS, DIRECTIONS].map(|table| {
            let forms: Vec<_> = table
                .iter()
                .flat_map(|c| c.forms().map(move |(k, f)| (c.name, k, f)))
                .collect();
            let finder = AhoCorasick::new(forms.iter().map(|f| f.2)).expect("forms");
            (forms, finder)
        })
    });
    let (forms, finder) = &tables[class as usize];
    let lower = text.to_ascii_lowercase();
    // Every occurrence of every form, the longest first (then the table's order), as a form
    // shadows the shorter ones inside it ("赤色" before "赤").
    let mut hits: Vec<(usize, usize, usize)> = finder
        .find_overlapping_iter(&lower)
        .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
        .collect();
    hits.sort_by_key(|&(p, s, e)| (std::cmp::Reverse(e - s), p, s));
    let mut found: Vec<Found> = Vec::new();
    for (p, s, e) in hits {
        let (name, kind, form) = forms[p];
        let free = !found.iter().any(|f| f.start < e && s < f.end);
        if free && stands_alone(text, &lower, kind, form, s, e) {
            found.push(Found {
                start: s,
                end: e,
                colour: name,
                kind,
                class,
            });
        }
    }
    found.sort_by_key(|f| f.start);
    found
}

/// The one colour a reference names (`흰색`, `赤`, `빨간 줄`, `red`), if it names exactly one.
pub fn reference_colour(reference: &str) -> Option<Found> {
    reference_term(reference, Class::Colour)
}

/// The one word of `class` a reference names, if it names exactly one.
pub fn reference_term(reference: &str, class: Class) -> Option<Found> {
    let found = found(reference, class);
    let first = *found.first()?;
    found
        .iter()
        .all(|f| f.colour == first.colour)
        .then_some(first)
}

/// Whether a question asks about colour: it says so (`colour`, `色`, `색`, `빛`) or names one
/// (`빨간 줄과 파란 줄 중`).
pub fn asks(question: &str, class: Class) -> bool {
    match class {
        Class::Colour => asks_colour(question),
        Class::Direction => {
            let q = question.to_ascii_lowercase();
            [
                "direction",
                "which way",
                "which side",
                "方向",
                "どちら",
                "どっち",
                "방향",
                "어느 쪽",
                "어느 쪽",
            ]
            .iter()
            .any(|w| q.contains(w))
                || !found(&q, Class::Direction).is_empty()
        }
    }
}

/// Whether a question asks about colour (see [`asks`]).
pub fn asks_colour(question: &str) -> bool {
    let q = question.to_ascii_lowercase();
    ["color", "colour", "色", "색", "빛"]
        .iter()
        .any(|w| q.contains(w))
        || !colours(&q).is_empty()
}

/// The reply with every other form of `want`'s colour written as the reference writes it
/// (`하얀색입니다` → `흰색입니다` for `흰색`; `the dress is red` → `the dress is 赤` for `赤`),
/// spaced apart only from a Latin letter beside it, so what follows still follows (`赤くない`
/// → `redくない`); a Korean predicate's stem takes the copula before its ending (`파랗네요` →
/// `파란색이네요`). None when the reply names the colour in no other form.
pub fn written_as_reference(reference: &str, want: &Found, reply: &str) -> Option<String> {
    let form = &reference[want.start..want.end];
    let latin = form.is_ascii();
    let korean = form.chars().any(is_hangul);
    let mut out = String::with_capacity(reply.len() + 8);
    let mut at = 0;
    let mut changed = false;
    for f in found(reply, want.class) {
        if f.colour != want.colour || reply[f.start..f.end].eq_ignore_ascii_case(form) {
            continue;
        }
        // "from the left", "왼쪽에서", "左から": where a thing starts, not where it goes.
        if source(reply, &f) {
            continue;
        }
        // "파랗지 않아요": a stem before 지 is negated or asked, which a noun cannot carry; left as
        // written, it answers nothing.
        if korean && f.kind == KoStem && reply[f.end..].starts_with('지') {
            continue;
        }
        out.push_str(&reply[at..f.start]);
        let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
        if latin && alnum(reply[..f.start].chars().next_back()) {
            out.push(' ');
        }
        out.push_str(form);
        if latin && alnum(reply[f.end..].chars().next()) {
            out.push(' ');
        }
        at = f.end;
        if korean && f.kind == KoStem {
            // "빨갛습니다" → "빨간색입니다", "파랗네요" → "파란색이네요".
            if reply[f.end..].starts_with('습') {
                out.push('입');
                at += '습'.len_utf8();
            } else {
                out.push('이');
            }
        }
        changed = true;
    }
    out.push_str(&reply[at..]);
    changed.then_some(out)
}

/// Whether a direction found is where a movement starts ("from the left", "왼쪽에서",
/// "左から"), not where it goes.
pub fn source(text: &str, f: &Found) -> bool {
    use std::sync::OnceLock;
    static BEFORE: OnceLock<regex::Regex> = OnceLock::new();
    static AFTER: OnceLock<regex::Regex> = OnceLock::new();
    let before = BEFORE.get_or_init(|| {
        regex::Regex::new(
            r"(?i)\b(?:from|starting (?:at|from)|starts (?:at|from)|begins (?:at|on))(?: the)?\s*$",
        )
        .expect("valid")
    });
    // "左の方から", "왼쪽 끝에서", "左側より".
    let after = AFTER.get_or_init(|| {
        regex::Regex::new(r"^(?:の方|の端|側|端)?(?:から|より)|^\s*(?:끝|편|쪽)?에서")
            .expect("valid")
    });
    f.class == Class::Direction
        && (before.is_match(&text[..f.start]) || after.is_match(&text[f.end..]))
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
        // A traffic light's colour: 빨간불 is the red light.
        assert_eq!(names("초록불입니다"), ["green"]);
        assert_eq!(names("신호가 빨간불이고"), ["red"]);
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
        // Names: a capitalised colour beside a capitalised word, a Korean name with 씨.
        assert!(names("a mug of Earl Grey").is_empty());
        assert!(names("The mug has \"Earl Grey\" printed on it").is_empty());
        assert!(names("a Chicago White Sox cap").is_empty());
        assert!(names("a can of Red Bull").is_empty());
        assert_eq!(names("Red. The car is red."), ["red", "red"]);
        assert_eq!(names("Answer: Red"), ["red"]);
        assert!(names("보라 씨가 들고 있어요").is_empty());
        // Korean words that begin with a colour's form.
        assert!(names("백색가전이에요").is_empty());
        assert!(names("골드만삭스 로고").is_empty());
        // Hiragana inside other words.
        assert!(names("おもしろいのは").is_empty());
        assert!(names("あおやま歯科").is_empty());
        // Colours between the basic ones are colours of their own.
        assert_eq!(names("紺色のジャケット"), ["navy"]);
        assert_eq!(names("teal"), ["teal"]);
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
            Some("red입니다")
        );
        assert_eq!(
            written_as_reference("red", &want, "it's 赤くない").as_deref(),
            Some("it's redくない")
        );
        assert_eq!(
            written_as_reference("red", &want, "It's赤").as_deref(),
            Some("It's red")
        );
        let want = reference_colour("파란색").unwrap();
        assert_eq!(
            written_as_reference("파란색", &want, "하늘이 파랗네요").as_deref(),
            Some("하늘이 파란색이네요")
        );
        assert_eq!(
            written_as_reference("파란색", &want, "파랗습니다").as_deref(),
            Some("파란색입니다")
        );
        // Another colour is left as written, and no rewrite is none.
        let want = reference_colour("red").unwrap();
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
