//! Negation scope: a denial removes only what it governs.
//!
//! - English: a negator (not, no, never, neither, nor, without, except, n't, rather than, instead
//!   of, other than) governs what follows it up to the end of its clause (a comma, a full stop,
//!   "but", "however", "though", "so", "yet"...): in "It's green, not yellow" it governs "yellow"
//!   and not "green"; in "The car is red. There is no bicycle." it governs "bicycle". A verdict
//!   after a word denies it as well: "Tokyo is not correct", "C is wrong".
//! - Japanese puts the denial after what it denies: 「東京ではなく」「猫はいません」「赤くない」
//!   (adjective negation), 「Bとは違います」「Bは不正解」.
//! - Korean likewise: 「서울이 아니라」「고양이는 없습니다」「빨갛지 않다」「B는 틀렸다」.
//!
//! All offsets are byte offsets into a text prepared by [`super::prepare`].

use std::sync::OnceLock;

use regex::Regex;

use super::is_clause_mark;

/// Words that end the reach of an English negator (a new clause begins).
const CLAUSE_WORDS: &[&str] = &[
    "but",
    "however",
    "though",
    "although",
    "so",
    "yet",
    "whereas",
    "while",
    "because",
    "and",
    "then",
    "therefore",
    "thus",
    "hence",
    "instead",
];

const NEGATORS: &[&str] = &[
    "not",
    "no",
    "never",
    "neither",
    "nor",
    "without",
    "except",
    "cannot",
    "excluding",
    "doubt",
];

fn after_rules() -> &'static [(Regex, &'static str)] {
    static R: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    R.get_or_init(|| {
        [
            (
                r#"^\s*[)\]"'’*]*\s*(?:is|was|are|seems|looks|appears|would\s+be|does|do)?\s*(?:definitely\s+|clearly\s+|certainly\s+|surely\s+|probably\s+|obviously\s+)?(?:not|n['’]?t)\s+(?:correct|right|the\s+(?:correct\s+|right\s+|best\s+|final\s+)?(?:answer|option|choice|one)|it|true|accurate|the\s+case|likely|shown|visible|present|there|possible)\b"#,
                "a verdict after it denies it",
            ),
            (
                r#"^\s*[)\]"'’*]*\s*(?:is|was|are|seems?|looks?|appears?|would\s+be)?\s*(?:definitely\s+|clearly\s+|also\s+|both\s+|all\s+|quite\s+|very\s+|rather\s+)?(?:wrong|incorrect|false|unlikely|ruled\s+out|excluded|eliminated|out(?:\s|[.,;!]|$))"#,
                "a verdict after it denies it",
            ),
            (
                r#"^\s*[)\]"'’*]*\s*(?:can|could|should|must)\s+be\s+(?:ruled\s+out|eliminated|excluded|rejected)"#,
                "a verdict after it denies it",
            ),
            (
                r#"^\s*[)\]"'’*]*\s*(?:(?:does|do)(?:n['’]?t|\s+not)\s+(?:fit|match|apply|work|make sense|seem (?:right|correct|likely)|look (?:right|correct))|can(?:['’]?t|not)\s+be\s+(?:right|correct|it|the\s+answer)|is\s+out\b)"#,
                "a verdict after it denies it",
            ),
            (
                // A noun's short head or 行き and a pause may stand between ("ツナ缶……ではなく",
                // "渋谷駅行きではありません").
                // "「用紙がありません」という表示ではありません": what it is said to be, denied.
                r"^(?:\p{Han}{0,2}き|\p{Han}{1,2})?[.…‥\s]*[)）\]」』*]*\s*(?:という\p{Han}{0,4})?(?:では|でも|じゃ|で|とは|には|にも|と|は|が|も)?\s*(?:絶対に?|決して|明らかに|全く|まったく)?\s*(?:見え(?:ない|ません|なかっ)|考えにく|ない|なく|なかっ|なさ|ありません|ございません|違[うい]|違いま|ちが[うい]|いない|いません|いなかっ|見当たら(?:な|ず)|見当たりません|見つかりません|不正解|誤|間違[っえ]|間違い(?:[^なあ]|$)|正しくな|正しくありません|あてはまらな|当てはまらな|当てはまりません|あてはまりません|合わな|合いません)",
                "a Japanese denial follows it",
            ),
            (
                r"^\s*[)）\]」』*]*\s*(?:は|が)\s*(?:正解|答え|適切|正しい答え)\s*(?:では|じゃ)\s*(?:ない|なく|ありません)",
                "a Japanese denial follows it",
            ),
            (
                // "「保存しない」": a する verb denied; "位置1は新月なので違います": a verdict that
                // ends the sentence whose subject it is.
                r"^(?:し|せ)(?:ない(?:[^とけ]|$)|ません|ず)|^\s*は[^。!?\n]{0,20}?(?:ので|から)、?\s*(?:違います|違う(?:[。.!]|$)|不正解|誤りです)",
                "a Japanese denial of it ends its sentence",
            ),
            (
                r"^く(?:は|も)?(?:ない|なく|なかっ|ありません)",
                "a Japanese adjective negation follows it",
            ),
            (
                r"^\s*でも[^。、.]{1,16}?でも(?:ない|なく|ありません|ございません)|^\s*(?:이|가)?도\s*[^.。]{1,16}?도\s*아니",
                "denied together with another (AでもBでもない, A도 B도 아니다)",
            ),
            (
                r"^\s*[)）\]*'’”」』\x22]*\s*(?:이|가|은|는|도|이라|라)?\s*(?:절대|절대로|확실히|분명히|결코|전혀)?\s*(?:아니(?:[^면]|$)|아닌|아닐|아닙|아님|아냐|없|틀(?:[^림]|$)|오답|보이지\s*않|안\s*보|(?:이)?라고\s*(?:하기|보기|말하기)(?:는|가|도)?\s*(?:어려|어렵|힘들|힘드)|가능성이\s*(?:낮|없)|정답이 아니|정답이\s*아닙|맞지 않|맞지않|옳지 않|적절하지 않)",
                "a Korean denial follows it",
            ),
            (
                r"^(?:지|지는|지도)\s*(?:않|못)",
                "a Korean verb negation follows it",
            ),
        ]
        .iter()
        .map(|(p, why)| (Regex::new(p).expect("valid pattern"), *why))
        .collect()
    })
}

