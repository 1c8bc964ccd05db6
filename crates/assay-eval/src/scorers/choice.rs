//! Multiple choice: which option letter a response commits to.
//!
//! The response is NFKC-normalised ("Ｂ" reads as "B", "（B）" as "(B)"); only letters within
//! the item's options count (A-D for four). Every letter mention is read in its context, then:
//! 1. **Denied** letters are out: "not C", "C is wrong", "rather than C", "Cではなく",
//!    "C가 아니라". A denied mention is never the answer; a later positive statement of the
//!    same letter is.
//! 2. **Answer statements** ("answer: B", "the answer is B", 答え/正解はB, 정답은 B): the last one
//!    decides. A later weaker commitment replaces it only after a correction ("Answer: A. Wait,
//!    actually it's B.") or when the statement itself hedged.
//! 3. Otherwise **commitments** ("I'd go with C", "I think B", "it's B", "so C", "C is correct",
//!    "Bが正しい", "C가 정답"): the last one decides.
//! 4. A decision that offers two or more letters joined by "or" ("B or C", "A, B, or C", "BかD",
//!    "A 또는 C"), or such an offer with no commitment anywhere, is a **hedge**: not an answer,
//!    its own outcome, scored as a miss. So is a tier of rule 6 naming several letters when the
//!    response presents them as possible ("both fit", "either", どちらか, 둘 중).
//! 5. Otherwise the whole response is a letter ("B", "b.", "(c)").
//! 6. Otherwise weaker marks, each tier only when it names **one distinct letter** (denied
//!    letters left out): a bold "**B**"; a line starting "B." / "B)" / "B:"; a bracketed "(B)"
//!    or "option B"; a capital standing alone ("これはBです", "D is right."). Several letters at
//!    one tier: no answer.
//! 7. Otherwise the response naming exactly one option's text (not denied).
//! 8. Otherwise **unparsed**.
//!
//! Lower-case letters count in statements, commitments, brackets, bold and as the whole
//! response; "a" followed by a word is the English article and "I" the pronoun, never letters.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::json;

use super::normalize::nfkc;
use super::text::{self, conditions, corrections, negation, words};
use super::{ScoreContext, Scored, Scorer};
use assay_core::ItemContent;

/// What a response says about the options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// One letter, and the rule that found it.
    Letter(usize, &'static str),
    /// Two or more letters offered without commitment.
    Hedged(Vec<usize>),
    /// No answer, and why.
    Nothing(&'static str),
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("valid pattern")
}

fn statement_before() -> &'static [Regex] {
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        [
            r#"(?:^|[^a-z_])(?:final[ _]answer|correct answer|right answer|best answer|answer|correct option|correct choice|right option|best option|correct one|corrected answer)(?:\s+(?:to this question|to the question|here|among the options|among the choices|from the options|in this case))?\s*["'`]?\s*[*_]*\s*(?:is|would be|will be|should be|must be|=|:|-)?\s*(?:most likely|likely|probably|definitely|clearly|indeed|therefore)?\s*[*_]*\s*["'`]?\s*(?:option|choice)?\s*[(\[]?\s*[*_]*\s*$"#,
            // "Final: C" after a self-correction, opening its sentence (not "The scoreboard
            // reads FINAL: A's 5").
            r"(?:^|[.!?。！？\n]\s*)[*_]*final\s*[*_]*\s*[:：]\s*[*_]*\s*(?:option|choice)?\s*[(\[]?\s*[*_]*\s*$",
            // Tags and fields made for parsers: <answer>D</answer>, {"answer": "C"}.
            r#"<\s*(?:final_answer|answer|choice)\s*>\s*(?:option\s*)?[(\[]?\s*$"#,
            // Romanised Japanese and Korean: "Kotae wa C desu", "Jeongdab-eun B-imnida".
            r"\b(?:kotae|seikai|kaitou|kaitō)\s*(?:wa|ha)\s*$",
            r"\b(?:jeongdap|jeongdab|dab|dap)(?:-?\s*(?:eun|un))\s*$",
            r"\\boxed\{\s*(?:\\text\{)?\s*\(?$",
            r#"(?:答え|回答|正解|解答|修正後の答え)\s*["'「]?\s*[*_]*\s*(?:は|:)?\s*[*_]*\s*["'「]?\s*(?:選択肢)?\s*[(\[]?\s*[*_]*\s*$"#,
            r#"(?:정답|답변|대답|(?:^|[^오])답)\s*["'「]?\s*[*_]*\s*(?:은|는|:)?\s*[*_]*\s*["'「]?\s*(?:선택지)?\s*[(\[]?\s*[*_]*\s*$"#,
        ]
        .iter()
        .map(|p| re(p))
        .collect()
    })
}

fn commitment_before() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        re(r"(?:\bi(?:'d|’d| would| will)?\s+(?:choose|pick|select|go with|say|answer|opt for|vote for)|\bi(?:'m|’m| am) going with|\bmy (?:answer|choice|pick|guess|selection|final choice)(?: is| would be)?|\bi think(?: it(?:'s|’s| is))?|\bi believe(?: it(?:'s|’s| is))?|\bi guess|\bit(?:'s|’s| is| must be| should be| would be| has to be)|\bthat(?:'s|’s| is)|\bthis is|\bso|\btherefore|\bthus|\bhence|\boverall|\bin conclusion|\bthe (?:best|most likely|correct|right)(?: (?:option|choice|fit|match|one))? (?:is|would be)|\bbest fit|\bgo(?:ing)? with|\bchoose|\bselect|\bpick|\bchange (?:my answer|it) to|\bcorrect(?:ing|ed)? (?:my answer |it )?to|\bswitch(?:ing)? to|\bsettle on|\b(?:that|which) leaves|\bleaving|\bonly|最終的に(?:は)?|結論(?:として|は)?|よって|したがって|つまり|따라서|그러므로|결론적으로|결국|\blean(?:ing)? (?:towards?|to)|\bprobably|\bmost likely|\blikely|\bwhich (?:matches|corresponds to)|\bcorresponds to|\bmatches|(?:\bactually|\bwait|\bno)[,.!]?\s*(?:no[,.!]?\s*)?(?:it(?:'s|’s| is)\s*)?)\s*[:,]?\s*[*_]*\s*(?:option|choice)?\s*[(\[]?\s*[*_]*\s*$")
    })
}

fn commitment_after() -> &'static [Regex] {
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        [
            r"^\s*[)\]]?\s*[*_]*\s*(?:is|seems|looks|appears|would be|must be|should be)\s+(?:the\s+)?(?:correct|right|best|(?:more|most)\s+(?:likely|accurate|appropriate|suitable|plausible)|answer|true|accurate|appropriate)",
            r"^\s*[)\]]?\s*[*_]*\s*(?:fits|matches)\s+(?:best|the)",
            r"^\s*[)\]]?\s*[*_]*\s*(?:が|は|の方が)?\s*(?:正解|正しい|答え|最も|適切|妥当|当てはま|一番|近い)",
            r"^\s*[)\]]?\s*[*_]*\s*(?:を選|です|だと思|でしょう|だと考え|だ[。.]|だろう|にします|にする|にしよう(?:[^か]|$|かと思)|にしました|に変えます|に変更します|とします|とする|に決め|に修正|に変更|で間違いな|で間違いあり|に違いな|で確定|でした)",
            r"^\s*[)\]]?\s*[*_]*\s*(?:이|가|은|는)?\s*(?:더\s*)?(?:정답|맞|옳|적절|가장)",
            r"^\s*[)\]]?\s*[*_]*\s*(?:번)?\s*(?:입니다|이에요|예요|이요|요|네요|이네요|군요|일 것|일것|를 선택|을 선택|라고 생각|이라고 생각|로 보입|인 것 같|같아)",
            r"^\s*[)\]]?\s*[*_]*\s*(?:번)?\s*(?:으로|로)\s*(?:하겠|할게|할께|정하|정정|고르|고칩|고치|선택|바꾸|바꿉|변경|수정)",
        ]
        .iter()
        .map(|p| re(p))
        .collect()
    })
}

fn denial_before() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        re(r"(?:rule out|rules out|ruled out|eliminate|eliminates|eliminating|exclude|excluding|discard|reject|rejecting)\s*(?:option|choice)?\s*[(\[]?\s*$")
    })
}

fn hedge_between() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        re(r"^\s*[)\]*_]*\s*,?\s*(?:or maybe|or possibly|or perhaps|and/or|or|/|かも(?:しれ|知れ)(?:ないし|ませんし|ない|ません)?\s*[、,]?\s*|か|または|もしくは|あるいは|或いは|또는|혹은|아니면|이나|나)\s*[(\[*_]*\s*(?:option\s*|choice\s*)?$")
    })
}

/// Letters listed together ("B and C", "A, B and D"), sharing a verdict that follows them.
fn list_join() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| re(r"^\s*[)\]]?\s*(?:,|、|and|,\s*and|와|과|및|と|や)\s*[(\[]?\s*$"))
}

/// "AでもCでもない", "A도 C도 아니다": letters denied together by the denial after the last.
fn neither_join() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| re(r"^\s*[)\]]?\s*(?:でも|も|도|이나)\s*[、,]?\s*[(\[]?\s*$"))
}

fn list_between() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| re(r"^\s*[)\]*_]*\s*[,、]\s*[(\[*_]*\s*$"))
}

/// A reply taking its own answer back ("that's not right either", "scratch that", "いや、違う").
fn withdrawal() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        re(r"(?:wait|actually|hmm|no)[^.!?\n]*(?:that(?:'s|’s| is) (?:not right|wrong|incorrect)|not right either|scratch that|i take (?:it|that) back)|(?:いや|いえ)、?(?:違|間違)|아니[,、 ]*(?:틀렸|아니)")
    })
}

/// Words that present several listed letters as possible answers ("Both fit", "either").
fn hedge_cue() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        re(r"\bboth\b|\beither\b|possible answers|could be any|one of (?:these|them|the)|どちらも|どちらか|いずれか|どっちも|둘 다|둘 중|중 하나|모두 가능")
    })
}

/// Words after a capital "A" that make it the letter rather than the article.
const A_AS_LETTER: &[&str] = &[
    "is",
    "was",
    "seems",
    "looks",
    "appears",
    "would",
    "should",
    "must",
    "could",
    "might",
    "fits",
    "matches",
    "best",
    "correct",
    "because",
    "since",
    "as",
    "and",
    "or",
    "nor",
    "but",
    "then",
    "so",
    "vs",
    "versus",
    "also",
    "too",
    "remains",
    "describes",
    "shows",
    "cannot",
    "can",
    "isn't",
    "doesn't",
    "does",
];

/// A weaker mark a letter mention may carry.
type Tier<'a> = dyn Fn(&Mention) -> bool + 'a;

/// Words a capital letter names a thing after ("Vitamin C", "Plan B", "Type C").
const NAMED_BY: &[&str] = &[
    "vitamin",
    "plan",
    "type",
    "grade",
    "class",
    "size",
    "model",
    "team",
    "group",
    "part",
    "section",
    "exit",
    "gate",
    "terminal",
    "platform",
    "block",
    "row",
    "seat",
    "zone",
    "level",
    "hepatitis",
    "mr",
    "ms",
    "mrs",
    "dr",
    "usb",
];

#[derive(Debug, Clone, Copy)]
struct Mention {
    pos: usize,
    idx: usize,
    lower: bool,
    /// Only a letter where an answer statement introduces it ("Answer: A dog" stays A).
    article_like: bool,
    denied: bool,
    strong: bool,
    weak: bool,
    /// Stands alone as a letter: not followed by a word, or followed by a verb ("D is right"),
    /// so "Plan B", "Vitamin C", "Type C cable" are not answers.
    lone: bool,
}

/// The last `n` bytes before `at`, on a character boundary.
fn tail(s: &str, at: usize, n: usize) -> &str {
    let from = text::char_boundary_after(s, at.saturating_sub(n));
    &s[from..at]
}

