//! Object identification, CRAG-MM-Diagnostics' second stage, as its `evaluate.py` runs it: the
//! model names the target entity; the reply is read the official way (`target_object:` and
//! brackets stripped); a case-insensitive exact match against the item's entity name (or an
//! alias a person added) is correct, anything else goes to the judge with the official
//! identification prompt (synonyms accepted, broader categories not). Without a judge a
//! non-match is wrong, as the official code scores it with `--eval-model None`.

use serde_json::json;

use super::{ScoreContext, Scored, Scorer};
use assay_core::ItemContent;

/// The official identification judge's system message, verbatim.
pub const JUDGE_SYSTEM: &str = crate::crag_mm_prompts::JUDGE_IDENTIFICATION;

/// Reads the entity name from a reply as `_parse_response` does: a reply wrapped in brackets
/// is unwrapped, else the text inside the first `[...]` is kept, then everything after the
/// first colon when the reply says `target_object:`.
pub fn parse_reply(response: &str) -> String {
    let mut text = response.trim().to_string();
    if text.starts_with('[') && text.ends_with(']') && text.len() >= 2 {
        text = text[1..text.len() - 1].to_string();
    }
    if let Some(st) = text.find('[') {
        // Python's `index(']')` finds the first `]` anywhere; one before the `[` gives an
        // empty slice there, so the reply is read as empty.
        text = match text.find(']') {
            Some(ed) if ed > st => text[st + 1..ed].to_string(),
            Some(_) => String::new(),
            None => text[st + 1..].to_string(),
        };
    }
    if text.contains("target_object:") {
        if let Some(colon) = text.find(':') {
            text = text[colon + 1..].trim().to_string();
        }
    }
    text
}

/// The names a prediction may match exactly: the entity name first, then the aliases.
pub fn accepted_names(item: &ItemContent) -> Vec<&str> {
    item.entity_name
        .iter()
        .chain(&item.entity_aliases)
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The judge's user message: the official one ("Ground truth: X\nPrediction: Y\n"), with the
/// aliases a person added listed after the name.
pub fn judge_prompt(item: &ItemContent, prediction: &str) -> String {
    let names = accepted_names(item);
    let truth = match names.split_first() {
        Some((first, [])) => first.to_string(),
        Some((first, rest)) => format!("{first} (also accepted: {})", rest.join("; ")),
        None => String::new(),
    };
    format!("Ground truth: {truth}\nPrediction: {prediction}\n")
}

/// Reads the judge's verdict: the last `answer: True|False` or `accuracy: True|False` (JSON
/// or Python quoting) in the reply. None when it gives neither.
pub fn parse_judge_verdict(raw: &str) -> Option<bool> {
    let low = raw.to_lowercase();
    let mut best: Option<(usize, bool)> = None;
    for key in ["answer", "accuracy"] {
        let mut from = 0;
        while let Some(pos) = low[from..].find(key) {
            let at = from + pos;
            let rest = low[at + key.len()..].trim_start_matches(['"', '\'', ' ', '*']);
            if let Some(v) = rest.strip_prefix(':') {
                let v = v.trim_start_matches(['"', '\'', ' ', '*']);
                let verdict = if v.starts_with("true") {
                    Some(true)
                } else if v.starts_with("false") {
                    Some(false)
                } else {
                    None
                };
                if let Some(b) = verdict {
                    if best.is_none_or(|(p, _)| at > p) {
                        best = Some((at, b));
                    }
                }
            }
            from = at + key.len();
        }
    }
    best.map(|(_, b)| b)
}

/// The local half of the rule: exact match or not. A miss carries `needs_judge: true` in its
/// evidence; the engine then asks the judge when the run has one.
pub struct IdentificationScorer;

impl Scorer for IdentificationScorer {
    fn name(&self) -> &'static str {
        "identification"
    }
    fn score(&self, item: &ItemContent, response: &str, _ctx: &ScoreContext) -> Scored {
        let names = accepted_names(item);
        if names.is_empty() {
            return Scored::unparsed(json!({"rule": "item has no target object name"}));
        }
        let pred = parse_reply(response);
        let hit = names
            .iter()
            .find(|n| n.to_lowercase() == pred.trim().to_lowercase());
        Scored {
            score: Some(hit.is_some() as u8 as f64),
            parsed: Some(pred.clone()),
            evidence: json!({
                "rule": if hit.is_some() { "exact match (case-insensitive)" } else { "no exact match; no judge: wrong" },
                "prediction": pred,
                "accepted": names,
                "matched": hit,
                "needs_judge": hit.is_none(),
            }),
            hedged: false,
        }
    }
}

