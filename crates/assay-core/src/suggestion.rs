//! Suggestions: a model's typed draft for one part of one item (the seeds' LLM pipeline stages).
//! What each kind changes when a person accepts it lives here, beside the item rules, so the
//! CLI, the app and the engine cannot disagree on it. Prompt templates and parsers live in
//! `assay-eval::suggest`; storage and the accept / reject rules in `store::suggestions`.

use serde::{Deserialize, Serialize};

use crate::model::{BBox, ChoiceOption, DistractorKind, ItemContent, LabeledBox, RefinementOp};

crate::named_enum! {
    /// The kinds of draft a model can be asked for, one per pipeline stage of the seeds.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum SuggestionKind {
        /// HAERAE-Vision stage 2: content safety, objectivity, time-sensitivity.
        Screening = "screening",
        /// HAERAE-Vision stage 3: strong models' mean score on the item, from stored runs.
        Difficulty = "difficulty",
        /// HAERAE-Vision stage 4: the answer with and without the image.
        ImageDependency = "image_dependency",
        /// HAERAE-Vision stage 5: 1-5 criteria drafted from the reference answer.
        Checklist = "checklist",
        /// HAERAE-Vision-Explicit: the question with what the image shows stated.
        ExplicitRewrite = "explicit_rewrite",
        /// VAGUE: the direct request and its solution triplet (subject, action, object).
        DirectRequest = "direct_request",
        /// VAGUE: the indirect utterance that hides the direct request.
        IndirectUtterance = "indirect_utterance",
        /// VAGUE: the three counterfactual distractors (FSU, SU, NE).
        Distractors = "distractors",
        /// CRAG-MM-Diagnostics: the disambiguated and the text-only question.
        CragQuestions = "crag_questions",
        /// A target box from a grounding-capable model.
        TargetBox = "target_box",
        /// JAMMEval: a refinement operation with the fix it proposes.
        Operation = "operation",
    }
}

impl SuggestionKind {
    /// Kinds whose acceptance is a keep/drop decision at a filtering stage, not a revision.
    pub fn decides_stage(self) -> bool {
        matches!(
            self,
            Self::Screening | Self::Difficulty | Self::ImageDependency
        )
    }
}

/// One screening axis a model flagged, with its reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ScreeningFlag {
    /// "safety", "objectivity" or "time_sensitivity".
    pub axis: String,
    pub reason: String,
}

/// One model's mean score on an item (difficulty calibration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelScore {
    pub model: String,
    pub score: f64,
    pub runs: u32,
}

/// A typed suggestion: what the model proposed, in the shape the item stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuggestionValue {
    Screening {
        keep: bool,
        flags: Vec<ScreeningFlag>,
    },
    Difficulty {
        keep: bool,
        mean: f64,
        threshold: f64,
        scores: Vec<ModelScore>,
    },
    ImageDependency {
        keep: bool,
        /// Scores on 0-10 of the answers with and without the image.
        with_image: f64,
        without_image: f64,
        min_gap: f64,
    },
    Checklist {
        criteria: Vec<String>,
    },
    ExplicitRewrite {
        question: String,
    },
    DirectRequest {
        request: String,
        subject: String,
        action: String,
        object: String,
    },
    IndirectUtterance {
        utterance: String,
    },
    Distractors {
        fake_scene: String,
        superficial: String,
        non_existent: String,
    },
    CragQuestions {
        disambiguated: Option<String>,
        text_only: Option<String>,
    },
    TargetBox {
        /// Index of the item's image the box is on.
        image: usize,
        bbox: BBox,
    },
    Operation {
        op: RefinementOp,
        question: Option<String>,
        answer: Option<String>,
        reason: String,
    },
}

fn nonempty(s: &str, what: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        Err(format!("{what} is empty"))
    } else {
        Ok(())
    }
}

impl SuggestionValue {
    pub fn kind(&self) -> SuggestionKind {
        match self {
            Self::Screening { .. } => SuggestionKind::Screening,
            Self::Difficulty { .. } => SuggestionKind::Difficulty,
            Self::ImageDependency { .. } => SuggestionKind::ImageDependency,
            Self::Checklist { .. } => SuggestionKind::Checklist,
            Self::ExplicitRewrite { .. } => SuggestionKind::ExplicitRewrite,
            Self::DirectRequest { .. } => SuggestionKind::DirectRequest,
            Self::IndirectUtterance { .. } => SuggestionKind::IndirectUtterance,
            Self::Distractors { .. } => SuggestionKind::Distractors,
            Self::CragQuestions { .. } => SuggestionKind::CragQuestions,
            Self::TargetBox { .. } => SuggestionKind::TargetBox,
            Self::Operation { .. } => SuggestionKind::Operation,
        }
    }