fn mentions(t: &str, l: &str, p: &str, n_options: usize) -> Vec<Mention> {
    let b = t.as_bytes();
    let mut out = Vec::new();
    for (i, &c) in b.iter().enumerate() {
        if !c.is_ascii_alphabetic() {
            continue;
        }
        let idx = (c.to_ascii_uppercase() - b'A') as usize;
        if idx >= n_options {
            continue;
        }
        let prev = i.checked_sub(1).map(|j| b[j]);
        let next = b.get(i + 1).copied();
        // An apostrophe inside a word ("don't", "I'd"), not a quote ("'B'").
        let in_word_quote = prev == Some(b'\'') && i >= 2 && b[i - 2].is_ascii_alphanumeric();
        if prev.is_some_and(|x| x.is_ascii_alphanumeric() || x == b'-')
            || in_word_quote
            || next.is_some_and(|x| x.is_ascii_alphanumeric())
        {
            continue;
        }
        // "25°C", "25 °C": a unit, not a letter.
        if t[..i].trim_end().ends_with('°') {
            continue;
        }
        // "$A = \pi r^2$", "\( A = \pi r^2 \)": a variable a formula opens with, not a letter.
        let opened = t[..i].trim_end();
        if (opened.ends_with('$') || opened.ends_with("\\("))
            && t[i + 1..].trim_start().starts_with('=')
        {
            continue;
        }
        let after = &l[i + 1..];
        let second = |s: &str| s.chars().nth(1);
        // "C-shaped", "A's", "B’s", "I'd", "e.g.", "D.C.", "A/C unit".
        // ... but "B-imnida", "C-desu": a romanised copula after the letter.
        let romanised_copula = ["-imnida", "-ibnida", "-ida", "-ieyo", "-yo", "-desu"]
            .iter()
            .any(|w| after.starts_with(w));
        if after.starts_with(['-', '\'', '’', '.', '/'])
            && second(after).is_some_and(|x| x.is_ascii_alphabetic())
            && (!after.starts_with('/') || after[2..].starts_with(' '))
            && !romanised_copula
        {
            continue;
        }
        // "Franklin D. Roosevelt": an initial between names.
        let prev_word_capital = t[..i].trim_end().rsplit(' ').next().is_some_and(|w| {
            w.len() > 1
                && w.starts_with(|x: char| x.is_ascii_uppercase())
                && w.chars().all(|x| x.is_ascii_alphabetic())
        });
        if !c.is_ascii_lowercase()
            && prev_word_capital
            && t[i + 1..].starts_with(". ")
            && t[i + 3..].starts_with(|x: char| x.is_ascii_uppercase())
        {
            continue;
        }
        // "Angle C is seventy degrees", "∠C", "각 D는 100도", "点Aから": a figure's point or
        // angle named by a capital, not an option.
        {
            let before = t[..i].trim_end();
            let word = before
                .rsplit(|x: char| !x.is_ascii_alphabetic())
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            let geometric = matches!(
                word.as_str(),
                "angle" | "point" | "vertex" | "side" | "corner" | "segment" | "edge"
            ) || ["∠", "각", "점", "변", "꼭짓점", "角", "点", "辺", "頂点"]
                .iter()
                .any(|w| before.ends_with(w));
            if geometric {
                continue;
            }
        }
        // "A = πr^2", "V = IR": a quantity named in a formula, not an option.
        if after.trim_start().starts_with('=') && !after.trim_start().starts_with("==") {
            continue;
        }
        let lower = c.is_ascii_lowercase();
        let next_word: &str = after
            .strip_prefix(' ')
            .map(|r| {
                r.split(|x: char| !x.is_ascii_alphabetic() && x != '\'')
                    .next()
                    .unwrap_or("")
            })
            .unwrap_or("");
        // "A 20-dollar bill", "A $20 bill": a figure written into a noun phrase follows an
        // article too.
        let figure_phrase = after.strip_prefix(' ').is_some_and(|r| {
            let digits = r.trim_start_matches(['$', '£', '€', '¥', '₩']);
            let rest =
                digits.trim_start_matches(|x: char| x.is_ascii_digit() || x == '.' || x == ',');
            let currency = ["dollar", "euro", "pound", "yen", "won", "cent"]
                .iter()
                .any(|c| rest.trim_start().to_ascii_lowercase().starts_with(c));
            rest.len() < digits.len()
                && (rest.starts_with('-')
                    && rest[1..].starts_with(|x: char| x.is_ascii_alphabetic())
                    || digits.len() < r.len() && rest.starts_with(' ')
                    || rest.starts_with(' ') && currency)
        });
        let followed_by_word = !next_word.is_empty() || figure_phrase;
        if (c == b'i' || c == b'I') && (followed_by_word || after.starts_with('\'')) {
            continue;
        }
        if lower && c == b'a' && followed_by_word {
            continue;
        }
        let article_like = c == b'A' && followed_by_word && !A_AS_LETTER.contains(&next_word);
        let before = tail(l, i, 96);
        // "Correction: D", "訂正：D", "정정: D" on a line of its own states the answer again;
        // "(정정: A 보기를 … 잘못 읽었는데" corrects something else.
        static CORRECTION: OnceLock<Regex> = OnceLock::new();
        let line_ends = {
            let rest = after.trim_start_matches([')', ']', '.', '。', ' ', '*', '_']);
            rest.is_empty() || rest.starts_with('\n')
        };
        let correction = line_ends
            && CORRECTION
                .get_or_init(|| re(r"(?:\bcorrection|\bcorrected|訂正|정정)\s*[:：]\s*[(\[]?\s*$"))
                .is_match(before);
        // "<answer>A red umbrella", {"answer": "A cat …"}: the article, not the letter.
        let quoted_article = article_like && before.trim_end().ends_with(['"', '\'', '>', '「']);
        let strong = (statement_before().iter().any(|r| r.is_match(before)) && !quoted_article)
            || correction;
        // "B로 고치려다가 … 처음 답이 맞습니다", "Bに変えようとしましたが": a change meant and
        // not made.
        static ABANDONED: OnceLock<Regex> = OnceLock::new();
        let abandoned = ABANDONED
            .get_or_init(|| {
                re(r"^\s*[)\]]?\s*[*_]*\s*(?:번)?\s*(?:(?:으로|로)\s*\S{0,4}?(?:려다|려고\s*했|려고\s*하다)|に\S{0,4}?(?:ようと(?:しました|した|思いました|思った)|かけました|かけた)(?:が|けど|けれど))")
            })
            .is_match(after);
        let weak = !strong
            && !abandoned
            && (commitment_before().is_match(before)
                || commitment_after().iter().any(|r| r.is_match(after)));
        // A negator earlier in a statement's clause ("Without more context the best answer is
        // B") does not deny the stated letter; a verdict after it still does.
        let denied = if strong {
            negation::denied_after(p, i + 1).is_some()
        } else {
            negation::denied(p, i, i + 1).is_some() || denial_before().is_match(before)
        };
        let before_word = t[..i]
            .trim_end()
            .rsplit(|x: char| !x.is_ascii_alphabetic())
            .next()
            .unwrap_or("");
        let lone = (!followed_by_word || A_AS_LETTER.contains(&next_word))
            && !NAMED_BY.contains(&before_word.to_ascii_lowercase().as_str());
        out.push(Mention {
            pos: i,
            idx,
            lower,
            article_like,
            denied,
            strong,
            weak,
            lone,
        });
    }
    out
}

/// Groups of mentions offered together with "or": (first, last) mention indices.
fn hedge_groups(l: &str, ms: &[Mention]) -> Vec<(usize, usize)> {
    let mut groups = Vec::new();
    let mut i = 0;
    while i < ms.len() {
        let mut j = i;
        let mut has_or = false;
        while j + 1 < ms.len() {
            let between = &l[ms[j].pos + 1..ms[j + 1].pos];
            if hedge_between().is_match(between) {
                has_or = true;
            } else if !list_between().is_match(between) {
                break;
            }
            j += 1;
        }
        let mut letters: Vec<usize> = ms[i..=j].iter().map(|m| m.idx).collect();
        letters.sort_unstable();
        letters.dedup();
        if has_or && letters.len() >= 2 {
            groups.push((i, j));
        }
        i = j + 1;
    }
    groups
}

/// Letters joined by "and" and presented together as the answer ("Both A and C are visible",
/// "BとDの両方", "B와 D 모두 가능"): several answers, so a hedge, like letters joined by "or".
fn both_groups(l: &str, ms: &[Mention]) -> Vec<(usize, usize)> {
    static BEFORE: OnceLock<Regex> = OnceLock::new();
    static AFTER: OnceLock<Regex> = OnceLock::new();
    let before = BEFORE.get_or_init(|| re(r"\bboth\s+(?:options?\s+|choices?\s+)?[(\[*_]*\s*$"));
    let after = AFTER.get_or_init(|| {
        re(r"^\s*[)\]*_]*\s*(?:(?:are|could|would|might|seem|look|fit|both|all)\b[^.!?\n]{0,24}?\b(?:both|correct|right|possible|plausible|true|fit|apply|valid)\b|(?:の)?(?:両方|どちらも|いずれも)|\s*(?:둘\s*다|모두|다\s*(?:맞|가능|정답)))")
    });
    let mut groups = Vec::new();
    let mut i = 0;
    while i < ms.len() {
        let mut j = i;
        while j + 1 < ms.len() && list_join().is_match(&l[ms[j].pos + 1..ms[j + 1].pos]) {
            j += 1;
        }
        let distinct = {
            let mut v: Vec<usize> = ms[i..=j].iter().map(|m| m.idx).collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        };
        if distinct >= 2
            && (before.is_match(tail(l, ms[i].pos, 40)) || after.is_match(&l[ms[j].pos + 1..]))
        {
            groups.push((i, j));
        }
        i = j + 1;
    }
    groups
}

/// A letter offered as an alternative after the answer ("I think it's A, but it could also be
/// C", "Probably B, though D is also possible", "Cの可能性もあります", "D일 수도 있습니다"),
/// unless the same sentence goes on to dismiss it ("C is possible in theory, but …").
fn alternative(l: &str, m: &Mention) -> bool {
    static BEFORE: OnceLock<Regex> = OnceLock::new();
    static AFTER: OnceLock<Regex> = OnceLock::new();
    static DISMISS: OnceLock<Regex> = OnceLock::new();
    let before = BEFORE.get_or_init(|| {
        // "B (or C)", "Ｂ（もしくはＣ）", "B(혹은 D)": an alternative in brackets too.
        re(r"(?:\b(?:could|might|may|can)\s+(?:also|equally|just as well|possibly|even)\s+be|\bcould\s+be|\bmight\s+be|\bor\s+(?:maybe|possibly|perhaps)|\bpossibly|\bperhaps|\bmaybe|어쩌면|아마도?|\bcan(?:'t|not| not)\s+(?:rule out|exclude)|[(（]\s*(?:or|もしくは|または|あるいは|혹은|또는|아니면))\s*(?:option\s+|choice\s+)?[(\[*_]*\s*$")
    });
    let after = AFTER.get_or_init(|| {
        re(r"^\s*[)\]*_]*\s*(?:(?:is|seems|would be|remains|could be|might be)\s+(?:also\s+|equally\s+|still\s+|quite\s+)?(?:possible|plausible|an option|(?:a|an)\s+(?:real\s+|strong\s+|distinct\s+|genuine\s+|open\s+)?(?:possibility|option|contender)|likely too|also likely)|(?:could|might|may)\s+(?:also\s+)?(?:work|fit|be (?:right|correct))|(?:の)?可能性も|もあり得|もありえ|も考えられ|(?:일|인|이|가)?\s*(?:수도|가능성도)|(?:일|인)지도|도\s*(?:충분히\s*|역시\s*|또한\s*)?가능)")
    });
    let dismiss = DISMISS.get_or_init(|| {
        // Words after it: "C is plausible too, though." ends on the concession and keeps C.
        re(r"^[^.!?\n。]*\b(?:but|however|although|though)\b\s*[^\s.!?。]|^[^.!?\n。]*(?:が、|けど|지만)\s*[^\s.!?。]")
    });
    let before_ok = before.is_match(tail(l, m.pos, 48));
    let rest = &l[m.pos + 1..];
    let after_m = after.find(rest);
    if !before_ok && after_m.is_none() {
        return false;
    }
    let from = after_m.map_or(0, |x| x.end());
    !dismiss.is_match(&rest[from..])
}

/// A reply that stops mid-sentence: it ends on a comma or a conjunction ("…ですが、", "…, but",
/// "…하지만"), as a reply cut at the model's token limit does.
fn cut_off(response: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        re(r"(?:[,、，]|\b(?:and|but|or|so|because|while|although)|が|けど|けれど|ので|て|하지만|는데|고|며|서)\s*$")
    })
    .is_match(nfkc(response).trim_end())
}

/// Where the reply's last sentence says it cannot decide between options ("can't tell which",
/// "これ以上は絞り込めません", "어느 것인지는 알 수 없습니다"), if it does.
pub(crate) fn undecided_end(l: &str) -> Option<usize> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        re(r"(?:can(?:'t|’t|not| not)\s+(?:tell|say|determine|decide|choose|pick|narrow (?:it|this|them) down)\s+(?:for sure\s+)?(?:which(?:\s+(?:one|of|is|it|option|answer|letter)\b|\s*[.!?]|$)|between)|(?:hard|difficult|impossible)\s+to\s+(?:tell|say|determine|decide)\s+which(?:\s+(?:one|of|is|it|option|answer|letter)\b|\s*[.!?]|$)|not\s+(?:sure|certain)\s+which(?:\s+(?:one|of|is|it|option|answer|letter)\b|\s*[.!?]|$)|can(?:'t|’t|not| not)\s+narrow|絞り込め(?:ません|ない)|どちらか(?:は)?(?:判断|わかり|分かり|決め)(?:でき|られ|かね)?(?:ません|ない)|どちらとも言(?:え|い切れ)|判断(?:でき|し)(?:ません|かね)|断定(?:でき|は)(?:ません|できません)|(?:어느|어떤)\s*(?:것|쪽)인지[^.!?\n]*(?:알\s*수\s*없|어렵|모르)|단정(?:하기|하긴|할\s*수)[^.!?\n]*(?:어렵|없)|판단(?:하기|하긴)[^.!?\n]*어렵)")
    });
    let trimmed = l.trim_end_matches(|c: char| c.is_whitespace() || ".。!！".contains(c));
    let last_start = trimmed.rfind(['.', '。', '!', '！', '\n']).map_or(0, |i| {
        i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
    });
    r.find(&l[last_start..]).map(|m| last_start + m.start())
}

/// What a response says about `n_options` options (see the module notes for the rules).
pub fn read_choice(response: &str, n_options: usize) -> Reading {
    read_choice_numbered(response, n_options, true)
}

