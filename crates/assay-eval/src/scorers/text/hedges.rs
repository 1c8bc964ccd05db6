//! Where a reply offers the answer with another, or takes it back: "a cat or possibly a fox",
//! "キツネかタヌキ", "고양이 아니면 강아지", "…気もするし、…", a bare list of things, a first
//! impression corrected. The short-answer scorer reads a reference found only in such places as
//! no answer; the choice scorer reads an option's text the same way.

/// "a cat or possibly a fox", "キツネかタヌキ", "고양이 또는 강아지": the reference joined by "or"
/// to another answer, so the reply commits to neither.
pub fn offered_with_another(pp: &str, s: usize, e: usize) -> bool {
    offered_with_another_in(pp, None, s, e)
}

/// [`offered_with_another`], given the reply without kana folding at the same offsets
/// (`nfkc_lower`), which tells a joining か from a katakana word's last カ ("アフリカ象").
pub fn offered_with_another_in(pp: &str, unfolded: Option<&str>, s: usize, e: usize) -> bool {
    use std::sync::OnceLock;
    static AFTER: OnceLock<regex::Regex> = OnceLock::new();
    static BEFORE: OnceLock<regex::Regex> = OnceLock::new();
    static ANIMYEON: OnceLock<regex::Regex> = OnceLock::new();
    static COPULA: OnceLock<regex::Regex> = OnceLock::new();
    let after = AFTER.get_or_init(|| {
        regex::Regex::new(r"^(?:\s*,?\s*(?:or|or possibly|or maybe|or perhaps|and/or)\s+\S|(?:\s*,\s*[^,.;!?]{1,30}){1,4}?\s*,?\s*\bor\s+\S|\s*(?:か|または|もしくは|あるいは)\s*[^\sでもなの。、とねよしか？?」]|\s*(?:또는|혹은|아니면)\s|(?:이나|나)\s+\S|(?:이)?인지\s+[^.。!?\n]{1,24}?인지|(?:이)?(?:(?:인|일)\s*것\s*)?같기도\s*하(?:고|며|구)|と[^。、.]{1,12}?の(?:どちらか|いずれか|どっちか)|か(?:の|、)\s*(?:どちらか|いずれか|どっちか)|(?:の|な)?(?:ような|みたいな)?気もする(?:し|けど)|(?:だ|である)?かもしれない(?:し|けど)、)").expect("valid")
    });
    let before = BEFORE.get_or_init(|| {
        // "…のような気もするし、タヌキ", "고양이인 것 같기도 하고 여우": the second of two offered.
        // "They look like Adidas, but they could also be Nike": offered as a possibility too.
        regex::Regex::new(r"(?:\bor|\bor possibly|\bor maybe|\beither|\b(?:could|might|may)\s+(?:also|just as well|equally)\s+be|または|もしくは|あるいは|또는|혹은|気もする(?:し|けど)、?|かもしれない(?:し|けど)、?|같기도\s*하(?:고|며|구),?)\s*(?:a|an|the)?\s*$").expect("valid")
    });
    // "사이다 아니면 콜라", "사이다, 아니면 콜라", "…예요. 아니면 콜라일 수도": not "회원이 아니면
    // 안내 데스크에서" (if not a member), where a particle comes before it and no copula after.
    let animyeon = ANIMYEON.get_or_init(|| {
        regex::Regex::new(r"(?:^|[.。!?]\s*|(?P<w>\p{Hangul})\s*,?\s+)아니면\s*$").expect("valid")
    });
    // A copula or a hedge ("콜라인", "콜라일", "콜라예요", "너구리 같아요"), not the subject
    // particle ("후문이 열려").
    let copula = COPULA.get_or_init(|| {
        regex::Regex::new(
            r"^(?:인|일|예|입|이(?:에|었|야|다|고|지|라|겠)|요|\s*같|\s*[,.。!?]|\s*$)",
        )
        .expect("valid")
    });
    let from = super::char_boundary_after(pp, s.saturating_sub(24));
    let joined_before = animyeon.captures(&pp[from..s]).is_some_and(|c| {
        let particle = c
            .name("w")
            .is_some_and(|w| matches!(w.as_str(), "이" | "가"));
        !particle || copula.is_match(&pp[e..])
    });
    // "白かシルバー": か and a word in katakana or kanji after the reference, as written.
    let or_noun_after = unfolded.is_some_and(|u| {
        u.get(e..)
            .and_then(|r| r.strip_prefix('か'))
            .is_some_and(|r| {
                r.starts_with(|c: char| {
                    super::is_kanji(c) || ('\u{30a1}'..='\u{30fa}').contains(&c)
                })
            })
    });
    after.is_match(&pp[e..])
        || or_noun_after
        || before.is_match(&pp[from..s])
        || joined_before
        || unfolded.is_some_and(|u| u.get(from..s).is_some_and(noun_or_before))
}

