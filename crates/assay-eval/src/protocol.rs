//! The seeds' protocols as named presets (`--protocol`, docs/PROTOCOLS.md): what each fixes of
//! an evaluation request, which scorer grades which answer format under it, and how a table
//! counts the replies no rule could read. A run records the protocol it was made under, and
//! the table keeps runs of different protocols in different rows.

use serde::{Deserialize, Serialize};

use assay_core::AnswerFormat;
pub use assay_core::EvalProtocol;

use crate::engine::EvalRequest;
use crate::error::{EvalError, Result};
use crate::prompt::{Variant, BUILTIN_TEMPLATES};
use crate::scorers::ScorerKind;

/// How a table counts a run's replies that no rule could read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnparsedRule {
    /// As wrong answers (0), in the denominator: JAMMEval (a letter the regex cannot find is
    /// wrong), CRAG-MM-Diagnostics (a box that cannot be read is no hit), and runs made by hand.
    CountedWrong,
    /// Out of the denominator: HAERAE-Vision's `score.py` leaves an unparsed judgement's cell
    /// empty ("none") and averages the rest; VAGUE reports accuracy over the valid replies.
    LeftOut,
}

impl UnparsedRule {
    /// The rule of the runs made under `protocol` (a run's recorded name; None: by hand).
    pub fn of(protocol: Option<&str>) -> Self {
        protocol
            .and_then(EvalProtocol::parse)
            .map_or(Self::CountedWrong, |p| preset(p).unparsed)
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::CountedWrong => "unparsed counted wrong",
            Self::LeftOut => "unparsed left out",
        }
    }
}

/// Generation settings a seed fixes for the models it evaluates (not the judge); None leaves
/// the model's own.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Sampling {
    pub temperature: Option<f64>,
    pub top_p: Option<f64>,
    pub max_tokens: Option<u32>,
}

impl Sampling {
    /// The model's parameters with the protocol's settings in place of its own.
    pub fn apply(&self, params: &mut crate::model::GenParams) {
        if let Some(t) = self.temperature {
            params.temperature = t;
        }
        if let Some(p) = self.top_p {
            params.top_p = Some(p);
        }
        if let Some(m) = self.max_tokens {
            params.max_tokens = m;
        }
    }