/// [`read_choice`]; `numbered` says whether "2번"/"2番" may name the second option (not when
/// the options are themselves numbered things: "3번 출구", "3番線").
pub fn read_choice_numbered(response: &str, n_options: usize, numbered: bool) -> Reading {
    let renumber = |s: String| {
        if numbered {
            numbered_options(&s, n_options)
        } else {
            s
        }
    };
    let (t, p) = (nfkc(response), text::prepare(response));
    let (t, p) = if numbered {
        let places = ordinal_places(&p, n_options);
        (replaced(&t, &places), replaced(&p, &places))
    } else {
        (t, p)
    };
    // "Ｃ（55°）だと思いますが": an option's text in brackets after its letter is the letter's;
    // the words after it speak of the letter.
    let glosses = letter_glosses(&p, n_options);
    let (t, p) = (replaced(&t, &glosses), replaced(&p, &glosses));
    let t = renumber(t);
    let l = t.to_ascii_lowercase();
    let p = renumber(p);
    let all = mentions(&t, &l, &p, n_options);
    let mut all = all;
    for k in (0..all.len().saturating_sub(1)).rev() {
        let between = &l[all[k].pos + 1..all[k + 1].pos];
        if all[k + 1].denied
            && !all[k].strong
            && (list_join().is_match(between) || neither_join().is_match(between))
            && negation::denied_after(&p, all[k + 1].pos + 1).is_some()
        {
            all[k].denied = true;
        }
    }
    let live: Vec<Mention> = all.iter().copied().filter(|m| !m.denied).collect();
    let mut groups = hedge_groups(&l, &live);
    groups.extend(both_groups(&l, &live));
    groups.sort_unstable();
    let group_of = |k: usize| groups.iter().find(|(a, b)| (*a..=*b).contains(&k));
    let letters_of = |(a, b): (usize, usize)| {
        let mut v: Vec<usize> = live[a..=b].iter().map(|m| m.idx).collect();
        v.sort_unstable();
        v.dedup();
        v
    };

    // Statements, then commitments.
    let usable = |m: &Mention| !m.lower || m.idx != 0 || !m.article_like;
    let strong = live.iter().rposition(|m| m.strong && usable(m));
    // A letter offered as a possibility ("so B remains a real possibility") commits to nothing.
    let weak_ok = |m: &Mention| m.weak && !m.article_like && !alternative(&l, m);
    let chosen = match strong {
        Some(s) => {
            let hedged = group_of(s).is_some();
            let later = live
                .iter()
                .enumerate()
                .skip(s + 1)
                .filter(|(_, m)| weak_ok(m))
                .filter(|(_, m)| hedged || corrections::any_in(&l[live[s].pos..m.pos]))
                .map(|(k, _)| k)
                .next_back();
            Some((
                later.unwrap_or(s),
                if later.is_some() {
                    "commitment after a correction"
                } else {
                    ANSWER_STATEMENT
                },
            ))
        }
        None => live.iter().rposition(weak_ok).map(|k| (k, "commitment")),
    };
    // "CかD…いいえ、Dはさなぎなので、Cの成虫です", "B일 수도 있을까요? … 아니요, … C.": a hedge
    // or an alternative taken back by a correction, and one letter after it (after its
    // conclusion, when the correction speaks of another letter first).
    // Several letters at least (one letter is neither a hedge nor an alternative).
    if let Some(c) = (live.len() >= 2)
        .then(|| corrections::last_end(&l))
        .flatten()
    {
        let open = groups.iter().any(|&(_, b)| live[b].pos < c)
            || live.iter().any(|m| m.pos < c && alternative(&l, m));
        // "잠깐 생각해 보니 D라면 …", "…Dなら…": a letter supposed, not settled on.
        let supposed = |m: &Mention| {
            let rest = l[m.pos + 1..].trim_start_matches([')', ' ', '*']);
            ["라면", "이라면", "면 ", "なら", "だったら", "であれば"]
                .iter()
                .any(|c| rest.starts_with(c))
                || l[..m.pos].trim_end().ends_with(" if")
        };
        let one_after = |from: usize| {
            let after: Vec<&Mention> = live.iter().filter(|m| m.pos >= from).collect();
            match after.as_slice() {
                [first, rest @ ..]
                    if rest.iter().all(|m| m.idx == first.idx) && !supposed(first) =>
                {
                    Some(first.idx)
                }
                _ => None,
            }
        };
        let settled = one_after(c).or_else(|| {
            crate::scorers::text::conclusions::last_end(&l)
                .filter(|&e| e > c)
                .and_then(one_after)
        });
        if let Some(idx) = settled.filter(|_| open && !withdrawal().is_match(&l[c..])) {
            return Reading::Letter(idx, "commitment after a correction");
        }
    }
    if let Some((k, _)) = chosen {
        // "The answer is B. Hmm, no, that's not right either": taken back, nothing in its place.
        let after = &l[live[k].pos + 1..];
        if withdrawal().is_match(after) && !live[k + 1..].iter().any(weak_ok) {
            return Reading::Nothing("the answer was taken back");
        }
    }
    // "If it's a fox, C; if it's a dog, A": each letter under its own condition, and no answer
    // after them.
    if let Some((first, end)) = conditions::span(&l) {
        let under = |m: &Mention| m.pos > first && m.pos < end;
        let mut letters: Vec<usize> = live.iter().filter(|m| under(m)).map(|m| m.idx).collect();
        letters.sort_unstable();
        letters.dedup();
        if chosen.is_none_or(|(k, _)| under(&live[k])) && letters.len() >= 2 {
            return Reading::Hedged(letters);
        }
    }
    if let Some((k, rule)) = chosen {
        if let Some(&g) = group_of(k) {
            return Reading::Hedged(letters_of(g));
        }

        // "…残りはA・Bですが、これ以上は絞り込めません。": the reply ends saying it cannot decide.
        if let Some(u) = undecided_end(&l) {
            if u > live[k].pos {
                let mut offered: Vec<usize> = live.iter().map(|m| m.idx).collect();
                offered.sort_unstable();
                offered.dedup();
                return if offered.len() >= 2 {
                    Reading::Hedged(offered)
                } else if rule == ANSWER_STATEMENT {
                    // "答えはＢです。ただし、品種までは判断できません。": one letter stated as the
                    // answer; the doubt is about something else.
                    Reading::Letter(live[k].idx, rule)
                } else {
                    Reading::Nothing("the reply says it cannot decide")
                };
            }
        }
        // "I think it's A, but it could also be C": an alternative left open after the answer.
        let mut offered: Vec<usize> = live[k + 1..]
            .iter()
            .filter(|m| m.idx != live[k].idx && alternative(&l, m))
            .map(|m| m.idx)
            .collect();
        if !offered.is_empty() {
            offered.push(live[k].idx);
            offered.sort_unstable();
            offered.dedup();
            return Reading::Hedged(offered);
        }
        return Reading::Letter(live[k].idx, rule);
    }
    if let Some(&g) = groups.last() {
        return Reading::Hedged(letters_of(g));
    }

    let bare = t
        .trim()
        .trim_matches(|c: char| matches!(c, '(' | ')' | '[' | ']' | '.' | ':' | '*' | '_' | ' '));
    if bare.len() == 1 && bare.as_bytes()[0].is_ascii_alphabetic() {
        let i = (bare.as_bytes()[0].to_ascii_uppercase() - b'A') as usize;
        if i < n_options {
            return Reading::Letter(i, "bare letter");
        }
    }

    let denied: Vec<usize> = all.iter().filter(|m| m.denied).map(|m| m.idx).collect();
    let tiers: [(&'static str, &Tier<'_>); 4] = [
        ("bold letter", &|m: &Mention| {
            let before = &t[..m.pos];
            let after = &t[m.pos + 1..];
            (before.ends_with("**") || before.ends_with("**("))
                && after.trim_start_matches([')', '.', ':']).starts_with("**")
        }),
        ("line starting with a letter", &|m: &Mention| {
            let line_start = t[..m.pos].rfind('\n').map(|x| x + 1).unwrap_or(0);
            t[line_start..m.pos].trim().is_empty()
                && t[m.pos + 1..].starts_with(['.', ')', ':'])
                && t[m.pos + 2..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace)
        }),
        ("bracketed letter or option name", &|m: &Mention| {
            let before = &l[..m.pos];
            let after = &l[m.pos + 1..];
            ((before.ends_with('(') || before.ends_with('[')) && after.starts_with([')', ']']))
                || [
                    "option ",
                    "choice ",
                    "option",
                    "選択肢",
                    "선택지",
                    "선택지 ",
                ]
                .iter()
                .any(|w| before.ends_with(w))
        }),
        ("lone letter", &|m: &Mention| {
            !m.lower && !m.article_like && m.lone
        }),
    ];
    for (rule, tier) in tiers {
        let mut found: Vec<usize> = live
            .iter()
            .filter(|m| tier(m))
            .filter(|m| !m.article_like || rule != "lone letter")
            .map(|m| m.idx)
            .filter(|i| !denied.contains(i))
            .collect();
        found.sort_unstable();
        found.dedup();
        match found.len() {
            0 => {}
            1 => return Reading::Letter(found[0], rule),
            // Candidates listed and then left undecided ("- Ｂ 鮭 - Ｃ ツナマヨ どちらとも判断
            // できません") are offered, as with "or".
            _ if hedge_cue().is_match(&l) || undecided_end(&l).is_some() => {
                return Reading::Hedged(found)
            }
            // "- B\n- D": a markdown list of candidate letters, each the first thing on its
            // bulleted line, offers them without choosing.
            _ if live.iter().filter(|m| found.contains(&m.idx)).all(|m| {
                let line_start = t[..m.pos].rfind('\n').map_or(0, |x| x + 1);
                let head = t[line_start..m.pos].trim();
                ["-", "*", "•", "・", "- **", "* **"].contains(&head)
            }) =>
            {
                return Reading::Hedged(found)
            }
            _ => return Reading::Nothing("several letters at one level"),
        }
    }
    Reading::Nothing("no option letter found")
}

/// "2번", "2番": the second option, written as its letter so every rule reads it ("정답은 2번
///입니다" reads B). One digit becomes one letter, so byte offsets stay.
fn numbered_options(s: &str, n_options: usize) -> String {
    static R: OnceLock<Regex> = OnceLock::new();
    let digits = R.get_or_init(|| re(r"(^|[^0-9])([1-9])(\s*(?:번|番))"));
    let renumbered = digits
        .replace_all(s, |c: &regex::Captures| {
            // "左から2番目の人", "2번째": a place in the picture (an option's place is read by
            // `ordinal_places`).
            let end = c.get(0).map_or(0, |m| m.end());
            if s[end..].starts_with(['目', '째']) {
                return c[0].to_string();
            }
            let d = c[2].as_bytes()[0] - b'0';
            let letter = if (d as usize) <= n_options {
                ((b'A' + d - 1) as char).to_string()
            } else {
                c[2].to_string()
            };
            format!("{}{letter}{}", &c[1], &c[3])
        })
        .into_owned();
    // "option two", "choice #3", "the second option": the option by its number, in English.
    static EN: OnceLock<Regex> = OnceLock::new();
    let en = EN.get_or_init(|| {
        re(r"(?i)\b(?:(option|choice)\s+(?:number\s+|no\.\s*|#\s*)?(one|two|three|four|five|1|2|3|4|5)\b|the\s+(first|second|third|fourth|fifth)\s+(option|choice)\b)")
    });
    en.replace_all(&renumbered, |c: &regex::Captures| {
        let word = c
            .get(2)
            .or(c.get(3))
            .map_or("", |m| m.as_str())
            .to_ascii_lowercase();
        let d = match word.as_str() {
            "one" | "1" | "first" => 1,
            "two" | "2" | "second" => 2,
            "three" | "3" | "third" => 3,
            "four" | "4" | "fourth" => 4,
            _ => 5,
        };
        let kind = c.get(1).or(c.get(4)).map_or("option", |m| m.as_str());
        if d <= n_options {
            // Upper case in every text: a lower-case "a" before a word is the article.
            let letter = (b'A' + d as u8 - 1) as char;
            format!("{kind} {letter}")
        } else {
            c[0].to_string()
        }
    })
    .into_owned()
}

/// "The third one", "the last option", "最後の選択肢", "3番目です", "세 번째 보기", "마지막
/// 보기": an option by its place in the list, written as "option C" / "選択肢C" / "선택지 C" so
/// every rule reads it. Places of things in the picture ("左から2番目の人", "the first one is cut
/// off", "첫 번째 답" — one's own first answer) are not options: a place names an option with an
/// option's noun (option, choice, 選択肢, 보기, 선택지), or, with a bare "one"/もの/것, only where
/// the reply commits to it (at its start or after "I'd pick", before です/입니다).
///
/// The places are found in the prepared text (`p`: lower case, kana folded) and written into
/// both texts at the same byte offsets, so the two stay aligned.
fn ordinal_places(p: &str, n_options: usize) -> Vec<(usize, usize, String)> {
    static R: OnceLock<Regex> = OnceLock::new();
    static CUE: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| {
        re(concat!(
            r"\b(?:the\s+)?(?P<en>first|second|third|fourth|fifth|last)\s+(?P<enn>option|choice|one)\b",
            r"|(?P<ja>最初|最後|[1-5一二三四五]\s*(?:番目|つ目))(?:\s*の\s*(?P<jan>選択肢|選択|もの))?",
            r"|(?P<ko>첫|두|세|네|다섯|[1-5])\s*번째(?:\s*(?P<kon>보기|선택지|항목|옵션|것))?",
            r"|(?P<kolast>마지막)\s*(?P<kolastn>보기|선택지|항목|옵션|것)",
        ))
    });
    let cue = CUE.get_or_init(|| {
        re(r"(?:pick|choose|select|go with|going with|i'd say|i would say|answer is|answer:|it's|it is|would be)\s*$")
    });
    let copula = |after: &str| stated_as_answer(after);
    let mut out = Vec::new();
    for c in r.captures_iter(p) {
        let whole = c.get(0).expect("match");
        let (before, after) = (p[..whole.start()].trim_end(), &p[whole.end()..]);
        let committed = before.is_empty() || cue.is_match(before) || copula(after);
        let (word, kind) = if let Some(m) = c.name("en") {
            let noun = c.name("enn").map_or("", |n| n.as_str());
            // "the first one is cut off": a bare "one" only where the reply commits to it.
            let described = after
                .trim_start()
                .starts_with(|ch: char| ch.is_ascii_alphabetic())
                && !after.trim_start().starts_with("option");
            if noun == "one" && (!committed || (described && !before.is_empty())) {
                continue;
            }
            (m.as_str().to_string(), "option ")
        } else if let Some(m) = c.name("ja") {
            let noun = c.name("jan").map_or("", |n| n.as_str());
            if (noun.is_empty() || noun == "もの") && !copula(after) {
                continue;
            }
            (m.as_str().to_string(), "選択肢")
        } else if let Some(m) = c.name("ko").or(c.name("kolast")) {
            let noun = c
                .name("kon")
                .or(c.name("kolastn"))
                .map_or("", |n| n.as_str());
            if (noun.is_empty() || noun == "것") && !copula(after) {
                continue;
            }
            (m.as_str().to_string(), "선택지 ")
        } else {
            continue;
        };
        let first = word.chars().next().unwrap_or(' ');
        let d = match (word.as_str(), first) {
            ("first" | "첫" | "最初", _) | (_, '1' | '一') => 1,
            ("second" | "두", _) | (_, '2' | '二') => 2,
            ("third" | "세", _) | (_, '3' | '三') => 3,
            ("fourth" | "네", _) | (_, '4' | '四') => 4,
            ("fifth" | "다섯", _) | (_, '5' | '五') => 5,
            _ => n_options,
        };
        if d == 0 || d > n_options {
            continue;
        }
        out.push((
            whole.start(),
            whole.end(),
            format!("{kind}{}", (b'A' + d as u8 - 1) as char),
        ));
    }
    out
}

