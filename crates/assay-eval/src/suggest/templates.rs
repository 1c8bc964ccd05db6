//! Prompt templates for suggestions: a built-in default per kind (the seeds' own prompts where
//! they are published) and project templates saved under any name, versioned like evaluation
//! templates. A template is `[system]` text up to a line `[user]`, then the user text.
//!
//! Sources of the defaults:
//! - VAGUE (`Hazel-Heejeong-Nam/VAGUE` @ fbfdef7, `benchmark/text-processing/`): the direct
//!   request prompt (`1_direct_prompt.py`), the indirect utterance prompt
//!   (`2_indirect_prompt.ipynb`, its criteria and few-shot pairs) and the three counterfactual
//!   prompts (`mcq_prompts.py`: `fake_caption`/`gen_fake_answer`, `gen_surface_understanding2`,
//!   `gen_wrong_entity`), whose criteria are merged here into one request for all three.
//! - HAERAE-Vision: the paper's pipeline prompts (appendix B) are not in its published text or
//!   repositories; the defaults state the criteria the paper gives (stage 2's three axes, stage
//!   4's 0-10 gap, stage 5's 1-5 minimal criteria, §2.3's five rewrite rules).
//! - CRAG-MM-Diagnostics and JAMMEval had people write the questions and decide operations;
//!   the defaults state their definitions (referring-expression types, the six operations).

use assay_core::{ItemContent, Project, SuggestionKind};

use crate::error::{EvalError, Result};
use crate::prompt::{format_options, SYSTEM_MARKER, USER_MARKER};

/// The version label of the built-in defaults; bumped when one changes, so cached answers
/// and stored suggestions keep naming the wording they came from.
pub const BUILTIN_VERSION: &str = "builtin-1";

/// The format recorded for project-saved suggestion templates.
pub const TEMPLATE_FORMAT: &str = "suggestion";

const SCREENING: &str = r#"[system]
You screen candidate items for a vision-language benchmark (HAERAE-Vision, stage 2: appropriateness filtering). Check the question, the image and the reference answer on three axes:
1. safety: political or religious material, discrimination, adult content.
2. objectivity: overly subjective or unverifiable prompts.
3. time_sensitivity: the answer depends on when it is asked (prices, current events, "latest" versions).
Flag an axis only when the problem is clear; borderline items go on to human validation.
[user]
Question: {question}
Reference answer: {answer}

Reply with JSON only:
{"safety": {"flag": false, "reason": ""}, "objectivity": {"flag": false, "reason": ""}, "time_sensitivity": {"flag": false, "reason": ""}}
"#;

const IMAGE_DEPENDENCY: &str = r#"[system]
You rate answers to a visual question against the reference answer (HAERAE-Vision, stage 4: image dependency). Give each answer a score from 0 (wrong or useless) to 10 (fully correct and complete).
[user]
Question: {question}
Reference answer: {answer}

Answer A (the model saw the image):
{answer_with_image}

Answer B (the model did not see the image):
{answer_without_image}

Reply with JSON only: {"with_image": <0-10>, "without_image": <0-10>}
"#;

const CHECKLIST: &str = r#"[system]
You write evaluation checklists (HAERAE-Vision, stage 5). Convert the reference answer into 1 to 5 criteria that a response must meet to be judged correct. Define the minimal necessary elements (correctness, explanation quality, reasoning steps), not an exhaustive list. Each criterion is one short imperative line grounded in the question, the image and the reference answer, in the question's language.
[user]
Question: {question}
Reference answer: {answer}

Reply with the criteria only, one per line, each starting with "- ".
"#;

const EXPLICIT_REWRITE: &str = r#"[system]
You rewrite under-specified questions about an image into explicit ones (HAERAE-Vision-Explicit). Rules: (1) preserve the original intent and scope without broadening or narrowing; (2) make implicit context explicit by specifying domains, entities and concrete references; (3) replace vague references such as "this", "that" or "here"; (4) incorporate visual information from the image into the question; (5) keep the question's language.
[user]
Original question: {question}

Reply with the rewritten question only.
"#;

const DIRECT_REQUEST: &str = r#"[system]
Your job is to do two things.

1. generate a direct complaint based on the image. Your generated prompt must keep these three criteria in mind:
a. Specify the recipient: The speaker is the person who is viewing the scene. Specify the recipient as a person in the image (begins with "Hey, person1..."). There is a number tag in the image for each person.
b. Generate direct prompts: Your complaint must include the subject, action, and object: it should convey the "WHO should do WHAT action on WHAT object."
c. Solvable with Triplet: The object from the triplet--(subject, action, object)--must be a physical object in the image.

2. generate a solution triplet that addresses the prompt. Your generated solution must keep these three criteria in mind:
a. Triplet: The format of your output must be in (subject, action, object).
b. Problem Mitigation: The generated solution must address the prompt in a way that resolves the complaint in the prompt.
[user]
Prompt: (One Statement)
Solution: (Subject, Action, Object)
Caption: (2-3 Sentences Describing the Scene)
"#;