    /// "temperature 0.6, top-p 0.95, at most 4096 tokens"; None when it fixes nothing.
    pub fn describe(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(t) = self.temperature {
            parts.push(format!("temperature {t}"));
        }
        if let Some(p) = self.top_p {
            parts.push(format!("top-p {p}"));
        }
        if let Some(m) = self.max_tokens {
            parts.push(format!("at most {m} tokens"));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

/// What a protocol fixes.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    pub protocol: EvalProtocol,
    /// Runs per model, version and variant; a judge is asked afresh in each.
    pub runs: u32,
    /// The variants (conditions) it compares; a request may ask for some of them.
    pub variants: Vec<Variant>,
    /// The scorers a request may choose (empty: `default_scorer` per format).
    pub scorers: Vec<ScorerKind>,
    /// Built-in templates it allows besides each format's default.
    pub templates: Vec<&'static str>,
    /// A judge model is required.
    pub needs_judge: bool,
    pub unparsed: UnparsedRule,
    /// The seed's generation settings, sent instead of the model's own under the protocol.
    pub sampling: Sampling,
}

/// The preset of `p`: its runs, variants and scorers as core lists them
/// (`EvalProtocol::admits` checks a pulled run against the same lists), with what the engine
/// and the table need besides.
pub fn preset(p: EvalProtocol) -> Preset {
    Preset {
        protocol: p,
        runs: u32::try_from(p.runs()).unwrap_or(1),
        variants: p
            .variants()
            .iter()
            .filter_map(|v| Variant::parse(v))
            .collect(),
        scorers: p
            .scorers()
            .iter()
            .filter_map(|s| ScorerKind::parse(s))
            .collect(),
        // The seed's own prompts, where they are built-in templates (CRAG-MM's tasks, VAGUE's
        // settings).
        templates: BUILTIN_TEMPLATES
            .into_iter()
            .filter(|t| p.admits_template(t))
            .filter(|t| *t != "default")
            .collect(),
        // JAMMEval grades short answers with a judge; HAERAE-Vision's checklist judge is one.
        needs_judge: matches!(p, EvalProtocol::Jammeval | EvalProtocol::HaeraeVision),
        // HAERAE-Vision's score.py leaves an unparsed judgement "none"; VAGUE divides by the
        // valid replies. JAMMEval and CRAG-MM count a reply no rule reads as wrong.
        unparsed: match p {
            EvalProtocol::HaeraeVision | EvalProtocol::Vague => UnparsedRule::LeftOut,
            _ => UnparsedRule::CountedWrong,
        },
        sampling: match p {
            // "We set the temperature to 0 for all models"; tokens "sufficient for each
            // dataset" (the model's own).
            EvalProtocol::Jammeval => Sampling {
                temperature: Some(0.0),
                ..Default::default()
            },
            // "temperature=0.6 …, top_p=0.95, and max_tokens=4096 across all models".
            EvalProtocol::HaeraeVision => Sampling {
                temperature: Some(0.6),
                top_p: Some(0.95),
                max_tokens: Some(4096),
            },
            // `vllm.SamplingParams(temperature=0.1, top_p=0.9, max_tokens=75)`, as the paper
            // states for the generalised models.
            EvalProtocol::CragMm => Sampling {
                temperature: Some(0.1),
                top_p: Some(0.9),
                max_tokens: Some(75),
            },
            // The paper states none.
            EvalProtocol::Vague => Sampling::default(),
        },
    }
}

/// The scorer an item of `format` gets when the request names none.
pub fn default_scorer(protocol: Option<EvalProtocol>, format: AnswerFormat) -> ScorerKind {
    match (protocol, format) {
        // JAMMEval grades short answers with a judge, not by rules.
        (Some(EvalProtocol::Jammeval), AnswerFormat::ShortAnswer) => ScorerKind::Judge,
        _ => ScorerKind::default_for(format),
    }
}

/// A request made to the protocol: its runs, variants and scorer, the rest as given.
pub fn request(p: EvalProtocol, models: Vec<String>, datasets: Vec<String>) -> EvalRequest {
    let preset = preset(p);
    EvalRequest {
        models,
        datasets,
        runs: preset.runs,
        variants: preset.variants.clone(),
        scorer: preset
            .scorers
            .first()
            .copied()
            .filter(|_| preset.scorers.len() == 1),
        protocol: Some(p),
        ..Default::default()
    }
}

/// Refuses a request that claims a protocol but departs from it, naming what differs. The
/// engine calls this for every request, so no caller can record a run under a protocol it did
/// not follow.
pub fn check(req: &EvalRequest) -> Result<()> {
    let Some(p) = req.protocol else {
        return Ok(());
    };
    let preset = preset(p);
    let name = p.as_str();
    let refuse = |what: String| Err(EvalError::Config(format!("the {name} protocol {what}")));
    if req.runs != preset.runs {
        return refuse(format!(
            "makes {} run(s) per model, not {} (leave --runs out)",
            preset.runs, req.runs
        ));
    }
    if let Some(v) = req.variants.iter().find(|v| !preset.variants.contains(*v)) {
        return refuse(format!(
            "compares {}, not {}",
            names(preset.variants.iter().map(|v| v.as_str())),
            v.as_str()
        ));
    }
    match req.scorer {
        Some(s) if !preset.scorers.is_empty() && !preset.scorers.contains(&s) => {
            return refuse(format!(
                "scores with {}, not {}",
                names(preset.scorers.iter().map(|s| s.as_str())),
                s.as_str()
            ));
        }
        Some(s) if preset.scorers.is_empty() => {
            return refuse(format!(
                "scores each answer format its own way (letters by rule, short answers by the \
                 judge), not all with {} (leave --scorer out)",
                s.as_str()
            ));
        }
        None if preset.scorers.len() > 1 => {
            return refuse(format!(
                "has one stage per scorer: choose --scorer {}",
                names(preset.scorers.iter().map(|s| s.as_str()))
            ));
        }
        // Its runs would be labelled by its name but scored by each format's rules.
        None if preset.scorers.len() == 1 => {
            return refuse(format!(
                "scores with {}: name it (--scorer {})",
                preset.scorers[0].as_str(),
                preset.scorers[0].as_str()
            ));
        }
        _ => {}
    }
    if req.template != "default" && !preset.templates.contains(&req.template.as_str()) {
        return refuse(format!(
            "sends its own prompts, not template {:?}",
            req.template
        ));
    }
    if preset.needs_judge && req.judge.is_none() {
        return refuse("needs a judge model (--judge MODEL)".into());
    }
    Ok(())
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_judge(mut r: EvalRequest) -> EvalRequest {
        r.judge = Some("judge".into());
        r
    }

    #[test]
    fn each_presets_own_request_passes_its_check() {
        for p in EvalProtocol::ALL {
            let mut req = with_judge(request(p, vec!["m".into()], vec!["d".into()]));
            if p == EvalProtocol::CragMm {
                req.scorer = Some(ScorerKind::Grounding);
            }
            check(&req).unwrap_or_else(|e| panic!("{}: {e}", p.as_str()));
        }
    }

    #[test]
    fn a_request_departing_from_its_protocol_is_refused_with_what_differs() {
        let base = || with_judge(request(EvalProtocol::HaeraeVision, vec![], vec![]));
        let mut r = base();
        r.runs = 1;
        assert!(check(&r).unwrap_err().to_string().contains("3 run(s)"));
        let mut r = base();
        r.variants = vec![Variant::GtCrop];
        assert!(check(&r).unwrap_err().to_string().contains("gt_crop"));
        let mut r = base();
        r.scorer = Some(ScorerKind::Judge);
        assert!(check(&r)
            .unwrap_err()
            .to_string()
            .contains("checklist_judge"));
        let mut r = base();
        r.judge = None;
        assert!(check(&r).unwrap_err().to_string().contains("--judge"));
        let mut r = base();
        r.scorer = None;
        assert!(check(&r)
            .unwrap_err()
            .to_string()
            .contains("--scorer checklist_judge"));
        let mut r = base();
        r.template = "mine@1".into();
        assert!(check(&r).unwrap_err().to_string().contains("template"));
        // JAMMEval picks the scorer per format: one scorer for all is not its protocol.
        let mut r = with_judge(request(EvalProtocol::Jammeval, vec![], vec![]));
        r.scorer = Some(ScorerKind::SoftMatch);
        assert!(check(&r).is_err());
        // CRAG-MM's stage must be named; its task templates are its own.
        let mut r = request(EvalProtocol::CragMm, vec![], vec![]);
        assert!(check(&r).unwrap_err().to_string().contains("--scorer"));
        r.scorer = Some(ScorerKind::Identification);
        r.template = "crag-mm/object_identification".into();
        r.variants = vec![Variant::Highlight];
        check(&r).unwrap();
        // No protocol: anything goes, as before.
        let free = EvalRequest {
            runs: 7,
            ..Default::default()
        };
        check(&free).unwrap();
    }

    #[test]
    fn jammeval_grades_short_answers_by_judge_and_the_rest_by_default() {
        let p = Some(EvalProtocol::Jammeval);
        assert_eq!(
            default_scorer(p, AnswerFormat::ShortAnswer),
            ScorerKind::Judge
        );
        assert_eq!(
            default_scorer(p, AnswerFormat::MultipleChoice),
            ScorerKind::Choice
        );
        assert_eq!(
            default_scorer(None, AnswerFormat::ShortAnswer),
            ScorerKind::SoftMatch
        );
    }

    /// Every preset's own runs pass core's check of a pulled run, and the core lists all name
    /// variants and scorers the engine knows.
    #[test]
    fn a_presets_runs_pass_the_check_replicas_make_of_pulled_runs() {
        for p in EvalProtocol::ALL {
            let preset = preset(p);
            assert_eq!(preset.variants.len(), p.variants().len(), "{}", p.as_str());
            assert_eq!(preset.scorers.len(), p.scorers().len(), "{}", p.as_str());
            let scorer = match preset.scorers.first() {
                Some(s) => s.as_str().to_string(),
                None => "auto+judge".to_string(),
            };
            for v in &preset.variants {
                for run in 1..=preset.runs {
                    p.admits(v.as_str(), i64::from(run), "default", &scorer)
                        .unwrap_or_else(|e| panic!("{e}"));
                }
            }
            assert!(p
                .admits(
                    preset.variants[0].as_str(),
                    i64::from(preset.runs) + 1,
                    "default",
                    &scorer
                )
                .is_err());
        }
        assert!(EvalProtocol::Vague
            .admits("gt_crop", 1, "default", "choice")
            .is_err());
        assert!(EvalProtocol::Vague
            .admits("original", 1, "mine@2", "choice")
            .is_err());
        assert!(EvalProtocol::HaeraeVision
            .admits("explicit", 2, "default", "soft_match")
            .is_err());
        EvalProtocol::CragMm
            .admits(
                "highlight",
                3,
                "crag-mm/object_identification",
                "identification+j",
            )
            .unwrap();
    }

    #[test]
    fn a_protocol_sends_the_seeds_generation_settings_instead_of_the_models() {
        let mut params = crate::model::GenParams {
            temperature: 1.0,
            top_p: Some(0.5),
            max_tokens: 300,
            seed: Some(7),
        };
        preset(EvalProtocol::HaeraeVision)
            .sampling
            .apply(&mut params);
        assert_eq!(
            (
                params.temperature,
                params.top_p,
                params.max_tokens,
                params.seed
            ),
            (0.6, Some(0.95), 4096, Some(7))
        );
        let mut jam = crate::model::GenParams {
            temperature: 0.7,
            top_p: Some(0.8),
            max_tokens: 300,
            seed: None,
        };
        preset(EvalProtocol::Jammeval).sampling.apply(&mut jam);
        assert_eq!(
            (jam.temperature, jam.top_p, jam.max_tokens),
            (0.0, Some(0.8), 300)
        );
        assert_eq!(
            preset(EvalProtocol::CragMm).sampling.describe().as_deref(),
            Some("temperature 0.1, top-p 0.9, at most 75 tokens")
        );
        assert_eq!(preset(EvalProtocol::Vague).sampling.describe(), None);
    }

    #[test]
    fn unparsed_replies_are_left_out_where_the_seed_leaves_them_out() {
        assert_eq!(UnparsedRule::of(None), UnparsedRule::CountedWrong);
        assert_eq!(
            UnparsedRule::of(Some("jammeval")),
            UnparsedRule::CountedWrong
        );
        assert_eq!(
            UnparsedRule::of(Some("haerae-vision")),
            UnparsedRule::LeftOut
        );
        assert_eq!(UnparsedRule::of(Some("vague")), UnparsedRule::LeftOut);
    }
}