/// Whether the text denies anything at all: an English negator or "n't", or a Japanese or
/// Korean denial. For rules that cannot trace a denial's scope word by word.
pub fn has_denial(p: &str) -> bool {
    p.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .any(|w| NEGATORS.contains(&w) || w.ends_with("n't") || w.ends_with("n’t"))
        || [
            "ない",
            "なく",
            "ません",
            "違",
            "아니",
            "아닌",
            "않",
            "없",
            "못",
        ]
        .iter()
        .any(|n| p.contains(n))
}

/// Whether a denial governs the words at `start..end` of `p`, and which.
pub fn denied(p: &str, start: usize, end: usize) -> Option<&'static str> {
    if negator_before(p, start) {
        return Some("a negator before it in its clause");
    }
    denied_after(p, end).or_else(|| denied_with_next(p, end))
}

/// "白や黒ではなく", "흰색과 검은색이 아니라", "猫や犬ではありません": the first of two things a
/// denial after the second governs together.
fn denied_with_next(p: &str, end: usize) -> Option<&'static str> {
    static JOIN: OnceLock<Regex> = OnceLock::new();
    static COPULA: OnceLock<Regex> = OnceLock::new();
    let join = JOIN.get_or_init(|| Regex::new(r"^(?:や|と|과|와|하고|랑|이나)\s*").expect("valid"));
    // Only a denial of what the things are ("ではない", "이 아니라"), not of a verb ("猫と遊んで
    // いない" denies the playing).
    let copula = COPULA.get_or_init(|| {
        Regex::new(
            r"^\s*(?:では|じゃ)\s*(?:ない|なく|ありません|ございません)|^\s*(?:이|가)?\s*아니",
        )
        .expect("valid")
    });
    let j = join.find(&p[end..])?;
    let from = end + j.end();
    // The next thing: a word in one script, then that denial.
    p[from..]
        .char_indices()
        .take(9)
        .skip(1)
        .map(|(i, _)| from + i)
        .find(|&k| {
            // Kana folded: "たぬき" is タヌキ.
            p[from..k].chars().all(|c| {
                super::is_kanji(c)
                    || super::is_hangul(c)
                    || super::is_katakana(c)
                    || ('\u{3041}'..='\u{3096}').contains(&c)
                    || c == 'ー'
            }) && copula.is_match(&p[k..])
        })
        .map(|_| "denied together with the next thing (XやYではない, X과 Y이 아니라)")
}

/// Whether a denial follows the words ending at `end` ("C is wrong", "Cではなく").
pub fn denied_after(p: &str, end: usize) -> Option<&'static str> {
    let rest = &p[end..];
    // "ツナ以外ない", "A以外には考えにくい": nothing but it, so it.
    if rest.trim_start().starts_with("以外") {
        return None;
    }
    // "Cではないか", "猫ではないでしょうか": a polite way of saying it is.
    if tentative().is_match(rest) {
        return None;
    }
    after_rules()
        .iter()
        .find(|(re, _)| re.is_match(rest))
        .map(|(_, why)| *why)
}