/// The brackets right after a capital option letter ("C (55°)", "Ｂ（赤）"): spans to leave
/// out.
fn letter_glosses(p: &str, n_options: usize) -> Vec<(usize, usize, String)> {
    static R: OnceLock<Regex> = OnceLock::new();
    let r = R.get_or_init(|| re(r"(?:^|[^a-z0-9])[a-e](\s*[(（][^()（）\n]{1,24}[)）])"));
    // What the bracket holds restates the option; not another letter, an alternative or a
    // correction ("B (or possibly C)", "Not A (it's C)", "B(혹은 D)").
    static OTHER: OnceLock<Regex> = OnceLock::new();
    let other = OTHER.get_or_init(|| {
        re(r"(?:^|[^a-z])[a-e](?:[^a-z]|$)|\b(?:or|maybe|possibly|perhaps|not|but|it's|actually)\b|もしくは|または|あるいは|か|ではな|じゃな|혹은|또는|아니")
    });
    r.captures_iter(p)
        .filter_map(|c| {
            let g = c.get(1)?;
            let inner = g.as_str().trim().trim_matches(['(', ')', '（', '）']);
            if other.is_match(inner) {
                return None;
            }
            let letter = p[..g.start()].chars().next_back()?;
            // "C (55°) I think": English words after it read the letter as they would alone.
            let rest = p[g.end()..].trim_start();
            let worded = rest.len() < p.len() - g.end()
                && rest.starts_with(|c: char| c.is_ascii_alphabetic());
            ((letter as usize).wrapping_sub('a' as usize) < n_options && !worded)
                .then(|| (g.start(), g.end(), String::new()))
        })
        .collect()
}

/// `s` with each (start, end) span replaced, the spans in order and apart.
fn replaced(s: &str, spans: &[(usize, usize, String)]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut at = 0;
    for (a, b, with) in spans {
        out.push_str(&s[at..*a]);
        out.push_str(with);
        at = *b;
    }
    out.push_str(&s[at..]);
    out
}

/// Whether option `i`'s own text occurs in the response as a word.
fn text_named(item: &ItemContent, i: usize, response: &str) -> bool {
    let (p, script) = (text::prepare(response), text::nfkc_lower(response));
    !option_spans(item, i, &p, &script, &text::prepare(&item.question)).is_empty()
}

/// Where option `i`'s text occurs as a word in a reply (`p` prepared, `script` NFKC lower case).
fn option_spans(
    item: &ItemContent,
    i: usize,
    p: &str,
    script: &str,
    asked: &str,
) -> Vec<(usize, usize)> {
    let needle = text::prepare(item.options[i].text.trim());
    let needle = needle.trim_matches(|c: char| c.is_whitespace() || text::is_clause_mark(c));
    if needle.is_empty() {
        return Vec::new();
    }
    let found = words::occurrences(p, script, needle, asked);
    // "An electric scooter" for the option "A scooter": the option's article is no word of it.
    let bare = ["a ", "an ", "the "]
        .iter()
        .find_map(|a| needle.strip_prefix(a))
        .filter(|b| !b.trim().is_empty());
    // Only as a whole phrase: "the dog bowl", "a horse trailer" name other things.
    const NEXT: &[&str] = &[
        "with", "that", "which", "who", "is", "was", "and", "on", "in", "at", "to", "from", "for",
        "of", "has", "by", "near", "behind", "next",
    ];
    let whole = |&(_, e): &(usize, usize)| {
        if p[e..].starts_with('-') {
            return false;
        }
        let rest = p[e..].trim_start();
        let word = rest
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        word.is_empty() || NEXT.contains(&word)
    };
    match bare {
        Some(b) if found.is_empty() => words::occurrences(p, script, b.trim(), asked)
            .into_iter()
            .filter(whole)
            .collect(),
        _ => found,
    }
}

/// A flat denial right after an option's kind ("은 아닙니다", "ではありません"), not a soft guess
/// ("じゃないですかね", "이 아닐까").
fn flatly_denied(after: &str) -> bool {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        re(r"^\s*(?:(?:은|는|이|가)\s*(?:아닙니다|아니에요|아니예요|아니다|아님)(?:\s*[.。!]|\s*$)|(?:では|じゃ)(?:ありません|ない)(?:です)?(?:\s*[.。!]|\s*$))")
    })
    .is_match(after)
}

/// Whether the words right after a named option (or an option's place: "2番目") state it as
/// the answer: a copula ("です", "입니다"; a guess, "だと思います", states it too, so a first
/// impression before it is not the one), a verdict ("が正解", "이 맞") or a choice ("を選ぶ");
/// not a question ("カフェですか？", "だろうか").
fn stated_as_answer(after: &str) -> bool {
    const STATING: &[&str] = &[
        "だと",
        "だろ",
        "だ。",
        "だね",
        "だよ",
        "です",
        "でございます",
        "でしょう",
        "と思",
        "が正解",
        "が正しい",
        "を選",
        "입니다",
        "이에요",
        "예요",
        "이야",
        "가 맞",
        "이 맞",
        "가 정답",
        "이 정답",
        "을 선택",
        "를 선택",
    ];
    let a = after.trim_start_matches(['\'', '"', '」', '』', '’', '”', ' ']);
    STATING.iter().any(|w| {
        a.strip_prefix(w)
            .is_some_and(|r| !r.starts_with(['か', '?']))
    })
}

/// The end of the word naming an option's kind after it ("공유 버튼", "保存ボタン", "the Share
/// button"), or `end` when none follows.
fn option_kind_end(p: &str, end: usize) -> usize {
    const KINDS: &[&str] = &[
        " 버튼",
        "버튼",
        " 메뉴",
        " 아이콘",
        " 보기",
        " 선택지",
        "ぼたん",
        "めにゅー",
        "あいこん",
    ];
    KINDS
        .iter()
        .find(|k| p[end..].starts_with(*k))
        .map_or(end, |k| end + k.len())
}

fn numbered_option(item: &ItemContent, p: &str) -> Option<Reading> {
    let places: Vec<Option<u32>> = item
        .options
        .iter()
        .map(|o| {
            let t = text::prepare(&o.text);
            let items = text::ordinals::numbered_items(&t);
            match items.as_slice() {
                [one] => text::ordinals::ordinal_reference(&t).filter(|n| *n == one.position),
                _ => None,
            }
        })
        .collect();
    if places.iter().flatten().count() < 2 {
        return None;
    }
    let found: Vec<text::ordinals::Ordinal> = text::ordinals::numbered_items(p)
        .into_iter()
        .filter(|o| text::negation::denied(p, o.start, o.end).is_none())
        .collect();
    // "첫 번째 이미지인지 두 번째 이미지인지 확실하지 않습니다": several offered, none chosen.
    let places_named = |o: &text::ordinals::Ordinal| places.contains(&Some(o.position));
    let offered: Vec<usize> = (0..places.len())
        .filter(|&i| found.iter().any(|o| places[i] == Some(o.position)))
        .collect();
    let asked = text::similarity::content_words(&item.question);
    let sentence_of = |o: &text::ordinals::Ordinal| {
        let from = text::after_last(p, o.start, &['.', '。', '!', '?', '\n']);
        let to = p[o.end..]
            .find(['.', '。', '!', '?', '\n'])
            .map_or(p.len(), |i| o.end + i);
        (from, to)
    };
    // "…인지 …인지 헷갈릴 수 있지만, … 두 번째 이미지가 밤 사진입니다": a doubt conceded, then
    // one place after the contrast.
    let decided_after = |end: usize| {
        text::contrast_end(p)
            .filter(|&c| c >= end)
            .is_some_and(|c| {
                let later: Vec<u32> = found
                    .iter()
                    .filter(|o| o.start >= c)
                    .map(|o| o.position)
                    .collect();
                !later.is_empty() && later.iter().all(|&x| x == later[0])
            })
    };
    let hedge_end = found.iter().find_map(|o| {
        let end = text::ordinals::item_end(p, o);
        (places_named(o) && text::hedges::offered_with_another(p, o.start, end)).then_some(end)
    });
    // "So it's image 2.", "なので2枚目です": a conclusion that is the place alone states the
    // answer, ahead of a sentence that describes another image in the question's words.
    static BARE_BEFORE: OnceLock<Regex> = OnceLock::new();
    static BARE_AFTER: OnceLock<Regex> = OnceLock::new();
    let bare_before = BARE_BEFORE.get_or_init(|| {
        re(r"^[\s,、:]*(?:(?:it|that)(?:'s|’s| is| must be)|the answer is|answer is)?[\s,、:]*(?:the\s+)?$")
    });
    let bare_after = BARE_AFTER.get_or_init(|| {
        re(r"^\s*(?:です|でしょう|だ|입니다|이에요|예요|이다|이죠|일 것입니다)?\s*[.!。！]?\s*$")
    });
    let conceded = match hedge_end {
        Some(end) if offered.len() >= 2 && !decided_after(end) => {
            return Some(Reading::Hedged(offered));
        }
        // The clause after the contrast answers what was asked ("…가로등이 켜져 있는 두 번째
        // 이미지가 밤 사진입니다"), not only describes ("but the second image has more colour").
        Some(end) if offered.len() >= 2 => text::contrast_end(p)
            .filter(|&c| c >= end)
            .and_then(|c| found.iter().find(|o| o.start >= c))
            .filter(|o| {
                let (_, to) = sentence_of(o);
                let said = format!(
                    "{}{}",
                    &p[text::contrast_end(p).unwrap_or(o.start)..o.start],
                    &p[text::ordinals::item_end(p, o)..to]
                );
                // Or it names the place as the answer ("… 첫 번째 이미지입니다").
                text::similarity::content_words(&said)
                    .iter()
                    .any(|w| asked.contains(w))
                    || bare_after.is_match(&p[text::ordinals::item_end(p, o)..to])
            }),
        _ => None,
    };
    if hedge_end.is_some() && offered.len() >= 2 && conceded.is_none() {
        return Some(Reading::Hedged(offered));
    }
    // The place named in the sentence that answers what was asked ("Image 2 has more.",
    // "2枚目の方が人が多いです") before one a conclusion about something else names ("1枚目は
    // 早朝に撮影されたようなので、1枚目の通りは…").
    let answering: Vec<&text::ordinals::Ordinal> = found
        .iter()
        .filter(|o| {
            let (from, to) = sentence_of(o);
            let others = found
                .iter()
                .filter(|x| x.start >= from && x.end <= to && x.position != o.position)
                .count();
            // The item's own noun ("이미지", "image") is no word of what was asked.
            let said = format!(
                "{}{}",
                &p[from..o.start],
                &p[text::ordinals::item_end(p, o)..to]
            );
            others == 0
                && text::similarity::content_words(&said)
                    .iter()
                    .any(|w| asked.contains(w))
        })
        .collect();
    let correction = text::corrections::last_end(p);
    let conclusion = text::conclusions::last_end(p);
    // Not one a correction then takes back ("なので2枚目です。……いや、…1枚目").
    let concluded = conclusion
        .filter(|&c| correction.is_none_or(|k| k < c))
        .and_then(|c| {
            let o = found.iter().find(|o| o.start >= c)?;
            let (_, to) = sentence_of(o);
            (bare_before.is_match(&p[c..o.start])
                && bare_after.is_match(&p[text::ordinals::item_end(p, o)..to]))
            .then_some(o)
        });
    let got = concluded
        .or(conceded)
        .or_else(|| match answering.as_slice() {
            [one, rest @ ..] if rest.iter().all(|o| o.position == one.position) => Some(*one),
            _ => None,
        })
        .or_else(|| correction.and_then(|c| found.iter().find(|o| o.start >= c)))
        .or_else(|| conclusion.and_then(|c| found.iter().find(|o| o.start >= c)))
        .or(found.first())?;
    let hits: Vec<usize> = (0..places.len())
        .filter(|&i| places[i] == Some(got.position))
        .collect();
    match hits.as_slice() {
        [one] => Some(Reading::Letter(*one, "option text")),
        _ => None,
    }
}

/// The letter index and the rule that found it (hedges and non-answers give None).
pub fn extract_letter(response: &str, n_options: usize) -> Option<(usize, &'static str)> {
    match read_choice(response, n_options) {
        Reading::Letter(i, rule) => Some((i, rule)),
        _ => None,
    }
}

