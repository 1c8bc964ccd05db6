//! LLM judges: prompts and parsing. The model call itself is made by the engine (through the
//! cache), which hands the judge's raw text to these parsers.

use serde_json::{json, Value};

use super::Scored;
use assay_core::ItemContent;

/// Binary judge, in the spirit of the JAMMEval/HLE grading prompt.
pub fn binary_prompt(question: &str, reference: &str, response: &str) -> String {
    format!(
        "Judge whether the following [response] to [question] is correct or not based on the \
precise and unambiguous [correct_answer] below.\n\n[question]: {question}\n\n[response]: {response}\n\n\
Your judgement must be in the format and criteria specified below:\n\n\
extracted_final_answer: The final exact answer extracted from the [response]. Put the extracted \
answer as 'None' if there is no exact, final answer to extract from the response.\n\n\
[correct_answer]: {reference}\n\n\
reasoning: Explain why the extracted_final_answer is correct or incorrect based on \
[correct_answer], focusing only on if there are meaningful differences between [correct_answer] \
and the extracted_final_answer. Treat full-width and half-width characters, and the presence or \
absence of units, as equivalent.\n\n\
correct: Answer 'yes' if extracted_final_answer matches the [correct_answer] given above, or is \
within a small margin of error for numerical problems. Answer 'no' otherwise."
    )
}

/// Reads the verdict line "correct: yes|no" (the last one wins). Without such a line, the
/// first verdict phrase in the text decides, negative phrases checked first at each position,
/// so "not correct" and "incorrect; the correct answer is X" read as incorrect. No verdict
/// phrase at all is unparsed, never a guess.
pub fn parse_binary(raw: &str) -> Scored {
    let low = raw.to_lowercase();
    let mut verdict: Option<bool> = None;
    let mut rule = "verdict line";
    for line in low.lines() {
        let l = line.trim().trim_start_matches(['*', '#', ' ', '-']);
        let Some(rest) = l
            .strip_prefix("correct")
            .map(|r| r.trim_start_matches(['*', ' ']))
            .and_then(|r| r.strip_prefix(':').or_else(|| r.strip_prefix('：')))
        else {
            continue;
        };
        let r = rest.trim().trim_matches(['*', ' ', '.', '"', '\'']);
        if r.starts_with("yes") || r.starts_with("true") {
            verdict = Some(true);
        } else if r.starts_with("no") || r.starts_with("false") {
            verdict = Some(false);
        }
    }
    if verdict.is_none() {
        rule = "first verdict phrase";
        verdict = first_verdict_phrase(&low);
    }
    match verdict {
        Some(v) => Scored {
            hedged: false,
            score: Some(v as u8 as f64),
            parsed: Some(if v { "correct" } else { "incorrect" }.into()),
            evidence: json!({"rule": rule, "judge_raw": raw}),
        },
        None => Scored::unparsed(json!({"rule": "judge gave no verdict", "judge_raw": raw})),
    }
}

const NEGATIVE: [&str; 10] = [
    "incorrect",
    "not correct",
    "isn't correct",
    "is not right",
    "wrong",
    "不正解",
    "誤り",
    "間違",
    "오답",
    "틀렸",
];
const POSITIVE: [&str; 4] = ["correct", "正解", "정답", "맞습니다"];

fn first_verdict_phrase(low: &str) -> Option<bool> {
    let first = |words: &[&str]| words.iter().filter_map(|w| low.find(w)).min();
    match (first(&NEGATIVE), first(&POSITIVE)) {
        // A negative phrase contains or precedes the positive word ("incorrect", "not correct").
        (Some(n), Some(p)) => Some(p < n && !NEGATIVE.iter().any(|w| low[p..].starts_with(w))),
        (Some(_), None) => Some(false),
        (None, Some(_)) => Some(true),
        (None, None) => None,
    }
}

fn rating_value(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64().filter(|x| [0.0, 0.5, 1.0].contains(x)),
        Value::String(s) => match s.trim().to_lowercase().replace([' ', '-'], "_").as_str() {
            "met" | "fully_met" | "yes" => Some(1.0),
            "partially_met" | "partial" | "partly_met" => Some(0.5),
            "not_met" | "unmet" | "no" => Some(0.0),
            _ => None,
        },
        _ => None,
    }
}

/// Reads a checklist judge's reply: the official `<score>` tag (`checklist_judge::parse`);
/// a reply without one in the JSON form Assay's own prompt asked for (runs scored by version 1
/// of the checklist judge, read again by a rescore) by that form.
pub fn parse_checklist(raw: &str, item: &ItemContent) -> Scored {
    let official = super::checklist_judge::parse(raw, item);
    if official.score.is_none() && !raw.to_lowercase().contains("<score") {
        let earlier = parse_checklist_json(raw, item);
        if earlier.score.is_some() {
            return earlier;
        }
    }
    official
}