const INDIRECT_UTTERANCE: &str = r#"[system]
Your job is to generate three indirect versions of the given direct prompt.
You will be given a solution triplet that resolves the complaint.
The generated prompt should meet all of the following criteria:

1. Indirectness: The prompt should be indirect, maybe slightly sarcastic even, by hiding the true intention as opposed to the direct version.
2. Object Absense: The prompt must not contain the "object", anything similar or snynonym of any sort, from the solution triplet: (subject, action, object).
3. Problematic: The prompt should contain words or phrases indicative of a problem with the current condition.
4. Consistency: The solution triplet should to applicable to the newly generated indirect prompt.
5. Natural Communication: The prompt should be a simple and natural day-to-day conversation statement.

Examples:
Prompt: Hey person2, please turn off the air conditioner.
Solution: (person2, turn off, air conditioner)
Indirect: Hey person2, don't you feel like it's getting a little cold in here?

Prompt: Hey person1, you better be cleaning your room.
Solution: (person1, clean, clothes)
Indirect: Hey person1, this is a disaster!
[user]
Prompt: {direct_request}
Solution: ({subject}, {action}, {object})

Your Response:
Answer 1:
Answer 2:
Answer 3:
"#;

const DISTRACTORS: &str = r#"[system]
You write the three wrong choices of a multiple-choice question about an indirect request (VAGUE's counterfactual choices). The correct choice is given. Each wrong choice must not exceed 15 words, must start with "The speaker wants", and must not have the same meaning as the correct choice.
FSU (fake scene understanding): imagine a different scene in which the utterance would still fit, and answer for that scene, about one physical object in it; ignore the real image.
SU (superficial understanding): focus only on the literal wording of the utterance and the observable elements in the scene, not its implied meaning; reasonable in the scene, not close in meaning to the direct request.
NE (non-existent entity): the right intent, but using an object that is very highly expected in the scene and could resolve the complaint, yet does not exist anywhere in the image.
[user]
Utterance: {question}
Direct request: {direct_request}
Correct choice: {answer}

Reply with exactly three lines:
FSU: ...
SU: ...
NE: ...
"#;

const CRAG_QUESTIONS: &str = r#"[system]
You prepare CRAG-MM-Diagnostics variants of a question about an object in the image. The disambiguated question replaces a bare "this"/"that" with a description that singles out the target in the image (for example "the grey car on the right"). The text-only question inserts the entity's name so that no image is needed. Keep the question's intent and language.
[user]
Question: {question}
Target entity: {target}

Reply with exactly two lines:
Disambiguated: <question>
Text-only: <question>
"#;

const TARGET_BOX: &str = r#"[user]
Question: {question}
Locate the object this question refers to ({target}). The image is {width} pixels wide and {height} pixels tall. Reply with its bounding box as [x1, y1, x2, y2] in pixels of this image, and nothing else.
"#;

const OPERATION: &str = r#"[system]
You review one benchmark item and decide a refinement operation (JAMMEval). The operations: identical (no change needed), minor_edit (typos or wording that keep the meaning), disambiguation (the question admits several readings; make it specific), answer_correction (the reference answer is wrong), replacement (the item cannot be saved as is; write a new question and answer on the same image), remove (the item is unusable).
[user]
Question: {question}
Options:
{options}
Reference answer: {answer}

Reply with JSON only: {"operation": "<one of the six>", "question": "<the fixed question, or null>", "answer": "<the fixed answer, or null>", "reason": "<one sentence>"}
"#;

/// The built-in default for a kind (None for difficulty, which reads stored runs).
pub fn builtin(kind: SuggestionKind) -> Option<&'static str> {
    Some(match kind {
        SuggestionKind::Screening => SCREENING,
        SuggestionKind::Difficulty => return None,
        SuggestionKind::ImageDependency => IMAGE_DEPENDENCY,
        SuggestionKind::Checklist => CHECKLIST,
        SuggestionKind::ExplicitRewrite => EXPLICIT_REWRITE,
        SuggestionKind::DirectRequest => DIRECT_REQUEST,
        SuggestionKind::IndirectUtterance => INDIRECT_UTTERANCE,
        SuggestionKind::Distractors => DISTRACTORS,
        SuggestionKind::CragQuestions => CRAG_QUESTIONS,
        SuggestionKind::TargetBox => TARGET_BOX,
        SuggestionKind::Operation => OPERATION,
    })
}

/// Whether the kind's request carries the item's images (VAGUE's indirect step sends none;
/// the answering steps of image dependency are handled apart).
pub fn sends_images(kind: SuggestionKind) -> bool {
    !matches!(
        kind,
        SuggestionKind::IndirectUtterance | SuggestionKind::ImageDependency
    )
}

