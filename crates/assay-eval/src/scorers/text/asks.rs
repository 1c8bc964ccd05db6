//! What a question asks, read from its asking clause: a prohibition ("What is prohibited?"),
//! what is allowed, an emptiness ("Is the car park empty?"); and the reply's forms that answer
//! them ("No swimming", "駐輪禁止", "한 대도 없어요"); whether a value's label names the opposite
//! of the event asked ("closes at 8:00 PM" for when the store opens).

/// A regular expression built the first time it is asked about.
struct Pattern(std::sync::OnceLock<regex::Regex>);

impl Pattern {
    const fn new() -> Self {
        Pattern(std::sync::OnceLock::new())
    }

    fn matches(&self, pattern: &str, text: &str) -> bool {
        self.0
            .get_or_init(|| regex::Regex::new(pattern).expect("valid"))
            .is_match(text)
    }
}

/// The part of a question that asks: its last sentence with a question word (not a format
/// instruction after it: "Answer the question using a single word or phrase.", "数字だけで答えて
/// ください"), without the conditions that open it ("値札の割引を適用すると、支払う金額は定価の何%"
/// asks the share paid; "Swimming is prohibited here. Which activity is permitted?" asks what is
/// allowed; "Which activity, according to the sign, is prohibited?" asks what is not).
pub fn asking_clause(q: &str) -> &str {
    static WH: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let wh = WH.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:what|which|how|who|where|when|is|are|does|do|can)\b|何|いくつ|どれ|どこ|いつ|誰|どの|ですか|ますか|무엇|무슨|몇|어느|어디|언제|누구|얼마|니까|나요")
            .expect("valid")
    });
    let mut sentences: Vec<&str> = Vec::new();
    let mut start = 0;
    for (i, c) in q.char_indices() {
        if ".。?？!！\n".contains(c) {
            sentences.push(&q[start..i]);
            start = i + c.len_utf8();
        }
    }
    sentences.push(&q[start..]);
    let sentences: Vec<&str> = sentences
        .into_iter()
        .filter(|x| !x.trim().is_empty())
        .collect();
    let Some(sentence) = sentences
        .iter()
        .rev()
        .find(|x| wh.is_match(x))
        .or(sentences.last())
        .copied()
    else {
        return q;
    };
    // Leading conditions: "If …,", "When …,", "…すると、", "…れば、", "…하면,".
    let mut from = 0;
    for clause in sentence.split_inclusive([',', '、', '，']) {
        let body = clause
            .trim_end_matches([',', '、', '，'])
            .trim()
            .to_ascii_lowercase();
        let condition = ["if ", "when ", "once "]
            .iter()
            .any(|w| body.starts_with(w))
            || ["と", "ば", "たら", "なら", "면"]
                .iter()
                .any(|w| body.ends_with(w));
        if !condition || from + clause.len() >= sentence.len() {
            break;
        }
        from += clause.len();
    }
    &sentence[from..]
}

/// Whether a question asks for a person ("Who designed …", "Whose portrait", "作曲家は誰",
/// "누가 그렸나요"), so that a family name or a title after a name can answer it.
pub fn asks_person(q: &str) -> bool {
    static WHO: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static MADE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static PLACE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let who = WHO.get_or_init(|| {
        regex::Regex::new(r"(?i)\bwho(?:m|se)?\b|\b(?:which|what) (?:artist|painter|architect|composer|author|writer|sculptor|designer|inventor|scientist|photographer)\b|誰|だれ|どなた|作者|画家|作曲家|設計者|누구|누가|작가|화가|작곡가|설계자")
            .expect("valid")
    });
    // "Which architect designed …": a verb of making asks its maker, unless the question asks
    // where or when ("In which city was this cathedral built?") or a maker that is no person
    // ("Which company built this ship?"). A relative "where" ("the town where he was born") asks
    // no place: only a "where" or "when" that opens the question, or an indirect one ("Can you
    // tell where it was built?"), does.
    let made = MADE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:designed|painted|invented|founded|built|wrote|sculpted|composed)\b|発明|발명")
            .expect("valid")
    });
    let place = PLACE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\W*(?:(?:in|at|from|on|by|since|until)\s+)?(?:where|when)\b|\b(?:tell|know|say|guess|identify|see)(?: me| us)? (?:where|when)\b|\b(?:which|what) (?:city|country|town|place|year|century|state|region|company|companies|firm|manufacturer|maker|brand|shipyard|studio|automaker|carmaker|team|organi[sz]ation)\b|どこ|いつ|会社|メーカー|어디|언제|회사|업체")
            .expect("valid")
    });
    who.is_match(q) || (made.is_match(q) && !place.is_match(q))
}

