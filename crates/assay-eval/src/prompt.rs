//! Question variants and prompt templates.

use crate::error::{EvalError, Result};
use crate::scorers::grounding::BoxConvention;
use crate::scorers::ScoreContext;
use assay_core::{AnswerFormat, ItemContent, ItemImage, Project};

assay_core::named_enum! {
    /// Which form of the question is asked; the papers compare these.
    pub enum Variant {
        Original = "original",
        /// HAERAE-Vision's explicit rewrite.
        Explicit = "explicit",
        /// CRAG-MM-Diagnostics' disambiguated question.
        Disambiguated = "disambiguated",
        /// CRAG-MM-Diagnostics' text-only question (entity named, no image sent).
        TextOnly = "text_only",
        /// The same question without its images: the image-dependency check.
        NoImage = "no_image",
    }
}

impl Variant {
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

/// CRAG-MM-Diagnostics' visual-grounding system prompt (`evaluate.py`), verbatim.
pub const CRAG_MM_GROUNDING_SYSTEM: &str = "You are a visual grounding assistant. Given an image and a question, output the \
bounding box of the image region that contains the visual information needed to answer the question.\n\n\
The image is always 960 pixels wide and 1280 pixels tall.\n\
Output format: [x1, y1, x2, y2] in pixels \u{2014} NO other text.\n\
- (0, 0) is the top-left corner\n\
- x increases rightward (0 to 960), y increases downward (0 to 1280)\n\
- Make the box as tight as possible around the target\n\
- If no specific region applies, output the full image: [0, 0, 960, 1280]\n\n\
Examples:\n\
Question: 'What is the name of the store?'\n\
Output: [95, 40, 530, 160]\n\n\
Question: 'What color is the car?'\n\
Output: [260, 580, 720, 940]\n\n\
Question: 'How many windows does the building have?'\n\
Output: [60, 180, 900, 1100]\n";

/// Separates a template's system message from its user message.
pub const USER_MARKER: &str = "\n[user]\n";
/// Starts a template that has a system message.
pub const SYSTEM_MARKER: &str = "[system]\n";

/// Built-in templates, one per answer format, following the papers' protocols. Grounding
/// templates state the size of the image as sent and ask in the model's box convention.
pub fn default_template(format: AnswerFormat, boxes: BoxConvention) -> String {
    match format {
        AnswerFormat::ShortAnswer => "{question}\nAnswer the question using a single word or phrase.".into(),
        AnswerFormat::MultipleChoice => "{question}\n{options}\nAnswer with the option's letter from the given choices directly.".into(),
        AnswerFormat::Checklist => "{question}".into(),
        AnswerFormat::Grounding => match boxes {
            BoxConvention::CragMm => format!("{SYSTEM_MARKER}{CRAG_MM_GROUNDING_SYSTEM}{USER_MARKER}# Question: \"{{question}}\"\n"),
            BoxConvention::Normalized1 => "{question}\nLocate {target} in the image. Give the box as [x1, y1, x2, y2], each coordinate a fraction (0 to 1) of the image's width or height, (0, 0) at the top left.".into(),
            BoxConvention::Normalized1000 | BoxConvention::Qwen3Vl => "{question}\nLocate {target} in the image. Give the box as [x1, y1, x2, y2] in relative coordinates from 0 to 1000, (0, 0) at the top left.".into(),
            _ => "{question}\nLocate {target} in the image. The image is {width} pixels wide and {height} pixels tall. Give the box as [x1, y1, x2, y2] in pixels of this image, (0, 0) at the top left.".into(),
        },
        AnswerFormat::FreeForm => "{question}\nWhat does the speaker want, and from whom? Answer as \"The speaker wants personN to ...\" in at most 15 words.".into(),
    }
}

/// A rendered request: an optional system message, text plus the images to attach, in item
/// order, and the size each image is sent at.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub system: Option<String>,
    pub text: String,
    pub images: Vec<ItemImage>,
    pub sent_sizes: Vec<(u32, u32)>,
}

pub fn format_options(item: &ItemContent) -> String {
    item.options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{}. {}", (b'A' + i as u8) as char, o.text))
        .collect::<Vec<_>>()
        .join("\n")
}

