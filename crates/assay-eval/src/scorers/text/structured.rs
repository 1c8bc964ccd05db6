//! Replies written as structured output for a parser: a JSON object or a YAML mapping with an
//! answer field (`{"answer": "Tim Hortons", "rejected_candidates": ["Starbucks"]}`,
//! "```yaml\nanswer: no\nevidence: …```"). The answer field is the reply's answer; the other
//! fields (candidates, quoted text, evidence) are its working, as a grader reads them.

/// The keys that hold the answer, in the order they are preferred.
const ANSWER_KEYS: &[&str] = &[
    "corrected_answer",
    "revised_answer",
    "final_answer",
    "answer",
    "final",
    "prediction",
    "output",
    "最終回答",
    "答え",
    "回答",
    "정답",
    "답",
];

/// The reply without a code fence around it ("```json … ```").
fn unfenced(response: &str) -> &str {
    let t = response.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let body = rest.split_once('\n').map_or("", |(_, b)| b);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// The text of the answer field when the whole reply is a JSON object or a YAML mapping that
/// has one; `Some("")` when the field is null or empty (the reply answers nothing). None for
/// any other reply.
pub fn answer_field(response: &str) -> Option<String> {
    let body = unfenced(response);
    if body.starts_with('{') {
        let serde_json::Value::Object(map) = serde_json::from_str(body).ok()? else {
            return None;
        };
        let lower: Vec<(String, &serde_json::Value)> =
            map.iter().map(|(k, v)| (k.to_lowercase(), v)).collect();
        let field = |k: &str| lower.iter().find(|(key, _)| key == k).map(|(_, v)| *v);
        let value = ANSWER_KEYS.iter().find_map(|k| field(k))?;
        // {"answer": 12.5, "unit": "cm"}: the figure in its unit.
        let unit = ["unit", "units", "単位", "단위"]
            .iter()
            .find_map(|k| field(k))
            .and_then(|u| u.as_str());
        return Some(match value {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => String::new(),
            serde_json::Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
            serde_json::Value::Number(n) => match unit {
                Some(u) => format!("{n} {u}"),
                None => n.to_string(),
            },
            // A list or an object under "answer" is not one answer.
            _ => return None,
        });
    }
    yaml_answer(body)
}

/// "answer: no\nevidence: …": every line a `key: value` with a key written as YAML keys are
/// (`snake_case` ASCII; "정답: 3대\n검토: …" is prose with labels), or a list item under a key,
/// one key an answer key with its value on the same line.
fn yaml_answer(body: &str) -> Option<String> {
    let lines: Vec<&str> = body.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() < 2 {
        return None;
    }
    let mut fields = Vec::new();
    for line in &lines {
        if line.starts_with([' ', '\t', '-']) {
            continue;
        }
        let (key, value) = line.split_once(':')?;
        let key = key.trim().to_lowercase();
        let yaml_key = key.starts_with(|c: char| c.is_ascii_lowercase())
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !yaml_key {
            return None;
        }
        fields.push((key, value.trim()));
    }
    let value = ANSWER_KEYS
        .iter()
        .find_map(|k| fields.iter().find(|(key, _)| key == k).map(|(_, v)| *v))?;
    let value = value.trim_matches(|c| c == '"' || c == '\'');
    Some(match value {
        "null" | "~" => String::new(),
        v => v.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_field_of_json_and_yaml_is_the_answer() {
        assert_eq!(
            answer_field(r#"{"rejected_candidates": ["Starbucks"], "answer": "Tim Hortons"}"#)
                .as_deref(),
            Some("Tim Hortons")
        );
        assert_eq!(
            answer_field("```json\n{\"Answer\": 5, \"why\": \"five cars\"}\n```").as_deref(),
            Some("5")
        );
        assert_eq!(
            answer_field(r#"{"answer": null, "reason": "blurry"}"#).as_deref(),
            Some("")
        );
        assert_eq!(
            answer_field("```yaml\nanswer: no\nevidence: door sign reads Mon-Sat 9-6\n```")
                .as_deref(),
            Some("no")
        );
        assert_eq!(
            answer_field(r#"{"정답": "오뚜기", "ocr_text": "농심"}"#).as_deref(),
            Some("오뚜기")
        );
        // Not structured output: prose, a list answer, no answer key, one line.
        assert_eq!(answer_field("The answer: no. It is closed."), None);
        assert_eq!(answer_field(r#"{"answer": ["a", "b"]}"#), None);
        assert_eq!(
            answer_field(r#"{"answer": "Starbucks", "corrected_answer": "Tim Hortons"}"#)
                .as_deref(),
            Some("Tim Hortons")
        );
        assert_eq!(
            answer_field(r#"{"answer": 12.5, "unit": "cm"}"#).as_deref(),
            Some("12.5 cm")
        );
        assert_eq!(
            answer_field("정답: 3대\n검토: 다시 세어 보니 총 4대입니다."),
            None
        );
        assert_eq!(answer_field(r#"{"brand": "Sony"}"#), None);
        assert_eq!(answer_field("answer: no"), None);
        assert_eq!(
            answer_field("Note: the sign is old.\nIt says closed."),
            None
        );
    }
}