    /// For the stage kinds: keep or drop, and the reason the decision records.
    pub fn stage_decision(&self) -> Option<(bool, String)> {
        match self {
            Self::Screening { keep, flags } => Some((
                *keep,
                if flags.is_empty() {
                    "screening: nothing flagged".into()
                } else {
                    let f: Vec<String> = flags
                        .iter()
                        .map(|f| format!("{}: {}", f.axis, f.reason))
                        .collect();
                    format!("screening: {}", f.join("; "))
                },
            )),
            Self::Difficulty {
                keep,
                mean,
                threshold,
                ..
            } => Some((
                *keep,
                format!("difficulty: strong models' mean score {mean:.3} (drop above {threshold})"),
            )),
            Self::ImageDependency {
                keep,
                with_image,
                without_image,
                min_gap,
            } => Some((
                *keep,
                format!(
                    "image dependency: {with_image:.1} with the image, {without_image:.1} without (drop below a gap of {min_gap})"
                ),
            )),
            _ => None,
        }
    }

    /// The value as one text, for the diff a person sees and the edit distance of an edited
    /// acceptance.
    pub fn text(&self) -> String {
        match self {
            Self::Screening { keep, flags } => {
                let mut s = format!("keep: {keep}");
                for f in flags {
                    s.push_str(&format!("\n{}: {}", f.axis, f.reason));
                }
                s
            }
            Self::Difficulty { keep, mean, .. } => format!("keep: {keep}\nmean: {mean:.3}"),
            Self::ImageDependency {
                keep,
                with_image,
                without_image,
                ..
            } => format!("keep: {keep}\nwith image: {with_image}\nwithout image: {without_image}"),
            Self::Checklist { criteria } => criteria.join("\n"),
            Self::ExplicitRewrite { question } => question.clone(),
            Self::DirectRequest {
                request,
                subject,
                action,
                object,
            } => format!("{request}\n({subject}, {action}, {object})"),
            Self::IndirectUtterance { utterance } => utterance.clone(),
            Self::Distractors {
                fake_scene,
                superficial,
                non_existent,
            } => format!("FSU: {fake_scene}\nSU: {superficial}\nNE: {non_existent}"),
            Self::CragQuestions {
                disambiguated,
                text_only,
            } => format!(
                "disambiguated: {}\ntext-only: {}",
                disambiguated.as_deref().unwrap_or(""),
                text_only.as_deref().unwrap_or("")
            ),
            Self::TargetBox { image, bbox } => format!(
                "image {image}: [{:.0}, {:.0}, {:.0}, {:.0}]",
                bbox.x_min, bbox.y_min, bbox.x_max, bbox.y_max
            ),
            Self::Operation {
                op,
                question,
                answer,
                reason,
            } => {
                let mut s = format!("{op}: {reason}");
                if let Some(q) = question {
                    s.push_str(&format!("\nquestion: {q}"));
                }
                if let Some(a) = answer {
                    s.push_str(&format!("\nanswer: {a}"));
                }
                s
            }
        }
    }

    /// What the item holds now in the place this kind would change, as the same text: the
    /// "before" side of the diff.
    pub fn current_text(kind: SuggestionKind, c: &ItemContent, op: Option<RefinementOp>) -> String {
        let distractor = |k: DistractorKind| {
            c.options
                .iter()
                .find(|o| o.kind == Some(k))
                .map_or(String::new(), |o| o.text.clone())
        };
        match kind {
            SuggestionKind::Screening
            | SuggestionKind::Difficulty
            | SuggestionKind::ImageDependency => String::new(),
            SuggestionKind::Checklist => c.checklist.join("\n"),
            SuggestionKind::ExplicitRewrite => c.explicit_question.clone().unwrap_or_default(),
            SuggestionKind::DirectRequest => {
                let t = c.metadata.get("solution_triplet");
                let part = |k: &str| {
                    t.and_then(|t| t.get(k))
                        .and_then(|v| v.as_str())
                        .unwrap_or("")
                        .to_string()
                };
                format!(
                    "{}\n({}, {}, {})",
                    c.direct_request.clone().unwrap_or_default(),
                    part("subject"),
                    part("action"),
                    part("object")
                )
            }
            SuggestionKind::IndirectUtterance => c.question.clone(),
            SuggestionKind::Distractors => format!(
                "FSU: {}\nSU: {}\nNE: {}",
                distractor(DistractorKind::FakeScene),
                distractor(DistractorKind::Superficial),
                distractor(DistractorKind::NonExistent)
            ),
            SuggestionKind::CragQuestions => format!(
                "disambiguated: {}\ntext-only: {}",
                c.disambiguated_question.as_deref().unwrap_or(""),
                c.text_only_question.as_deref().unwrap_or("")
            ),
            SuggestionKind::TargetBox => c
                .images
                .iter()
                .enumerate()
                .flat_map(|(i, img)| {
                    img.target_boxes.iter().map(move |b| {
                        format!(
                            "image {i}: [{:.0}, {:.0}, {:.0}, {:.0}]",
                            b.bbox.x_min, b.bbox.y_min, b.bbox.x_max, b.bbox.y_max
                        )
                    })
                })
                .collect::<Vec<_>>()
                .join("\n"),
            SuggestionKind::Operation => {
                let mut s = op.map_or(String::new(), |o| o.to_string());
                s.push_str(&format!("\nquestion: {}", c.question));
                if let Some(a) = &c.answer {
                    s.push_str(&format!("\nanswer: {a}"));
                }
                s
            }
        }
    }

