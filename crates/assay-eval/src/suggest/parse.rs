//! Parsers from a model's raw output to a typed suggestion. A parser names what it could not
//! read instead of guessing: the raw text is always kept, and an unparsed output is shown to
//! the person as it came.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use assay_core::suggestion::ScreeningFlag;
use assay_core::{RefinementOp, SuggestionKind, SuggestionValue};

pub type Parsed = std::result::Result<SuggestionValue, String>;

/// The first JSON object in a reply: inside a ```json fence, or the outermost braces.
pub fn json_object(raw: &str) -> Option<serde_json::Map<String, Value>> {
    static FENCED: OnceLock<Regex> = OnceLock::new();
    let fenced = FENCED.get_or_init(|| Regex::new(r"(?s)```(?:json)?\s*(.*?)```").expect("valid"));
    let mut candidates: Vec<&str> = fenced
        .captures_iter(raw)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    if let (Some(s), Some(e)) = (raw.find('{'), raw.rfind('}')) {
        if s < e {
            candidates.push(&raw[s..=e]);
        }
    }
    candidates
        .into_iter()
        .find_map(|c| match serde_json::from_str(c.trim()) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        })
}

/// Removes a label such as "Prompt:" and surrounding quotes.
fn clean(s: &str) -> String {
    let t = s.trim();
    let t = t
        .strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(t);
    t.trim().to_string()
}

/// The text after `label:` on the first line that starts with it (case-insensitive, list
/// markers and bold markers ignored).
fn labelled(raw: &str, labels: &[&str]) -> Option<String> {
    // Labels in the caller's order of preference: "Rewritten question:" wins over a
    // "Question:" line that repeats the original.
    for label in labels {
        for line in raw.lines() {
            let l = line
                .trim()
                .trim_start_matches(['-', '*', '#', ' '])
                .replace("**", "");
            let head = l.get(..label.len());
            if head.is_some_and(|h| h.eq_ignore_ascii_case(label)) {
                let rest = l[label.len()..].trim_start();
                if let Some(v) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('：')) {
                    let v = clean(v);
                    if !v.is_empty() {
                        return Some(v);
                    }
                }
            }
        }
    }
    None
}

fn flag(
    m: &serde_json::Map<String, Value>,
    axis: &str,
) -> std::result::Result<Option<String>, String> {
    let v = m
        .get(axis)
        .ok_or_else(|| format!("no {axis:?} in the reply's JSON"))?;
    let (flagged, reason) = match v {
        Value::Bool(b) => (*b, String::new()),
        Value::Object(o) => (
            o.get("flag")
                .or_else(|| o.get("flagged"))
                .and_then(Value::as_bool)
                .ok_or_else(|| format!("{axis:?} has no true/false \"flag\""))?,
            o.get("reason")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        ),
        _ => return Err(format!("{axis:?} is neither true/false nor an object")),
    };
    Ok(flagged.then(|| {
        if reason.trim().is_empty() {
            "flagged".to_string()
        } else {
            reason
        }
    }))
}

pub fn screening(raw: &str) -> Parsed {
    let m = json_object(raw).ok_or("no JSON object in the reply")?;
    let mut flags = Vec::new();
    for axis in ["safety", "objectivity", "time_sensitivity"] {
        if let Some(reason) = flag(&m, axis)? {
            flags.push(ScreeningFlag {
                axis: axis.into(),
                reason,
            });
        }
    }
    Ok(SuggestionValue::Screening {
        keep: flags.is_empty(),
        flags,
    })
}

/// Both 0-10 ratings of the image-dependency judge.
pub fn ratings(raw: &str) -> std::result::Result<(f64, f64), String> {
    let m = json_object(raw).ok_or("no JSON object in the rating")?;
    let num = |k: &str| -> std::result::Result<f64, String> {
        let v = m
            .get(k)
            .and_then(|v| {
                v.as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            })
            .ok_or_else(|| format!("no number {k:?} in the rating"))?;
        if (0.0..=10.0).contains(&v) {
            Ok(v)
        } else {
            Err(format!("{k:?} is {v}, outside 0-10"))
        }
    };
    Ok((num("with_image")?, num("without_image")?))
}

