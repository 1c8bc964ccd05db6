//! Domain types shared by the store, the importers, the evaluation engine and the UI.

use serde::{Deserialize, Serialize};

crate::named_enum! {
    /// How an item expects to be answered; picks the prompt template and the default scorer.
    #[derive(Default)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum AnswerFormat {
        #[default]
        ShortAnswer = "short_answer",
        MultipleChoice = "multiple_choice",
        Checklist = "checklist",
        Grounding = "grounding",
        FreeForm = "free_form",
    }
}

crate::named_enum! {
    /// A seed's evaluation protocol as a named preset: which prompts, scorers, runs and
    /// variants make its numbers, and how its table reads them (docs/PROTOCOLS.md). A run
    /// records the one it was made under, and the table never compares runs of different ones.
    #[derive(PartialOrd, Ord)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum EvalProtocol {
        Jammeval = "jammeval",
        HaeraeVision = "haerae-vision",
        CragMm = "crag-mm",
        Vague = "vague",
    }
}

impl EvalProtocol {
    /// Runs per model, version and variant (JAMMEval, HAERAE-Vision and CRAG-MM three, VAGUE
    /// one); a judge is asked afresh in each.
    pub fn runs(self) -> i64 {
        match self {
            Self::Vague => 1,
            _ => 3,
        }
    }

    /// The variants (conditions) it compares, by name.
    pub fn variants(self) -> &'static [&'static str] {
        match self {
            Self::Jammeval | Self::Vague => &["original"],
            Self::HaeraeVision => &["original", "explicit"],
            Self::CragMm => &["original", "highlight", "gt_crop", "entity_given"],
        }
    }

    /// The scorers its requests may name (empty: each answer format its own, JAMMEval's
    /// letters by rule and short answers by a judge).
    pub fn scorers(self) -> &'static [&'static str] {
        match self {
            Self::Jammeval => &[],
            Self::HaeraeVision => &["checklist_judge"],
            // The answer stage by the official QA judge; soft match kept as a labelled
            // option (its column says so) for runs made before it.
            Self::CragMm => &["grounding", "identification", "crag_qa", "soft_match"],
            Self::Vague => &["choice"],
        }
    }

    /// The templates its runs may use: each format's default, or the seed's own prompts
    /// (CRAG-MM's task templates, VAGUE's settings).
    pub fn admits_template(self, template: &str) -> bool {
        template == "default"
            || match self {
                Self::CragMm => template.starts_with("crag-mm/"),
                Self::Vague => template.starts_with("vague/"),
                _ => false,
            }
    }

    /// Whether a run with these fields can have been made under the protocol: what a replica
    /// and the team service check of a run that says so, so no one labels a run of their own
    /// making with a seed's name (the engine holds its own requests to the same lists).
    pub fn admits(
        self,
        variant: &str,
        run_index: i64,
        template: &str,
        scorer: &str,
    ) -> std::result::Result<(), String> {
        let name = self.as_str();
        if !self.variants().contains(&variant) {
            return Err(format!("the {name} protocol has no variant {variant:?}"));
        }
        if !(1..=self.runs()).contains(&run_index) {
            return Err(format!(
                "the {name} protocol makes runs 1 to {}, not run {run_index}",
                self.runs()
            ));
        }
        // A judge named after `+` (identification's, JAMMEval's) is part of the label.
        let base = scorer.split_once('+').map_or(scorer, |(s, _)| s);
        let scorer_ok = match self.scorers() {
            [] => base == "auto",
            allowed => allowed.contains(&base),
        };
        if !scorer_ok {
            return Err(format!(
                "the {name} protocol does not score with {scorer:?}"
            ));
        }
        let template_ok =
            template == "default" || (self == Self::CragMm && template.starts_with("crag-mm/"));
        if !template_ok {
            return Err(format!(
                "the {name} protocol sends its own prompts, not {template:?}"
            ));
        }
        Ok(())
    }
}

crate::named_enum! {
    /// The six JAMMEval refinement operations; every item ends a pass with exactly one.
    #[derive(PartialOrd, Ord)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum RefinementOp {
        Identical = "identical",
        MinorEdit = "minor_edit",
        Disambiguation = "disambiguation",
        AnswerCorrection = "answer_correction",
        Replacement = "replacement",
        Remove = "remove",
    }
}

