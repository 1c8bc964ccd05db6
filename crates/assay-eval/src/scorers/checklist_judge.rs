//! HAERAE-Vision's checklist judge as its published code runs it (`HAE-RAE/HAERAE-VISION`,
//! commit `0b3614f`, Apache-2.0: `utils/evaluate.py` and `score.py`): the official prompt as the
//! one (user) message, the question, response and checklist appended after it the way
//! `score.py` appends them, and the reply read by its one `<score>K/N</score>` tag. A reply
//! without exactly one readable tag is unparsed ("none" there, never 0). The per-criterion
//! `met:` values of the `<evidence>` block are kept as the criteria's ratings, so a person can
//! still overrule one criterion. Checked side by side with the published code in
//! `tests/eval/reference.rs`.

use serde_json::{json, Value};

use super::Scored;
use assay_core::ItemContent;

/// The official judge prompt, character for character (`utils/evaluate.py`, `prompt_template`).
/// Its `{{QUESTION}}`-style placeholders stay as they are: `score.py` never fills them and
/// appends the inputs after the template instead.
pub const OFFICIAL_TEMPLATE: &str = r#"[GOAL]
Given a **Question**, **Response**, and a natural-language **Checklist**, decide for each checklist item whether the Response **explicitly** satisfies it: **met = 1**, **not met = 0**. Final score = **(# met) / (total checklist items)**.

[INPUT]
[Question]
{{QUESTION}}

[Response]
{{RESPONSE}}

[Checklist]
{{CHECKLIST}}  ← JSON array or a plain list string. Treat each string as one criterion. Strip any leading numbering like “1.” or “2)”.

[DECISION RULES]
1. **Use only the Response text.** No outside knowledge/assumptions. If uncertain → 0.
2. **Explicitness (mentions/explains/indicates).**
   * 1: Clear, direct statement that fulfills the criterion.
   * 0.5: Indirect/implicit mention that likely implies fulfillment, but not explicit.
   * 0: Not mentioned or contradicted.
   
3. **“All / every / complete” requirements.**
   * 1: Explicitly states completeness (e.g., “all”, “every”, or equivalent).
   * 0.5: Strongly suggests near-completeness (“fill the nests” without “all”, “almost all”).
   * 0: No completeness requirement or states partial suffices.
   
4. **Method / Procedure (“explains how / method”).**
   * 1: Concrete, actionable steps or clear guidance.
   * 0.5: Vague or partial steps (general approach without specifics).
   * 0: No method/procedure provided.
   
5. **“Various / multiple types.”**
   * 1: Names **≥2 distinct, specific types**.
   * 0.5: Mentions variety without naming types, or names only **1** type.
   * 0: No indication of multiple types.
   
6. **Synonyms.** Accept unambiguous equivalents (e.g., “baby dragon” = “hatchling”).
   * 1: Unambiguous equivalence.
   * 0.5: Likely equivalent but slightly ambiguous.
   * 0: Ambiguous or different meaning.

[Evidence policy]
* For **met = 1 or 0.5**, include a **10–60 character direct quote** from the Response supporting the decision.
* For **met = 0 ** include a brief explanation why the response fails the given criteria.
* In the evidence block, list **evidence first**, then the explanation, then the met value.

[OUTPUT FORMAT — STRICT. NO PROSE OUTSIDE TAGS.] <evidence>
Item 1:
evidence: "…direct quote from Response…"
explanation: Briefly justify why criterion 1 earned 1/0.5/0 (reference rule numbers if helpful).
met: 0 | 0.5 | 1

Item 2:
evidence: "…"
explanation: …
met: 0 | 0.5 | 1

… (repeat for all checklist items, in order) </evidence>
<score>
K/N 
</score>

[NOTES]
* Output **only** the two tags above; no code fences, no extra text."#;

/// The judge's message: the template, then the inputs as `score.py` appends them. The checklist
/// goes as a JSON array, the first form the prompt names (`score.py` sends whatever its CSV
/// cell holds: for a list column, NumPy's printed form of the list).
pub fn prompt(question: &str, checklist: &[String], response: &str) -> String {
    let checklist = serde_json::to_string(checklist).unwrap_or_default();
    format!("{OFFICIAL_TEMPLATE}[INPUT]\n{question}\n[Response]\n{response}\n[Checklist]\n{checklist}\n")
}

/// A decimal as written in a score tag: its digits as an integer and the power of ten below
/// it ("2.50" is 250 and 2). Digits of other scripts (full-width) count, as Python's do.
fn decimal(s: &str) -> Option<(i128, u32)> {
    let s = crate::scorers::normalize::nfkc(s);
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(&s)),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty() || frac.len() > 30 || int.len() > 30 {
        return None;
    }
    let digits = format!("{int}{frac}");
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let m: i128 = digits.parse().ok()?;
    Some((if neg { -m } else { m }, frac.len() as u32))
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The tag's value as the exact fraction it writes, rounded once to the nearest double (as
/// Python's `float(Fraction)` does): "2.5/5" is 0.5, "0.3/3" is exactly 0.1.
fn value(num: &str, den: Option<&str>) -> Result<f64, &'static str> {
    let (n, ns) = decimal(num).ok_or("a number that cannot be read")?;
    let (d, ds) = match den {
        Some(d) => decimal(d).ok_or("a number that cannot be read")?,
        None => (1, 0),
    };
    if d == 0 {
        return Err("a denominator of 0");
    }
    let ten = |e: u32| 10i128.checked_pow(e).ok_or("too many digits");
    let p = n.checked_mul(ten(ds)?).ok_or("too many digits")?;
    let q = d.checked_mul(ten(ns)?).ok_or("too many digits")?;
    let g = gcd(p, q).max(1);
    let (p, q) = (p / g, q / g);
    let (p, q) = if q < 0 { (-p, -q) } else { (p, q) };
    // Below 2^53 both are exact doubles, so one division rounds once, as Python's does.
    Ok(p as f64 / q as f64)
}

