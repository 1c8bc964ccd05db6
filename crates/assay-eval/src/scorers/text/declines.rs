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
            r"|not (?:visible|readable|legible)|unreadable|illegible|out of (?:the )?frame|too (?:blurry|dark))\b",
            r"|わかりません|分かりません|わからな|分からな|判断でき|読めな|読めま?せん|読み取れ[なま]|見えな|見えません",
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
            r"\b(?:looks? like|probably|likely|might be|may be|seems? to be|appears? to be|i think it|my (?:best )?guess|best guess)\b",
            r"|たぶん|おそらく|ようです|みたいです|と思います|かもしれ|推測すると",
            r"|아마|것 같아요|것 같습니다|보여요|보입니다|추측하면",
        ))
        .expect("valid")
    })
}

/// Whether a prepared reply declines to answer and makes no guess: "the label isn't in the
/// frame; try again", "文字も絵も見えないため、中身はわかりません", "글자를 읽을 수 없어요. 약
/// 이름은 추측하지 않는 게 안전할 것 같아요". A guess after the decline ("…, but it looks like
/// Tylenol") answers, and so does one before it.
pub fn declines(pp: &str) -> bool {
    if !declining().is_match(pp) {
        return false;
    }
    // "추측하지 않는 게 안전할 것 같아요": a guess declined is not a guess.
    !guessing().find_iter(pp).any(|g| {
        let after = &pp[g.end()..];
        // "글자가 안 보여요": not seen, not a guess.
        let not_seen = pp[..g.start()].ends_with("안 ") && g.as_str() == "보여요";
        let refused = ["추측하지 않", "guess, ", "推測はしません", "推測しません"]
            .iter()
            .any(|w| pp[..g.start()].ends_with(w) || after.starts_with(w));
        let declined_guess = pp[..g.start()]
            .rfind(['.', '。', '\n'])
            .map_or(&pp[..g.start()], |i| &pp[i..g.start()])
            .contains("추측하지 않");
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
        let d = |s: &str| declines(&prepare(s));
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
    }
}
