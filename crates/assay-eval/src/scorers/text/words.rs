//! Where a Japanese or Korean word begins and ends, so that containment is by word.
//!
//! Japanese and Korean are written without spaces between words, so a reference found inside
//! a reply may be part of a longer word: 京都 inside 東京都, 서울 inside 서울대학교. Rules, by the
//! script of the characters at each edge of the match (katakana read from the reply as written,
//! before folding to hiragana):
//! - a match that begins with a kanji must not follow a kanji; with a katakana, not a katakana;
//!   with Hangul, not Hangul (it begins a word);
//! - a match that ends with a kanji may be followed by an administrative suffix (大阪 in 大阪府,
//!   東京 in 東京都) but by no other kanji (京都大学, 東京駅) and by no katakana (東京タワー);
//!   ending with a katakana, by no katakana (リンゴジュース);
//! - a match that ends with Hangul must end its word, or be followed by a particle, a copula or
//!   an administrative suffix (서울에, 서울입니다, 부산광역시), never by more of a noun (서울대학교);
//! - hiragana edges are not checked (particles and inflections are hiragana).
//!
//! Why rules and not a morphological analyser: see docs/ARCHITECTURE.md ("Scorers").

use super::{char_at, char_before, is_hangul, is_hiragana, is_kanji, is_katakana};

/// Suffixes that name the same thing more precisely: 大阪府 is 大阪, 白色 is 白, 木製 is made of 木.
const JA_SUFFIXES: &str = "都道府県市区町村郡州省色製";

/// The titles among [`KO_FOLLOWERS`], which follow a person's name.
const KO_TITLES: &[&str] = &["님", "씨", "선생", "박사", "장군"];

const KO_FOLLOWERS: &[&str] = &[
    "은", "는", "이", "가", "을", "를", "에", "의", "도", "만", "로", "으로", "와", "과", "랑",
    "하고", "께", "보다", "처럼", "까지", "부터", "요", "입", "인", "일", "예", "였", "라", "다",
    "야", "고", "며", "나", "지", "네요", "에서", "에게", "한테", "같", "들", "님", "씨", "선생",
    "박사", "장군",
    // A Sino-Korean noun made a verb (정지해야 합니다, 정지합니다 for 정지): see
    // [`KO_VERB_MAKERS`].
    "하", "해", "했", "함", "합",
];

/// The followers of [`KO_FOLLOWERS`] that make a noun a verb: the verb must not be denied in its
/// clause ("행복해 보이지 않아요" is not 행복, "정지하지 말고" not 정지), and the noun is of two
/// syllables or more (말 is not in 말하면).
const KO_VERB_MAKERS: &[&str] = &["하", "해", "했", "함", "합"];

/// Whether a Korean clause beginning at `rest` denies its verb ("않", "못", "없", "아니").
fn ko_clause_denied(rest: &str) -> bool {
    let clause = rest
        .split(['.', ',', '!', '?', '\n', '。'])
        .next()
        .unwrap_or("");
    [
        "않",
        "못",
        "없",
        "아니",
        "안 ",
        "말고",
        "말아",
        "마세요",
        "마십시오",
    ]
    .iter()
    .any(|n| clause.contains(n))
}

/// Administrative suffixes (부산광역시 is 부산), allowed when they end the word or take a
/// particle (not 남대문시장, 개구리).
const KO_ADMIN: &[&str] = &[
    // Eras and dynasties name the same referent: "고려시대" is 고려.
    "시대",
    "왕조",
    "광역시",
    "특별자치시",
    "특별자치도",
    "특별시",
    "시",
    "도",
    "군",
    "구",
];

/// Nouns that, as the next word, make the reference a modifier: 사과 주스 is not 사과.
const KO_HEADS: &[&str] = &[
    "주스",
    "나무",
    "파이",
    "잼",
    "역",
    "시장",
    "공항",
    "대학교",
    "대학",
    "타워",
    "공원",
    "호텔",
    "빌딩",
    "다리",
    "항",
    "케이크",
    "농장",
    "가게",
    "모양",
    "색",
];