/// Whether the words at `start..end` are set aside for another answer, not only denied: "not X
/// but Y", "Not X — Y", "It's not X, it's Y", "XではなくY", "X이 아니라 Y". The reply has then
/// answered Y; a later mention of X names the thing ("the left arrow is for the harbour"), not
/// the answer.
pub fn corrected(p: &str, start: usize, end: usize) -> bool {
    static AFTER: OnceLock<Regex> = OnceLock::new();
    static ENGLISH: OnceLock<Regex> = OnceLock::new();
    let after = AFTER.get_or_init(|| {
        Regex::new(r"^\s*[)）\]」』*]*\s*(?:では|じゃ|で)\s*(?:なく|なくて)\s*[、,]?\s*[^\s。.!?]|^\s*[)）\]*'’”」』\x22]*\s*(?:이|가)?\s*아니(?:라|고)(?:\s+|\s*,\s*)\S")
            .expect("valid")
    });
    let english = ENGLISH.get_or_init(|| {
        Regex::new(r#"^\s*[)\]"'’*]*\s*(?:[,;—–]|\s-\s|\bbut\b)\s*\S"#).expect("valid")
    });
    if after.is_match(&p[end..]) {
        return true;
    }
    // English: "not" (or "not a/the") right before it, another statement right after it.
    let before: Vec<&str> = p[..start]
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .rev()
        .take(2)
        .collect();
    let not_right_before = match before.as_slice() {
        ["not", ..] => true,
        [a, "not", ..] => matches!(*a, "a" | "an" | "the"),
        _ => false,
    };
    not_right_before && english.is_match(&p[end..])
}

fn tentative() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            // "…ではないか", and Korean "회색이 아닌가 싶고", "회색이 아닐까 싶어요": a guess that it is.
            // "緑ないし青緑": ないし right after a noun is "or", no denial.
            r"^\s*[)）\]」』*]*\s*(?:(?:では|じゃ)(?:ない|ありません)(?:か|でしょうか|かな|だろうか)|(?:이|가)?\s*(?:아닌가|아닐까)\s*(?:싶|해|합|하는|생각)|(?:이|가)?\s*아닐\s*리가?\s*없|ないし)",
        )
        .expect("valid")
    })
}

/// A clause mark that ends a negator's reach; brackets and quotes do not ("not (A)").
fn ends_negation(c: char) -> bool {
    is_clause_mark(c) && !matches!(c, '(' | ')' | '[' | ']' | '"' | '「' | '」' | '『' | '』')
}

/// Whether an English negator stands before `start` in the same clause.
fn negator_before(p: &str, start: usize) -> bool {
    let before = &p[..start];
    let clause_start = before
        .char_indices()
        .rev()
        .find(|(_, c)| ends_negation(*c))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let clause = &before[clause_start..];
    let words: Vec<&str> = clause
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .collect();
    // Only the words after the last clause word belong to this clause; an "and" or "or" right
    // before the words joins them to the thing before ("They aren't apples and pears").
    let last = words.len().saturating_sub(1);
    let from = words
        .iter()
        .enumerate()
        .rev()
        .find(|(i, w)| CLAUSE_WORDS.contains(w) && !(*i == last && matches!(**w, "and" | "or")))
        .map(|(i, _)| i + 1)
        .unwrap_or(0);
    let words = &words[from..];
    words.iter().enumerate().any(|(i, w)| {
        let w = w.trim_matches(|c| c == '\'' || c == '’');
        // "no doubt", "without a doubt": a double negative affirms.
        let doubted = |k: usize| {
            words.get(k).is_some_and(|n| *n == "doubt")
                || (words.get(k).is_some_and(|n| *n == "a")
                    && words.get(k + 1).is_some_and(|n| *n == "doubt"))
        };
        if matches!(w, "no" | "without") && doubted(i + 1) {
            return false;
        }
        if w == "doubt" && i > 0 && matches!(words[i - 1], "no" | "without" | "a") {
            return false;
        }
        NEGATORS.contains(&w)
            || w.ends_with("n't")
            || w.ends_with("n’t")
            || matches!(
                w,
                "isnt" | "dont" | "doesnt" | "arent" | "wasnt" | "cant" | "wont"
            )
            || (matches!(w, "than" | "of")
                && i > 0
                && matches!(words[i - 1], "rather" | "instead" | "other"))
            // "Far from sunny".
            || (w == "from" && i > 0 && words[i - 1] == "far")
    })
}

