//! Question variants and prompt templates.

use crate::error::{EvalError, Result};
use crate::scorers::grounding::BoxConvention;
use crate::scorers::ScoreContext;
use std::borrow::Cow;

use crate::crag_mm_prompts as crag;
use crate::scorers::ScorerKind;
use assay_core::imaging::ImageView;
use assay_core::{AnswerFormat, ItemContent, ItemImage, Project};

assay_core::named_enum! {
    /// Which form of the question is asked, and with which image; the papers compare these.
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
        /// The original question with the target box drawn on the image in green, as
        /// CRAG-MM-Diagnostics' `object_identification` tasks send it.
        Highlight = "highlight",
        /// The original question with the image cut exactly to the target box:
        /// CRAG-MM-Diagnostics' "GT crop".
        GtCrop = "gt_crop",
        /// CRAG-MM's knowledge extraction: the entity is given and no image is sent. The
        /// text-only question when the item has one, else the question itself (as the
        /// official loader falls back).
        EntityGiven = "entity_given",
    }
}

/// How a variant sends an item's images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sent {
    None,
    Whole,
    /// Images with a target box get it outlined; the others are sent whole.
    Highlight,
    /// Only images with a target box are sent, each cut to its boxes.
    Crop,
}

impl Variant {
    /// The question text and how images are sent; None when the item lacks this variant.
    pub fn question(self, item: &ItemContent) -> Option<(Cow<'_, str>, Sent)> {
        fn q(s: &str) -> Cow<'_, str> {
            Cow::Borrowed(s)
        }
        match self {
            Self::Original => Some((q(&item.question), Sent::Whole)),
            Self::Explicit => item
                .explicit_question
                .as_deref()
                .map(|s| (q(s), Sent::Whole)),
            Self::Disambiguated => item
                .disambiguated_question
                .as_deref()
                .map(|s| (q(s), Sent::Whole)),
            Self::TextOnly => item
                .text_only_question
                .as_deref()
                .map(|s| (q(s), Sent::None)),
            Self::NoImage => Some((q(&item.question), Sent::None)),
            Self::Highlight => item.has_box().then(|| (q(&item.question), Sent::Highlight)),
            Self::GtCrop => item.has_box().then(|| (q(&item.question), Sent::Crop)),
            // As CRAG-MM-Diagnostics' loader builds knowledge extraction:
            // `metadata.get("textual_only_question", turn["question"])`, no image.
            Self::EntityGiven => Some((
                q(item.text_only_question.as_deref().unwrap_or(&item.question)),
                Sent::None,
            )),
        }
    }

    /// Whether a predicted box can be scored under this variant: the images must keep the
    /// frame the item's boxes are drawn in, and must not show the answer (the highlight draws
    /// the target box).
    pub fn fits_grounding(self) -> bool {
        !matches!(
            self,
            Self::GtCrop | Self::EntityGiven | Self::TextOnly | Self::NoImage | Self::Highlight
        )
    }

    /// Whether naming the target measures anything under this variant: the entity-given and
    /// text-only questions name it.
    pub fn fits_identification(self) -> bool {
        !matches!(self, Self::EntityGiven | Self::TextOnly)
    }
}

/// CRAG-MM-Diagnostics' visual-grounding system prompt (`evaluate.py`), verbatim.
pub const CRAG_MM_GROUNDING_SYSTEM: &str = crate::crag_mm_prompts::VISUAL_GROUNDING;

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

/// A CRAG-MM-Diagnostics task: its official system message and user message (`# Question:
/// "..."`; the easy-query tasks ask "What is the name of the object?" instead of the item's
/// question).
fn crag_template(system: &str, easy_query: bool) -> String {
    let question = if easy_query {
        "What is the name of the object?"
    } else {
        "{question}"
    };
    format!("{SYSTEM_MARKER}{system}{USER_MARKER}# Question: \"{question}\"\n")
}

/// The built-in templates that can be picked by name: VAGUE's multiple-choice settings as
/// `vague/<setting>` (`vague_prompts`), and each CRAG-MM-Diagnostics task type as
/// `crag-mm/<task_type>`, pairing with the variant its task sends (`object_identification`
/// and `..._easy_query` with `highlight`, `knowledge_extraction` with `entity_given`).
pub const BUILTIN_TEMPLATES: [&str; 10] = [
    "vague/plain",
    "vague/text_only",
    "vague/zeroshot_cot",
    "crag-mm/whole",
    "crag-mm/visual_grounding",
    "crag-mm/object_identification",
    "crag-mm/object_identification_easy_query",
    "crag-mm/object_identification_with_original",
    "crag-mm/object_identification_image_only",
    "crag-mm/knowledge_extraction",
];