/// "ピンクか紫", "ブタかイノシシ", "赤か紫": a hiragana か right after a noun (a katakana or
/// kanji word, or kana that is no adverb or question ending in か: 確か, 何か, わずか, どこか,
/// ですか). In the reply as written: the カ of "アフリカ象" is the word's own.
fn noun_or_before(before: &str) -> bool {
    const KANJI_ADVERBS: &[char] = &[
        '確', '何', '僅', '遥', '静', '豊', '細', '愚', '密', '仄', '俄', '誰',
    ];
    const NOT_NOUNS: &[&str] = &[
        "たし",
        "なに",
        "どこ",
        "いつ",
        "なぜ",
        "ほ",
        "わず",
        "はる",
        "しず",
        "ゆた",
        "おろ",
        "ひそ",
        "ほの",
        "にわ",
        "だれ",
        "まさ",
        "いくつ",
        "どれ",
        "いずれ",
        "なんだ",
        "です",
        "ます",
        "でしょう",
        "だろう",
        "どう",
        "の",
    ];
    let Some(word) = before.strip_suffix('か') else {
        return false;
    };
    match word.chars().last() {
        Some(c) if super::is_kanji(c) => !KANJI_ADVERBS.contains(&c),
        Some(c) if ('\u{30a1}'..='\u{30fa}').contains(&c) || c == 'ー' => true,
        Some(c) if ('\u{3041}'..='\u{3096}').contains(&c) => {
            !NOT_NOUNS.iter().any(|n| word.ends_with(n))
        }
        _ => false,
    }
}

/// "たぶんススキだと思うけど、オギかもしれない", "아마 고양이지만, 여우일 수도 있어요": another answer
/// offered as a possibility right after the one found.
pub fn another_offered_after(pp: &str, e: usize) -> bool {
    use std::sync::OnceLock;
    static R: OnceLock<regex::Regex> = OnceLock::new();
    R.get_or_init(|| {
        // "사이다예요. 아니면 콜라일 수도 있고요": the next sentence offers another; "It could be
        // a cat; it could also be a fox", "고양이일 수도 있고, 여우일 수도": the same sentence.
        regex::Regex::new(r"^[^。.!?\n]{0,16}?(?:(?:けど|けれど|が、|지만|는데)\s*[、,]?\s*[^。.!?\n]{0,10}?(?:[\p{Han}\p{Katakana}ー]+(?:かもしれ|かも知れ|かも[。、]|かも$)|\p{Hangul}+(?:일\s*수도|일지도))|[.。!?]\s*아니면\s*\p{Hangul}{1,8}(?:일\s*수도|일지도|인\s*것\s*같|일\s*거)|^[^.!?\n]{0,12}?[;,]\s*(?:(?:it|that)\s+)?(?:could|might|may)\s+(?:also|just as well)\s+be\b|^(?:일|이일)\s*수도\s*있고)")
            .expect("valid")
    })
    .is_match(&pp[e..])
}

