//! Prompt and suggestion templates in the app, as `assay template` and `assay suggestion
//! template` keep them: every saved version, the built-ins to start from, and a body saved as
//! the next version (an unchanged body keeps its version). The rules on names and bodies are
//! the store's (`Project::save_template`).

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use assay_core::store::TemplateVersion;
use assay_core::{AnswerFormat, SuggestionKind};
use assay_eval::scorers::grounding::BoxConvention;

use super::eval_err;
use crate::Session;

/// What a template is sent for: a model's answer in a run, or a suggestion's draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TemplateKind {
    Prompt,
    Suggestion,
}

/// A template that ships with Assay: read-only, a starting point for a saved one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct BuiltinTemplate {
    /// Its name in the list ("vague/plain", "default/short_answer", "suggest/screening"). A run
    /// names the seeds' prompts (`vague/…`, `crag-mm/…`) by it; the defaults per answer format
    /// and per suggestion kind are what a run or a suggestion uses when it names none.
    pub name: String,
    pub kind: TemplateKind,
    /// The answer format (prompt templates) or "suggestion".
    pub format: String,
    pub body: String,
}

/// The templates page: saved versions (by name, newest first) and the built-ins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TemplateLibrary {
    pub saved: Vec<TemplateVersion>,
    pub builtins: Vec<BuiltinTemplate>,
    /// What each judged scorer sends its judge: fixed by the scorer (and the seed it follows),
    /// shown so a person can read what decided a verdict.
    pub judges: Vec<JudgePromptView>,
}

/// One judged scorer's request to its judge, with placeholders where an item's text goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JudgePromptView {
    pub scorer: String,
    /// The scorer's rule version, which stored results record.
    pub version: i64,
    /// When the judge is asked.
    pub asked: String,
    pub system: Option<String>,
    pub user: String,
}

/// A body to save under a name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TemplateForm {
    pub name: String,
    pub kind: TemplateKind,
    /// The answer format of a prompt template (ignored for a suggestion template).
    pub format: AnswerFormat,
    pub body: String,
}

/// What saving did: the label runs name it by, and whether the body was already the latest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SavedTemplate {
    pub label: String,
    pub version: i64,
    pub unchanged: bool,
}

/// Every built-in template: the default prompt per answer format, the seeds' named prompts,
/// and the default draft request per suggestion kind.
pub fn builtin_templates() -> Vec<BuiltinTemplate> {
    let defaults = AnswerFormat::ALL.iter().map(|f| BuiltinTemplate {
        name: format!("default/{}", f.as_str()),
        kind: TemplateKind::Prompt,
        format: f.as_str().to_string(),
        body: assay_eval::prompt::default_template(*f, BoxConvention::Auto),
    });
    let named = assay_eval::prompt::BUILTIN_TEMPLATES
        .iter()
        .filter_map(|n| {
            let body = assay_eval::prompt::builtin_template(n)?;
            let format = if n.starts_with("vague/") {
                AnswerFormat::MultipleChoice
            } else {
                AnswerFormat::ShortAnswer
            };
            Some(BuiltinTemplate {
                name: n.to_string(),
                kind: TemplateKind::Prompt,
                format: format.as_str().to_string(),
                body,
            })
        });
    let suggestions = SuggestionKind::ALL.iter().filter_map(|k| {
        Some(BuiltinTemplate {
            name: format!("suggest/{}", k.as_str()),
            kind: TemplateKind::Suggestion,
            format: assay_eval::suggest::templates::TEMPLATE_FORMAT.to_string(),
            body: assay_eval::suggest::templates::builtin(*k)?.to_string(),
        })
    });
    defaults.chain(named).chain(suggestions).collect()
}

impl Session {
    pub fn templates(&self) -> ApiResult<TemplateLibrary> {
        Ok(TemplateLibrary {
            saved: self.project()?.template_versions()?,
            builtins: builtin_templates(),
            judges: assay_eval::scorers::judge_prompts::judge_prompts()
                .into_iter()
                .map(|p| JudgePromptView {
                    scorer: p.scorer.as_str().to_string(),
                    version: p.version,
                    asked: p.asked.to_string(),
                    system: p.system.map(str::to_string),
                    user: p.user,
                })
                .collect(),
        })
    }

    /// Why a template cannot be saved under `name` (the store's rule), for the form to say
    /// before it is sent.
    pub fn why_not_template_name(&self, name: String) -> ApiResult<Option<String>> {
        Ok(assay_core::store::why_not_template_name(&name))
    }

    pub fn save_template(&self, form: TemplateForm) -> ApiResult<SavedTemplate> {
        let p = self.project()?;
        let before = p.template(&form.name, None)?.map(|t| t.version);
        let label = match form.kind {
            TemplateKind::Prompt => {
                assay_eval::prompt::save_template(p, &form.name, form.format, &form.body)
            }
            TemplateKind::Suggestion => {
                assay_eval::suggest::templates::save(p, &form.name, &form.body)
            }
        }
        .map_err(eval_err)?;
        let version = label
            .rsplit_once('@')
            .and_then(|(_, v)| v.parse().ok())
            .ok_or_else(|| ApiError::new("internal", format!("a saved template {label}")))?;
        Ok(SavedTemplate {
            label,
            version,
            unchanged: before == Some(version),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_a_body_and_a_name_no_saved_template_can_take() {
        let all = builtin_templates();
        assert!(all.iter().any(|b| b.name == "vague/plain"));
        assert!(all.iter().any(|b| b.name == "suggest/screening"));
        assert!(all.iter().any(|b| b.name == "default/multiple_choice"));
        for b in &all {
            assert!(!b.body.trim().is_empty(), "{}", b.name);
            assert!(
                assay_core::store::why_not_template_name(&b.name).is_some(),
                "a saved template could take the name {}",
                b.name
            );
        }
    }
}