pub fn checklist(raw: &str) -> Parsed {
    static MARK: OnceLock<Regex> = OnceLock::new();
    let mark = MARK.get_or_init(|| {
        Regex::new(r"^\s*(?:[-*•・]|\d{1,2}[.)、]|\[\s?\]|□)\s*(.+?)\s*$").expect("valid")
    });
    // A JSON list of strings is taken as it is.
    if let (Some(s), Some(e)) = (raw.find('['), raw.rfind(']')) {
        if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(&raw[s..=e]) {
            let items: Vec<String> = a
                .iter()
                .filter_map(|v| v.as_str().map(clean))
                .filter(|s| !s.is_empty())
                .collect();
            if !items.is_empty() && items.len() == a.len() {
                return checked(items);
            }
        }
    }
    let items: Vec<String> = raw
        .lines()
        .filter_map(|l| mark.captures(l).map(|c| clean(&c[1])))
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Err("no criteria found (expected lines starting with \"- \" or \"1.\")".into());
    }
    checked(items)
}

fn checked(items: Vec<String>) -> Parsed {
    if items.len() > 5 {
        return Err(format!("{} criteria; a checklist has 1-5", items.len()));
    }
    let mut seen = std::collections::HashSet::new();
    for c in &items {
        if !seen.insert(c.to_lowercase()) {
            return Err(format!("criterion {c:?} is repeated"));
        }
    }
    Ok(SuggestionValue::Checklist { criteria: items })
}

/// One question (or utterance) from a reply: a labelled line if there is one, else the whole
/// reply when it is a single paragraph.
fn one_text(raw: &str, labels: &[&str]) -> std::result::Result<String, String> {
    if let Some(v) = labelled(raw, labels) {
        return Ok(v);
    }
    let lines: Vec<&str> = raw
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines.as_slice() {
        [] => Err("the reply is empty".into()),
        [one] => Ok(clean(one)),
        _ => Err(format!(
            "{} lines and none labelled {}",
            lines.len(),
            labels.first().copied().unwrap_or("")
        )),
    }
}

pub fn explicit_rewrite(raw: &str) -> Parsed {
    one_text(
        raw,
        &[
            "Rewritten question",
            "Rewritten",
            "Explicit question",
            "Question",
        ],
    )
    .map(|question| SuggestionValue::ExplicitRewrite { question })
}

pub fn direct_request(raw: &str) -> Parsed {
    let request = labelled(raw, &["Prompt", "Direct"]).ok_or("no \"Prompt:\" line")?;
    let solution = labelled(raw, &["Solution"]).ok_or("no \"Solution:\" line")?;
    let inner = solution
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(['.', ' '])
        .trim_end_matches(')');
    let parts: Vec<String> = inner.split(',').map(clean).collect();
    let [subject, action, object] = parts.as_slice() else {
        return Err(format!(
            "the solution {solution:?} is not a (subject, action, object) triplet"
        ));
    };
    if [subject, action, object].iter().any(|p| p.is_empty()) {
        return Err(format!("the solution {solution:?} has an empty part"));
    }
    Ok(SuggestionValue::DirectRequest {
        request,
        subject: subject.clone(),
        action: action.clone(),
        object: object.clone(),
    })
}

pub fn indirect_utterance(raw: &str) -> Parsed {
    one_text(raw, &["Answer 1", "Indirect", "Answer"])
        .map(|utterance| SuggestionValue::IndirectUtterance { utterance })
}

pub fn distractors(raw: &str) -> Parsed {
    let fake_scene = labelled(raw, &["FSU", "Fake scene"]).ok_or("no \"FSU:\" line")?;
    let superficial = labelled(raw, &["SU", "Superficial"]).ok_or("no \"SU:\" line")?;
    let non_existent =
        labelled(raw, &["NE", "Non-existent", "Nonexistent"]).ok_or("no \"NE:\" line")?;
    Ok(SuggestionValue::Distractors {
        fake_scene,
        superficial,
        non_existent,
    })
}