    /// Checks that the value can be applied as it stands (a person's edit may have emptied it).
    pub fn validate(&self) -> Result<(), String> {
        match self {
            Self::Checklist { criteria } => {
                if criteria.is_empty() {
                    return Err("a checklist draft has no criteria".into());
                }
                Ok(())
            }
            Self::ExplicitRewrite { question } => nonempty(question, "the rewrite"),
            Self::DirectRequest { request, .. } => nonempty(request, "the direct request"),
            Self::IndirectUtterance { utterance } => nonempty(utterance, "the utterance"),
            Self::Distractors {
                fake_scene,
                superficial,
                non_existent,
            } => {
                nonempty(fake_scene, "the FSU distractor")?;
                nonempty(superficial, "the SU distractor")?;
                nonempty(non_existent, "the NE distractor")
            }
            Self::CragQuestions {
                disambiguated,
                text_only,
            } => {
                if disambiguated.as_deref().is_none_or(|s| s.trim().is_empty())
                    && text_only.as_deref().is_none_or(|s| s.trim().is_empty())
                {
                    return Err("neither question is given".into());
                }
                Ok(())
            }
            Self::TargetBox { bbox, .. } => {
                if bbox.is_valid() {
                    Ok(())
                } else {
                    Err("the box is empty or inverted".into())
                }
            }
            Self::Operation { reason, .. } => nonempty(reason, "the operation's reason"),
            Self::Screening { .. } | Self::Difficulty { .. } | Self::ImageDependency { .. } => {
                Ok(())
            }
        }
    }

    /// Applies the value to an item's content (and its refinement operation). Stage kinds
    /// change nothing here: they are decisions, recorded by the store.
    pub fn apply(&self, c: &mut ItemContent, op: &mut Option<RefinementOp>) -> Result<(), String> {
        self.validate()?;
        let some = |s: &Option<String>| s.clone().filter(|s| !s.trim().is_empty());
        match self {
            Self::Screening { .. } | Self::Difficulty { .. } | Self::ImageDependency { .. } => {}
            Self::Checklist { criteria } => {
                c.checklist = criteria.iter().map(|s| s.trim().to_string()).collect();
            }
            Self::ExplicitRewrite { question } => c.explicit_question = Some(question.clone()),
            Self::DirectRequest {
                request,
                subject,
                action,
                object,
            } => {
                c.direct_request = Some(request.clone());
                c.metadata.insert(
                    "solution_triplet".into(),
                    serde_json::json!({"subject": subject, "action": action, "object": object}),
                );
            }
            Self::IndirectUtterance { utterance } => c.question = utterance.clone(),
            Self::Distractors {
                fake_scene,
                superficial,
                non_existent,
            } => {
                if c.correct_option.is_none_or(|i| i >= c.options.len()) {
                    return Err(
                        "the item has no correct option: distractors would leave only wrong answers"
                            .into(),
                    );
                }
                // The correct option stays where it is; the three distractors are replaced by
                // kind, and added after it when the item had none of that kind.
                for (kind, text) in [
                    (DistractorKind::FakeScene, fake_scene),
                    (DistractorKind::Superficial, superficial),
                    (DistractorKind::NonExistent, non_existent),
                ] {
                    match c.options.iter_mut().find(|o| o.kind == Some(kind)) {
                        Some(o) => o.text = text.clone(),
                        None => c.options.push(ChoiceOption {
                            text: text.clone(),
                            kind: Some(kind),
                        }),
                    }
                }
            }
            Self::CragQuestions {
                disambiguated,
                text_only,
            } => {
                if let Some(d) = some(disambiguated) {
                    c.disambiguated_question = Some(d);
                }
                if let Some(t) = some(text_only) {
                    c.text_only_question = Some(t);
                }
            }
            Self::TargetBox { image, bbox } => {
                let img = c
                    .images
                    .get_mut(*image)
                    .ok_or_else(|| format!("the item has no image {image}"))?;
                if bbox.x_min < 0.0
                    || bbox.y_min < 0.0
                    || bbox.x_max > f64::from(img.width)
                    || bbox.y_max > f64::from(img.height)
                {
                    return Err(format!(
                        "the box lies outside the {}x{} image",
                        img.width, img.height
                    ));
                }
                // One suggested box replaces one target; an image with several is edited on the
                // canvas, where the person sees which one changes.
                if img.target_boxes.len() > 1 {
                    return Err(format!(
                        "image {image} has {} target boxes: draw the change on the canvas",
                        img.target_boxes.len()
                    ));
                }
                let label = img.target_boxes.first().and_then(|b| b.label.clone());
                img.target_boxes = vec![LabeledBox {
                    label,
                    bbox: *bbox,
                    crowd: false,
                    area: None,
                }];
            }
            Self::Operation {
                op: o,
                question,
                answer,
                ..
            } => {
                *op = Some(*o);
                if let Some(q) = some(question) {
                    c.question = q;
                }
                if let Some(a) = some(answer) {
                    c.answer = Some(a);
                }
            }
        }
        Ok(())
    }
}