/// Whether a denial governs `needle` wherever it occurs in `p` (each occurrence denied).
#[cfg(test)]
fn all_denied(p: &str, needle: &str) -> bool {
    p.match_indices(needle)
        .all(|(i, m)| denied(p, i, i + m.len()).is_some())
}

#[cfg(test)]
mod tests {
    use super::super::prepare;
    use super::*;

    fn d(text: &str, word: &str) -> bool {
        let p = prepare(text);
        all_denied(&p, &prepare(word))
    }

    #[test]
    fn english_negators_reach_to_the_end_of_their_clause() {
        assert!(!d("It's green, not yellow.", "green"));
        assert!(d("It's green, not yellow.", "yellow"));
        assert!(d("Not Tokyo but Osaka", "tokyo"));
        assert!(!d("Not Tokyo but Osaka", "osaka"));
        assert!(!d("The car is red. There is no bicycle.", "red"));
        assert!(d("The car is red. There is no bicycle.", "bicycle"));
        assert!(d("I don't think it is Tokyo", "tokyo"));
        assert!(!d("I'm not sure, but I think it is Tokyo", "tokyo"));
        assert!(d("It is yellow rather than green", "green"));
        assert!(!d("It is yellow rather than green", "yellow"));
        assert!(d("Tokyo is not correct.", "tokyo"));
        assert!(d("C is wrong, so D.", "c"));
        assert!(!d("No, it is Tokyo.", "tokyo"));
        assert!(d("The answer is B, not (A)", "(a)"));
    }

    #[test]
    fn japanese_and_korean_denials_follow_what_they_deny() {
        assert!(d("東京ではなく大阪です", "東京"));
        assert!(!d("東京ではなく大阪です", "大阪"));
        assert!(d("ツナ缶……ではなく、サバの水煮缶です。", "ツナ"));
        assert!(d("渋谷駅行きではありません。", "渋谷駅"));
        assert!(d(
            "「用紙がありません」という表示ではありません。",
            "用紙がありません"
        ));
        assert!(!d("ツナ缶です。サバではありません。", "ツナ"));
        assert!(!d("ツナ以外には考えにくいです。", "ツナ"));
        assert!(d("赤くないです", "赤"));
        assert!(d("猫はいません", "猫"));
        assert!(d("Bとは違います", "b"));
        assert!(!d("東京では雨です", "東京"));
        assert!(d("서울이 아니라 부산입니다", "서울"));
        assert!(!d("서울이 아니라 부산입니다", "부산"));
        assert!(d("고양이는 없습니다", "고양이"));
        assert!(d("A가 아닌 B", "a"));
        assert!(!d("B 아니면 D", "b"));
        assert!(!d("Cで間違いないでしょう", "c"));
        assert!(d("Cは間違いです", "c"));
        assert!(!d("Bに違いない", "b"));
        assert!(d("C는 절대 아니에요", "c"));
        assert!(d("I doubt it's C", "c"));
        assert!(!d("No doubt it's C", "c"));
        assert!(!d("Cではないかと思います", "c"));
        assert!(d("Aは正解ではありません", "a"));
        assert!(d("A는 맞지 않습니다", "a"));
        assert!(d("B doesn't fit.", "b"));
    }

    fn c(text: &str, word: &str) -> bool {
        let p = prepare(text);
        let w = prepare(word);
        p.match_indices(&w)
            .next()
            .is_some_and(|(i, m)| corrected(&p, i, i + m.len()))
    }

    #[test]
    fn a_correction_sets_aside_what_it_replaces_and_a_plain_denial_does_not() {
        assert!(c("Not left — the arrow points right.", "left"));
        assert!(c("It's not left, it's right.", "left"));
        assert!(c("not the bus but the train", "bus"));
        assert!(c("金曜日ではなく木曜日です。", "金曜日"));
        assert!(c("금요일이 아니라 목요일입니다.", "금요일"));
        assert!(c("금요일이 아니고 목요일", "금요일"));
        // Denied without another answer, or not right before it.
        assert!(!c("It's not left.", "left"));
        assert!(!c("There is no left turn here.", "left"));
        assert!(!c("Not only the bus, but also the train.", "bus"));
        assert!(!c("금요일이 아닙니다.", "금요일"));
        assert!(!c("金曜日ではありません。", "金曜日"));
        assert!(!c(
            "빨간색이 아니라고 생각할 수도 있지만, 분명히 빨간색입니다.",
            "빨간색"
        ));
    }
}