pub fn crag_questions(raw: &str) -> Parsed {
    let none = |s: Option<String>| {
        s.filter(|v| {
            let l = v.to_lowercase();
            !(l == "none" || l == "n/a" || l == "-")
        })
    };
    let disambiguated = none(labelled(raw, &["Disambiguated", "Disambiguated question"]));
    let text_only = none(labelled(
        raw,
        &["Text-only", "Text only", "Text-only question"],
    ));
    if disambiguated.is_none() && text_only.is_none() {
        return Err("no \"Disambiguated:\" or \"Text-only:\" line".into());
    }
    Ok(SuggestionValue::CragQuestions {
        disambiguated,
        text_only,
    })
}

/// The six operations by their names, with spaces or hyphens for underscores.
fn operation_name(s: &str) -> Option<RefinementOp> {
    let norm = s.trim().to_lowercase().replace([' ', '-'], "_");
    RefinementOp::parse(&norm).or(match norm.as_str() {
        "minor" | "edit" => Some(RefinementOp::MinorEdit),
        "correction" | "answer_fix" => Some(RefinementOp::AnswerCorrection),
        "removal" | "delete" => Some(RefinementOp::Remove),
        "replace" => Some(RefinementOp::Replacement),
        "keep" | "none" | "no_change" => Some(RefinementOp::Identical),
        _ => None,
    })
}

pub fn operation(raw: &str) -> Parsed {
    let text = |m: &serde_json::Map<String, Value>, k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty() && *s != "null")
            .map(String::from)
    };
    let (op, question, answer, reason) = match json_object(raw) {
        Some(m) => (
            text(&m, "operation").ok_or("no \"operation\" in the reply's JSON")?,
            text(&m, "question"),
            text(&m, "answer"),
            text(&m, "reason"),
        ),
        None => (
            labelled(raw, &["Operation"]).ok_or("no JSON and no \"Operation:\" line")?,
            labelled(raw, &["Question"]),
            labelled(raw, &["Answer"]),
            labelled(raw, &["Reason"]),
        ),
    };
    let op = operation_name(&op).ok_or_else(|| {
        format!(
            "{op:?} is not one of the six operations ({})",
            RefinementOp::NAMES.join(", ")
        )
    })?;
    Ok(SuggestionValue::Operation {
        op,
        question,
        answer,
        reason: reason.unwrap_or_else(|| "no reason given".into()),
    })
}

