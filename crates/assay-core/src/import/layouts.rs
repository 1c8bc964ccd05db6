//! The public layouts Assay recognises without a mapping file.

use serde_json::Value;

use super::mapping::Mapping;
use super::values::get_path;
use crate::model::AnswerFormat;

pub const NATIVE: &str = "assay";

fn s(x: &str) -> Option<String> {
    Some(x.to_string())
}

/// JAMMEval configs (CVQA-JA-Refined: `options` + integer `answer`; JA-Multi-Image-VQA-Refined:
/// `images` list) and most single-file VQA sets.
pub fn jammeval() -> Mapping {
    Mapping {
        layout: s("jammeval"),
        id: s("id|question_id|qid|index|idx"),
        question: s("question|query|prompt"),
        answer: s("answer|answers|gt_answer|label"),
        options: s("options|choices"),
        images: s("images|image|image_path|image_paths|img_path|file_name"),
        category: s("category|type|question_type"),
        source: s("source|dataset"),
        ..Default::default()
    }
}

/// llm-jp-eval-mm task files: `question_id`, `question`, `answer`, `image`/`images`.
pub fn llm_jp_eval_mm() -> Mapping {
    Mapping {
        layout: s("llm-jp-eval-mm"),
        ..jammeval()
    }
}

pub fn haerae_vision() -> Mapping {
    Mapping {
        layout: s("haerae-vision"),
        format: Some(AnswerFormat::Checklist),
        id: s("id|question_id|idx"),
        question: s("question_original|question"),
        explicit_question: s("question_explicit"),
        answer: s("answer|reference_answer"),
        checklist: s("checklist"),
        images: s("images|image"),
        category: s("category"),
        source: s("source|platform"),
        ..Default::default()
    }
}

pub fn crag_mm_diagnostics() -> Mapping {
    Mapping {
        layout: s("crag-mm-diagnostics"),
        id: s("id|interaction_id|session_id"),
        question: s("query|question"),
        answer: s("answer|ans_full"),
        images: s("image|images|image_path"),
        target_box: s("metadata.target_roi_bbox|target_roi_bbox"),
        image_size: s("metadata.image_size|image_size"),
        ref_type: s("metadata.referring_expression_category|referring_expression_category"),
        text_only_question: s("metadata.textual_only_question|textual_only_question"),
        disambiguated_question: s("metadata.disambiguated_question|disambiguated_question"),
        entity_name: s("metadata.target_object_name|target_object_name"),
        entity_url: s("metadata.wikipedia_url|metadata.target_object_url|wikipedia_url|entity_url"),
        category: s("metadata.domain|domain|category"),
        ..Default::default()
    }
}

pub fn vague() -> Mapping {
    Mapping {
        layout: s("vague"),
        format: Some(AnswerFormat::MultipleChoice),
        id: s("id|idx|image_id"),
        question: s("indirect"),
        direct_request: s("direct"),
        vague_mcq: s("mcq"),
        vague_ordering: s("ordering"),
        images: s("image|image_path|images|file_name"),
        person_boxes: s("meta.person_bbox|person_bbox"),
        category: s("source|category"),
        ..Default::default()
    }
}

pub fn by_name(name: &str) -> Option<Mapping> {
    match name {
        "jammeval" | "generic" => Some(jammeval()),
        "llm-jp-eval-mm" => Some(llm_jp_eval_mm()),
        "haerae-vision" => Some(haerae_vision()),
        "crag-mm-diagnostics" => Some(crag_mm_diagnostics()),
        "vague" => Some(vague()),
        _ => None,
    }
}

pub const NAMES: &[&str] = &[
    NATIVE,
    "jammeval",
    "llm-jp-eval-mm",
    "haerae-vision",
    "crag-mm-diagnostics",
    "vague",
];

/// Picks a layout from the first record's keys; None when nothing fits (a mapping is needed).
pub fn detect(first: &Value) -> Option<&'static str> {
    let has = |k: &str| get_path(first, k).is_some();
    if (has("answer_format") && has("question")) || has(crate::export::ITEM_COLUMN) {
        Some(NATIVE)
    } else if has("mcq") || has("indirect") {
        Some("vague")
    } else if has("question_explicit") || has("question_original") {
        Some("haerae-vision")
    } else if has("referring_expression_category")
        || has("metadata.referring_expression_category")
        || has("metadata.target_roi_bbox")
    {
        Some("crag-mm-diagnostics")
    } else if has("question_id") && has("question") {
        Some("llm-jp-eval-mm")
    } else if has("question") || has("query") {
        Some("jammeval")
    } else {
        None
    }
}