/// Byte ranges where `needle` occurs in `hay` as a word. `hay` and `needle` are prepared
/// ([`super::prepare`]); `script` is the reply before kana folding, with the same offsets.
///
/// `asked` is the question (prepared, or empty): a kanji suffix it uses itself is part of the
/// answer's form ("この駅は何駅ですか" → "新宿駅" names 新宿).
/// Whether `hay` names `noun`: in English as a whole word or its plural ("pen", "pens", not
/// "pencils"); in Japanese and Korean anywhere, before its particle.
pub fn names_word(hay: &str, noun: &str) -> bool {
    if !noun.is_ascii() {
        // A kana noun ends before a particle, not inside a longer word ("かっぷ" is not named
        // by "かっぷけーき": katakana folded to hiragana looks like a particle after it).
        let kana = noun
            .chars()
            .all(|c| is_hiragana(c) || is_katakana(c) || c == 'ー');
        return hay.match_indices(noun).any(|(i, _)| {
            let next = hay[i + noun.len()..].chars().next();
            !kana
                || next.is_none_or(|c| {
                    !(is_hiragana(c) || is_katakana(c) || c == 'ー')
                        || "はがをにものでとやへ".contains(c)
                })
        });
    }
    hay.match_indices(noun).any(|(i, _)| {
        let before_ok = !hay[..i].ends_with(|c: char| c.is_alphanumeric());
        let rest = &hay[i + noun.len()..];
        let rest = rest
            .strip_prefix("es")
            .or_else(|| rest.strip_prefix('s'))
            .unwrap_or(rest);
        before_ok && !rest.starts_with(|c: char| c.is_alphanumeric())
    })
}

pub fn occurrences(hay: &str, script: &str, needle: &str, asked: &str) -> Vec<(usize, usize)> {
    if needle.is_empty() {
        return Vec::new();
    }
    hay.match_indices(needle)
        .map(|(i, m)| (i, i + m.len()))
        .filter(|&(s, e)| starts_word(script, s) && ends_word(script, s, e, asked))
        .map(|(s, e)| (s, e + suffix_len(script, s, e)))
        .collect()
}

