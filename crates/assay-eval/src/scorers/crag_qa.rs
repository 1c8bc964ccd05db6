//! CRAG-MM-Diagnostics' answer stage as its `evaluate.py` scores the `whole` and
//! `knowledge_extraction` tasks: the reply as it is, a case-insensitive exact match against
//! the reference answer is correct, anything else goes to the judge with the official QA
//! prompt (`get_evaluation_system_prompt`, numbers, sets, refusals) and the official message
//! `Question: …\nGround truth: …\nPrediction: …\n`. Without a judge a non-match is wrong, as
//! the official code scores it with `--eval-model None`.
//!
//! The references of CRAG-MM are sentences ("The Lakers are favoured to win."), so a rule that
//! reads one word or phrase (soft match) misses most right replies; this is the stage's scorer
//! under the `crag-mm` protocol.

use serde_json::json;

use super::{ScoreContext, Scored, Scorer};
use assay_core::ItemContent;

/// The official QA judge's system message, verbatim.
pub const JUDGE_SYSTEM: &str = crate::crag_mm_prompts::JUDGE_QA;

/// The reference answer a reply is compared with; None when the item has none.
pub fn reference(item: &ItemContent) -> Option<&str> {
    item.answer
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The judge's user message, as `_evaluate_response` writes it for the QA tasks: `question` is
/// the question as the model was asked it (the text-only one when the entity is given).
pub fn judge_prompt(question: &str, item: &ItemContent, prediction: &str) -> String {
    let truth = item.answer.as_deref().unwrap_or_default();
    format!("Question: {question}\nGround truth: {truth}\nPrediction: {prediction}\n")
}

/// The local half of the rule: exact match or not. A miss carries `needs_judge: true` in its
/// evidence; the engine then asks the judge when the run has one.
pub struct CragQaScorer;

impl Scorer for CragQaScorer {
    fn name(&self) -> &'static str {
        "crag_qa"
    }
    fn score(&self, item: &ItemContent, response: &str, _ctx: &ScoreContext) -> Scored {
        let Some(truth) = reference(item) else {
            return Scored::unparsed(json!({"rule": "item has no reference answer"}));
        };
        // `evaluate.py` strips every generated reply and `_parse_response` keeps a QA reply
        // whole; the match is `strip().lower()` on both sides.
        let reply = response.trim();
        let hit = reply.to_lowercase() == truth.to_lowercase();
        Scored {
            score: Some(hit as u8 as f64),
            parsed: Some(reply.to_string()),
            evidence: json!({
                "rule": if hit { "exact match (case-insensitive)" } else { "no exact match; no judge: wrong" },
                "reference": truth,
                "needs_judge": !hit,
            }),
            hedged: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(answer: &str) -> ItemContent {
        ItemContent {
            answer: Some(answer.into()),
            ..Default::default()
        }
    }

    #[test]
    fn only_an_exact_reply_is_right_without_the_judge() {
        let s = CragQaScorer;
        let ctx = ScoreContext::default();
        let it = item("The Lakers are favoured to win.");
        let hit = s.score(&it, "  the lakers are favoured to win.\n", &ctx);
        assert_eq!(hit.score, Some(1.0));
        assert_eq!(hit.evidence["needs_judge"], false);
        // A right reply in other words is the judge's to decide, wrong until it does.
        let miss = s.score(&it, "Lakers.", &ctx);
        assert_eq!(miss.score, Some(0.0));
        assert_eq!(miss.evidence["needs_judge"], true);
        assert_eq!(miss.parsed.as_deref(), Some("Lakers."));
        assert_eq!(s.score(&item("  "), "x", &ctx).score, None);
    }

    #[test]
    fn the_judge_sees_the_question_the_reference_and_the_whole_reply() {
        assert_eq!(
            judge_prompt("who will win?", &item("Lakers"), "Sorry, hard to say."),
            "Question: who will win?\nGround truth: Lakers\nPrediction: Sorry, hard to say.\n"
        );
        assert!(JUDGE_SYSTEM.contains("1 mile is about 1.60934 km"));
    }
}