crate::named_enum! {
    /// Issue tags found before refining. Stored as a bit set so "any of these tags" is one scan.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum IssueTag {
        Ambiguous = "ambiguous",
        NotImageGrounded = "not_image_grounded",
        WrongAnswer = "wrong_answer",
        Subjective = "subjective",
    }
}

impl IssueTag {
    pub fn bit(self) -> i64 {
        match self {
            Self::Ambiguous => 1,
            Self::NotImageGrounded => 2,
            Self::WrongAnswer => 4,
            Self::Subjective => 8,
        }
    }
    pub fn to_bits(tags: &[IssueTag]) -> i64 {
        tags.iter().fold(0, |acc, t| acc | t.bit())
    }
    pub fn from_bits(bits: i64) -> Vec<IssueTag> {
        Self::ALL
            .into_iter()
            .filter(|t| bits & t.bit() != 0)
            .collect()
    }
}

crate::named_enum! {
    /// Where an item stands in the workflow.
    #[derive(Default)]
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum ItemStatus {
        #[default]
        Todo = "todo",
        Edited = "edited",
        Approved = "approved",
        Flagged = "flagged",
    }
}

crate::named_enum! {
    /// CRAG-MM-Diagnostics referring-expression types.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum RefType {
        Salient = "salient",
        Ambiguous = "ambiguous",
        InImageCue = "in_image_cue",
        KnowledgeCue = "knowledge_cue",
    }
}

impl RefType {
    /// Accepts the names, the label CRAG-MM-Diagnostics' code uses ("not enough cue
    /// (ambiguous)") and the paper's spellings ("Salient", "In-Image Cue",
    /// "Knowledge-Intensive Cue", "Not Enough Cue (Ambiguous)").
    pub fn parse_label(s: &str) -> Option<Self> {
        let norm: String = s
            .trim()
            .to_lowercase()
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .collect();
        let words: Vec<&str> = norm.split_whitespace().collect();
        let has = |w: &str| words.contains(&w);
        if has("ambiguous") || (has("not") && has("enough")) {
            Some(Self::Ambiguous)
        } else if has("salient") {
            Some(Self::Salient)
        } else if has("knowledge") || words.iter().any(|w| w.starts_with("knowledge")) {
            Some(Self::KnowledgeCue)
        } else if (has("in") && has("image")) || has("inimage") {
            Some(Self::InImageCue)
        } else {
            None
        }
    }
}

crate::named_enum! {
    /// VAGUE counterfactual distractor kinds.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum DistractorKind {
        /// Fake scene understanding: ignores the image.
        FakeScene = "FSU",
        /// Superficial understanding: a literal reading of the utterance.
        Superficial = "SU",
        /// Non-existent entity: right intent, object absent from the image.
        NonExistent = "NE",
    }
}

crate::named_enum! {
    /// HAERAE-Vision's phase-1 (conservative filtering) dimensions: a flag on any of them by any
    /// annotator removes the item unless an auditor overrides.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum Phase1Dimension {
        ImageRelevance = "image_relevance",
        QaQuality = "qa_quality",
        ChecklistValidity = "checklist_validity",
        Category = "category",
        Overall = "overall",
    }
}

crate::named_enum! {
    /// What a reviewer found wrong with one checklist criterion (HAERAE-Vision's refinement
    /// phase removes criteria not grounded in the question-image pair).
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum CriterionIssue {
        NotGrounded = "not_grounded",
        Unverifiable = "unverifiable",
    }
}

/// A reviewer's flag on one checklist criterion, kept by the criterion's text so reordering
/// keeps it and rewriting the criterion clears it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CriterionFlag {
    pub criterion: String,
    pub issue: CriterionIssue,
}

/// A box in absolute pixels of the image it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BBox {
    pub x_min: f64,
    pub y_min: f64,
    pub x_max: f64,
    pub y_max: f64,
}

