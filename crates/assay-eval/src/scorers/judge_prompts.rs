//! What each judged scorer sends its judge, with placeholders where an item's text and the
//! model's reply go. Read off the functions that build the real requests, so the prompt a
//! person reads in the app is the one sent, and changes with it.

use super::ScorerKind;
use assay_core::ItemContent;

/// One scorer's judge request, as sent, with `{question}`, `{reference}`, `{response}` and the
/// like where an item's values go.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgePrompt {
    pub scorer: ScorerKind,
    /// The scorer's rule version, which stored results record.
    pub version: i64,
    /// When the judge is asked: for every reply, or only for the ones the rule missed.
    pub asked: &'static str,
    /// The system message, when one is sent.
    pub system: Option<&'static str>,
    /// The user message.
    pub user: String,
}

/// The judge request of every scorer that asks a judge, in the scorers' order.
pub fn judge_prompts() -> Vec<JudgePrompt> {
    let mut item = ItemContent {
        question: "{question}".into(),
        answer: Some("{reference}".into()),
        checklist: vec!["{criterion 1}".into(), "{criterion 2}".into()],
        entity_name: Some("{entity}".into()),
        ..Default::default()
    };
    item.metadata
        .insert("context".into(), serde_json::json!("{context}"));
    ScorerKind::ALL
        .into_iter()
        .filter(|k| k.uses_judge())
        .map(|kind| {
            let (system, user, asked) = if kind.exact_then_judge() {
                let (s, u) = kind.miss_request("{question}", &item, "{response}");
                (s, u, "for each reply the exact-match rule did not accept")
            } else {
                let (s, u) = super::judge::judge_request(kind, "{question}", &item, "{response}");
                (s, u, "for every reply")
            };
            JudgePrompt {
                scorer: kind,
                version: kind.version(),
                asked,
                system,
                user,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_judged_scorer_shows_where_the_reply_and_the_item_go() {
        let all = judge_prompts();
        let kinds: Vec<ScorerKind> = all.iter().map(|p| p.scorer).collect();
        let want: Vec<ScorerKind> = ScorerKind::ALL
            .into_iter()
            .filter(|k| k.uses_judge())
            .collect();
        assert_eq!(kinds, want);
        for p in &all {
            assert!(p.user.contains("{response}"), "{:?}: {}", p.scorer, p.user);
        }
        let qa = all.iter().find(|p| p.scorer == ScorerKind::CragQa).unwrap();
        assert_eq!(qa.system, Some(crate::crag_mm_prompts::JUDGE_QA));
        assert!(qa.user.contains("{question}") && qa.user.contains("{reference}"));
        let checklist = all
            .iter()
            .find(|p| p.scorer == ScorerKind::ChecklistJudge)
            .unwrap();
        assert_eq!(checklist.system, None, "score.py sends no system message");
        assert!(checklist.user.contains("{criterion 2}"));
        let id = all
            .iter()
            .find(|p| p.scorer == ScorerKind::Identification)
            .unwrap();
        assert!(id.user.contains("{entity}"), "{}", id.user);
    }
}