/// The JSON array Assay's own checklist prompt asked for before the official one: met 1 /
/// partially met 0.5 / not met 0 per criterion, with a quote and a justification each.
fn parse_checklist_json(raw: &str, item: &ItemContent) -> Scored {
    let m = item.checklist.len();
    let start = raw.find('[');
    let end = raw.rfind(']');
    let parsed: Option<Vec<Value>> = match (start, end) {
        (Some(s), Some(e)) if e > s => serde_json::from_str(&raw[s..=e]).ok(),
        _ => None,
    };
    let Some(entries) = parsed else {
        return Scored::unparsed(
            json!({"rule": "judge reply is not a JSON array", "judge_raw": raw}),
        );
    };
    if entries.len() != m || m == 0 {
        return Scored::unparsed(json!({
            "rule": format!("judge rated {} criteria, the item has {m}", entries.len()),
            "judge_raw": raw
        }));
    }
    let mut ratings = Vec::with_capacity(m);
    let mut per = Vec::with_capacity(m);
    for (i, e) in entries.iter().enumerate() {
        let Some(r) = e.get("rating").and_then(rating_value) else {
            return Scored::unparsed(
                json!({"rule": format!("criterion {} has no valid rating", i + 1), "judge_raw": raw}),
            );
        };
        ratings.push(r);
        per.push(json!({
            "criterion": item.checklist[i],
            "rating": r,
            "evidence": e.get("evidence").cloned().unwrap_or(Value::Null),
            "justification": e.get("justification").cloned().unwrap_or(Value::Null),
        }));
    }
    let score = ratings.iter().sum::<f64>() / m as f64;
    Scored {
        hedged: false,
        score: Some(score),
        parsed: Some(format!("{ratings:?}")),
        evidence: json!({"criteria": per, "judge_raw": raw}),
    }
}

/// llm-jp-eval-mm's Heron-Bench judge (`heron_bench_scorer.py`), verbatim: the judge scores
/// the reference answer (`score_gpt`) and the model's (`score`) 1-10 each; the benchmark
/// reports 100 * mean(score) / mean(score_gpt).
pub const RATING_SYSTEM: &str =
    "You are a helpful and precise assistant for checking the quality of the answer.";

pub fn rating_prompt(context: &str, question: &str, reference: &str, response: &str) -> String {
    format!(
        "\nYou are an expert evaluator. You are given the following information:\n\
- Context: A description of the image.\n\
- Question: A question about the image.\n\
- GPT-4o Answer: GPT-4o's answer to the question.\n\
- Model Answer: The target model's answer to the question.\n\n\
Your task is to evaluate each answer independently based on how well it answers the question given the context.\n\n\
Please assign a score from 1 to 10 for each answer according to the following guideline:\n\
- 10: Perfect \u{2014} Completely correct, relevant, and fully addresses the question based on the context.\n\
- 8-9: Very Good \u{2014} Mostly correct with only minor inaccuracies or slight omissions.\n\
- 6-7: Good \u{2014} Generally correct but contains noticeable errors or lacks important details.\n\
- 4-5: Poor \u{2014} Significant errors or missing key points, but some relevance remains.\n\
- 1-3: Very Poor \u{2014} Mostly or completely incorrect, irrelevant, or nonsensical.\n\n\
Output Format (JSON):\n\
Return the result in the following JSON format:\n\
```json\n{{\n    \"score_gpt\": int,\n    \"score\": int\n}}\n```\n\
Do not output anything other than the JSON.\n\n\
Input:\n{{\n    \"context\": {context},\n    \"question\": {question},\n    \"gpt4o_answer\": {reference},\n    \"model_answer\": {response}\n}}\n\n\
Output:\n"
    )
}

/// llm-jp-eval-mm's `parse_score`: the first JSON object (fenced or bare) with integer
/// `score` and `score_gpt`. The item's score is `score / 10`; both numbers stay in the evidence
/// so the relative score can be formed. Where llm-jp-eval-mm averages a parse failure in as
/// -1, Assay marks it unparsed (counted as a miss, shown in its own column).
pub fn parse_rating(raw: &str) -> Scored {
    static FENCED: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static BARE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let fenced = FENCED.get_or_init(|| regex::Regex::new(r"(?s)```json(.*?)```").expect("valid"));
    let bare = BARE.get_or_init(|| regex::Regex::new(r"(?s)\{.*?\}").expect("valid"));
    let mut candidates: Vec<&str> = fenced
        .captures_iter(raw)
        .map(|c| c.get(1).map_or("", |m| m.as_str()))
        .collect();
    if candidates.is_empty() {
        candidates = bare.find_iter(raw).map(|m| m.as_str()).collect();
    }
    for c in candidates {
        let clean: String = c
            .trim()
            .chars()
            .filter(|ch| !ch.is_control() || *ch == '\n')
            .collect();
        let Ok(Value::Object(m)) = serde_json::from_str::<Value>(clean.trim()) else {
            continue;
        };
        let int = |k: &str| {
            m.get(k)
                .and_then(|v| v.as_i64().or_else(|| v.as_f64().map(|f| f as i64)))
        };
        if let (Some(score), Some(gpt)) = (int("score"), int("score_gpt")) {
            return Scored {
                hedged: false,
                score: Some((score as f64 / 10.0).clamp(0.0, 1.0)),
                parsed: Some(format!("{score}/{gpt}")),
                evidence: json!({"rule": "rating 1-10 against the reference's own rating", "rating": score, "reference_rating": gpt, "judge_raw": raw}),
            };
        }
    }
    Scored::unparsed(json!({"rule": "no JSON with score and score_gpt", "judge_raw": raw}))
}

