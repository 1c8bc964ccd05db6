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
        id: s("id|question_id|qid|index|idx|question_idx"),
        question: s("question|query|prompt"),
        answer: s("answer|answers|gt_answer|label"),
        options: s("options|choices"),
        images: s("images|image|image_path|image_paths|img_path|file_name"),
        category: s("category|Category|type|question_type"),
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
        id: s("question_idx|id|question_id|idx"),
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
        entity_aliases: s("metadata.target_object_aliases|entity_aliases"),
        popularity: s("metadata.popularity|popularity"),
        crowdedness: s("metadata.crowdedness|metadata.num_objects|crowdedness"),
        category: s("metadata.domain|domain|category"),
        ..Default::default()
    }
}

/// VAGUE (`Hazel-Heejeong-Nam/VAGUE`): a JSON array; the image file is `image_name` +
/// `_annot.jpg` (the name has no extension and may contain dots); `image_name` is the id, as
/// VAGUE's result files are keyed by it.
pub fn vague() -> Mapping {
    Mapping {
        layout: s("vague"),
        format: Some(AnswerFormat::MultipleChoice),
        id: s("id|image_name"),
        question: s("indirect"),
        direct_request: s("direct"),
        vague_mcq: s("mcq"),
        vague_ordering: s("mcq.ordering|ordering"),
        images: s("image_name"),
        image_suffix: s("_annot.jpg"),
        image_size: s("meta.img_size"),
        person_boxes: s("meta.person_bbox|person_bbox"),
        category: s("source|category"),
        ..Default::default()
    }
}

/// JA-VG-VQA-500 (llm-jp-eval-mm): one item per entry of `qas`, id = `qa_id`.
pub fn ja_vg_vqa() -> Mapping {
    Mapping {
        layout: s("ja-vg-vqa-500"),
        format: Some(AnswerFormat::ShortAnswer),
        explode: s("qas"),
        id: s("qa_id"),
        question: s("question"),
        answer: s("answer"),
        images: s("image"),
        ignore: vec!["a_objects".into(), "q_objects".into()],
        ..Default::default()
    }
}

/// JMMMU (MMMU schema): `options` is a Python-literal string, images in `image_1..image_7`.
pub fn jmmmu() -> Mapping {
    Mapping {
        layout: s("jmmmu"),
        id: s("id"),
        question: s("question"),
        answer: s("answer"),
        options: s("options"),
        images: s("image_1+image_2+image_3+image_4+image_5+image_6+image_7"),
        category: s("subfield"),
        ..Default::default()
    }
}

/// Japanese Heron-Bench: the question is `text`, the reference answer is GPT-4's
/// (`answer.gpt-4-0125-preview`, as llm-jp-eval-mm scores); the other models' answers stay in
/// the metadata.
pub fn heron_bench() -> Mapping {
    Mapping {
        layout: s("heron-bench"),
        format: Some(AnswerFormat::ShortAnswer),
        id: s("question_id"),
        question: s("text"),
        answer: s("answer.gpt-4-0125-preview"),
        images: s("image"),
        category: s("category"),
        ..Default::default()
    }
}

/// CVQA as llm-jp-eval-mm's `cvqa` task reads it: the Japanese subset only, `Label` a 0-based
/// index, items numbered from 0 after the filter (the task's `question_id`).
pub fn cvqa_ja() -> Mapping {
    Mapping {
        layout: s("cvqa"),
        format: Some(AnswerFormat::MultipleChoice),
        id: None,
        keep_if: s("Subset=('Japanese', 'Japan')"),
        question: s("Question"),
        options: s("Options"),
        answer_index: s("Label"),
        index_base: 0,
        images: s("image"),
        category: s("Category"),
        ..Default::default()
    }
}

/// VLMEvalKit's benchmark TSV (`$LMUData/<name>.tsv`): `index` is the id, one column per
/// option letter, `answer` a letter, `image` base64 (or a list repr of several, or the index
/// of the row whose image it reuses); `hint` stays in the metadata.
pub fn vlmevalkit() -> Mapping {
    Mapping {
        layout: s("vlmevalkit"),
        id: s("index"),
        question: s("question"),
        options: s("A+B+C+D+E+F+G+H+I+J"),
        answer: s("answer"),
        images: s("image"),
        inline_images: true,
        category: s("category"),
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
        "ja-vg-vqa-500" => Some(ja_vg_vqa()),
        "jmmmu" => Some(jmmmu()),
        "heron-bench" => Some(heron_bench()),
        "cvqa" => Some(cvqa_ja()),
        "vlmevalkit" => Some(vlmevalkit()),
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
    "ja-vg-vqa-500",
    "jmmmu",
    "heron-bench",
    "cvqa",
    "vlmevalkit",
];

/// Picks a layout from the first record's keys; None when nothing fits (a mapping is needed).
pub fn detect(first: &Value) -> Option<&'static str> {
    let has = |k: &str| get_path(first, k).is_some();
    if (has("answer_format") && has("question")) || has(crate::export::ITEM_COLUMN) {
        Some(NATIVE)
    } else if has("index") && has("A") && has("B") && has("answer") && has("image") {
        Some("vlmevalkit")
    } else if has("qas") && has("image_id") {
        Some("ja-vg-vqa-500")
    } else if has("image_1") && has("options") {
        Some("jmmmu")
    } else if has("Subset") && has("Options") && has("Label") {
        Some("cvqa")
    } else if has("text") && get_path(first, "answer").is_some_and(Value::is_object) {
        Some("heron-bench")
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
