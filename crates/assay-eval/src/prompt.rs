//! Question variants and prompt templates.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{EvalError, Result};
use assay_core::{AnswerFormat, ItemContent, ItemImage, Project};

/// Which form of the question is asked; the papers compare these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    Original,
    /// HAERAE-Vision's explicit rewrite.
    Explicit,
    /// CRAG-MM-Diagnostics' disambiguated question.
    Disambiguated,
    /// CRAG-MM-Diagnostics' text-only question (entity named, no image sent).
    TextOnly,
    /// The same question without its images: the image-dependency check.
    NoImage,
}

impl Variant {
    pub const ALL: [Variant; 5] = [
        Self::Original,
        Self::Explicit,
        Self::Disambiguated,
        Self::TextOnly,
        Self::NoImage,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Original => "original",
            Self::Explicit => "explicit",
            Self::Disambiguated => "disambiguated",
            Self::TextOnly => "text_only",
            Self::NoImage => "no_image",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
    /// The question text and whether images are sent; None when the item lacks this variant.
    pub fn question(self, item: &ItemContent) -> Option<(&str, bool)> {
        match self {
            Self::Original => Some((item.question.as_str(), true)),
            Self::Explicit => item.explicit_question.as_deref().map(|q| (q, true)),
            Self::Disambiguated => item.disambiguated_question.as_deref().map(|q| (q, true)),
            Self::TextOnly => item.text_only_question.as_deref().map(|q| (q, false)),
            Self::NoImage => Some((item.question.as_str(), false)),
        }
    }
}

/// Built-in templates, one per answer format, following the papers' protocols.
pub fn default_template(format: AnswerFormat) -> &'static str {
    match format {
        AnswerFormat::ShortAnswer => "{question}\nAnswer the question using a single word or phrase.",
        AnswerFormat::MultipleChoice => "{question}\n{options}\nAnswer with the option's letter from the given choices directly.",
        AnswerFormat::Checklist => "{question}",
        AnswerFormat::Grounding => "{question}\nLocate {target} in the image. Give the box as [x1, y1, x2, y2] in pixel coordinates.",
        AnswerFormat::FreeForm => "{question}\nWhat does the speaker want, and from whom? Answer as \"The speaker wants personN to ...\" in at most 15 words.",
    }
}

/// A rendered request: text plus the images to attach, in item order.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub text: String,
    pub images: Vec<ItemImage>,
}

pub fn format_options(item: &ItemContent) -> String {
    item.options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{}. {}", (b'A' + i as u8) as char, o.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Fills `{question}`, `{options}`, `{checklist}` and `{target}`. Dataset text is inserted
/// verbatim once; placeholders inside it are not expanded again.
pub fn render(template: &str, item: &ItemContent, variant: Variant) -> Option<Prompt> {
    let (question, with_images) = variant.question(item)?;
    let target = item
        .entity_name
        .clone()
        .unwrap_or_else(|| "the object the question refers to".into());
    let mut out = String::with_capacity(template.len() + question.len() + 64);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let (value, len) = if after.starts_with("{question}") {
            (question.to_string(), "{question}".len())
        } else if after.starts_with("{options}") {
            (format_options(item), "{options}".len())
        } else if after.starts_with("{checklist}") {
            (item.checklist.join("\n"), "{checklist}".len())
        } else if after.starts_with("{target}") {
            (target.clone(), "{target}".len())
        } else {
            ("{".to_string(), 1)
        };
        out.push_str(&value);
        rest = &after[len..];
    }
    out.push_str(rest);
    Some(Prompt {
        text: out,
        images: if with_images {
            item.images.clone()
        } else {
            Vec::new()
        },
    })
}

/// Saves a template; a changed body becomes a new version. Returns "name@version".
pub fn save_template(
    project: &Project,
    name: &str,
    format: AnswerFormat,
    body: &str,
) -> Result<String> {
    let latest: Option<(i64, String)> = project
        .connection()
        .query_row(
            "SELECT version, body FROM prompt_templates WHERE name = ?1 ORDER BY version DESC LIMIT 1",
            [name],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let version = match latest {
        Some((v, b)) if b == body => return Ok(format!("{name}@{v}")),
        Some((v, _)) => v + 1,
        None => 1,
    };
    project.connection().execute(
        "INSERT INTO prompt_templates (name, version, format, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![name, version, format.as_str(), body, assay_core::store::now()],
    )?;
    Ok(format!("{name}@{version}"))
}

/// Resolves "name" (latest version) or "name@version"; "default" means the built-in per format.
pub fn load_template(project: &Project, spec: &str) -> Result<Option<(String, String)>> {
    if spec == "default" {
        return Ok(None);
    }
    let (name, version) = match spec.split_once('@') {
        Some((n, v)) => (
            n,
            Some(
                v.parse::<i64>()
                    .map_err(|_| EvalError::Config(format!("bad template version in {spec}")))?,
            ),
        ),
        None => (spec, None),
    };
    let row: Option<(i64, String)> = match version {
        Some(v) => project
            .connection()
            .query_row("SELECT version, body FROM prompt_templates WHERE name = ?1 AND version = ?2", params![name, v], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?,
        None => project
            .connection()
            .query_row("SELECT version, body FROM prompt_templates WHERE name = ?1 ORDER BY version DESC LIMIT 1", [name], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?,
    };
    let (v, body) = row.ok_or_else(|| EvalError::Config(format!("no prompt template {spec:?}")))?;
    Ok(Some((format!("{name}@{v}"), body)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use assay_core::ChoiceOption;

    #[test]
    fn renders_lettered_options_and_skips_missing_variants() {
        let item = ItemContent {
            question: "Which {options} animal?".into(),
            options: vec![
                ChoiceOption {
                    text: "cat".into(),
                    kind: None,
                },
                ChoiceOption {
                    text: "dog".into(),
                    kind: None,
                },
            ],
            ..Default::default()
        };
        let p = render(
            default_template(AnswerFormat::MultipleChoice),
            &item,
            Variant::Original,
        )
        .unwrap();
        assert_eq!(p.text, "Which {options} animal?\nA. cat\nB. dog\nAnswer with the option's letter from the given choices directly.");
        assert!(render("{question}", &item, Variant::Explicit).is_none());
        assert!(render("{question}", &item, Variant::NoImage)
            .unwrap()
            .images
            .is_empty());
    }
}