/// The judge request for a scorer that needs one: (system message, user text).
pub fn judge_request(
    kind: super::ScorerKind,
    question: &str,
    item: &ItemContent,
    response: &str,
) -> (Option<&'static str>, String) {
    match kind {
        super::ScorerKind::ChecklistJudge => {
            // No system message, as `score.py` sends none.
            (
                None,
                super::checklist_judge::prompt(question, &item.checklist, response),
            )
        }
        super::ScorerKind::Rating => {
            let context = item
                .metadata
                .get("context")
                .and_then(Value::as_str)
                .unwrap_or("");
            (
                Some(RATING_SYSTEM),
                rating_prompt(
                    context,
                    question,
                    &item.reference_text().unwrap_or_default(),
                    response,
                ),
            )
        }
        _ => (
            None,
            binary_prompt(
                question,
                &item.reference_text().unwrap_or_default(),
                response,
            ),
        ),
    }
}

/// Reads a judge's reply for a scorer.
pub fn parse_judge(kind: super::ScorerKind, raw: &str, item: &ItemContent) -> Scored {
    match kind {
        super::ScorerKind::ChecklistJudge => parse_checklist(raw, item),
        super::ScorerKind::Rating => parse_rating(raw),
        _ => parse_binary(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_verdicts() {
        assert_eq!(
            parse_binary("extracted_final_answer: 117\nreasoning: same\ncorrect: yes").score,
            Some(1.0)
        );
        assert_eq!(parse_binary("correct: no").score, Some(0.0));
        assert_eq!(parse_binary("The response is incorrect.").score, Some(0.0));
        assert_eq!(parse_binary("I am not sure").score, None);
        assert_eq!(parse_binary("**Correct:** yes").score, Some(1.0));
    }

    #[test]
    fn negations_in_free_text_are_incorrect() {
        assert_eq!(
            parse_binary("The response is not correct.").score,
            Some(0.0)
        );
        assert_eq!(
            parse_binary("incorrect; the correct answer is Osaka").score,
            Some(0.0)
        );
        assert_eq!(
            parse_binary("Wrong. It is correct only for Kyoto.").score,
            Some(0.0)
        );
        assert_eq!(parse_binary("Correct.").score, Some(1.0));
        assert_eq!(parse_binary("回答は不正解です").score, Some(0.0));
        assert_eq!(parse_binary("正解です").score, Some(1.0));
    }

    #[test]
    fn checklist_scores_are_the_mean_of_ratings() {
        let item = ItemContent {
            checklist: vec!["a".into(), "b".into(), "c".into()],
            ..Default::default()
        };
        let raw = r#"Here you go: [{"criterion":1,"rating":"met","evidence":"x","justification":"y"},
            {"criterion":2,"rating":"partially_met"},{"criterion":3,"rating":"not_met"}]"#;
        let s = parse_checklist(raw, &item);
        assert!((s.score.unwrap() - 0.5).abs() < 1e-12);
        assert_eq!(s.evidence["criteria"][0]["evidence"], "x");
        assert_eq!(parse_checklist("[{\"rating\":\"met\"}]", &item).score, None);
    }

    #[test]
    fn ratings_read_like_llm_jp_eval_mm() {
        let s = parse_rating("```json\n{\n    \"score_gpt\": 9,\n    \"score\": 6\n}\n```");
        assert_eq!(s.score, Some(0.6));
        assert_eq!(s.evidence["reference_rating"], 9);
        assert_eq!(
            parse_rating("Sure: {\"score\": 7, \"score_gpt\": 8}")
                .parsed
                .as_deref(),
            Some("7/8")
        );
        assert_eq!(parse_rating("score 7").score, None);
        let p = rating_prompt("ctx", "q?", "ref", "ans");
        assert!(p.contains("\"gpt4o_answer\": ref,") && p.ends_with("Output:\n"));
    }
}