/// Levenshtein distance in characters between two texts: how much a person changed a
/// suggestion before accepting it.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ItemImage;

    #[test]
    fn edit_distance_counts_characters_not_bytes() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("한국어", "한국"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn distractors_replace_by_kind_and_keep_the_correct_option() {
        let mut c = ItemContent {
            options: vec![
                ChoiceOption {
                    text: "put the phone down".into(),
                    kind: None,
                },
                ChoiceOption {
                    text: "old FSU".into(),
                    kind: Some(DistractorKind::FakeScene),
                },
            ],
            correct_option: Some(0),
            ..Default::default()
        };
        let v = SuggestionValue::Distractors {
            fake_scene: "feed the dog".into(),
            superficial: "cook better".into(),
            non_existent: "turn off the TV".into(),
        };
        v.apply(&mut c, &mut None).unwrap();
        assert_eq!(c.options.len(), 4);
        assert_eq!(c.options[0].text, "put the phone down");
        assert_eq!(c.options[1].text, "feed the dog");
        assert_eq!(c.options[3].kind, Some(DistractorKind::NonExistent));
        assert_eq!(
            SuggestionValue::current_text(SuggestionKind::Distractors, &c, None),
            v.text()
        );
    }

    #[test]
    fn a_box_outside_its_image_or_an_empty_draft_is_refused() {
        let mut c = ItemContent {
            images: vec![ItemImage {
                hash: "h".into(),
                width: 100,
                height: 50,
                name: None,
                source_id: None,
                target_boxes: vec![],
                person_boxes: vec![],
            }],
            ..Default::default()
        };
        let outside = SuggestionValue::TargetBox {
            image: 0,
            bbox: BBox {
                x_min: 10.0,
                y_min: 10.0,
                x_max: 120.0,
                y_max: 40.0,
            },
        };
        assert!(outside.apply(&mut c, &mut None).is_err());
        let inside = SuggestionValue::TargetBox {
            image: 0,
            bbox: BBox {
                x_min: 10.0,
                y_min: 10.0,
                x_max: 90.0,
                y_max: 40.0,
            },
        };
        inside.apply(&mut c, &mut None).unwrap();
        assert_eq!(c.images[0].target_boxes.len(), 1);
        let empty = SuggestionValue::Checklist { criteria: vec![] };
        assert!(empty.apply(&mut c, &mut None).is_err());
        let mut op = None;
        SuggestionValue::Operation {
            op: RefinementOp::AnswerCorrection,
            question: None,
            answer: Some("42".into()),
            reason: "the reference was wrong".into(),
        }
        .apply(&mut c, &mut op)
        .unwrap();
        assert_eq!(op, Some(RefinementOp::AnswerCorrection));
        assert_eq!(c.answer.as_deref(), Some("42"));
    }
}