fn fill(template: &str, item: &ItemContent, question: &str, frame: Option<(u32, u32)>) -> String {
    let target = item
        .entity_name
        .clone()
        .unwrap_or_else(|| "the object the question refers to".into());
    let mut out = String::with_capacity(template.len() + question.len() + 64);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let field = [
            "question",
            "options",
            "checklist",
            "target",
            "width",
            "height",
        ]
        .into_iter()
        .find(|f| after[1..].starts_with(f) && after[1 + f.len()..].starts_with('}'));
        let (value, len) = match field {
            Some("question") => (question.to_string(), "{question}".len()),
            Some("options") => (format_options(item), "{options}".len()),
            Some("checklist") => (item.checklist.join("\n"), "{checklist}".len()),
            Some("target") => (target.clone(), "{target}".len()),
            Some("width") => (
                frame.map_or("?".into(), |f| f.0.to_string()),
                "{width}".len(),
            ),
            Some("height") => (
                frame.map_or("?".into(), |f| f.1.to_string()),
                "{height}".len(),
            ),
            _ => ("{".to_string(), 1),
        };
        out.push_str(&value);
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// Fills `{question}`, `{options}`, `{checklist}`, `{target}` and `{width}`/`{height}` (the
/// frame the model is asked to answer boxes in: the first image as sent, its original size
/// under `original-pixels`). Dataset text is inserted verbatim once; placeholders inside it
/// are not expanded again. A template starting with `[system]` carries a system message up to
/// a line `[user]`.
pub fn render(
    template: &str,
    item: &ItemContent,
    variant: Variant,
    ctx: &ScoreContext,
) -> Option<Prompt> {
    let (question, with_images) = variant.question(item)?;
    let images = if with_images {
        item.images.clone()
    } else {
        Vec::new()
    };
    let sent_sizes: Vec<(u32, u32)> = images
        .iter()
        .enumerate()
        .map(|(i, img)| ctx.sent_size(i, img))
        .collect();
    let frame = match ctx.boxes {
        BoxConvention::OriginalPixels => images.first().map(|i| (i.width, i.height)),
        _ => sent_sizes.first().copied(),
    };
    let (system, user) = match template
        .strip_prefix(SYSTEM_MARKER)
        .and_then(|t| t.split_once(USER_MARKER))
    {
        Some((sys, user)) => (Some(fill(sys, item, question, frame)), user),
        None => (None, template),
    };
    Some(Prompt {
        system,
        text: fill(user, item, question, frame),
        images,
        sent_sizes,
    })
}

/// Saves a template; a changed body becomes a new version. Returns "name@version".
pub fn save_template(
    project: &Project,
    name: &str,
    format: AnswerFormat,
    body: &str,
) -> Result<String> {
    let version = project.save_template(name, format.as_str(), body)?;
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
    let t = project
        .template(name, version)?
        .ok_or_else(|| EvalError::Config(format!("no prompt template {spec:?}")))?;
    Ok(Some((format!("{name}@{}", t.version), t.body)))
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
        let ctx = ScoreContext::default();
        let p = render(
            &default_template(AnswerFormat::MultipleChoice, BoxConvention::Auto),
            &item,
            Variant::Original,
            &ctx,
        )
        .unwrap();
        assert_eq!(p.text, "Which {options} animal?\nA. cat\nB. dog\nAnswer with the option's letter from the given choices directly.");
        assert!(render("{question}", &item, Variant::Explicit, &ctx).is_none());
        assert!(render("{question}", &item, Variant::NoImage, &ctx)
            .unwrap()
            .images
            .is_empty());
    }

    #[test]
    fn grounding_prompts_state_the_size_sent() {
        let item = ItemContent {
            format: AnswerFormat::Grounding,
            question: "What brand is this?".into(),
            images: vec![ItemImage {
                hash: "h".into(),
                width: 3000,
                height: 4000,
                name: None,
                source_id: None,
                target_boxes: vec![],
                person_boxes: vec![],
            }],
            ..Default::default()
        };
        let ctx = ScoreContext {
            boxes: BoxConvention::SentPixels,
            max_side: Some(1024),
        };
        let t = default_template(AnswerFormat::Grounding, ctx.boxes);
        let p = render(&t, &item, Variant::Original, &ctx).unwrap();
        assert!(
            p.text.contains("768 pixels wide and 1024 pixels tall"),
            "{}",
            p.text
        );
        assert_eq!(p.sent_sizes, vec![(768, 1024)]);

        let crag = ScoreContext {
            boxes: BoxConvention::CragMm,
            max_side: Some(1024),
        };
        let t = default_template(AnswerFormat::Grounding, crag.boxes);
        let p = render(&t, &item, Variant::Original, &crag).unwrap();
        assert_eq!(p.system.as_deref(), Some(CRAG_MM_GROUNDING_SYSTEM));
        assert_eq!(p.text, "# Question: \"What brand is this?\"\n");
        assert_eq!(p.sent_sizes, vec![(960, 1280)]);
    }
}