/// A first impression the reply takes back: "looks like X, but", "at first ... X ... but
/// actually", "Xのように見えますが", "X 같지만", "X, no wait".
pub fn first_impression(pp: &str, s: usize, e: usize) -> bool {
    use std::sync::OnceLock;
    static BEFORE: OnceLock<regex::Regex> = OnceLock::new();
    static AFTER: OnceLock<regex::Regex> = OnceLock::new();
    static LATER: OnceLock<regex::Regex> = OnceLock::new();
    let before = BEFORE.get_or_init(|| {
        regex::Regex::new(r"(?:looks like|look like|seems like|at first|at first glance|i thought|initially|usually|normally|typically|conventionally|in general)[^.!?]{0,40}$|(?:一見|ぱっと見|見た目は|언뜻 보면|얼핏 보면)[^。.!?]{0,12}$").expect("valid")
    });
    let after = AFTER.get_or_init(|| {
        regex::Regex::new(r"^(?:\s*[,.]?\s*(?:no wait|wait,? no|actually,? no|no,? actually)|(?:の)?(?:ように|みたいに|っぽく)見え(?:ますが|るが|るけど)|に見え(?:ますが|るが|るけど)、?[^。]*?(?:だと思|でしょう|です)|(?:으)?로 보이지만|(?:だと|と)思いましたが|、?\s*と言いたいところ|라고 하고 싶지만|처럼 보이지만|\s*같지만|인 줄 알았는데|라고 생각했는데|[^.!?。\n]{0,30}?(?:\bbut\b|\bhowever\b|が、?|けど、?|지만,?)\s*(?:to be (?:exact|precise)|more precisely|strictly speaking|正確には|厳密には|正しくは|정확히는|정확히 말하면|엄밀히 말하면))").expect("valid")
    });
    let later = LATER.get_or_init(|| {
        regex::Regex::new(r"\bbut\b|\bactually\b|\bin fact\b|実は|実際は|しかし|ではなく|사실은|사실|알고 보니|하지만|그러나|아니라")
            .expect("valid")
    });
    let from = super::char_boundary_after(pp, s.saturating_sub(60));
    after.is_match(&pp[e..]) || (before.is_match(&pp[from..s]) && later.is_match(&pp[e..]))
}

/// A reply that is nothing but a list of three or more short nouns separated by commas ("apple,
/// banana, orange", "アイスクリーム、ケーキ、クッキー", "햄버거, 감자튀김, 콜라"), no sentence around
/// it; read as written (`nfkc_lower`), so kana that make a sentence show.
pub fn bare_list(written: &str) -> bool {
    const NOT_NOUNS: &[&str] = &[
        "it's", "it", "is", "are", "was", "not", "no", "yes", "maybe", "probably", "but", "so",
        "i", "and", "or", "perhaps", "possibly", "think",
    ];
    let body = written.trim().trim_end_matches(['.', '。', '!']);
    let items: Vec<&str> = body.split([',', '、']).map(str::trim).collect();
    let noun = |i: &&str| {
        if i.is_ascii() {
            let words: Vec<&str> = i.split_whitespace().collect();
            (1..=2).contains(&words.len())
                && words.iter().all(|w| {
                    w.chars().all(|c| c.is_ascii_alphabetic() || c == '-') && !NOT_NOUNS.contains(w)
                })
        } else {
            !i.is_empty()
                && i.chars().all(|c| {
                    super::is_kanji(c)
                        || super::is_hangul(c)
                        || ('\u{30a1}'..='\u{30fa}').contains(&c)
                        || c == 'ー'
                })
                && !i.ends_with(['요', '다', '까', '죠', '고', '며'])
        }
    };
    // Three at least: two may be a name and its place ("Tokyo, Japan").
    items.len() >= 3 && items.iter().all(noun)
}