/// The parser of a single-request kind (target boxes need the sent size; see the runner).
pub fn parse(kind: SuggestionKind, raw: &str) -> Parsed {
    match kind {
        SuggestionKind::Screening => screening(raw),
        SuggestionKind::Checklist => checklist(raw),
        SuggestionKind::ExplicitRewrite => explicit_rewrite(raw),
        SuggestionKind::DirectRequest => direct_request(raw),
        SuggestionKind::IndirectUtterance => indirect_utterance(raw),
        SuggestionKind::Distractors => distractors(raw),
        SuggestionKind::CragQuestions => crag_questions(raw),
        SuggestionKind::Operation => operation(raw),
        SuggestionKind::Difficulty
        | SuggestionKind::ImageDependency
        | SuggestionKind::TargetBox => Err(format!("{kind} is not parsed from one reply")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screening_reads_fenced_json_and_refuses_a_missing_axis() {
        let raw = "Here you go:\n```json\n{\"safety\": {\"flag\": false, \"reason\": \"\"}, \"objectivity\": {\"flag\": true, \"reason\": \"asks for taste\"}, \"time_sensitivity\": false}\n```";
        match screening(raw).unwrap() {
            SuggestionValue::Screening { keep, flags } => {
                assert!(!keep);
                assert_eq!(flags.len(), 1);
                assert_eq!(flags[0].axis, "objectivity");
                assert_eq!(flags[0].reason, "asks for taste");
            }
            v => panic!("{v:?}"),
        }
        let e = screening(r#"{"safety": {"flag": false}}"#).unwrap_err();
        assert!(e.contains("objectivity"), "{e}");
        assert!(screening("I cannot help with that.").is_err());
    }

    #[test]
    fn checklists_take_markers_numbers_and_json_and_refuse_six() {
        let v = checklist(
            "Criteria:\n- Identify the sap tap\n2) Mention grown trees\n• 수액 채취기를 언급",
        )
        .unwrap();
        assert_eq!(
            v,
            SuggestionValue::Checklist {
                criteria: vec![
                    "Identify the sap tap".into(),
                    "Mention grown trees".into(),
                    "수액 채취기를 언급".into()
                ]
            }
        );
        assert!(checklist(r#"["a", "b"]"#).is_ok());
        let six = (1..=6)
            .map(|i| format!("- c{i}"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(checklist(&six).unwrap_err().contains("6 criteria"));
        assert!(checklist("- same\n- Same")
            .unwrap_err()
            .contains("repeated"));
        assert!(checklist("No criteria, sorry.").is_err());
    }

    #[test]
    fn vague_replies_read_as_the_repository_writes_them() {
        let d = direct_request("Prompt: Hey person1, put the phone down.\nSolution: (person1, put down, phone)\nCaption: Two people at a table.").unwrap();
        assert_eq!(
            d,
            SuggestionValue::DirectRequest {
                request: "Hey person1, put the phone down.".into(),
                subject: "person1".into(),
                action: "put down".into(),
                object: "phone".into(),
            }
        );
        assert!(
            direct_request("Prompt: x\nSolution: person1 puts down phone")
                .unwrap_err()
                .contains("triplet")
        );
        let i = indirect_utterance("Answer 1: Hey person1, it's nice to see some things are more interesting than my cooking.\nAnswer 2: b\nAnswer 3: c").unwrap();
        assert!(
            matches!(i, SuggestionValue::IndirectUtterance { utterance } if utterance.starts_with("Hey person1, it's nice"))
        );
        let x = distractors("FSU: The speaker wants person1 to feed the dog.\nSU: The speaker wants person1 to cook.\nNE: The speaker wants person1 to turn off the TV.").unwrap();
        assert!(
            matches!(x, SuggestionValue::Distractors { ref superficial, .. } if superficial == "The speaker wants person1 to cook.")
        );
        assert!(distractors("FSU: a\nNE: c").unwrap_err().contains("SU"));
    }

    #[test]
    fn operations_and_questions_name_what_is_missing() {
        let o = operation(r#"{"operation": "answer correction", "question": null, "answer": "42", "reason": "off by one"}"#).unwrap();
        assert_eq!(
            o,
            SuggestionValue::Operation {
                op: RefinementOp::AnswerCorrection,
                question: None,
                answer: Some("42".into()),
                reason: "off by one".into()
            }
        );
        assert!(operation(r#"{"operation": "rewrite everything"}"#)
            .unwrap_err()
            .contains("not one of the six"));
        let q = crag_questions(
            "Disambiguated: When was the grey car on the right made?\nText-only: none",
        )
        .unwrap();
        assert_eq!(
            q,
            SuggestionValue::CragQuestions {
                disambiguated: Some("When was the grey car on the right made?".into()),
                text_only: None
            }
        );
        assert!(explicit_rewrite("Line one.\nLine two.").is_err());
        assert_eq!(
            explicit_rewrite("Question: what is this?\nRewritten question: what is this sap tap?")
                .unwrap(),
            SuggestionValue::ExplicitRewrite {
                question: "what is this sap tap?".into()
            }
        );
        assert_eq!(
            explicit_rewrite("\"What is the circled item in this Stardew Valley screenshot?\"")
                .unwrap(),
            SuggestionValue::ExplicitRewrite {
                question: "What is the circled item in this Stardew Valley screenshot?".into()
            }
        );
        assert_eq!(
            ratings(r#"{"with_image": 8, "without_image": "3"}"#).unwrap(),
            (8.0, 3.0)
        );
        assert!(ratings(r#"{"with_image": 11, "without_image": 3}"#).is_err());
    }
}