/// Whether a yes/no question asks whether a thing is there ("Is there a dog?", "猫はいますか",
/// "차가 있나요"), not a state of it ("濡れていますか", "열려 있나요").
pub fn asks_existence(q: &str) -> bool {
    static R: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:is|are) there\b|\bdo you see\b|\bcan you see\b|(?:^|[^てで])(?:います|あります|いる|ある)(?:か|\?|？)|(?:이|가|은|는)\s*있(?:나요|습니까|어요|니)")
            .expect("valid")
    })
    .is_match(q)
        || bare_korean_noun_before_being(q)
}

/// "사진에 강아지 있나요?": a noun with its particle dropped, as casual Korean asks, before 있나요;
/// not a verb's connective form ("열려 있나요", "켜져 있나요", "자고 있나요"), which asks a state.
fn bare_korean_noun_before_being(q: &str) -> bool {
    ["있나요", "있습니까", "있니"].iter().any(|being| {
        q.match_indices(being).any(|(i, _)| {
            q[..i].strip_suffix(' ').is_some_and(|before| {
                before.chars().next_back().is_some_and(|c| {
                    super::is_hangul(c) && !"어아여려워와해돼져쳐겨놔둬혀줘서펴내워고".contains(c)
                })
            })
        })
    })
}

/// Whether a question asks what is not allowed ("What is prohibited?", "禁止されていること",
/// "무엇을 금지합니까"), in the clause that asks ("Swimming is prohibited here. Which activity is
/// permitted?" asks what is allowed).
pub fn asks_prohibited(q: &str) -> bool {
    static R: Pattern = Pattern::new();
    R.matches(
        r"(?i)prohibit|forbid|not (?:allowed|permitted)|banned|禁止|してはいけない|금지|하면 안",
        asking_clause(q),
    )
}

/// Whether a yes/no question asks an emptiness or an absence ("Is the car park empty?", "電気は
/// 消えていますか", "비어 있나요", "꺼져 있나요").
pub fn asks_emptiness(q: &str) -> bool {
    static R: Pattern = Pattern::new();
    R.matches(
        r"(?i)\b(?:empty|vacant|off|unoccupied)\b|消えて|空いて|空っぽ|からっぽ|비어|비었|꺼져|텅",
        asking_clause(q),
    )
}

/// A reply saying not one of something is there ("一つもありません", "한 대도 없어요", "not a
/// single car", "nobody").
pub fn says_none_at_all(pp: &str) -> bool {
    static R: Pattern = Pattern::new();
    R.matches(r"\bnot (?:a single|one)\b|\bnobody\b|\bno one\b|(?:一つ|ひとつ|一台|一人|ひとり|誰)も(?:ありません|ない|いません|いない)|(?:하나|한\s*대|한\s*명|한\s*개|아무)도\s*없", pp)
}

/// Whether a question asks what is allowed ("Which activity is permitted?", "できること",
/// "허용되는").
pub fn asks_permitted(q: &str) -> bool {
    static R: Pattern = Pattern::new();
    R.matches(
        r"(?i)\b(?:permitted|allowed)\b|許可|できること|허용|가능한",
        asking_clause(q),
    )
}

/// The reference named as what a sign prohibits: "No swimming", "swimming is not allowed",
/// "駐輪禁止", "喫煙は禁止", "흡연 금지", "흡연은 금지".
pub fn prohibition_at(pp: &str, s: usize, e: usize) -> bool {
    static BEFORE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static AFTER: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    // "No smoking or fishing": each thing the "no" governs.
    let before = BEFORE.get_or_init(|| {
        regex::Regex::new(r"\bno\s+(?:[a-z-]+(?:\s*,\s*|\s+(?:or|and|nor)\s+))*$").expect("valid")
    });
    let after = AFTER.get_or_init(|| {
        regex::Regex::new(r"^\s*(?:は|が|を|은|는|이|가|을|를)?\s*(?:(?:全面|一切|絶対|전면|절대|일절|완전히)\s*)?(?:禁止|금지|(?:is|are)(?:\s+not\s+|n'?t\s+|n’t\s+)(?:allowed|permitted)|(?:is|are)\s+(?:prohibited|forbidden|banned)|(?:not\s+allowed|prohibited|forbidden|banned)\b)")
            .expect("valid")
    });
    let from = super::char_boundary_after(pp, s.saturating_sub(40));
    before.is_match(&pp[from..s]) || after.is_match(&pp[e..])
}