/// Whether the reply ends by asking which of several things the question means ("Which woman
/// do you mean?", "どちらの方のことでしょうか", "어느 분을 말씀하시는지 알려 주시면"): it answers
/// about each and commits to none, as a hedge does.
pub fn asks_which_is_meant(pp: &str) -> bool {
    use std::sync::OnceLock;
    static R: OnceLock<regex::Regex> = OnceLock::new();
    // Which person or thing of several, not which part or what else ("傘のどの部分について",
    // "다른 소지품도 궁금하시면 어떤 것을"): an offer to say more follows an answer.
    let r = R.get_or_init(|| {
        regex::Regex::new(r"(?:\bwhich (?:one|person|people|man|woman|child|boy|girl|player|car|of (?:them|the \w+))\s+(?:do|did|are|were) you (?:mean|meant|referring to|asking about|asking)|\b(?:could|can) you (?:clarify|specify|tell me) which (?:one|person|man|woman|of)|\blet me know which (?:one|person|man|woman)|(?:どちらの|どの)(?:方|人|男性|女性|子)[^。？?]{0,12}(?:のこと|を指して|をお尋ね)|どなたのこと|どちらのこと|(?:어느|누구)\s*(?:분|쪽|사람)?[을를]?\s*(?:말씀하시는지|말씀하신|가리키시는지|물어보시는지|묻는지))").expect("valid")
    });
    let tail_from = super::char_boundary_after(pp, pp.len().saturating_sub(160));
    r.find_iter(&pp[tail_from..]).any(|m| {
        let at = tail_from + m.start();
        let line = &pp[pp[..at].rfind('\n').map_or(0, |i| i + 1)..at];
        // Quoted ("the speech bubble says: \"Which one do you mean?\""): the image's words.
        let quoted = line.matches('"').count() % 2 == 1
            || line.matches(['“', '「', '『']).count() > line.matches(['”', '」', '』']).count();
        // "…궁금하시면 어느 쪽을", "if you mean": an offer on a condition.
        let before = &line[super::char_boundary_after(line, line.len().saturating_sub(24))..];
        let conditional = ["면 ", "면", "ば", "if you", "なら"]
            .iter()
            .any(|c| before.trim_end().ends_with(c));
        !quoted && !conditional
    })
}

/// Whether a clause says what is reported or usual rather than what is seen ("according to the
/// sign", "案内によると", "안내문에 따르면", "usually", "平日は", "평일엔").
pub fn reported_or_usual(clause: &str) -> bool {
    // "평소처럼 … 열려 있어요", "as usual", "いつものように": now, as it usually is.
    static AS_USUAL: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let as_usual = AS_USUAL.get_or_init(|| {
        regex::Regex::new(
            r"(?i)\bas usual\b|평소(?:처럼|와\s*같이|대로)|いつも(?:の|どおり|通り)(?:ように)?",
        )
        .expect("valid")
    });
    let clause: &str = &as_usual.replace_all(clause, " ");
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(r"(?i)\baccording to\b|\b(?:usually|normally|typically|generally)\b|\bon (?:weekdays|weekends)\b|によると|によれば|普段|通常|いつもは|平日|週末|에 따르면|에 의하면|평소|보통|평일|주말")
            .expect("valid")
    })
    .is_match(clause)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::text::prepare;

    #[test]
    fn a_reply_that_asks_which_is_meant_commits_to_none() {
        for t in [
            "The woman on the left holds an umbrella and the one on the right an ice cream. Which woman do you mean?",
            "Two people are there. Could you clarify which person you are asking about?",
            "左の方は傘、右の方はアイスを持っています。どちらの方のことでしょうか？",
            "왼쪽 여자는 우산을, 오른쪽 여자는 아이스크림을 들고 있습니다. 어느 분을 말씀하시는지 알려 주시면 더 자세히 설명드릴게요.",
        ] {
            assert!(asks_which_is_meant(&prepare(t)), "{t}");
        }
        for t in [
            "The boy's speech bubble says: \"Which one do you mean?\"",
            "男性は右手に黒い傘を持っています。傘のどの部分について知りたいか教えていただければ、さらに詳しくお答えします。",
            "남자는 오른손에 검은 우산을 들고 있습니다. 우산 말고 다른 소지품도 궁금하시면 어떤 것을 말씀하시는지 알려 주세요.",
            "She is holding an ice cream.",
            "Which one is closer? The car is.",
            "どちらも持っていません。",
            "어느 쪽이든 상관없이 우산입니다.",
        ] {
            assert!(!asks_which_is_meant(&prepare(t)), "{t}");
        }
    }
}