impl BBox {
    /// The box in an image resized by `sx` across and `sy` down.
    pub fn scaled(&self, sx: f64, sy: f64) -> BBox {
        BBox {
            x_min: self.x_min * sx,
            y_min: self.y_min * sy,
            x_max: self.x_max * sx,
            y_max: self.y_max * sy,
        }
    }
    pub fn area(&self) -> f64 {
        (self.x_max - self.x_min).max(0.0) * (self.y_max - self.y_min).max(0.0)
    }
    pub fn iou(&self, other: &BBox) -> f64 {
        let ix = (self.x_max.min(other.x_max) - self.x_min.max(other.x_min)).max(0.0);
        let iy = (self.y_max.min(other.y_max) - self.y_min.max(other.y_min)).max(0.0);
        let inter = ix * iy;
        let union = self.area() + other.area() - inter;
        if union <= 0.0 {
            0.0
        } else {
            inter / union
        }
    }
    pub fn is_valid(&self) -> bool {
        self.x_min.is_finite()
            && self.y_min.is_finite()
            && self.x_max.is_finite()
            && self.y_max.is_finite()
            && self.x_max > self.x_min
            && self.y_max > self.y_min
    }
}

/// A labelled box: person boxes in VAGUE scenes carry their indicator ("person3"); a target
/// box its category when a file named one (a COCO category, a Label Studio label).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LabeledBox {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(flatten)]
    pub bbox: BBox,
    /// COCO's `iscrowd`: the box covers a crowd of objects rather than one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crowd: bool,
    /// COCO's `area` as the file gave it (its segmentation's, not the box's), kept so a
    /// re-export evaluates the same; a redrawn box drops it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<f64>,
}