/// Combines the exact-match miss with the judge's reply.
pub fn judged(local: &Scored, raw: &str, judge_model: &str) -> Scored {
    let mut evidence = local.evidence.clone();
    evidence["needs_judge"] = json!(false);
    evidence["judge_model"] = json!(judge_model);
    evidence["judge_raw"] = json!(raw);
    match parse_judge_verdict(raw) {
        Some(v) => {
            evidence["rule"] = json!(if v {
                "judge: semantically equivalent"
            } else {
                "judge: not equivalent"
            });
            Scored {
                score: Some(v as u8 as f64),
                parsed: local.parsed.clone(),
                evidence,
                hedged: false,
            }
        }
        None => {
            evidence["rule"] = json!("judge gave no verdict");
            Scored {
                score: None,
                parsed: local.parsed.clone(),
                evidence,
                hedged: false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str, aliases: &[&str]) -> ItemContent {
        ItemContent {
            entity_name: Some(name.into()),
            entity_aliases: aliases.iter().map(|a| a.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn replies_are_read_like_the_official_parser() {
        assert_eq!(parse_reply("target_object: Subaru WRX"), "Subaru WRX");
        assert_eq!(parse_reply("[Subaru WRX]"), "Subaru WRX");
        assert_eq!(parse_reply("target_object: [Subaru WRX]"), "Subaru WRX");
        assert_eq!(
            parse_reply("  Empire State Building \n"),
            "Empire State Building"
        );
        assert_eq!(parse_reply("It is [KIA K5] I think"), "KIA K5");
        // `target_object:` is looked for after the brackets are taken, so it survives here.
        assert_eq!(parse_reply("target_object: x: y"), "x: y");
    }

    #[test]
    fn exact_match_is_case_insensitive_and_accepts_aliases() {
        let s = IdentificationScorer;
        let ctx = ScoreContext::default();
        let it = item("KIA K5", &["Kia Optima"]);
        assert_eq!(s.score(&it, "target_object: kia k5", &ctx).score, Some(1.0));
        assert_eq!(
            s.score(&it, "target_object: Kia Optima", &ctx).score,
            Some(1.0)
        );
        let miss = s.score(&it, "target_object: Ford F-series", &ctx);
        assert_eq!(miss.score, Some(0.0));
        assert_eq!(miss.evidence["needs_judge"], true);
        assert_eq!(s.score(&ItemContent::default(), "x", &ctx).score, None);
    }

    #[test]
    fn the_judge_sees_the_official_message_and_its_verdict_is_read() {
        assert_eq!(
            judge_prompt(&item("KIA K5", &[]), "KIA Optima"),
            "Ground truth: KIA K5\nPrediction: KIA Optima\n"
        );
        assert!(judge_prompt(&item("KIA K5", &["Kia Optima"]), "x")
            .starts_with("Ground truth: KIA K5 (also accepted: Kia Optima)\n"));
        assert_eq!(
            parse_judge_verdict("Same car, renamed.\nanswer: True"),
            Some(true)
        );
        assert_eq!(
            parse_judge_verdict("{'explanation': 'broader', 'accuracy': False}"),
            Some(false)
        );
        assert_eq!(
            parse_judge_verdict("{\"accuracy\": true} ... Finally, answer: False"),
            Some(false)
        );
        assert_eq!(parse_judge_verdict("I cannot tell"), None);
        assert!(JUDGE_SYSTEM.contains("broader category than the ground truth"));
    }
}