/// What the option texts a response names, and does not deny, say (a text inside a longer named
/// option's text counts as that option): one option; several, with the last sentence naming
/// one ("Not a cello … not a flute … Violin it is."); an option offered with another ("swans or
/// geese") is a hedge; None when no option's text is named.
fn named_option(item: &ItemContent, response: &str) -> Option<Reading> {
    let p = text::prepare(response);
    // Options that are all numbers ("4匹", "3명", "5"): the number the response commits to.
    let values: Vec<Option<f64>> = item
        .options
        .iter()
        .map(|o| text::numbers::numeric_reference(&text::prepare(&o.text)))
        .collect();
    if !values.is_empty() && values.iter().all(Option::is_some) {
        let asked = text::prepare(&item.question);
        let (mention, _) = text::numbers::committed_mention(&p, Some(&asked), f64::NAN)?;
        let got = mention.value;
        // "10 lb" names no option of "5 kg … 20 kg": a figure in another unit is another
        // quantity.
        let unit_after = |s: &str, end: usize| text::units::unit_at(&s[end..]).map(|u| u.0);
        let got_unit = unit_after(&p, mention.end);
        let option_unit = |i: usize| {
            let o = text::prepare(&item.options[i].text);
            text::numbers::mentions(&o)
                .first()
                .and_then(|m| unit_after(&o, m.end))
        };
        let hits: Vec<usize> = (0..values.len())
            .filter(|&i| {
                values[i].is_some_and(|v| (v - got).abs() < 1e-9)
                    && match (got_unit, option_unit(i)) {
                        (Some(a), Some(b)) => a.symbol == b.symbol,
                        _ => true,
                    }
            })
            .collect();
        let mut distinct: Vec<f64> = values.iter().flatten().copied().collect();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        // "3時間前" and "3日前": options of one value in other units are read by their text.
        if distinct.len() == values.len() {
            return match hits.as_slice() {
                [one] => Some(Reading::Letter(*one, "option text")),
                _ => Some(Reading::Nothing("no one option's number")),
            };
        }
    }
    // Options that name images or frames by place ("The first image", "Frame 4", "두 번째
    // 이미지"): the place the reply concludes on, else the first it names ("Image 2 has more.").
    if let Some(reading) = numbered_option(item, &p) {
        return Some(reading);
    }
    let script = text::nfkc_lower(response);
    let asked = text::prepare(&item.question);
    let mut hits: Vec<(usize, (usize, usize))> = Vec::new();
    for i in 0..item.options.len() {
        for span in option_spans(item, i, &p, &script, &asked) {
            // "공유 버튼은 아닙니다", "the share button is not it": the option named with the
            // kind of thing it is, then denied.
            let kind_end = option_kind_end(&p, span.1);
            if negation::denied(&p, span.0, span.1).is_none()
                && !(kind_end > span.1 && flatly_denied(&p[kind_end..]))
            {
                hits.push((i, span));
            }
        }
    }
    let inside = |a: (usize, usize), b: (usize, usize)| b.0 <= a.0 && a.1 <= b.1 && a != b;
    let hits: Vec<(usize, (usize, usize))> = hits
        .iter()
        .copied()
        .filter(|(_, s)| !hits.iter().any(|(_, o)| inside(*s, *o)))
        .collect();
    if hits.is_empty() {
        return None;
    }
    let distinct = |hs: &[(usize, (usize, usize))]| {
        let mut v: Vec<usize> = hs.iter().map(|h| h.0).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let named = distinct(&hits);
    let offered: Vec<usize> = hits
        .iter()
        .filter(|(_, (s, e))| text::hedges::offered_with_another_in(&p, Some(&script), *s, *e))
        .map(|h| h.0)
        .collect();
    if !offered.is_empty() {
        // "swans or geese": an option offered with another answer, an option or not.
        return Some(if named.len() >= 2 {
            Reading::Hedged(named)
        } else {
            Reading::Nothing("an option's text offered with another answer")
        });
    }
    if let [one] = named.as_slice() {
        return Some(Reading::Letter(*one, "option text"));
    }
    // "불이 들어온 곳은 '쾌속'입니다. '표준' 바로 옆에 있어요", "三毛かな？いや、…茶トラです": of
    // several named, the one option a sentence states as what it is (the copula right after
    // it), when only one is.
    let copula = |e: usize| stated_as_answer(&p[e..]);
    let stated: Vec<(usize, (usize, usize))> = hits
        .iter()
        .copied()
        .filter(|(_, (_, e))| copula(*e))
        .collect();
    // Not in a reply that ends undecided ("…どちらとも言い切れません").
    if let [one] = distinct(&stated).as_slice() {
        if undecided_end(&p).is_none() {
            return Some(Reading::Letter(*one, "the one option stated with a copula"));
        }
    }
    // Several named: the last sentence decides when it names one and is not a question.
    let last_start = p
        .trim_end_matches(|c: char| c.is_whitespace() || ".。!！".contains(c))
        .rfind(['.', '。', '!', '！', '?', '？', '\n'])
        .map_or(0, |i| i + p[i..].chars().next().map_or(1, char::len_utf8));
    let last: Vec<(usize, (usize, usize))> = hits
        .iter()
        .copied()
        .filter(|(_, (s, _))| *s >= last_start)
        .collect();
    let opening = p[last_start..].trim_start();
    // An aside ("A cello would be much larger.") is no decision.
    let tentative = ["or ", "maybe", "possibly", "perhaps"]
        .iter()
        .any(|w| opening.starts_with(w))
        || opening
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            // "May" the option (a month) is no modal.
            .filter(|w| {
                !item
                    .options
                    .iter()
                    .any(|o| o.text.trim().eq_ignore_ascii_case(w))
            })
            .any(|w| {
                matches!(
                    w,
                    "would" | "could" | "might" | "may" | "if" | "than" | "unlike"
                )
            });
    // "June has the tallest bar, just above May.": the option the sentence opens with, the
    // others named only as what it is compared with.
    if let Some(&(first, (s0, _))) = last.iter().min_by_key(|h| h.1 .0) {
        let opens = p[last_start..s0].trim().is_empty();
        let compared = |s: usize| {
            let before = &p[text::char_boundary_after(&p, s.saturating_sub(16))..s];
            [
                "above",
                "below",
                "than",
                "over",
                "behind",
                "ahead of",
                "after",
                "before",
                "compared to",
                "compared with",
                "beats",
                "beating",
                "followed by",
            ]
            .iter()
            .any(|w| before.contains(w))
        };
        let others: Vec<_> = last.iter().filter(|h| h.0 != first).collect();
        if opens
            && !others.is_empty()
            && others.iter().all(|h| compared(h.1 .0))
            && !p[last_start..].contains(['?', '？'])
            && !tentative
        {
            return Some(Reading::Letter(
                first,
                "the option the sentence opens with, the others only compared with it",
            ));
        }
    }
    match distinct(&last).as_slice() {
        [one] if !p[last_start..].contains(['?', '？']) && !tentative => {
            Some(Reading::Letter(*one, "option text in the last sentence"))
        }
        _ => Some(Reading::Nothing("several options' texts named")),
    }
}

/// A verdict on every option, one line each ("A. … ✗", "B. … ✓", "C: X", "D: O"), exactly one
/// of them right: that option. Lines of options without a mark, or two marked right, are not
/// read here.
fn marked_option(response: &str, n_options: usize) -> Option<Reading> {
    static LINE: OnceLock<Regex> = OnceLock::new();
    let line = LINE.get_or_init(|| {
        Regex::new(r"^\s*[-*・•]?\s*(?:\*\*)?[(（\[]?([A-Ea-eＡ-Ｅ])(?:\*\*)?[)）\].:：]")
            .expect("valid")
    });
    let mut marks: Vec<Option<bool>> = vec![None; n_options];
    for l in response.lines() {
        let Some(c) = line.captures(l) else { continue };
        let letter = nfkc(&c[1]).to_ascii_uppercase();
        let i = (letter.as_bytes()[0] - b'A') as usize;
        if i >= n_options {
            return None;
        }
        let rest = &l[c.get(0).map_or(0, |m| m.end())..];
        let tokens: Vec<&str> = rest
            .split(|c: char| c.is_whitespace() || "()（）[]—–-:：*".contains(c))
            .filter(|t| !t.is_empty())
            .collect();
        let right = rest.contains(['✓', '✔', '☑', '⭕', '◯', '○', '〇']) || tokens.contains(&"O");
        let wrong = rest.contains(['✗', '✘', '×', '✕', '❌', '☒']) || tokens.contains(&"X");
        marks[i] = match (right, wrong) {
            (true, false) => Some(true),
            (false, true) => Some(false),
            _ => return None,
        };
    }
    // Not when the reply then leaves it open ("…、B＝○、…です。ただ、BかDかは判断できません").
    if marks.iter().all(Option::is_none) {
        let l = response.to_lowercase();
        if hedge_cue().is_match(&l) || undecided_end(&l).is_some() {
            return None;
        }
        marks = marks_in_a_line(response, n_options)?;
    }
    if marks.iter().any(Option::is_none) {
        return None;
    }
    let right: Vec<usize> = (0..n_options).filter(|&i| marks[i] == Some(true)).collect();
    match right.as_slice() {
        [one] => Some(Reading::Letter(
            *one,
            "the one option marked right in a verdict on each",
        )),
        _ => None,
    }
}

/// The exam style of one line, "A＝×、B＝○、C＝×、D＝×": each letter with its mark after "=" or
/// ":". Every letter marked once, or nothing.
fn marks_in_a_line(response: &str, n_options: usize) -> Option<Vec<Option<bool>>> {
    static MARK: OnceLock<Regex> = OnceLock::new();
    let mark = MARK.get_or_init(|| {
        Regex::new(
            r"(?:^|[\s、,;；：:])[(（]?([A-Ea-eＡ-Ｅ])[)）]?\s*[=＝:：]\s*([○◯〇⭕✓✔×✗✘✕❌])",
        )
        .expect("valid")
    });
    let mut marks: Vec<Option<bool>> = vec![None; n_options];
    for c in mark.captures_iter(response) {
        let i = (nfkc(&c[1]).to_ascii_uppercase().as_bytes()[0] - b'A') as usize;
        if i >= n_options || marks[i].is_some() {
            return None;
        }
        marks[i] = Some("○◯〇⭕✓✔".contains(&c[2]));
    }
    Some(marks)
}

/// Options that are codes ("Gate B12", "12C", "12가 3456"), none named as written: the one
/// option whose characters the reply writes with other spacing or case ("gate b 12", "12 가
/// 3456").
fn code_option(item: &ItemContent, response: &str) -> Option<Reading> {
    let compact = |s: &str| -> String {
        nfkc(s)
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect()
    };
    let codes: Vec<String> = item.options.iter().map(|o| compact(&o.text)).collect();
    let is_code = |c: &String| {
        c.chars().any(|x| x.is_ascii_digit())
            && c.chars().any(|x| !x.is_ascii_digit())
            && c.chars().count() <= 10
    };
    // A denial's scope is not traced in the compacted text ("位置1は新月なので違います").
    if codes.is_empty()
        || !codes.iter().all(is_code)
        || negation::has_denial(&text::prepare(response))
    {
        return None;
    }
    let reply = compact(response);
    let hits: Vec<usize> = (0..codes.len())
        .filter(|&i| reply.contains(&codes[i]))
        .collect();
    match hits.as_slice() {
        [one] => Some(Reading::Letter(
            *one,
            "an option's code written with other spacing",
        )),
        _ => None,
    }
}

/// The option a reply names by the marker the question lists it with ("(1) Left (2) Right …"
/// answered "Answer: (2)", "ア 卵　イ おたまじゃくし　ウ …" answered "ウ", "① 잎 ② 줄기 ③ 뿌리"
/// answered "③"): the whole reply, or what follows an answer mark, is one marker of the scheme
/// the question uses for all its options, in order.
fn question_marker_option(item: &ItemContent, response: &str) -> Option<Reading> {
    const SCHEMES: &[&[&str]] = &[
        &["(1)", "(2)", "(3)", "(4)", "(5)", "(6)"],
        &["①", "②", "③", "④", "⑤", "⑥"],
        &["ア", "イ", "ウ", "エ", "オ", "カ"],
        &["가", "나", "다", "라", "마", "바"],
        &["㉠", "㉡", "㉢", "㉣", "㉤", "㉥"],
    ];
    let n = item.options.len();
    let q = item.question.replace('（', "(").replace('）', ")");
    // Each marker in order, each before its option's text.
    let scheme = SCHEMES.iter().find(|markers| {
        n >= 2
            && n <= markers.len()
            && markers[..n].iter().enumerate().all(|(k, m)| {
                q.match_indices(m).any(|(at, _)| {
                    q[at + m.len()..]
                        .trim_start_matches([' ', '\u{3000}', '.', ':', ')'])
                        .starts_with(item.options[k].text.trim())
                })
            })
    })?;
    // A reply that corrects itself ("Answer: (1) … actually it's (2)") is read by the other
    // rules, which take the last answer.
    if text::corrections::last_end(&text::prepare(response)).is_some() {
        return None;
    }
    let reply = response.trim().replace('（', "(").replace('）', ")");
    static MARK: OnceLock<Regex> = OnceLock::new();
    let mark = MARK.get_or_init(|| {
        re(r"(?i)(?:answer|答え|回答|正解|정답|답)\s*(?:は|은|는)?\s*[:：]?\s*\**\s*$")
    });
    let bare = |s: &str| {
        s.trim_matches(|c: char| c.is_whitespace() || "*.。!".contains(c))
            .trim_end_matches("です")
            .trim_end_matches("입니다")
            .trim_end_matches('번')
            .trim()
            .to_string()
    };
    let whole = bare(&reply);
    let marked: Vec<usize> = (0..n)
        .filter(|&k| {
            let m = scheme[k];
            whole == m
                || reply.match_indices(m).any(|(at, _)| {
                    mark.is_match(&reply[..at])
                        && bare(reply[at + m.len()..].split('\n').next().unwrap_or("")).is_empty()
                })
        })
        .collect();
    match marked.as_slice() {
        [one] => Some(Reading::Letter(*one, "the option's marker in the question")),
        _ => None,
    }
}

/// Options that differ only by a label between words they share ("Layer W" … "Layer Z",
/// "歯車のアイコン" … "ベルのアイコン"): the reply names the option by its label, after an answer
/// mark ("Answer: X") or, for a label of two letters or more, as a word no denial governs
/// ("虫めがねではなく、右上の歯車マーク").
fn label_option(item: &ItemContent, response: &str) -> Option<Reading> {
    let texts: Vec<String> = item
        .options
        .iter()
        .map(|o| o.text.trim().to_string())
        .collect();
    if texts.len() < 2 {
        return None;
    }
    let common = |rev: bool| -> usize {
        let chars: Vec<Vec<char>> = texts
            .iter()
            .map(|t| {
                let mut c: Vec<char> = t.chars().collect();
                if rev {
                    c.reverse();
                }
                c
            })
            .collect();
        let mut k = 0;
        while chars.iter().all(|c| c.len() > k && c[k] == chars[0][k]) {
            k += 1;
        }
        k
    };
    let (pre, suf) = (common(false), common(true));
    // Options sharing only an article ("A dog", "A cat") are read by their text.
    let shared: String = texts[0].chars().take(pre).collect();
    let article = matches!(
        shared.trim().to_ascii_lowercase().as_str(),
        "a" | "an" | "the"
    );
    if (pre == 0 || article) && suf == 0 {
        return None;
    }
    let labels: Vec<String> = texts
        .iter()
        .map(|t| {
            let c: Vec<char> = t.chars().collect();
            let end = c.len().saturating_sub(suf).max(pre);
            c[pre..end].iter().collect::<String>().trim().to_string()
        })
        .collect();
    if labels.iter().any(|l| l.is_empty()) {
        return None;
    }
    static MARK: OnceLock<Regex> = OnceLock::new();
    // The mark opens its line ("Answer: X", "**Final answer:** X"), not "a frequent wrong
    // answer:"; a reply that corrects itself is read by the other rules.
    let mark = MARK.get_or_init(|| {
        re(r"(?im)^[\s*#>_-]*(?:final answer|answer|答え|回答|正解|최종 답|정답|답)\s*[*_]*\s*[:：]\s*\**\s*(.+?)\s*\**\s*$")
    });
    let corrected = text::corrections::last_end(&text::prepare(response)).is_some();
    if let Some(c) = mark.captures_iter(response).last().filter(|_| !corrected) {
        let said = c[1].trim_end_matches(['.', '。']).trim();
        let hits: Vec<usize> = (0..labels.len())
            .filter(|&k| said.eq_ignore_ascii_case(&labels[k]))
            .collect();
        if let [one] = hits.as_slice() {
            return Some(Reading::Letter(
                *one,
                "the option's label, the words all options share aside",
            ));
        }
    }
    // Outside an answer mark only labels of kanji or katakana name an option (歯車, 家): a
    // Latin or hiragana label is too often part of another word or name ("East Asian", 開封なし).
    // One kana ("イ" of 回路イ) is read only after an answer mark too.
    if !labels.iter().all(|l| {
        l.chars().any(text::is_kanji)
            || (l.chars().count() >= 2 && l.chars().any(text::is_katakana))
    }) {
        return None;
    }
    let bare = ItemContent {
        options: labels
            .iter()
            .map(|l| assay_core::ChoiceOption {
                text: l.clone(),
                kind: None,
            })
            .collect(),
        ..item.clone()
    };
    match named_option(&bare, response)? {
        Reading::Letter(k, _) => Some(Reading::Letter(
            k,
            "the option's label, the words all options share aside",
        )),
        _ => None,
    }
}

/// Options that are all clock times or dates ("22:45", "6:00", "3月5日"), none named as
/// written: the one option the reply's time or date answers when read as a short answer
/// ("10:45 PM" for "22:45", "6時ちょうど" for "6:00", "오전 5시 10분" for "05:10").
fn value_option(item: &ItemContent, response: &str) -> Option<Reading> {
    let prepared: Vec<String> = item
        .options
        .iter()
        .map(|o| text::prepare(&o.text))
        .collect();
    let all_values = !prepared.is_empty()
        && prepared.iter().all(|o| {
            text::clock::time_reference(o).is_some() || text::dates::date_reference(o).is_some()
        });
    // "하얀색이에요" for the option 흰색: options that are each one colour are read the same way.
    let all_colours = !item.options.is_empty()
        && item
            .options
            .iter()
            .all(|o| text::colours::reference_colour(&super::normalize::nfkc(&o.text)).is_some());
    // "上野です。" for the option うえの: options in kana only are read by their readings.
    let all_kana = !item.options.is_empty()
        && item.options.iter().all(|o| {
            let t = o.text.trim();
            !t.is_empty()
                && t.chars()
                    .all(|c| text::is_hiragana(c) || text::is_katakana(c) || c == 'ー')
        })
        && response.chars().any(text::is_kanji);
    if !all_values && !all_colours && !all_kana {
        return None;
    }
    // "8時10分に出発し、10時40分に到着": several options' times named, which one answers is the
    // question's to say; no letter.
    let p = text::prepare(response);
    let (times, dates) = (text::clock::times(&p), text::dates::dates(&p));
    let named = prepared
        .iter()
        .filter(|o| {
            text::clock::time_reference(o).is_some_and(|t| times.iter().any(|x| x.same(&t)))
                || text::dates::date_reference(o).is_some_and(|d| dates.iter().any(|x| x.same(&d)))
        })
        .count();
    if named > 1 {
        return Some(Reading::Nothing("several options' times or dates named"));
    }
    let hits: Vec<usize> = (0..item.options.len())
        .filter(|&i| {
            super::soft::soft_match_asked(Some(&item.question), &item.options[i].text, response).0
        })
        .collect();
    match hits.as_slice() {
        [one] => Some(Reading::Letter(*one, VALUE_RULE)),
        [] => None,
        _ => Some(Reading::Nothing("several options' values answered")),
    }
}

const VALUE_RULE: &str = "an option's time, date, colour or kana word, written another way";

/// The one option a reply describes in other words ([`text::similarity`]), when its words
/// clearly match that option's and no other's, and the reply denies nothing (a denial's scope
/// is not traced word by word here, so a reply with one is left unread).
fn described_option(item: &ItemContent, response: &str) -> Option<(usize, bool)> {
    let p = text::prepare(response);
    // Nor a reply offering alternatives ("swans or geese").
    let alternatives = p.split(|c: char| !c.is_alphanumeric()).any(|w| w == "or")
        || ["または", "もしくは", "또는", "혹은", "아니면"]
            .iter()
            .any(|w| p.contains(w));
    if negation::has_denial(&p) || alternatives {
        return None;
    }
    let options: Vec<&str> = item.options.iter().map(|o| o.text.as_str()).collect();
    let (best, sim, second) = text::similarity::described_option(&options, response)?;
    // One shared word of a longer option ("a fence" for "Painting a fence") is a leaning, not
    // a reading: half its words must meet the reply's.
    let share = text::similarity::words_met(options[best], response);
    (sim >= 0.75 && second < 0.5 && share >= 0.5).then_some((best, share > 0.5))
}

/// The option a reply's words lean to, too weakly to decide ([`described_option`]'s bar not
/// met), with its similarity.
fn described_leaning(item: &ItemContent, response: &str) -> Option<(usize, f64)> {
    let options: Vec<&str> = item.options.iter().map(|o| o.text.as_str()).collect();
    text::similarity::described_option(&options, response).map(|(i, sim, _)| (i, sim))
}

const DESCRIBED_RULE: &str = "an option described in other words";
const ANSWER_STATEMENT: &str = "answer statement";
const DESCRIBED_BY_ONE_WORD: &str = "an option described in other words (one word of it met)";

fn letter(i: usize) -> String {
    ((b'A' + i as u8) as char).to_string()
}

pub struct ChoiceScorer;

impl Scorer for ChoiceScorer {
    fn name(&self) -> &'static str {
        "choice"
    }
    fn score(&self, item: &ItemContent, response: &str, _ctx: &ScoreContext) -> Scored {
        let turn = text::own_turn(response);
        let response: &str = &turn;
        let n = item.options.len();
        let numbered_texts = item.options.iter().any(|o| {
            let t = nfkc(&o.text);
            t.contains("번") || t.contains('番')
        });
        // A reply cut off mid-sentence ("…分かりにくいですが、") names options only while
        // describing: without a letter, it has not answered yet.
        let undecided =
            undecided_end(&nfkc(response).to_ascii_lowercase()).is_some() || cut_off(response);
        // A verdict on each option decides when the reply states no letter otherwise ("… ✓ …
        // Wait, the answer is A" states A).
        let read = read_choice_numbered(response, n, !numbered_texts);
        // "最初はカインチュア（A）かと思いましたが、…トムヤムクンです": a letter taken back by a
        // correction, and another option named by its text after it.
        let read = match read {
            // Every reply with a letter passes here: the reply is prepared only when it holds a
            // correction at all.
            // Not a letter already read after the correction ("… 아니요, … 3이 맞습니다. C.").
            Reading::Letter(i, rule)
                if rule != "commitment after a correction"
                    && text::corrections::any_in(&response.to_ascii_lowercase()) =>
            {
                let p = text::prepare(response);
                // Not a note on the question ("One small correction: A says 'bus' …", "(정정:
                // …)"): a first thought taken back ("…かと思いましたが", "wait", "actually").
                text::corrections::found(&p)
                    .last()
                    .filter(|m| {
                        !["correction", "정정", "訂正"]
                            .iter()
                            .any(|w| m.as_str().contains(w))
                    })
                    .and_then(|m| {
                        // The prepared text reads the same after preparing again.
                        let after = &p[m.end()..];
                        // A closer look that only adds a detail ("Looking more closely, the
                        // roof also has white stripes", "자세히 보니 옆에 햄스터 우리도
                        // 보이네요") takes nothing back: without a word that takes back
                        // ("wait", "잠깐,"), it corrects only by denying the first answer.
                        let takes_back = text::corrections::found(&p).any(|x| {
                            !text::corrections::observes(x.as_str())
                                && !["correction", "정정", "訂正"]
                                    .iter()
                                    .any(|w| x.as_str().contains(w))
                        });
                        // Read only for a closer look: most corrections take back.
                        let denies_first = || {
                            text::negation::has_denial(after)
                                && (after.contains(text::prepare(&item.options[i].text).as_str())
                                    || !matches!(read_choice(after, n), Reading::Nothing(_)))
                        };
                        if text::corrections::observes(m.as_str()) && !takes_back && !denies_first()
                        {
                            return None;
                        }
                        // Only when no letter follows the correction ("A? Wait, actually B" reads B).
                        if !matches!(read_choice(after, n), Reading::Nothing(_)) {
                            return None;
                        }
                        match named_option(item, after) {
                            Some(Reading::Letter(j, _)) if j != i => {
                                Some(Reading::Letter(j, "option text after a correction"))
                            }
                            _ => None,
                        }
                    })
                    .unwrap_or(read)
            }
            other => other,
        };
        let reading = match match read {
            Reading::Letter(..) => read,
            other => marked_option(response, n).unwrap_or(other),
        } {
            // Options named by their text in a reply that ends undecided ("3층, 4층, 5층 중 어느
            // 것인지는 … 어렵습니다") are candidates, not an answer.
            Reading::Nothing(why) if undecided => Reading::Nothing(why),
            Reading::Nothing(why) => {
                match question_marker_option(item, response)
                    .or_else(|| named_option(item, response))
                    .or_else(|| value_option(item, response))
                    .or_else(|| label_option(item, response))
                    .or_else(|| code_option(item, response))
                {
                    Some(reading) => reading,
                    None => match described_option(item, response) {
                        // Its own text named and denied ("공유 버튼은 아닙니다"): not described.
                        Some((i, _)) if text_named(item, i, response) => Reading::Nothing(why),
                        Some((i, true)) => Reading::Letter(i, DESCRIBED_RULE),
                        Some((i, false)) => Reading::Letter(i, DESCRIBED_BY_ONE_WORD),
                        None => Reading::Nothing(why),
                    },
                }
            }
            r => r,
        };
        let Some(correct) = item.correct_option else {
            return Scored::unparsed(json!({"rule": "item has no correct option"}));
        };
        match reading {
            Reading::Letter(i, rule) => {
                let kind = item.options.get(i).and_then(|o| o.kind).map(|k| k.as_str());
                let mut evidence = json!({
                    "rule": rule,
                    "chosen": letter(i),
                    "correct": letter(correct),
                    "chosen_kind": kind,
                });
                // One word of a longer option met ("a fence" for "Painting a fence"): read,
                // but a judge should confirm it.
                if rule == DESCRIBED_BY_ONE_WORD {
                    evidence["unsure"] = json!("one word of the option's text met in other words");
                    evidence["needs_judge"] = json!(true);
                }
                Scored {
                    score: Some((i == correct) as u8 as f64),
                    parsed: Some(letter(i)),
                    hedged: false,
                    evidence,
                }
            }
            Reading::Hedged(letters) => {
                let offered: Vec<String> = letters.iter().map(|&i| letter(i)).collect();
                Scored {
                    score: Some(0.0),
                    parsed: Some(offered.join("|")),
                    hedged: true,
                    evidence: json!({
                        "rule": "hedge: several letters offered without commitment",
                        "offered": offered,
                        "correct": letter(correct),
                    }),
                }
            }
            Reading::Nothing(why) => {
                // The rules read no answer from a reply that says something: a judge may
                // (an option described in words the rules cannot match, a decision phrased
                // another way). The rules' best guess is kept for the person who checks it.
                let leaning = described_leaning(item, response);
                let mut evidence = json!({"rule": why, "options": n});
                // "lion" for options in Hangul: a word in another script may name an option.
                let other_script = response.trim().chars().any(|c| c.is_ascii_alphabetic())
                    && item.options.iter().all(|o| !o.text.is_ascii());
                if response.split_whitespace().count() >= 2
                    || response.chars().count() >= 6
                    || other_script
                {
                    evidence["unsure"] = json!(match leaning {
                        Some(_) => "the reply may describe an option in other words",
                        None => "no answer the rules can read",
                    });
                    evidence["needs_judge"] = json!(true);
                    if let Some((i, sim)) = leaning {
                        evidence["leaning"] = json!(letter(i));
                        evidence["similarity"] = json!((sim * 100.0).round() / 100.0);
                    }
                }
                Scored::unparsed(evidence)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> String {
        match read_choice(s, 4) {
            Reading::Letter(i, _) => letter(i),
            Reading::Hedged(v) => format!(
                "hedge {}",
                v.iter().map(|&i| letter(i)).collect::<Vec<_>>().join("")
            ),
            Reading::Nothing(_) => "-".into(),
        }
    }

    /// Issue 49, holdout5: forms made for parsers, places in the list, romanised statements,
    /// corrections, letters denied together and letters offered under conditions.
    #[test]
    fn places_tags_romanised_corrections_and_conditions() {
        for (s, want) in [
            (
                "<answer>B</answer>\n<why>Not A (too small), not C.</why>",
                "B",
            ),
            ("{\"answer\": \"c\", \"reason\": \"B is too dark\"}", "C"),
            ("{\"正解\": \"Ａ\"}", "A"),
            ("I'll go with the second one, the red car.", "B"),
            ("The last option fits best.", "D"),
            ("2番目の選択肢だと思います。", "B"),
            ("最後のものが正しいです。", "D"),
            ("최종적으로 두 번째 보기가 맞습니다.", "B"),
            ("마지막 선택지입니다.", "D"),
            ("Seikai wa D desu.", "D"),
            ("Dab-eun A-ieyo.", "A"),
            ("答え：B\nいや、違いました。訂正：C", "C"),
            ("정답: A\n정정: D", "D"),
            ("Correction: C", "C"),
            ("CでもDでもないと思います。", "-"),
            ("A도 B도 아닙니다.", "-"),
            ("If the sign is red, C; if it's blue, then A.", "hedge AC"),
            ("猫なら B、犬なら D です。", "hedge BD"),
            (
                "If it were a cat it would be B, but it is a dog. The answer is A.",
                "A",
            ),
            ("Both A and D are partly right, but the best is D.", "D"),
            // An option's text in brackets after its letter (holdout10).
            (
                "Ｃ（55°）だと思いますが、Ｄの可能性もあります。",
                "hedge CD",
            ),
            ("I think it's C (55°), but D is also possible.", "hedge CD"),
            ("The answer is C (55°).", "C"),
            // The seventh review: a concession at the end keeps the alternative; bare maybe.
            ("I think it's B. C is plausible too, though.", "hedge BC"),
            ("Probably B, maybe C.", "hedge BC"),
            ("B인 것 같아요. 어쩌면 C일지도 몰라요.", "hedge BC"),
            ("C is plausible too, but I'm going with B.", "B"),
            // Brackets that hold an alternative, not the option's text (the sixth review).
            (
                "The long roofline suggests the answer is B (or possibly C).",
                "hedge BC",
            ),
            (
                "羽の模様からすると、答えはＢ（もしくはＣ）です。",
                "hedge BC",
            ),
            ("간판 모양을 보면 정답은 B(혹은 D)입니다.", "hedge BD"),
        ] {
            assert_eq!(read(s), want, "{s}");
        }
    }

    #[test]
    fn explicit_forms() {
        for (s, want) in [
            ("(B)", "B"),
            ("B.", "B"),
            ("Answer: C", "C"),
            ("The answer is D because...", "D"),
            ("**A**", "A"),
            ("Ｂ", "B"),
            ("答え：（Ｃ）", "C"),
            ("正解はBです。", "B"),
            ("정답은 D입니다", "D"),
            ("답: A", "A"),
            ("**Answer:** (B) a cat", "B"),
        ] {
            assert_eq!(read(s), want, "{s}");
        }
    }

    #[test]
    fn last_statement_wins_and_corrections_replace_it() {
        assert_eq!(read("Answer: A. Wait, on reflection the answer is C."), "C");
        assert_eq!(read("(A) cat (B) dog (C) owl\nAnswer: B"), "B");
        assert_eq!(read("Answer: A. Wait, actually it's B."), "B");
        assert_eq!(
            read("Answer: B. The options were (A) a cat and (C) an owl."),
            "B"
        );
        assert_eq!(read("The answer is B, not (A)"), "B");
    }

    #[test]
    fn hedges_are_not_answers() {
        assert_eq!(read("maybe B or D"), "hedge BD");
        assert_eq!(read("Either A or B works."), "hedge AB");
        assert_eq!(read("The answer is B or C"), "hedge BC");
        assert_eq!(read("It could be A, B, or C."), "hedge ABC");
        assert_eq!(read("BかDだと思います"), "hedge BD");
        assert_eq!(read("A 또는 C일 것 같습니다"), "hedge AC");
        assert_eq!(read("Either B, or C"), "hedge BC");
        assert_eq!(
            read("Possible answers:\n- A (Tennis)\n- B (Badminton)\n\nBoth fit."),
            "hedge AB"
        );
        assert_eq!(read("(A) cat (B) dog"), "-");
        // Not hedges: a choice is made.
        assert_eq!(read("A or B? I'd say B."), "B");
        assert_eq!(read("Between A and C, I'd go with C."), "C");
        assert_eq!(read("It's B, not D."), "B");
        assert_eq!(read("The answer is B or C. I'd go with C."), "C");
    }

    #[test]
    fn denied_letters_are_never_the_answer() {
        assert_eq!(read("Not C. The answer is A."), "A");
        assert_eq!(read("It isn't B; it's D."), "D");
        assert_eq!(read("C is wrong, so D."), "D");
        assert_eq!(read("Cではなく、Aです。"), "A");
        assert_eq!(read("B가 아니라 D입니다"), "D");
        assert_eq!(read("Not C."), "-");
        assert_eq!(read("Definitely not A."), "-");
        assert_eq!(read("(A) is wrong and (B) is right"), "B");
        assert_eq!(read("We can rule out A and C. B is correct."), "B");
        assert_eq!(
            read("The ground is dry, which rules out C. D is out. That leaves B."),
            "B"
        );
        assert_eq!(read("It's not B, and I doubt it's C either."), "-");
        assert_eq!(read("C는 절대 아니에요."), "-");
        assert_eq!(read("정답은 B 아니면 D입니다."), "hedge BD");
    }

    #[test]
    fn lower_case_letters_and_articles() {
        assert_eq!(read("b"), "B");
        assert_eq!(read("b."), "B");
        assert_eq!(read("answer: c"), "C");
        assert_eq!(read("(d)"), "D");
        assert_eq!(read("the answer is b"), "B");
        assert_eq!(read("I'd choose c."), "C");
        assert_eq!(read("answer: a"), "A");
        assert_eq!(read("a"), "A");
        assert_eq!(read("I think it is a dog"), "-");
        assert_eq!(read("a dog on a bench"), "-");
    }

    #[test]
    fn a_letter_followed_by_words() {
        assert_eq!(read("D is right."), "D");
        assert_eq!(read("I believe C is correct."), "C");
        assert_eq!(read("B is the best choice because the sign is red."), "B");
        assert_eq!(read("A is the answer."), "A");
        assert_eq!(read("I think B."), "B");
        assert_eq!(read("A dog is sitting"), "-");
        assert_eq!(read("これはBだと思います"), "B");
        assert_eq!(read("Option D fits best"), "D");
        assert_eq!(read("I'd pick (C) here."), "C");
    }

    #[test]
    fn reasoning_then_a_conclusion() {
        assert_eq!(read("Looking at A, it's a cat. B is a dog. So C."), "C");
        assert_eq!(
            read("Option A shows a bridge. Option B shows a tower. Therefore, the answer is C."),
            "C"
        );
        assert_eq!(read("I cannot determine this from the image."), "-");
        assert_eq!(read("The answer is D.\n\nHmm, on second thought it's a mug. I'll change my answer to A."), "A");
        assert_eq!(read("最初はAだと思いましたが、やはりBに修正します。"), "B");
        assert_eq!(read("처음엔 A라고 생각했는데 B로 정정합니다."), "B");
        assert_eq!(read("Cで間違いないでしょう。"), "C");
        assert_eq!(read("c번이요"), "C");
        // Multi-byte quotes, units and names that carry a capital letter.
        assert_eq!(read("The correct answer is ‘B’."), "B");
        assert_eq!(read("The answer is 'B'."), "B");
        assert_eq!(read("Option B’s image shows a cat, so B."), "B");
        assert_eq!(read("He is holding a USB Type C cable."), "-");
        assert_eq!(read("It is rich in Vitamin C."), "-");
        assert_eq!(read("The thermometer shows about 25°C."), "-");
        assert_eq!(read("There is an A/C unit on the wall."), "-");
        assert_eq!(read("The answer is most likely B."), "B");
        assert_eq!(read("the final answer is \\boxed{C}"), "C");
        assert_eq!(read("It's either B or D, but I'd lean towards D."), "D");
        assert_eq!(read("Bが正解です。Aは正解ではありません。"), "B");
        assert_eq!(
            read("The sign is red, so B and C can be eliminated. D is the only red option."),
            "D"
        );
        assert_eq!(read("Without more context the best answer is B."), "B");
        assert_eq!(read("正解はCではないかと思います。"), "C");
        assert_eq!(read("정답은 2번입니다."), "B");
        assert_eq!(
            read("보기: A. 호랑이 B. 사자 C. 표범 D. 치타\n답변: B. 사자"),
            "B"
        );
        assert_eq!(
            read("Aの「止まれ」だと思いましたが、最終的にはBとします。"),
            "B"
        );
        assert_eq!(
            read("The answer is B. Hmm, no, that's not right either. I can't tell."),
            "-"
        );
        assert_eq!(
            read("答えはAです。いえ、よく見ると奥にもう二人いるので、Cでした。"),
            "C"
        );
        assert_eq!(read("Answer: E"), "-");
    }
}

#[cfg(test)]
mod scorer_tests {
    use super::*;
    use assay_core::ChoiceOption;

    fn item(options: &[&str], correct: usize) -> ItemContent {
        ItemContent {
            question: "q".into(),
            options: options
                .iter()
                .map(|t| ChoiceOption {
                    text: (*t).into(),
                    kind: None,
                })
                .collect(),
            correct_option: Some(correct),
            ..Default::default()
        }
    }

    fn parsed(options: &[&str], response: &str) -> Option<String> {
        ChoiceScorer
            .score(&item(options, 1), response, &ScoreContext::default())
            .parsed
    }

    /// The letter read for `reply` to `options` asked by `q`.
    fn asked(q: &str, options: &[&str], reply: &str) -> Option<String> {
        let mut it = item(options, 0);
        it.question = q.into();
        ChoiceScorer
            .score(&it, reply, &ScoreContext::default())
            .parsed
    }

    /// Options that are colours or kana words are read like short answers; an option's article
    /// is no word of it.
    #[test]
    fn options_read_in_another_form() {
        let colours = ["흰색", "검은색", "파란색", "회색"];
        let q = "남자가 입은 셔츠는 무슨 색인가요?";
        assert_eq!(asked(q, &colours, "하얀색이에요."), Some("A".into()));
        assert_eq!(
            asked(q, &colours, "하얀색이 아니라 회색이에요."),
            Some("D".into())
        );
        let en = ["White", "Black", "Red", "Silver"];
        assert_eq!(
            asked("What colour is the car?", &en, "車は赤いです。"),
            Some("C".into())
        );
        let stations = ["しんじゅく", "しぶや", "いけぶくろ", "うえの"];
        assert_eq!(parsed(&stations, "上野です。"), Some("D".into()));
        let rides = ["A bicycle", "A motorcycle", "A horse", "A scooter"];
        assert_eq!(
            parsed(&rides, "An electric scooter — there is no seat."),
            Some("D".into())
        );
        // holdout23: an article before a figure's phrase; the one option stated with a copula;
        // an option said to be what it is not.
        let bills = ["A $5 bill", "A $10 bill", "A $20 bill", "A $50 bill"];
        assert_eq!(
            parsed(
                &bills,
                "A 20-dollar bill. There's a large 20 in the corner."
            ),
            Some("C".into())
        );
        let courses = ["표준", "쾌속", "울/섬세", "이불"];
        assert_eq!(
            parsed(
                &courses,
                "불이 들어온 곳은 '쾌속'입니다. '표준' 바로 옆에 있어요."
            ),
            Some("B".into())
        );
        let cats = ["白", "黒", "茶トラ", "三毛"];
        assert_eq!(
            parsed(
                &cats,
                "三毛かな？いや、黒い部分がまったくないので、茶トラです。"
            ),
            Some("C".into())
        );
        let errors = [
            "用紙がありません",
            "インク不足",
            "紙詰まりが発生しました",
            "接続できません",
        ];
        assert_eq!(
            parsed(
                &errors,
                "「紙詰まりが発生しました」と表示されています。「用紙がありません」という表示ではありません。"
            ),
            Some("C".into())
        );
        let prices = ["3,000원", "3,500원", "4,000원", "4,500원"];
        let mut priced = item(&prices, 1);
        priced.question = "메뉴판에서 아메리카노 가격은 얼마인가요?".into();
        let got = ChoiceScorer.score(
            &priced,
            "라떼가 4,000원이고 아메리카노는 3,500원입니다.",
            &ScoreContext::default(),
        );
        assert_eq!(got.parsed.as_deref(), Some("B"));
    }

    /// holdout31 and the nineteenth review: options that are prices or counts read by the
    /// breakdown's final line, before the sale, and a hedge of the asked counter.
    #[test]
    fn priced_and_counted_options() {
        let read = |question: &str, options: &[&str], reply: &str| {
            let mut it = item(options, 0);
            it.question = question.into();
            ChoiceScorer
                .score(&it, reply, &ScoreContext::default())
                .parsed
        };
        let jacket = ["$56.00", "$59.50", "$63.00", "$80.00"];
        assert_eq!(
            read(
                "What is the sale price of the jacket after the 30% discount?",
                &jacket,
                "- Original price: $80.00\n- Discount: 30% → $24.00 off\n- **Sale price: $56.00**\n\nThat's $3.50 less than the other store ($59.50)."
            ),
            Some("A".into())
        );
        let before = ["$120", "$84", "$36", "$96"];
        assert_eq!(
            read(
                "What was the jacket's price before the sale?",
                &before,
                "Regular price: $120\nSale price: $84 (30% off)\n\nBefore the sale, the jacket cost $120."
            ),
            Some("A".into())
        );
        let won = ["19,900원", "24,900원", "29,900원", "39,800원"];
        assert_eq!(
            read(
                "이 상품의 할인가는 얼마인가요?",
                &won,
                "✔️ 정가 29,900원\n✔️ 쿠폰 할인 -10,000원\n👉 최종 할인가 19,900원"
            ),
            Some("A".into())
        );
        let packs = ["4개", "5개", "8개", "10개"];
        assert_eq!(
            read(
                "이 묶음 상품에 라면이 몇 개 들어 있나요?",
                &packs,
                "포장에 '4+1'이라고 적혀 있어요. 4개 아니면 5개인데, 사진으로는 잘 모르겠어요."
            ),
            None
        );
        let dogs = ["1匹", "2匹", "3匹", "4匹"];
        assert_eq!(
            read(
                "写真に犬は何匹いますか？",
                &dogs,
                "大型犬が2頭います。赤い首輪の子が1匹、青い首輪の子が1匹です。"
            ),
            Some("B".into())
        );
    }

    /// Options named by the question's markers ((2), ①, ウ, 가) or by the label that sets them
    /// apart from words they all share ("Answer: X" for "Layer X", 歯車マーク for 歯車のアイコン).
    #[test]
    fn options_by_marker_or_label() {
        let q =
            "Which direction is the car moving? (1) Left (2) Right (3) Toward the camera (4) Away";
        let o = ["Left", "Right", "Toward the camera", "Away"];
        assert_eq!(
            asked(
                q,
                &o,
                "It goes from the left edge to the middle.\n\nAnswer: (2)"
            ),
            Some("B".into())
        );
        let q = "③にあてはまるものを ア〜エ から選びなさい。ア 卵　イ おたまじゃくし　ウ 足の生えたおたまじゃくし　エ 子ガエル";
        let o = [
            "卵",
            "おたまじゃくし",
            "足の生えたおたまじゃくし",
            "子ガエル",
        ];
        assert_eq!(asked(q, &o, "ウ"), Some("C".into()));
        let q = "물을 흡수하는 부분은 어느 것입니까? ① 잎 ② 줄기 ③ 뿌리 ④ 꽃";
        let o = ["잎", "줄기", "뿌리", "꽃"];
        assert_eq!(asked(q, &o, "③"), Some("C".into()));
        assert_eq!(asked(q, &o, "정답: ③"), Some("C".into()));
        // A marker the question does not use is no option.
        assert_eq!(asked("Which part absorbs water?", &o, "③"), None);
        let layers = ["Layer W", "Layer X", "Layer Y", "Layer Z"];
        assert_eq!(
            asked(
                "Which labelled layer is the mantle?",
                &layers,
                "W is the crust, X is the mantle, Y is the outer core.\n\nAnswer: X"
            ),
            Some("B".into())
        );
        let icons = [
            "歯車のアイコン",
            "虫めがねのアイコン",
            "家のアイコン",
            "ベルのアイコン",
        ];
        assert_eq!(
            asked(
                "設定を変更するには、どのボタンを押せばよいですか。",
                &icons,
                "虫めがねではなく、右上の歯車マークをタップしてください。"
            ),
            Some("A".into())
        );
        // A code named and denied is no option.
        let places = ["位置1", "位置3", "位置5", "位置7"];
        assert_eq!(
            asked(
                "満月になる位置はどれですか。",
                &places,
                "位置1は新月なので違います。"
            ),
            None
        );
    }

    /// Several options named: the one the sentence opens with when the others are only what it
    /// is compared with ("May" the option is no modal); a lower-case letter with 번 and 같아요.
    #[test]
    fn the_option_a_comparison_opens_with() {
        let months = ["March", "April", "May", "June"];
        let q = "Which month had the highest sales?";
        assert_eq!(
            asked(q, &months, "June has the tallest bar, just above May."),
            Some("D".into())
        );
        // Offered together, neither is chosen.
        assert_ne!(
            asked(q, &months, "June or May, they look equal."),
            Some("D".into())
        );
        assert_eq!(
            asked(q, &months, "May has a tall bar and June a taller one."),
            None
        );
        let acts = ["자고 있다", "공을 물고 있다", "짖고 있다", "먹고 있다"];
        assert_eq!(
            asked("개는 무엇을 하고 있습니까?", &acts, "b번 같아요"),
            Some("B".into())
        );
    }

    /// A capital naming a figure's angle or point is no option.
    #[test]
    fn a_figures_angle_or_point_is_no_option() {
        let angles = ["60°", "70°", "80°", "90°"];
        assert_eq!(
            parsed(&angles, "Angle C is seventy degrees."),
            Some("B".into())
        );
        assert_eq!(parsed(&angles, "각 D는 90도입니다."), Some("D".into()));
        assert_eq!(
            parsed(&["赤", "白", "青", "黒"], "赤でも白でもありません。"),
            None
        );
    }

    /// Codes written with other spacing or case.
    #[test]
    fn an_options_code_written_with_other_spacing_names_it() {
        let gates = ["Gate B12", "Gate B21", "Gate C12", "Gate A2"];
        assert_eq!(parsed(&gates, "gate b 12 ✈️"), Some("A".into()));
        let plates = ["12가 3456", "12나 3456", "21가 3456", "12가 3465"];
        assert_eq!(parsed(&plates, "12 가 3456"), Some("A".into()));
        // Two options' codes written: no letter.
        assert_eq!(parsed(&gates, "gate b 12 or gate b 21"), None);
    }

    /// A verdict on each option, one marked right.
    #[test]
    fn a_verdict_on_each_option_names_the_one_marked_right() {
        let opts = ["cat", "dog", "fox", "owl"];
        let p = |r: &str| parsed(&opts, r);
        assert_eq!(
            p("A. cat — ✗\nB. dog — ✓\nC. fox — ✗\nD. owl — ✗"),
            Some("B".into())
        );
        assert_eq!(p("A: X\nB: X\nC: X\nD: O"), Some("D".into()));
        // A letter stated after the list decides.
        assert_eq!(
            p("A. cat ✗\nB. dog ✓\nC. fox ✗\nD. owl ✗\n\nWait, looking again, the answer is A."),
            Some("A".into())
        );
        // Two marked right, or an option left without a verdict: not read this way.
        assert_eq!(p("A: O\nB: X\nC: O\nD: X"), None);
    }

    /// Options that are times, answered by a time written another way.
    #[test]
    fn an_options_time_written_another_way_names_it() {
        let times = ["21:45", "22:15", "22:45", "23:15"];
        let p = |r: &str| parsed(&times, r);
        assert_eq!(p("The last departure is 10:45 PM."), Some("C".into()));
        assert_eq!(p("始発は午後9時45分です。"), Some("A".into()));
        assert_eq!(p("막차는 오후 11시 15분에 출발합니다."), Some("D".into()));
        // Two times offered, or a time no option has: no letter.
        assert_eq!(p("Either 10:15 PM or 10:45 PM."), None);
        assert_eq!(p("It leaves at 7 in the morning."), None);
        // Several options' times named: which one answers is the question's to say.
        assert_eq!(p("It leaves at 9:45 PM and arrives at 11:15 PM."), None);
        // Options that are not all times are not read this way.
        assert_eq!(
            parsed(
                &["22:45", "never", "22:15", "soon"],
                "It leaves at 10:45 pm"
            ),
            None
        );
    }

    /// A reply cut off mid-sentence names an option only while describing: no answer yet.
    #[test]
    fn a_reply_cut_off_mid_sentence_has_not_answered() {
        let colours = ["白", "黒", "赤", "銀"];
        assert_eq!(
            parsed(
                &colours,
                "左側には赤い車があり、右側の車は逆光で見えにくいですが、"
            ),
            None
        );
        assert_eq!(parsed(&colours, "右側の車は赤です。"), Some("C".into()));
        let en = ["White", "Black", "Red", "Silver"];
        assert_eq!(
            parsed(
                &en,
                "The car on the left is red, and the one on the right is hard to see because"
            ),
            None
        );
        assert_eq!(
            parsed(&en, "Answer: B, and the reason is"),
            Some("B".into())
        );
    }

    #[test]
    fn numbered_and_numeric_options() {
        // Options that are numbered things: "3번" is the third exit's text, not option C.
        let exits = ["1번 출구", "3번 출구", "5번 출구", "7번 출구"];
        assert_eq!(parsed(&exits, "3번 출구입니다.").as_deref(), Some("B"));
        let counts = ["2匹", "3匹", "4匹", "5匹"];
        assert_eq!(parsed(&counts, "猫は四匹います。").as_deref(), Some("C"));
        let hedge = ChoiceScorer.score(
            &item(&["x", "y", "z", "w"], 1),
            "maybe B or D",
            &ScoreContext::default(),
        );
        assert_eq!(
            (hedge.outcome(), hedge.parsed.as_deref()),
            ("hedged", Some("B|D"))
        );
    }

    /// Issue 49, adversarial15: the correction and numbered-image readers attacked from their
    /// code, and narrowed.
    #[test]
    fn the_fifteenth_reviews_kinds() {
        let colours = ["Red", "Blue", "Green", "White"];
        // A closer look that adds a detail keeps the letter; one that denies it corrects.
        assert_eq!(
            asked(
                "What colour is the bus?",
                &colours,
                "A. Red. On closer inspection, the door has green trim."
            )
            .as_deref(),
            Some("A")
        );
        assert_eq!(
            asked(
                "What colour is the bus?",
                &colours,
                "A. Red. On closer inspection, it isn't red at all but green."
            )
            .as_deref(),
            Some("C")
        );
        // いや inside a katakana word is no correction.
        let ja = ["自転車", "バイク", "自動車", "バス"];
        assert_eq!(
            asked(
                "乗り物は何ですか？",
                &ja,
                "答えはBです。タイヤが二つで、バスより小さいです。"
            )
            .as_deref(),
            Some("B")
        );
        // A change meant and not made.
        let ko = ["빨간색", "노란색", "초록색", "파란색"];
        assert_eq!(
            asked(
                "무슨 색인가요?",
                &ko,
                "정답은 A입니다. D로 바꾸려다가 다시 보니 처음 답이 맞아요."
            )
            .as_deref(),
            Some("A")
        );
        // A conclusion that is the image alone, and a doubt conceded before one image.
        let images = [
            "The first image",
            "The second image",
            "Both images",
            "Neither image",
        ];
        assert_eq!(
            asked(
                "Which image shows snow?",
                &images,
                "Image 2 shows green grass in the park. So it's image 1."
            )
            .as_deref(),
            Some("A")
        );
        let ko_images = ["첫 번째 이미지", "두 번째 이미지", "둘 다", "둘 다 아니다"];
        assert_eq!(
            asked("어느 이미지에 눈이 왔나요?", &ko_images, "첫 번째 이미지인지 두 번째 이미지인지 헷갈리지만, 지붕이 하얀 첫 번째 이미지입니다.").as_deref(),
            Some("A")
        );
    }

    /// Issue 49, holdout29 and adversarial16: maths options, hedges taken back, closer looks
    /// and conceded doubts.
    #[test]
    fn maths_options_and_the_sixteenth_reviews_kinds() {
        let lines = ["y = x + 2", "y = 3x − 2", "y = 3x + 2", "y = 2x + 3"];
        assert_eq!(
            asked(
                "Which equation?",
                &lines,
                "Slope 3, intercept 2: so $y = 3x + 2$."
            )
            .as_deref(),
            Some("C")
        );
        let roots = ["√2", "2", "√3", "3"];
        assert_eq!(
            asked("斜辺は？", &roots, r"**答え：$\sqrt{3}$**").as_deref(),
            Some("C")
        );
        let stages = ["卵", "幼虫", "成虫", "さなぎ"];
        assert_eq!(
            asked(
                "幼虫の次は？",
                &stages,
                "BかD…いいえ、Bは幼虫そのものなので、Dのさなぎです。"
            )
            .as_deref(),
            Some("D")
        );
        let animals = ["고양이", "토끼", "강아지", "햄스터"];
        assert_eq!(
            asked(
                "동물은?",
                &animals,
                "정답은 C(강아지)입니다. 산책 중에 잠깐 고양이가 보일 뿐이에요."
            )
            .as_deref(),
            Some("C")
        );
        assert_eq!(
            asked(
                "동물은?",
                &animals,
                "정답은 A(고양이)입니다. 잠깐, 다시 보니 귀가 길어서 토끼네요."
            )
            .as_deref(),
            Some("B")
        );
        let colours = ["Red", "Blue", "Green", "White"];
        assert_eq!(
            asked("What colour is the car?", &colours, "B. Blue. Looking more closely, there are white stripes, but that doesn't change my answer.").as_deref(),
            Some("B")
        );
        let images = [
            "The first image",
            "The second image",
            "Both images",
            "Neither image",
        ];
        assert_eq!(
            asked("Which image was taken at night?", &images, "It's hard to say whether it's the first image or the second image, but the second image has a bluer sky.").as_deref(),
            Some("A|B")
        );
        let ja = ["自転車", "バイク", "自動車", "バス"];
        assert_eq!(
            asked(
                "乗り物は？",
                &ja,
                "AとBで迷いましたが、エンジンが見えるのでBにしようと思います。"
            )
            .as_deref(),
            Some("B")
        );
    }

    /// Issue 49, adversarial18: this session's choice narrowings, attacked from their code.
    #[test]
    fn the_eighteenth_reviews_kinds() {
        let seasons = ["Spring", "Summer", "Autumn", "Winter"];
        assert_eq!(
            asked(
                "Which season?",
                &seasons,
                "The answer is C. Hmm, no — most of the trees are still fully green, so it's B."
            )
            .as_deref(),
            Some("B")
        );
        let trees = ["イチョウ", "カエデ", "サクラ", "マツ"];
        assert_eq!(
            asked(
                "木は？",
                &trees,
                "最初はBにしましたが、葉が針のように細いのでDに変えます。"
            )
            .as_deref(),
            Some("D")
        );
        assert_eq!(
            asked(
                "木は？",
                &trees,
                "BとDで迷いましたが、葉が針のように細いのでDにしようかと思います。"
            )
            .as_deref(),
            Some("D")
        );
        assert_eq!(
            asked("木は？", &trees, "ひとまず各選択肢を判定すると、A＝×、B＝○、C＝×、D＝×です。ただ、Dの可能性も捨てきれず、BかDかは画像からは判断できません。").as_deref(),
            Some("B|D")
        );
        assert_eq!(
            asked("나무는?", &trees, "B 아니면 D예요. 잠깐 생각해 보니 D라면 잎이 바늘처럼 가늘어야 하는데, 사진에서는 잎 모양이 잘 안 보이네요.").as_deref(),
            Some("B|D")
        );
    }

    /// A markdown list of candidate letters offers them, as "or" does (holdout30).
    #[test]
    fn a_bulleted_list_of_letters_is_a_hedge() {
        let organs = ["Spleen", "Liver", "Pancreas", "Right kidney"];
        assert_eq!(
            asked("Which organ?", &organs, "It could be hepatic or arise from the right kidney.\n\n- B\n- D\n\nCorrelation is recommended.").as_deref(),
            Some("B|D")
        );
        assert_eq!(
            asked("Which organ?", &organs, "- **B**\n- **D**").as_deref(),
            Some("B|D")
        );
        // One letter in a list is the answer.
        assert_eq!(asked("Which organ?", &organs, "- B").as_deref(), Some("B"));
    }

    /// Issue 49, adversarial17: the version 19 narrowings, attacked from their code.
    #[test]
    fn the_seventeenth_reviews_kinds() {
        let seasons = ["Spring", "Summer", "Autumn", "Winter"];
        // "Hmm" is a pause, not a correction: the doubt of C leaves the hedge open.
        assert_eq!(
            asked("Which season?", &seasons, "It's either B or C. Hmm, C feels like a stretch — most of the trees are still fully green.").as_deref(),
            Some("B|C")
        );
        let colours = ["Red", "Blue", "Green", "White"];
        assert_eq!(
            asked("What colour is the car?", &colours, "Hmm, let me look at the body panels. The answer is B (Blue). Looking more closely, the roof also has white racing stripes.").as_deref(),
            Some("B")
        );
        let trees = ["イチョウ", "カエデ", "サクラ", "マツ"];
        // "にしようか迷いましたが" weighs B; "にしました" commits to D.
        assert_eq!(
            asked(
                "木の種類は？",
                &trees,
                "Bにしようか迷いましたが、葉が針のように細いのでDにしました。"
            )
            .as_deref(),
            Some("D")
        );
        let insects = [
            "クモの仲間である",
            "脚が6本ある",
            "さなぎにならない",
            "水中で生活する",
        ];
        assert_eq!(
            asked(
                "正しい説明は？",
                &insects,
                "各選択肢の正誤：A＝×、B＝○、C＝×、D＝×"
            )
            .as_deref(),
            Some("B")
        );
        // Two marked right, or a letter left unmarked, is no verdict on each.
        assert_eq!(
            asked("正しい説明は？", &insects, "A＝×、B＝○、C＝○、D＝×").as_deref(),
            None
        );
        let vehicles = ["自転車", "バイク", "自動車", "バス"];
        assert_eq!(
            asked(
                "乗り物は？",
                &vehicles,
                "答えはAです。いやまてよ、エンジンが付いているからBだ。"
            )
            .as_deref(),
            Some("B")
        );
        let animals = ["고양이", "토끼", "강아지", "햄스터"];
        assert_eq!(
            asked(
                "동물은?",
                &animals,
                "정답은 A입니다. 잠깐 생각해 보니 귀가 길쭉하니 B가 맞네요."
            )
            .as_deref(),
            Some("B")
        );
    }
}