/// The length of the suffix a word found takes along (大阪府, 白色, 木製, 부산광역시), so that
/// what follows the word, a denial or another answer ("木製ではなく竹製"), follows the match.
fn suffix_len(script: &str, s: usize, e: usize) -> usize {
    match (char_before(script, e).filter(|_| e > s), char_at(script, e)) {
        (Some(last), Some(after)) if is_kanji(last) && is_kanji(after) => after.len_utf8(),
        (Some(last), Some(_)) if is_hangul(last) => KO_ADMIN
            .iter()
            .filter(|a| {
                script[e..].strip_prefix(**a).is_some_and(|r| {
                    r.is_empty()
                        || !r.starts_with(is_hangul)
                        || KO_FOLLOWERS.iter().any(|f| r.starts_with(f))
                })
            })
            .map(|a| a.len())
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}

/// "맑아요" for "맑음", "자전거를 타고 있습니다" for "자전거 타기": a Korean reference whose last
/// word is a predicate made a noun (-기, -음), found as that predicate's stem beginning a word and
/// followed by one of its endings, the reference's word before it (if any) right before, with a
/// particle. The span is the stem's, so a denial after it ("맑지 않아요") governs it. Contracted
/// forms (달려, 슬퍼) are not read.
pub fn korean_form_spans(hay: &str, needle: &str) -> Vec<(usize, usize)> {
    const ENDINGS: &[char] = &[
        '고', '는', '아', '어', '았', '었', '습', '다', '네', '지', '게', '며', '요', '은', '던',
        '겠',
    ];
    const PARTICLES: &[&str] = &[
        "을", "를", "이", "가", "에", "으로", "로", "에서", "은", "는",
    ];
    let words: Vec<&str> = needle.split_whitespace().collect();
    if words.is_empty() || words.len() > 2 || !words.iter().all(|w| w.chars().all(is_hangul)) {
        return Vec::new();
    }
    let last = words[words.len() - 1];
    let Some(stem) = last
        .strip_suffix('기')
        .or_else(|| last.strip_suffix('음'))
        .filter(|st| !st.is_empty())
    else {
        return Vec::new();
    };
    hay.match_indices(stem)
        .map(|(i, m)| (i, i + m.len()))
        .filter(|&(s, e)| {
            // "안 맑아요", "못 타요": the predicate negated before it.
            let negated = ["안 ", "못 "].iter().any(|n| hay[..s].ends_with(n));
            !char_before(hay, s).is_some_and(is_hangul)
                && char_at(hay, e).is_some_and(|c| ENDINGS.contains(&c))
                && !negated
        })
        .filter(|&(s, _)| {
            let Some(first) = words.len().checked_sub(2).map(|k| words[k]) else {
                return true;
            };
            let before = hay[..s].trim_end();
            let bare = PARTICLES
                .iter()
                .find_map(|p| before.strip_suffix(p).filter(|b| b.ends_with(first)))
                .unwrap_or(before);
            bare.ends_with(first)
                && !char_before(bare, bare.len() - first.len()).is_some_and(is_hangul)
        })
        .collect()
}

/// Where a name of three characters or more occurs written with a space or a middle dot
/// between its characters ("山田 太郎" for "山田太郎"), as forms and name tags write them; not in
/// Korean, where "이 수진 씨" is "this Sujin".
pub fn spaced_occurrences(
    hay: &str,
    script: &str,
    needle: &str,
    asked: &str,
) -> Vec<(usize, usize)> {
    // Not Korean: "이 수진 씨" is "this Sujin", not 이수진.
    if needle.chars().count() < 3
        || needle
            .chars()
            .any(|c| c.is_whitespace() || c.is_ascii() || super::is_hangul(c))
    {
        return Vec::new();
    }
    let pattern: Vec<String> = needle
        .chars()
        .map(|c| regex::escape(&c.to_string()))
        .collect();
    let Ok(r) = regex::Regex::new(&pattern.join("[ 　・]?")) else {
        return Vec::new();
    };
    r.find_iter(hay)
        .map(|m| (m.start(), m.end()))
        .filter(|&(s, e)| hay[s..e].contains([' ', '　', '・']))
        .filter(|&(s, e)| starts_word(script, s) && ends_word(script, s, e, asked))
        .collect()
}

/// Where the reference ends a compound word of its own script ([`ends_a_compound`]) and is
/// found no other way: a kind of it ("富士山" is a 山) or another thing ("自転車" is no 車,
/// "フライパン" no パン), which rules cannot tell apart, so the scorer flags the match unsure.
pub fn compound_ends(hay: &str, script: &str, needle: &str, asked: &str) -> Vec<(usize, usize)> {
    if needle.is_empty() {
        return Vec::new();
    }
    hay.match_indices(needle)
        .map(|(i, m)| (i, i + m.len()))
        .filter(|&(s, e)| {
            !starts_word(script, s)
                && ends_a_compound(script, needle, s, e)
                && ends_word(script, s, e, asked)
        })
        .collect()
}

/// Japanese compounds put their head last: "富士山" is a 山, "シロクマ" a クマ, "黒猫" a 猫. A
/// reference may end a word of its own script when it is one kanji, or two or more katakana and
/// the katakana word ends with it. Two kanji stay whole words ("京都" is not in "東京都": a
/// place is not a kind). Korean heads of two syllables or more may end a word after a modifier
/// of two or more ("덤프트럭" is a 트럭); "대문" is not in "동대문", a landmark's name.
fn ends_a_compound(script: &str, needle: &str, s: usize, e: usize) -> bool {
    let (Some(first), Some(before)) = (char_at(script, s), char_before(script, s)) else {
        return false;
    };
    let n = needle.chars().count();
    let after = char_at(script, e);
    // Modifiers that make another thing of the head: 木馬 and 竹馬 are toys, 海豚 and 海馬 sea
    // animals; 바다사자 is a sea lion, 장난감 자동차 a toy.
    if is_kanji(first) && is_kanji(before) {
        return n == 1 && !"木竹紙海縫".contains(before);
    }
    if is_katakana(first) && is_katakana(before) {
        return n >= 2 && !after.is_some_and(is_katakana);
    }
    // Korean: a head of two or more syllables after a modifier of two or more ("덤프트럭",
    // "북극곰" is left: one syllable), so "동대문" (one-syllable 동) keeps 대문 whole.
    if is_hangul(first) && is_hangul(before) && n >= 2 {
        let modifier: String = script[..s]
            .chars()
            .rev()
            .take_while(|c| is_hangul(*c))
            .collect::<Vec<char>>()
            .into_iter()
            .rev()
            .collect();
        return modifier.chars().count() >= 2
            && !["바다", "장난감", "인형", "종이", "풍선"]
                .iter()
                .any(|m| modifier.ends_with(m));
    }
    false
}

fn starts_word(script: &str, s: usize) -> bool {
    let (Some(first), Some(before)) = (char_at(script, s), char_before(script, s)) else {
        return true;
    };
    if first.is_ascii_alphanumeric() {
        return !before.is_ascii_alphanumeric();
    }
    if is_kanji(first) {
        return !is_kanji(before);
    }
    if is_katakana(first) {
        return !is_katakana(before);
    }
    if is_hangul(first) || is_kanji(first) {
        // "공 3개", "3匹": a counter after a digit, not the word.
        if before.is_ascii_digit() {
            return false;
        }
    }
    if is_hangul(first) {
        return !is_hangul(before);
    }
    true
}

fn ends_word(script: &str, s: usize, e: usize, asked: &str) -> bool {
    let Some(last) = char_before(script, e).filter(|_| e > s) else {
        return true;
    };
    let Some(after) = char_at(script, e) else {
        return true;
    };
    if last.is_ascii_alphanumeric() {
        return !after.is_ascii_alphanumeric();
    }
    if is_kanji(last) {
        // "水玉模様", "水玉柄" asked a pattern: a pattern named with the word for pattern (not
        // "花柄のテーブルクロス" asked what is on the table).
        let pattern = ["模様", "柄"].iter().any(|k| script[e..].starts_with(k))
            && ["模様", "柄"].iter().any(|k| asked.contains(k));
        // "野口英世博士", "夏目漱石先生": a title after a name.
        // Only when a person is asked: 大仏殿 is a hall, not 大仏 with a title.
        let title = ["博士", "先生", "教授", "氏", "様", "殿"]
            .iter()
            .any(|t| script[e..].starts_with(t))
            && super::asks::asks_person(asked);
        let suffix = JA_SUFFIXES.contains(after)
            || (is_kanji(after) && asked.contains(after))
            || pattern
            || title;
        // "ゴミ箱アイコン", "歯車マーク": a screen's control named with its kind is the control.
        let control = ["アイコン", "マーク", "ボタン", "メニュー", "タブ", "キー"]
            .iter()
            .any(|k| script[e..].starts_with(k));
        let another_word = (is_katakana(after) && !control) || (is_kanji(after) && !suffix);
        return !another_word;
    }
    if is_katakana(last) {
        return !is_katakana(after);
    }
    if is_hangul(last) {
        let rest = &script[e..];
        // A head noun the question itself uses ("무슨 역입니까?" → "서울역") is the answer's form.
        let head = |h: &&&str| !asked.contains(**h);
        // "세종대로23길": a side street numbered off the road is another road.
        let numbered = rest.trim_start();
        let side_street = numbered.starts_with(|c: char| c.is_ascii_digit()) && {
            let r = numbered.trim_start_matches(|c: char| c.is_ascii_digit());
            r.starts_with('길') || r.starts_with("번길")
        };
        if side_street {
            return false;
        }
        if !is_hangul(after) {
            let next = rest.trim_start_matches(' ');
            return !(rest.starts_with(' ')
                && (KO_HEADS.iter().filter(head).any(|h| word_is(next, h))
                    || ko_head_with_copula(next, asked)));
        }
        if KO_HEADS.iter().filter(head).any(|h| rest.starts_with(h)) {
            return false;
        }
        // A title ("님", "씨") only when a person is asked: 호박씨 is a seed.
        // The question is read only when a title follows (most words end otherwise).
        let particle = |r: &str| {
            r.is_empty()
                || !r.starts_with(is_hangul)
                || KO_FOLLOWERS.iter().any(|f| {
                    r.starts_with(f)
                        && (!KO_TITLES.contains(f) || super::asks::asks_person(asked))
                        && (!KO_VERB_MAKERS.contains(f)
                            || (script[s..e].chars().count() >= 2 && !ko_clause_denied(r)))
                })
        };
        return particle(rest)
            || KO_HEADS
                .iter()
                .filter(|h| asked.contains(**h))
                .any(|h| rest.strip_prefix(h).is_some_and(particle))
            || KO_ADMIN
                .iter()
                .any(|a| rest.strip_prefix(a).is_some_and(particle));
    }
    // "いちご大福です" is a 大福, not a いちご: a kana word followed by a kanji noun that ends
    // the sentence is that noun's modifier (a kanji suffix the question uses is the answer's).
    if is_hiragana(last) && script[s..e].chars().all(is_hiragana) && is_kanji(after) {
        let rest = &script[e..];
        let run = rest.len() - rest.trim_start_matches(is_kanji).len();
        let noun = &rest[..run];
        // The noun then a copula, a particle or the end ("いちご大福が二つ", "いちご牛乳のようです",
        // "もも大福でしょうか"); not a count ("りんご三個").
        const NEXT: &[&str] = &[
            "です",
            "でした",
            "でしょう",
            "だ",
            "。",
            ".",
            "のよう",
            "みたい",
            "が",
            "を",
            "は",
            "も",
            "に",
            "と",
        ];
        let ends = NEXT.iter().any(|c| rest[run..].starts_with(c)) || rest[run..].trim().is_empty();
        let count = noun.starts_with(|c: char| "一二三四五六七八九十百千万何数両".contains(c));
        let suffix = noun
            .chars()
            .all(|c| JA_SUFFIXES.contains(c) || asked.contains(c));
        return !ends || suffix || count;
    }
    true
}

/// "곰 인형이에요", "사과 주스입니다": the next word is a noun that takes the copula and ends the
/// sentence, so the reference before it is its modifier; not a counted noun ("곰 두 마리예요"),
/// a title ("김연아 선수예요") or a word the question uses.
fn ko_head_with_copula(next: &str, asked: &str) -> bool {
    use std::sync::OnceLock;
    const SAME: &[&str] = &[
        "씨",
        "님",
        "선수",
        "선생님",
        "장군",
        "대왕",
        "왕",
        "대통령",
        "교수",
        "박사",
        "감독",
        "작가",
        "경기",
        "게임",
        "시합",
        "새끼",
        "종류",
        "계열",
        "가족",
        "무리",
        "떼",
        "것",
        "거",
        "마리",
        "개",
        "명",
        "대",
        "분",
        "시대",
        "왕조",
        "지역",
        "쪽",
        "편",
        "맛",
        "색",
    ];
    static R: OnceLock<regex::Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        regex::Regex::new(
            r"^(\p{Hangul}{1,4}?)(?:이에요|예요|입니다|이다|이야|이죠|이네요|였어요|이었어요)\s*(?:[.!?。~～…]|$)",
        )
        .expect("valid")
    });
    r.captures(next).is_some_and(|c| {
        let noun = &c[1];
        !SAME.contains(&noun) && !asked.contains(noun)
    })
}

