//! References that say a question cannot be answered from the image (VizWiz's "unanswerable",
//! 回答不能, 답변 불가), and replies that decline: the image does not show it, the text cannot be
//! read, the reply cannot tell.

use regex::Regex;
use std::sync::OnceLock;

/// Whether a prepared reference says the question cannot be answered from the image.
pub fn unanswerable_reference(pr: &str) -> bool {
    let r: String = pr
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect::<String>();
    [
        "unanswerable",
        "notanswerable",
        "cannotanswer",
        "cannotbeanswered",
        "cannotbedetermined",
        "回答不能",
        "解答不能",
        "回答不可",
        "判別不能",
        "答えられない",
        "回答できない",
        "답변불가",
        "답변불가능",
        "대답불가",
        "응답불가",
        "판단불가",
        "알수없음",
    ]
    .contains(&r.as_str())
}

fn declining() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(concat!(
            r"\b(?:not sure|(?:don'?t|do not) know|can'?t (?:\w+ )?(?:tell|see|read|make out|identify|determine|confirm|verify)",
            r"|cannot (?:\w+ )?(?:tell|see|read|make out|identify|determine|confirm|verify)|unable to (?:tell|see|read|make out|identify|determine|confirm|verify)",
            r"|(?:is|are)(?:n'?t| not) (?:visible|readable|legible|in (?:the )?(?:frame|view|shot|picture|photo|image))",
            r"|not (?:visible|readable|legible)|unreadable|illegible|out of (?:the )?frame|too (?:blurry|dark)",
            r"|unanswerable|not answerable|cannot be answered|can'?t be answered)\b",
            r"|わかりません|分かりません|わからな|分からな|判断でき|読めな|読めま?せん|読み取れ[なま]|見えな|見えません",
            r"|判読でき[なま]|判別でき[なま]|識別でき[なま]|回答不能|答えられない|답변 불가|답할 수 없|대답할 수 없",
            r"|写っていな|写っておらず|写っていません|お答えできません|答えられません|回答できません|確認できません",
            r"|모르|알 수 없|알아볼 수 없|읽을 수 없|읽기 어렵|보이지 않|안 보|판단할 수 없|확인할 수 없|찍혀 있지 않|찍히지 않",
        ))
        .expect("valid")
    })
}

/// A guess the reply makes all the same ("but it looks like Tylenol", "たぶん", "아마").
fn guessing() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(concat!(
            r"\b(?:looks? like|probably|likely|might be|may be|seems? to be|appears? to be|i think it|my (?:best )?guess|best guess|had to guess|i'?d say|i would say|i'?d guess)\b",
            r"|たぶん|多分|おそらく|恐らく|ようです|みたいです|と思います|かもしれ|推測すると",
            r"|아마|것 같아요|것 같습니다|보여요|보입니다|추측하면",
        ))
        .expect("valid")
    })
}

/// Whether a prepared reply declines to answer and makes no guess: "the label isn't in the
/// frame; try again", "文字も絵も見えないため、中身はわかりません", "글자를 읽을 수 없어요. 약
/// 이름은 추측하지 않는 게 안전할 것 같아요". A guess after the decline ("…, but it looks like
/// Tylenol", "If I had to guess, I'd say ibuprofen") answers, and so does one before it. The
/// decline must be of the answer: in the reply's first sentence, or in one that names a word of
/// the question ("These are Pringles, Sour Cream & Onion. The expiration date isn't visible"
/// answers the flavour). Without a question, any sentence's decline counts.
pub fn declines(pp: &str, question: Option<&str>) -> bool {
    // "can’t": a typographic apostrophe is one.
    let pp = &pp.replace(['’', '‘'], "'");
    let asked = question
        .map(|q| super::similarity::content_words(&super::prepare(q)))
        .unwrap_or_default();
    let sentences: Vec<&str> = pp
        .split_inclusive(['.', '。', '!', '?', '！', '？', '\n'])
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .collect();
    // "Sorry.", "申し訳ありません。": an apology opens the reply and says nothing.
    let apology = |s: &str| {
        ["sorry", "申し訳", "すみません", "ごめん", "죄송", "미안"]
            .iter()
            .any(|a| s.contains(a))
            && !declining().is_match(s)
    };
    let first = sentences.iter().position(|s| !apology(s));
    let of_the_answer = sentences.iter().enumerate().any(|(k, s)| {
        declining().is_match(s)
            && (question.is_none()
                || Some(k) == first
                || super::similarity::content_words(s)
                    .iter()
                    .any(|w| asked.contains(w)))
    });
    if !of_the_answer {
        return false;
    }
    !guessing().find_iter(pp).any(|g| {
        let after = &pp[g.end()..];
        // "글자가 안 보여요", "잘 안 보입니다": not seen, not a guess.
        let not_seen = pp[..g.start()].ends_with("안 ") && g.as_str().starts_with('보');
        let refused = ["guess, ", "推測はしません", "推測しません"]
            .iter()
            .any(|w| pp[..g.start()].ends_with(w) || after.starts_with(w));
        // "추측하지 않는 게 안전할 것 같아요": a guess declined, in the same clause (not "추측하지
        // 않는 게 좋겠지만, … 타이레놀 병처럼 보여요").
        let declined_guess = pp[..g.start()].rfind("추측하지 않").is_some_and(|i| {
            !pp[i..g.start()].contains(['.', '。', '\n', ',', '、'])
                && !pp[i..g.start()].contains("지만")
        });
        !refused && !declined_guess && !not_seen
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorers::text::prepare;

    #[test]
    fn references_of_no_answer_are_known_in_each_language() {
        for r in [
            "unanswerable",
            "Unanswerable.",
            "回答不能",
            "답변 불가",
            "알 수 없음",
        ] {
            assert!(unanswerable_reference(&prepare(r)), "{r}");
        }
        for r in ["answer", "no", "不明瞭", "불가리아"] {
            assert!(!unanswerable_reference(&prepare(r)), "{r}");
        }
    }

    #[test]
    fn a_decline_without_a_guess_declines() {
        let d = |s: &str| declines(&prepare(s), None);
        assert!(d(
            "I'm sorry, the label isn't in the frame. Try holding the item closer."
        ));
        assert!(d("箱の側面しか写っておらず、中身はわかりません。"));
        assert!(d(
            "글자를 읽을 수 없어요. 약 이름은 추측하지 않는 게 안전할 것 같아요."
        ));
        assert!(!d("I can't read it clearly, but it looks like Tylenol."));
        assert!(!d("文字は読めませんが、たぶん胃薬です。"));
        assert!(!d("It says Tylenol 500 mg."));
        assert!(d("글자가 흐려서 안 보여요."));
        assert!(d("Sorry, I can’t read anything on this can."));
        assert!(d("Unanswerable — the photo only shows the front."));
        assert!(d("画像がぼやけていて、箱の文字を判読できません。"));
        assert!(d("상자 옆면만 찍혀서 글자가 잘 안 보입니다."));
        assert!(!d(
            "I can't read the label. If I had to guess, I'd say it's ibuprofen."
        ));
        assert!(!d(
            "ラベルが写っていないので、中身は分かりません。多分トマト缶です。"
        ));
        assert!(!d(
            "정확히 읽을 수 없어요. 추측하지 않는 게 좋겠지만, 타이레놀 병처럼 보여요."
        ));
        let flavour = Some("What flavor are these chips?");
        let chips = "These are Pringles, Sour Cream & Onion. The expiration date isn't visible.";
        assert!(!declines(&prepare(chips), flavour));
    }
}