pub fn builtin_template(name: &str) -> Option<String> {
    if let Some(setting) = name.strip_prefix("vague/") {
        return Some(
            match setting {
                "plain" => crate::vague_prompts::PLAIN,
                "text_only" => crate::vague_prompts::TEXT_ONLY,
                "zeroshot_cot" => crate::vague_prompts::ZEROSHOT_COT,
                _ => return None,
            }
            .to_string(),
        );
    }
    Some(match name.strip_prefix("crag-mm/")? {
        "whole" => crag_template(crag::WHOLE, false),
        "visual_grounding" => crag_template(crag::VISUAL_GROUNDING, false),
        "object_identification" => crag_template(crag::OBJECT_IDENTIFICATION, false),
        "object_identification_easy_query" => {
            crag_template(crag::OBJECT_IDENTIFICATION_EASY_QUERY, true)
        }
        "object_identification_with_original" => {
            crag_template(crag::OBJECT_IDENTIFICATION_WITH_ORIGINAL, false)
        }
        "object_identification_image_only" => {
            crag_template(crag::OBJECT_IDENTIFICATION_IMAGE_ONLY, true)
        }
        "knowledge_extraction" => crag_template(crag::KNOWLEDGE_EXTRACTION, false),
        _ => return None,
    })
}

/// The built-in template for what a scorer measures: identification asks CRAG-MM's
/// identification task (the highlighted one when the variant highlights or crops), the QA
/// judge's stage CRAG-MM's answering task, grounding asks for a box whatever the item's
/// format, the rest follow the item's answer format.
pub fn default_template_for(
    scorer: ScorerKind,
    format: AnswerFormat,
    variant: Variant,
    boxes: BoxConvention,
) -> String {
    match scorer {
        // The highlight and the GT crop ask the identification task (the official ablation
        // swaps the highlighted image for the crop, `data_loader.py`); the whole image asks
        // the task "with original".
        ScorerKind::Identification => crag_template(
            if matches!(variant, Variant::Highlight | Variant::GtCrop) {
                crag::OBJECT_IDENTIFICATION
            } else {
                crag::OBJECT_IDENTIFICATION_WITH_ORIGINAL
            },
            false,
        ),
        // The QA judge's stage asks the `whole` task, or knowledge extraction when no image
        // is sent and the entity is given.
        ScorerKind::CragQa => crag_template(
            if variant == Variant::EntityGiven {
                crag::KNOWLEDGE_EXTRACTION
            } else {
                crag::WHOLE
            },
            false,
        ),
        ScorerKind::Grounding => default_template(AnswerFormat::Grounding, boxes),
        _ => default_template(format, boxes),
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
    /// What is done to each image before it is sent (the variant's highlight or crop).
    pub views: Vec<Option<ImageView>>,
}

pub fn format_options(item: &ItemContent) -> String {
    format_options_with(item, ". ")
}

/// The options lettered A, B, … one per line, the letter and the text joined by `sep`.
fn format_options_with(item: &ItemContent, sep: &str) -> String {
    item.options
        .iter()
        .enumerate()
        .map(|(i, o)| format!("{}{sep}{}", (b'A' + i as u8) as char, o.text))
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
            "options_colon",
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
            // VAGUE's repository lists options as "A: ...".
            Some("options_colon") => (format_options_with(item, ": "), "{options_colon}".len()),
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
    let (question, sent) = variant.question(item)?;
    let boxes_of = |img: &ItemImage| -> Vec<assay_core::BBox> {
        img.target_boxes.iter().map(|b| b.bbox).collect()
    };
    let (images, views): (Vec<ItemImage>, Vec<Option<ImageView>>) = match sent {
        Sent::None => (Vec::new(), Vec::new()),
        Sent::Whole => (item.images.clone(), vec![None; item.images.len()]),
        Sent::Highlight => item
            .images
            .iter()
            .map(|img| {
                let b = boxes_of(img);
                let v = (!b.is_empty()).then(|| ImageView::highlight(&b));
                (img.clone(), v)
            })
            .unzip(),
        Sent::Crop => item
            .images
            .iter()
            .filter_map(|img| {
                // Under CRAG-MM's frame the crop is cut from the 960 x 1280 image, as its
                // ablation cuts it; otherwise from the original.
                let b = boxes_of(img);
                match ctx.boxes {
                    BoxConvention::CragMm => ImageView::crop_in_frame(
                        &b,
                        img.width,
                        img.height,
                        crate::scorers::grounding::CRAG_MM_SIZE,
                    ),
                    _ => ImageView::crop(&b, img.width, img.height),
                }
                .map(|v| (img.clone(), Some(v)))
            })
            .unzip(),
    };
    if sent == Sent::Crop && images.is_empty() {
        return None;
    }
    let sent_sizes: Vec<(u32, u32)> = images
        .iter()
        .zip(&views)
        .map(|(img, v)| ctx.sent_size_of(img, v.as_ref()))
        .collect();
    let frame = match ctx.boxes {
        BoxConvention::OriginalPixels => images.first().map(|i| (i.width, i.height)),
        _ => sent_sizes.first().copied(),
    };
    let (system, user) = match template
        .strip_prefix(SYSTEM_MARKER)
        .and_then(|t| t.split_once(USER_MARKER))
    {
        Some((sys, user)) => (Some(fill(sys, item, &question, frame)), user),
        None => (None, template),
    };
    Some(Prompt {
        system,
        text: fill(user, item, &question, frame),
        images,
        sent_sizes,
        views,
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
    if let Some(body) = builtin_template(spec) {
        return Ok(Some((spec.to_string(), body)));
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
    fn entity_given_uses_the_text_only_question_or_the_question_as_the_official_loader() {
        let mut item = ItemContent {
            question: "When was this built?".into(),
            entity_name: Some("Tokyo Tower".into()),
            ..Default::default()
        };
        // `metadata.get("textual_only_question", turn["question"])`, no image.
        let (q, sent) = Variant::EntityGiven.question(&item).unwrap();
        assert_eq!(q, "When was this built?");
        assert_eq!(sent, Sent::None);
        item.text_only_question = Some("When was Tokyo Tower built?".into());
        assert_eq!(
            Variant::EntityGiven.question(&item).unwrap().0,
            "When was Tokyo Tower built?"
        );
        item.text_only_question = None;
        // Highlight and crop need a target box.
        assert!(Variant::Highlight.question(&item).is_none());
        assert!(Variant::GtCrop.question(&item).is_none());
    }

    /// VAGUE's settings render as its repository's `plain_mcq`, `text_mcq` and
    /// `zeroshot_cot_mcq` do (expected texts printed by those functions, `utils/exp_prompts.py`
    /// at fbfdef7, for the utterance "UTT" and these two options).
    #[test]
    fn vague_settings_render_as_the_repositorys_prompts() {
        let item = ItemContent {
            question: "UTT".into(),
            format: AnswerFormat::MultipleChoice,
            options: vec![
                assay_core::ChoiceOption {
                    text: "The speaker wants person1 to stop.".into(),
                    kind: None,
                },
                assay_core::ChoiceOption {
                    text: "The speaker wants person2 to sit.".into(),
                    kind: None,
                },
            ],
            ..Default::default()
        };
        let ctx = ScoreContext::default();
        for (name, want) in [
            ("vague/plain", "\nSelect the option that best explains the underlying intention of the speaker's utterance based on the given image. \nMake sure any possible situation outside of the image SHOULD NOT affect your choice.\nWe assume that the speaker wants the listener to take a specific action appropriate to the situation.\n\nUtterance : UTT\n[Choices]\nA: The speaker wants person1 to stop.\nB: The speaker wants person2 to sit.\n\nYour answer : (Output only the letter among A,B,C and D)\n    "),
            ("vague/text_only", "\nSelect the option that best explains the intention of the speaker's utterance. \nWe assume that the speaker wants the listener to take a specific action. \n\nUtterance : UTT\n[Choices]\nA: The speaker wants person1 to stop.\nB: The speaker wants person2 to sit.\n\nYour answer : (Output only the letter among A,B,C and D)\n    "),
            ("vague/zeroshot_cot", "\nSelect the option that best explains the underlying intention of the speaker's utterance based on the given image. \nMake sure any possible situation outside of the image SHOULD NOT affect your choice.\nWe assume that the speaker wants the listener to take a specific action appropriate to the situation.\nAlso, explain reasoning process of your answer.\n\nUtterance : UTT\n[Choices]\nA: The speaker wants person1 to stop.\nB: The speaker wants person2 to sit.\n\nYour answer1 (reasoning) : (Output your reasoning process in 2~3 sentences, which starts with \"Let's think step by step.\")\nYour answer2 (intention) : (Output only the letter among A,B,C and D)\n    "),
        ] {
            let t = builtin_template(name).unwrap();
            let p = render(&t, &item, Variant::Original, &ctx).unwrap();
            assert_eq!(p.text, want, "{name}");
            assert!(p.system.is_none());
        }
    }

    #[test]
    fn crag_mm_task_templates_pair_the_official_system_message_with_its_question() {
        let easy = builtin_template("crag-mm/object_identification_easy_query").unwrap();
        assert!(easy.starts_with(SYSTEM_MARKER));
        assert!(easy.ends_with("[user]\n# Question: \"What is the name of the object?\"\n"));
        assert!(builtin_template("crag-mm/nope").is_none());
        for name in BUILTIN_TEMPLATES {
            assert!(builtin_template(name).is_some(), "{name}");
        }
        let id = default_template_for(
            ScorerKind::Identification,
            AnswerFormat::ShortAnswer,
            Variant::Highlight,
            BoxConvention::Auto,
        );
        assert!(id.contains("I have highlighted the target object"));
        let plain = default_template_for(
            ScorerKind::Identification,
            AnswerFormat::ShortAnswer,
            Variant::Original,
            BoxConvention::Auto,
        );
        assert!(!plain.contains("highlighted") && plain.contains("target_object: [entity name"));
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