/// Whether `s` begins with the word `w` (followed by a particle, a space or the end).
fn word_is(s: &str, w: &str) -> bool {
    s.strip_prefix(w).is_some_and(|r| {
        r.is_empty() || !r.starts_with(is_hangul) || KO_FOLLOWERS.iter().any(|f| r.starts_with(f))
    })
}

#[cfg(test)]
mod tests {
    use super::super::{nfkc_lower, prepare};
    use super::*;

    fn found(reply: &str, reference: &str) -> bool {
        !occurrences(&prepare(reply), &nfkc_lower(reply), &prepare(reference), "").is_empty()
    }

    #[test]
    fn japanese_words() {
        assert!(!found("東京都です", "京都"));
        assert!(found("大阪府です", "大阪"));
        assert!(found("答えは東京です", "東京"));
        assert!(!found("京都大学です", "京都"));
        assert!(!found("東京タワーです", "東京"));
        assert!(!found("白地に紺のドット柄、いわゆる水玉模様です。", "水玉"));
        assert!(!occurrences(
            &prepare("いわゆる水玉模様です。"),
            &nfkc_lower("いわゆる水玉模様です。"),
            &prepare("水玉"),
            &prepare("このスカートの柄は何ですか？")
        )
        .is_empty());
        assert!(!found("세종대로 23길이라고 적혀 있어요", "세종대로"));
        assert!(!found("道路名は세종대로23길です", "세종대로"));
        assert!(found("세종대로에 있어요", "세종대로"));
        assert!(!found("リンゴジュースです", "りんご"));
        assert!(found("リンゴです", "りんご"));
        assert!(found("これはねこです", "ネコ"));
        assert!(found("白色です", "白"));
        assert!(!found("いちご大福です。", "いちご"));
        assert!(!found("いちご大福が二つ入っています。", "いちご"));
        assert!(!found("いちご牛乳のようです。", "いちご"));
        assert!(found("りんご三個です。", "りんご"));
        assert!(found("いちごです。", "いちご"));
        assert!(occurrences("東京駅です", "東京駅です", "東京", "").is_empty());
        assert!(!occurrences("新宿駅です", "新宿駅です", "新宿", "この駅は何駅ですか").is_empty());
    }