/// Events that come in opposite pairs (opening and closing, starting and ending, leaving and
/// arriving), each side as its words are written in English, Japanese and Korean.
const OPPOSITE_EVENTS: &[(&str, &str)] = &[
    (r"\bopen", r"\bclos(?:e|es|ed|ing)\b"),
    (
        r"\b(?:start|begin|began|commenc|kick)",
        r"\b(?:end(?:s|ed|ing)?\b|finish|over\b|conclud)",
    ),
    (r"\b(?:depart|leav)", r"\barriv"),
    (
        r"開店|開館|開場|開園|営業開始|オープン|おーぷん|開(?:き|く|け)",
        r"閉店|閉館|閉場|閉園|閉ま|閉め|クローズ|くろーず",
    ),
    (r"開始|始ま|始め|スタート", r"終了|終わ|おわ"),
    (r"出発|発車", r"到着|着き|着く"),
    (
        r"오픈|개점|개장|개관|여는|여나|엽니|열어|열리",
        r"마감|폐점|폐장|폐관|닫",
    ),
    (r"시작", r"종료|끝"),
    (r"출발", r"도착"),
];

/// Whether `label` (the words before a value in a reply) names the opposite of the event the
/// question asks about, and not that event itself: "closes at 8:00 PM" for "What time does the
/// store open?".
pub fn names_opposite_event(question: &str, label: &str) -> bool {
    use regex::Regex;
    static R: std::sync::OnceLock<Vec<(Regex, Regex)>> = std::sync::OnceLock::new();
    let pairs = R.get_or_init(|| {
        OPPOSITE_EVENTS
            .iter()
            .map(|(a, b)| (Regex::new(a).expect("valid"), Regex::new(b).expect("valid")))
            .collect()
    });
    // "How late is it open?", "何時まで", "몇 시까지" ask when it closes.
    static UNTIL: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    let until = UNTIL.get_or_init(|| {
        Regex::new(r"(?i)\bhow late\b|\buntil (?:what time|when)\b|\btill when\b|まで|까지")
            .expect("valid")
    });
    let q = asking_clause(question).to_lowercase();
    if until.is_match(&q) {
        return false;
    }
    let label = label.to_lowercase();
    pairs.iter().any(|(a, b)| {
        let one_way = |x: &Regex, y: &Regex| {
            x.is_match(&q) && !y.is_match(&q) && y.is_match(&label) && !x.is_match(&label)
        };
        one_way(a, b) || one_way(b, a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_of_the_opposite_event_is_told_from_the_asked_one() {
        let q = "What time does the store open?";
        assert!(names_opposite_event(q, "the store closes at "));
        assert!(!names_opposite_event(q, "the store opens at "));
        assert!(!names_opposite_event(q, "it opens at 8 and closes at "));
        assert!(names_opposite_event("何時に閉店しますか？", "開店は"));
        assert!(names_opposite_event("몇 시에 출발하나요?", "도착 시간은 "));
        assert!(!names_opposite_event(
            "What time is it?",
            "the store closes at "
        ));
        assert!(!names_opposite_event(
            "When does the game start?",
            "the weekend game starts at "
        ));
    }

    #[test]
    fn the_asking_clause_leaves_out_format_instructions_and_conditions() {
        for (q, want) in [
            (
                "What activity is prohibited? Answer the question using a single word or phrase.",
                "What activity is prohibited",
            ),
            (
                "Swimming is prohibited at this lake. According to the sign, which activity is permitted?",
                " According to the sign, which activity is permitted",
            ),
            (
                "値札の割引を適用すると、支払う金額は定価の何%になりますか？",
                "支払う金額は定価の何%になりますか",
            ),
            (
                "値札に書かれている割引率は何パーセントですか。数字だけで答えてください。",
                "値札に書かれている割引率は何パーセントですか",
            ),
            (
                "Which activity, according to the sign, is prohibited?",
                "Which activity, according to the sign, is prohibited",
            ),
        ] {
            assert_eq!(asking_clause(q), want, "{q}");
        }
    }
}