impl LabeledBox {
    /// A box with nothing but its corners.
    pub fn plain(bbox: BBox) -> Self {
        Self::labelled(None, bbox)
    }
    pub fn labelled(label: Option<String>, bbox: BBox) -> Self {
        Self {
            label,
            bbox,
            crowd: false,
            area: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemImage {
    /// SHA-256 of the image bytes, hex.
    pub hash: String,
    pub width: u32,
    pub height: u32,
    /// The file name the image had at import, kept for export.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The image's numeric id in the box file it was annotated in (a COCO `images[].id`),
    /// written back by the COCO export so other tools' references to it stay valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_id: Option<i64>,
    /// The boxes a grounding question refers to, labelled with their category when known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target_boxes: Vec<LabeledBox>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub person_boxes: Vec<LabeledBox>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChoiceOption {
    pub text: String,
    /// For distractors of counterfactual benchmarks (VAGUE); None for the correct option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<DistractorKind>,
}

/// Everything about an item that a revision can change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemContent {
    #[serde(rename = "answer_format")]
    pub format: AnswerFormat,
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<ChoiceOption>,
    /// Index into `options` of the correct one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correct_option: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checklist: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checklist_flags: Vec<CriterionFlag>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explicit_question: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disambiguated_question: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_only_question: Option<String>,
    /// VAGUE's direct request hidden behind the indirect utterance in `question`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct_request: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_type: Option<RefType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entity_url: Option<String>,
    /// Other names accepted for the entity when object identification is scored (a person adds
    /// them: "Kia Optima" for "KIA K5").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entity_aliases: Vec<String>,
    /// Page views of the entity's Wikipedia article (CRAG-MM-Diagnostics: views in 2025).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub popularity: Option<u64>,
    /// Number of objects in the image (CRAG-MM-Diagnostics counted Grounding-DINO detections);
    /// a person may correct it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crowdedness: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ItemImage>,
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

impl ItemContent {
    pub fn has_box(&self) -> bool {
        self.images.iter().any(|i| !i.target_boxes.is_empty())
    }
    /// The reference answer as text: the short answer, or the correct option's text.
    pub fn reference_text(&self) -> Option<String> {
        if let Some(a) = &self.answer {
            return Some(a.clone());
        }
        self.correct_option
            .and_then(|i| self.options.get(i))
            .map(|o| o.text.clone())
    }
    /// Text indexed for search: question, answer, options and the question variants, one
    /// part a line.
    pub fn search_text(&self) -> String {
        let mut s = String::with_capacity(self.question.len() + 64);
        s.push_str(&self.question);
        if let Some(a) = &self.answer {
            s.push('\n');
            s.push_str(a);
        }
        let extras = self.search_extras();
        if !extras.is_empty() {
            s.push('\n');
            s.push_str(&extras);
        }
        s
    }
    /// The searchable text beyond the question and the answer (the question variants and the
    /// options), one part a line; empty for most items. The short-text scan reads the items'
    /// question and answer columns and only this besides, so it is all that is stored for it.
    pub fn search_extras(&self) -> String {
        let mut s = String::new();
        for part in [
            &self.explicit_question,
            &self.disambiguated_question,
            &self.text_only_question,
        ]
        .into_iter()
        .flatten()
        .chain(self.options.iter().map(|o| &o.text))
        .filter(|part| !part.is_empty())
        {
            if !s.is_empty() {
                s.push('\n');
            }
            s.push_str(part);
        }
        s
    }
    /// Checks the invariants the importers and editors must keep.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(i) = self.correct_option {
            if i >= self.options.len() {
                return Err(format!(
                    "correct option {} is out of range ({} options)",
                    i,
                    self.options.len()
                ));
            }
        }
        if self.checklist.len() > 5 {
            return Err(format!(
                "a checklist has 1-5 criteria, found {}",
                self.checklist.len()
            ));
        }
        for img in &self.images {
            for b in img.target_boxes.iter().map(|t| &t.bbox) {
                if !b.is_valid() {
                    return Err(format!("target box {b:?} is empty or inverted"));
                }
            }
        }
        Ok(())
    }
}

crate::named_enum! {
    /// Who made a change and in which capacity.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum Role {
        Annotator = "annotator",
        Auditor = "auditor",
        Researcher = "researcher",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each enum's written name is its serde name: the lists the CLI parses and the UI receives
    /// cannot drift from what is stored.
    #[test]
    fn names_are_the_serde_names() {
        fn check<T: Serialize + Copy>(all: &[T], name: impl Fn(T) -> &'static str) {
            for v in all {
                assert_eq!(serde_json::to_value(v).unwrap(), name(*v));
            }
        }
        check(&AnswerFormat::ALL, AnswerFormat::as_str);
        check(&RefinementOp::ALL, RefinementOp::as_str);
        check(&IssueTag::ALL, IssueTag::as_str);
        check(&ItemStatus::ALL, ItemStatus::as_str);
        check(&RefType::ALL, RefType::as_str);
        check(&DistractorKind::ALL, DistractorKind::as_str);
        check(&Role::ALL, Role::as_str);
        check(&crate::store::Version::ALL, crate::store::Version::as_str);
    }

    #[test]
    fn iou_of_half_overlapping_boxes() {
        let a = BBox {
            x_min: 0.0,
            y_min: 0.0,
            x_max: 10.0,
            y_max: 10.0,
        };
        let b = BBox {
            x_min: 5.0,
            y_min: 0.0,
            x_max: 15.0,
            y_max: 10.0,
        };
        assert!((a.iou(&b) - 50.0 / 150.0).abs() < 1e-12);
        assert_eq!(a.iou(&a), 1.0);
    }

    #[test]
    fn tags_round_trip_through_bits() {
        let tags = vec![IssueTag::Ambiguous, IssueTag::WrongAnswer];
        assert_eq!(IssueTag::from_bits(IssueTag::to_bits(&tags)), tags);
    }

    #[test]
    fn ref_type_accepts_published_spellings() {
        assert_eq!(
            RefType::parse_label("In-image cue"),
            Some(RefType::InImageCue)
        );
        assert_eq!(
            RefType::parse_label("knowledge_cue"),
            Some(RefType::KnowledgeCue)
        );
        assert_eq!(RefType::parse_label("nonsense"), None);
        // CRAG-MM-Diagnostics' code label and the paper's spellings.
        assert_eq!(
            RefType::parse_label("not enough cue (ambiguous)"),
            Some(RefType::Ambiguous)
        );
        assert_eq!(RefType::parse_label("Salient"), Some(RefType::Salient));
        assert_eq!(
            RefType::parse_label("Knowledge-Intensive Cue"),
            Some(RefType::KnowledgeCue)
        );
        assert_eq!(
            RefType::parse_label("In-Image Cue"),
            Some(RefType::InImageCue)
        );
    }

    #[test]
    fn correct_option_out_of_range_is_invalid() {
        let c = ItemContent {
            options: vec![ChoiceOption {
                text: "a".into(),
                kind: None,
            }],
            correct_option: Some(3),
            ..Default::default()
        };
        assert!(c.validate().is_err());
    }
}