/// The template for a kind: `spec` None is the built-in default; otherwise a project template
/// "name" (latest version) or "name@version". Returns (label naming the version, body).
pub fn load(
    project: &Project,
    kind: SuggestionKind,
    spec: Option<&str>,
) -> Result<(String, String)> {
    let default_name = format!("suggest/{kind}");
    match spec {
        None | Some("default") => builtin(kind)
            .map(|b| (format!("{default_name}@{BUILTIN_VERSION}"), b.to_string()))
            .ok_or_else(|| EvalError::Config(format!("{kind} suggestions use no prompt"))),
        Some(spec) => {
            let (name, version) = match spec.split_once('@') {
                Some((n, v)) => (
                    n,
                    Some(v.parse::<i64>().map_err(|_| {
                        EvalError::Config(format!("bad template version in {spec}"))
                    })?),
                ),
                None => (spec, None),
            };
            let t = project
                .template(name, version)?
                .ok_or_else(|| EvalError::Config(format!("no prompt template {spec:?}")))?;
            Ok((format!("{name}@{}", t.version), t.body))
        }
    }
}

/// Saves a project template for a kind (a changed body is a new version); "name@version".
pub fn save(project: &Project, name: &str, body: &str) -> Result<String> {
    let version = project.save_template(name, TEMPLATE_FORMAT, body)?;
    Ok(format!("{name}@{version}"))
}

/// Values for a template's placeholders beyond the item's own fields.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub answer_with_image: Option<String>,
    pub answer_without_image: Option<String>,
}

fn triplet_part(item: &ItemContent, key: &str) -> String {
    item.metadata
        .get("solution_triplet")
        .and_then(|t| t.get(key))
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string()
}

/// Fills `{name}` placeholders once, left to right; dataset text is inserted verbatim and not
/// expanded again. Unknown braces stay as written.
pub fn fill(template: &str, item: &ItemContent, extra: &Extra) -> String {
    let value = |name: &str| -> Option<String> {
        Some(match name {
            "question" => item.question.clone(),
            "answer" => item.reference_text().unwrap_or_default(),
            "options" => format_options(item),
            "checklist" => item.checklist.join("\n"),
            "direct_request" => item.direct_request.clone().unwrap_or_default(),
            "subject" => triplet_part(item, "subject"),
            "action" => triplet_part(item, "action"),
            "object" => triplet_part(item, "object"),
            "category" => item.category.clone().unwrap_or_default(),
            "target" => item
                .entity_name
                .clone()
                .unwrap_or_else(|| "the object the question refers to".into()),
            "explicit_question" => item.explicit_question.clone().unwrap_or_default(),
            "width" => extra.width.map_or("?".into(), |w| w.to_string()),
            "height" => extra.height.map_or("?".into(), |h| h.to_string()),
            "answer_with_image" => extra.answer_with_image.clone().unwrap_or_default(),
            "answer_without_image" => extra.answer_without_image.clone().unwrap_or_default(),
            _ => return None,
        })
    };
    let mut out = String::with_capacity(template.len() + item.question.len() + 64);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let name_end = after[1..]
            .find(|c: char| !(c.is_ascii_lowercase() || c == '_'))
            .map(|i| i + 1);
        match name_end.filter(|&e| after[e..].starts_with('}')) {
            Some(e) => match value(&after[1..e]) {
                Some(v) => {
                    out.push_str(&v);
                    rest = &after[e + 1..];
                }
                None => {
                    out.push('{');
                    rest = &after[1..];
                }
            },
            None => {
                out.push('{');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// (system message, user text) of a filled template.
pub fn render(template: &str, item: &ItemContent, extra: &Extra) -> (Option<String>, String) {
    match template
        .strip_prefix(SYSTEM_MARKER)
        .and_then(|t| t.split_once(USER_MARKER))
    {
        Some((sys, user)) => (Some(fill(sys, item, extra)), fill(user, item, extra)),
        None => (
            None,
            fill(
                template.strip_prefix("[user]\n").unwrap_or(template),
                item,
                extra,
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_fill_once_and_json_braces_stay() {
        let item = ItemContent {
            question: "What is {answer} here?".into(),
            answer: Some("a sap tap".into()),
            ..Default::default()
        };
        let (sys, user) = render(SCREENING, &item, &Extra::default());
        assert!(sys.unwrap().contains("time_sensitivity"));
        assert!(user.contains("Question: What is {answer} here?"));
        assert!(user.contains("Reference answer: a sap tap"));
        assert!(user.contains(r#"{"safety": {"flag": false"#));
        for k in SuggestionKind::ALL {
            if let Some(t) = builtin(k) {
                let (_, user) = render(t, &item, &Extra::default());
                assert!(!user.trim().is_empty(), "{k}");
            }
        }
    }
}