fn score_tags() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        let num = r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)";
        regex::Regex::new(&format!(
            r"(?is)<score>\s*({num})\s*(?:/\s*({num})\s*)?</score>"
        ))
        .expect("the score tag's pattern")
    })
}

/// The `met:` value of each `Item K:` block in the reply's evidence, with its quote and
/// explanation; None unless every criterion of the item has one.
fn criteria(raw: &str, item: &ItemContent) -> Option<Vec<Value>> {
    let low = raw.to_lowercase();
    let start = low.find("<evidence>").map_or(0, |i| i + "<evidence>".len());
    let end = low[start..]
        .find("</evidence>")
        .map_or(raw.len(), |i| start + i);
    let body = &raw[start..end];
    let mut out: Vec<Value> = Vec::new();
    for block in body.split("Item ").skip(1) {
        let field = |name: &str| {
            block.lines().find_map(|l| {
                let t = l.trim();
                t.get(..name.len())
                    .filter(|h| h.eq_ignore_ascii_case(name))
                    .map(|_| t[name.len()..].trim().to_string())
            })
        };
        let met = field("met:")?;
        let rating = match met.trim_matches(['*', ' ', '.']) {
            "1" | "1.0" => 1.0,
            "0.5" | ".5" => 0.5,
            "0" | "0.0" => 0.0,
            _ => return None,
        };
        let k = out.len();
        out.push(json!({
            "criterion": item.checklist.get(k)?,
            "rating": rating,
            "evidence": field("evidence:"),
            "justification": field("explanation:"),
        }));
    }
    (out.len() == item.checklist.len() && !out.is_empty()).then_some(out)
}

/// Reads a judge's reply to the official prompt: the value of its one `<score>` tag.
pub fn parse(raw: &str, item: &ItemContent) -> Scored {
    let tags: Vec<regex::Captures<'_>> = score_tags().captures_iter(raw).collect();
    let rule = |why: String| json!({"rule": why, "judge_raw": raw, "protocol": "haerae-vision"});
    let found = match tags.as_slice() {
        [] => {
            return Scored::unparsed(rule(
                "no <score> tag: none, as HAERAE-Vision's score.py".into(),
            ))
        }
        [one] => one,
        many => {
            return Scored::unparsed(rule(format!(
                "{} <score> tags where HAERAE-Vision's score.py takes exactly one: none",
                many.len()
            )))
        }
    };
    let (num, den) = (&found[1], found.get(2).map(|m| m.as_str()));
    let v = match value(num, den) {
        Ok(v) => v,
        Err(why) => return Scored::unparsed(rule(format!("the <score> tag holds {why}: none"))),
    };
    let per = criteria(raw, item);
    let mean = per
        .as_ref()
        .map(|cs| cs.iter().filter_map(|c| c["rating"].as_f64()).sum::<f64>() / cs.len() as f64);
    Scored {
        hedged: false,
        score: Some(v),
        parsed: Some(found[0].trim().to_string()),
        evidence: json!({
            "rule": "the one <score>K/N</score> tag (HAERAE-Vision's score.py)",
            "protocol": "haerae-vision",
            "criteria": per,
            "criteria_mean": mean,
            "judge_raw": raw,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(n: usize) -> ItemContent {
        ItemContent {
            checklist: (1..=n).map(|i| format!("criterion {i}")).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn the_one_score_tag_decides_and_none_is_not_zero() {
        let it = item(2);
        let raw = "<evidence>\nItem 1:\nevidence: \"a\"\nexplanation: x\nmet: 1\n\nItem 2:\nevidence: \"b\"\nexplanation: y\nmet: 0.5\n</evidence>\n<score>\n1.5/2 \n</score>";
        let s = parse(raw, &it);
        assert_eq!(s.score, Some(0.75));
        assert_eq!(s.evidence["criteria"][1]["rating"], 0.5);
        assert_eq!(s.evidence["criteria"][0]["evidence"], "\"a\"");
        assert_eq!(parse("<SCORE> 3/5 </SCORE>", &it).score, Some(0.6));
        assert_eq!(parse("<score>0.3/3</score>", &it).score, Some(0.1));
        assert_eq!(parse("<score>３/５</score>", &it).score, Some(0.6));
        assert_eq!(parse("<score>.25</score>", &it).score, Some(0.25));
        for none in [
            "3/5",
            "<score>K/N</score>",
            "<score>1/0</score>",
            "<score>1/2</score><score>1/2</score>",
            "",
        ] {
            let s = parse(none, &it);
            assert_eq!(s.score, None, "{none}");
            assert!(
                s.evidence["rule"].as_str().unwrap().contains("none"),
                "{none}"
            );
        }
        // The criteria are kept only when every one has its met value.
        assert_eq!(
            parse("Item 1:\nmet: 1\n<score>1/2</score>", &it).evidence["criteria"],
            Value::Null
        );
    }

    #[test]
    fn the_prompt_is_the_template_then_the_inputs() {
        let p = prompt("q?", &["a".into(), "b".into()], "r");
        assert!(p.starts_with("[GOAL]\nGiven a **Question**"));
        assert!(p.ends_with("no code fences, no extra text.[INPUT]\nq?\n[Response]\nr\n[Checklist]\n[\"a\",\"b\"]\n"));
    }
}
