//! The triage queue: items ranked by evidence in the stored runs that they need a person.
//! Only results scored on the item's current revision count, so a fixed item drops out (or
//! falls) as soon as it is edited, and rises again if a re-run still disagrees.
//!
//! Signals, each with the evidence shown to the person:
//! - likely wrong reference: at least two models, and most of those that answered, give the
//!   same answer, and it is scored wrong (weight 3 x the share of models agreeing);
//! - not image-grounded: a text-only or no-image run answered correctly (weight 2 per model);
//! - ambiguous: one model's runs disagree with each other, or models split on right and wrong
//!   (weight 1 x how evenly they split);
//! - unsure verdict: the scorer's rules were not sure of a result no person has overruled
//!   (weight 0.5 per item, below the others; each reason once per model), for a person or
//!   `assay rescore --judge`.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::scorers::normalize::normalize;
use assay_core::store::CurrentResult;
use assay_core::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TriageReason {
    /// "wrong_reference", "not_image_grounded", "ambiguous" or "unsure_verdict".
    pub kind: String,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TriageItem {
    pub item_id: i64,
    pub ext_id: String,
    pub dataset: String,
    pub score: f64,
    pub reasons: Vec<TriageReason>,
}

fn effective(r: &CurrentResult) -> f64 {
    r.overruled.or(r.score).unwrap_or(0.0)
}

/// Ranks one item's results; None when nothing points at it.
fn rank(results: &[&CurrentResult]) -> Option<(f64, Vec<TriageReason>)> {
    let mut score = 0.0;
    let mut reasons = Vec::new();
    let with_image: Vec<&&CurrentResult> = results
        .iter()
        .filter(|r| r.variant != "text_only" && r.variant != "no_image")
        .collect();

    // Each model's most frequent answer over its runs, and whether it was scored right.
    let mut by_model: BTreeMap<&str, Vec<&&CurrentResult>> = BTreeMap::new();
    for r in &with_image {
        by_model.entry(r.model.as_str()).or_default().push(r);
    }
    let mut answers: HashMap<String, (usize, bool, String)> = HashMap::new();
    for runs in by_model.values() {
        let mut counts: HashMap<String, (usize, &str, bool)> = HashMap::new();
        for r in runs {
            // A hedge ("B|D") is no answer.
            let answer = r.parsed.as_deref().filter(|_| r.outcome != "hedged");
            if let Some(p) = answer.filter(|p| !p.trim().is_empty()) {
                let e = counts.entry(normalize(p)).or_insert((0, p, false));
                e.0 += 1;
                e.2 |= effective(r) >= 0.5;
            }
        }
        if let Some((norm, (_, shown, right))) = counts.into_iter().max_by_key(|(_, v)| v.0) {
            let e = answers.entry(norm).or_insert((0, false, shown.to_string()));
            e.0 += 1;
            e.1 |= right;
        }
    }
    let answered: usize = answers.values().map(|a| a.0).sum();
    if let Some((_, (n, right, shown))) = answers.iter().max_by_key(|(_, v)| v.0) {
        let share = *n as f64 / answered.max(1) as f64;
        if *n >= 2 && share > 0.5 && !right {
            score += 3.0 * share;
            reasons.push(TriageReason {
                kind: "wrong_reference".into(),
                detail: format!(
                    "{n} of {answered} models answer {shown:?}, scored wrong: is the reference right?"
                ),
            });
        }
    }

    let blind: Vec<String> = results
        .iter()
        .filter(|r| (r.variant == "text_only" || r.variant == "no_image") && effective(r) >= 0.5)
        .map(|r| format!("{} ({})", r.model, r.variant.replace('_', " ")))
        .collect();
    if !blind.is_empty() {
        score += 2.0 * blind.len() as f64;
        reasons.push(TriageReason {
            kind: "not_image_grounded".into(),
            detail: format!("answered right without the image: {}", blind.join(", ")),
        });
    }

    let mut split = Vec::new();
    for (model, runs) in &by_model {
        let right = runs.iter().filter(|r| effective(r) >= 0.5).count();
        if runs.len() > 1 && right > 0 && right < runs.len() {
            split.push(format!("{model} right in {right} of {} runs", runs.len()));
        }
    }
    let models_right = by_model
        .values()
        .filter(|runs| runs.iter().filter(|r| effective(r) >= 0.5).count() * 2 > runs.len())
        .count();
    let models = by_model.len();
    if !split.is_empty() || (models >= 2 && models_right > 0 && models_right < models) {
        let p = models_right as f64 / models.max(1) as f64;
        score += 1.0 * (4.0 * p * (1.0 - p)).max(if split.is_empty() { 0.0 } else { 0.5 });
        let mut detail = format!("{models_right} of {models} models right");
        if !split.is_empty() {
            detail.push_str(&format!("; {}", split.join(", ")));
        }
        reasons.push(TriageReason {
            kind: "ambiguous".into(),
            detail,
        });
    }
    // Unsure verdicts ask for a person but say nothing against the item: they rank below the
    // other signals (0.5 per item however many results), each reason said once per model.
    let mut unsure: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in results.iter().filter(|r| r.overruled.is_none()) {
        if let Some(why) = &r.unsure {
            *unsure.entry((r.model.clone(), why.clone())).or_default() += 1;
        }
    }
    if !unsure.is_empty() {
        score += 0.5;
        let detail: Vec<String> = unsure
            .iter()
            .map(|((model, why), n)| {
                let times = if *n > 1 {
                    format!(" ({n} results)")
                } else {
                    String::new()
                };
                format!("{model}: {why}{times}")
            })
            .collect();
        reasons.push(TriageReason {
            kind: "unsure_verdict".into(),
            detail: format!("the rules were not sure: {}", detail.join("; ")),
        });
    }
    (!reasons.is_empty()).then_some((score, reasons))
}

/// The queue over the given datasets (all when empty), highest score first.
pub fn triage(project: &Project, datasets: &[String]) -> Result<Vec<TriageItem>> {
    let all = project.datasets()?;
    let mut out = Vec::new();
    for ds in all
        .iter()
        .filter(|d| datasets.is_empty() || datasets.contains(&d.name))
    {
        let results = project.current_results(ds.id)?;
        let mut by_item: BTreeMap<i64, Vec<&CurrentResult>> = BTreeMap::new();
        for r in &results {
            by_item.entry(r.item_id).or_default().push(r);
        }
        for (item_id, rs) in by_item {
            if let Some((score, reasons)) = rank(&rs) {
                out.push(TriageItem {
                    item_id,
                    ext_id: rs[0].ext_id.clone(),
                    dataset: ds.name.clone(),
                    score,
                    reasons,
                });
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.item_id.cmp(&b.item_id)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(model: &str, variant: &str, run: i64, parsed: &str, score: f64) -> CurrentResult {
        CurrentResult {
            unsure: None,
            item_id: 1,
            ext_id: "x".into(),
            model: model.into(),
            version: "after".into(),
            variant: variant.into(),
            run_index: run,
            scorer: "soft_match".into(),
            outcome: "scored".into(),
            score: Some(score),
            parsed: Some(parsed.into()),
            overruled: None,
        }
    }

    #[test]
    fn a_verdict_the_rules_were_unsure_of_is_listed_until_a_person_overrules_it() {
        let mut unsure = r("a", "original", 1, "a cloudy day", 0.0);
        unsure.unsure = Some("a long reply may state the answer in other words".into());
        let (score, reasons) = rank(&[&unsure]).unwrap();
        assert_eq!(reasons[0].kind, "unsure_verdict");
        assert!(
            reasons[0].detail.contains("a: a long reply"),
            "{}",
            reasons[0].detail
        );
        assert!((score - 0.5).abs() < 1e-12);
        let again = CurrentResult {
            unsure: unsure.unsure.clone(),
            ..r("a", "original", 2, "a cloudy day", 0.0)
        };
        let (score, reasons) = rank(&[&unsure, &again]).unwrap();
        assert!((score - 0.5).abs() < 1e-12, "two results, one item");
        assert!(
            reasons.iter().any(|r| r.detail.ends_with("(2 results)")),
            "{reasons:?}"
        );
        unsure.overruled = Some(1.0);
        assert!(rank(&[&unsure]).is_none());
    }

    #[test]
    fn models_agreeing_on_a_wrong_answer_point_at_the_reference() {
        let rs = [
            r("a", "original", 1, "Tokyo", 0.0),
            r("b", "original", 1, "tokyo", 0.0),
            r("c", "original", 1, "Osaka", 0.0),
        ];
        let refs: Vec<&CurrentResult> = rs.iter().collect();
        let (score, reasons) = rank(&refs).unwrap();
        assert_eq!(reasons[0].kind, "wrong_reference");
        assert!(
            reasons[0].detail.contains("2 of 3"),
            "{}",
            reasons[0].detail
        );
        assert!((score - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_right_answer_without_the_image_and_split_runs_are_flagged() {
        let rs = [
            r("a", "original", 1, "4", 1.0),
            r("a", "original", 2, "5", 0.0),
            r("a", "no_image", 1, "4", 1.0),
        ];
        let refs: Vec<&CurrentResult> = rs.iter().collect();
        let (_, reasons) = rank(&refs).unwrap();
        let kinds: Vec<&str> = reasons.iter().map(|r| r.kind.as_str()).collect();
        assert_eq!(kinds, vec!["not_image_grounded", "ambiguous"]);
        assert!(reasons[1].detail.contains("a right in 1 of 2 runs"));
    }

    #[test]
    fn agreement_on_the_reference_needs_no_person() {
        let rs = [
            r("a", "original", 1, "Tokyo", 1.0),
            r("b", "original", 1, "Tokyo", 1.0),
        ];
        let refs: Vec<&CurrentResult> = rs.iter().collect();
        assert!(rank(&refs).is_none());
    }
}
