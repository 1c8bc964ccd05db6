//! The hybrid scorer: the rules first, and a judge only for the verdicts the rules are unsure of
//! (their evidence carries `unsure` and `needs_judge`), as VLMEvalKit falls back to a model when
//! its matcher fails. The judge is asked the binary judge prompt ([`super::judge`]) with the
//! question, the reference and the reply; its verdict replaces the score, and the evidence
//! keeps both: the rules' reading (`rule_reading`, `rule_score`, why they were unsure) and the
//! judge's (`judge_model`, `judge_raw`, its rule).

use serde_json::json;

use super::{judge, Scored, ScorerKind};
use assay_core::ItemContent;

/// Kinds whose unsure verdicts a judge can decide.
pub fn decides(kind: ScorerKind) -> bool {
    matches!(kind, ScorerKind::Choice | ScorerKind::SoftMatch)
}

/// The judge request for an unsure verdict: (system prompt, prompt).
pub fn judge_request(
    question: &str,
    content: &ItemContent,
    response: &str,
) -> (Option<&'static str>, String) {
    let mut content = content.clone();
    // A multiple-choice item is judged against the correct option's letter and text.
    if content.answer.is_none() {
        if let Some(i) = content.correct_option {
            if let Some(o) = content.options.get(i) {
                content.answer = Some(format!("({}) {}", (b'A' + i as u8) as char, o.text));
            }
        }
    }
    judge::judge_request(ScorerKind::Judge, question, &content, response)
}

/// The rules' unsure verdict completed by the judge's reply.
pub fn judged(local: &Scored, raw: &str, content: &ItemContent, judge_model: &str) -> Scored {
    let verdict = judge::parse_judge(ScorerKind::Judge, raw, content);
    let mut evidence = local.evidence.clone();
    evidence["rule_reading"] = json!(local.parsed);
    evidence["rule_score"] = json!(local.score);
    evidence["judge_model"] = json!(judge_model);
    evidence["judge_raw"] = json!(raw);
    match verdict.score {
        Some(score) => {
            // Decided: no longer unsure; why the rules were is kept.
            if let Some(why) = evidence.get("unsure").cloned() {
                evidence["rules_unsure"] = why;
            }
            if let Some(o) = evidence.as_object_mut() {
                o.remove("unsure");
            }
            evidence["decided_by"] = json!("judge");
            evidence["needs_judge"] = json!(false);
            Scored {
                score: Some(score),
                parsed: local.parsed.clone(),
                evidence,
                hedged: false,
            }
        }
        // The judge gave no verdict: the rules' verdict stands, still unsure and still for a
        // judge (asked again, the same prompt comes from the cache or another judge answers).
        None => {
            evidence["judge_rule"] = json!("judge gave no verdict");
            Scored {
                evidence,
                ..local.clone()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use assay_core::AnswerFormat;

    fn unsure_miss() -> Scored {
        Scored {
            score: Some(0.0),
            parsed: Some("it is a cloudy day".into()),
            evidence: json!({"rule": "no match", "unsure": "a long reply", "needs_judge": true}),
            hedged: false,
        }
    }

    #[test]
    fn a_judge_decides_and_both_readings_stay() {
        let content = ItemContent {
            format: AnswerFormat::ShortAnswer,
            question: "What is the weather?".into(),
            answer: Some("overcast".into()),
            ..Default::default()
        };
        let s = judged(&unsure_miss(), "correct: yes", &content, "J");
        assert_eq!(s.score, Some(1.0));
        assert_eq!(s.evidence["decided_by"], "judge");
        assert_eq!(s.evidence["rule_score"], 0.0);
        assert_eq!(s.evidence["rules_unsure"], "a long reply");
        assert!(s.evidence.get("unsure").is_none());
        let kept = judged(&unsure_miss(), "I cannot tell", &content, "J");
        assert_eq!(kept.score, Some(0.0));
        assert_eq!(kept.evidence["unsure"], "a long reply");
    }

    #[test]
    fn a_choice_item_is_judged_against_its_correct_option() {
        let content = ItemContent {
            format: AnswerFormat::MultipleChoice,
            question: "Weather?".into(),
            options: ["Sunny", "Overcast"]
                .iter()
                .map(|t| assay_core::ChoiceOption {
                    text: (*t).into(),
                    kind: None,
                })
                .collect(),
            correct_option: Some(1),
            ..Default::default()
        };
        let (_, prompt) = judge_request("Weather?", &content, "a cloudy day");
        assert!(prompt.contains("(B) Overcast"), "{prompt}");
    }
}