    #[test]
    fn korean_words() {
        assert!(found("서울에 있습니다", "서울"));
        assert!(found("서울이에요", "서울"));
        assert!(found("부산광역시입니다", "부산"));
        assert!(!found("서울대학교입니다", "서울"));
        assert!(!found("동대문입니다", "대문"));
        assert!(!found("남대문시장입니다", "남대문"));
        assert!(!found("개구리입니다", "개"));
        assert!(!found("사과 주스예요", "사과"));
        let forms = |hay: &str, needle: &str| !korean_form_spans(hay, needle).is_empty();
        assert!(forms("맑아요. 구름 한 점 없어요.", "맑음"));
        assert!(forms("남자는 자전거를 타고 있습니다.", "자전거 타기"));
        assert!(forms("강변을 달리고 있어요.", "달리기"));
        assert!(!forms("남자는 오토바이를 타고 있습니다.", "자전거 타기"));
        assert!(!forms("타이어가 보여요.", "타기"));
        assert!(!forms("공원에서 조깅하고 있어요.", "달리기"));
        assert!(!found("곰 인형이에요.", "곰"));
        assert!(!found("곰 인형이에요~", "곰"));
        assert!(found("이순신 장군이에요.", "이순신"));
        assert!(found("축구 경기예요.", "축구"));
        assert!(found("곰 두 마리예요.", "곰"));
        assert!(found("김연아 선수입니다.", "김연아"));
        assert!(found("곰이 앉아 있어요.", "곰"));
        assert!(found("사과 두 개", "사과"));
        assert!(!found("공 3개가 있습니다", "개"));
        assert!(!occurrences(
            "서울역입니다",
            "서울역입니다",
            "서울",
            "이 역은 무슨 역입니까"
        )
        .is_empty());
    }
}

#[cfg(test)]
mod names_word_tests {
    #[test]
    fn a_noun_as_a_word_or_its_plural() {
        assert!(super::names_word("no pens here", "pen"));
        assert!(super::names_word("not a single pen.", "pen"));
        assert!(!super::names_word("3 pencils", "pen"));
        assert!(!super::names_word("a happen", "pen"));
        assert!(super::names_word("boxes", "box"));
        assert!(super::names_word("りんごはありません", "りんご"));
        assert!(!super::names_word("かっぷけーきはありません", "かっぷ"));
        assert!(super::names_word("かっぷは3個", "かっぷ"));
    }
}
