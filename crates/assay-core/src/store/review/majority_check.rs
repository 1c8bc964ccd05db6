//! CRAG-MM-Diagnostics' annotation check: the experts' labels against the majority vote of the
//! crowd (the paper: three annotators per item), as Cohen's kappa over every label (0.453 on
//! referring-expression types) and over one label against the rest (0.605 for "ambiguous").
//! Each person's own latest value per item is read as agreement reads it (a blind round's
//! judgements in a blind round).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::agreement::AgreementField;
use crate::error::{Error, Result};
use crate::stats::cohen_kappa;
use crate::store::Project;

/// What a majority check compares and how.
#[derive(Debug, Clone, PartialEq)]
pub struct MajorityCheckSpec {
    pub field: AgreementField,
    /// The people whose labels are the reference (the paper's experts).
    pub experts: Vec<String>,
    /// Crowd labels an item needs before its majority counts (the paper's three).
    pub crowd: usize,
    /// The label the binary kappa sets against all others (`ambiguous` for referring
    /// expressions); None: no binary kappa.
    pub binary: Option<String>,
    pub dataset_id: Option<i64>,
    pub round_id: Option<i64>,
}

impl MajorityCheckSpec {
    /// The paper's check on referring-expression types: three crowd labels, "ambiguous" apart.
    pub fn ref_types(experts: Vec<String>) -> Self {
        Self {
            field: AgreementField::RefType,
            experts,
            crowd: 3,
            binary: Some("ambiguous".into()),
            dataset_id: None,
            round_id: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MajorityCheck {
    pub field: AgreementField,
    pub experts: Vec<String>,
    pub crowd: usize,
    /// Items compared: an expert label and a crowd majority.
    pub items: usize,
    /// Items with enough crowd labels but no label ahead of the others (a tie): left out.
    pub no_majority: usize,
    /// Items whose experts gave different labels: left out.
    pub experts_disagree: usize,
    /// Items an expert labelled with fewer crowd labels than `crowd`: left out.
    pub too_few_crowd: usize,
    /// Labels in the confusion matrix's order.
    pub labels: Vec<String>,
    /// Rows the experts' label, columns the crowd's majority.
    pub confusion: Vec<Vec<u64>>,
    /// Share of compared items where the majority is the experts' label.
    pub accuracy: Option<f64>,
    /// Cohen's kappa, experts against majority, over every label.
    pub kappa: Option<f64>,
    pub binary_label: Option<String>,
    /// Cohen's kappa on `binary_label` against every other label.
    pub binary_kappa: Option<f64>,
}

/// The label with more votes than any other; None on a tie at the top.
pub fn majority<'a>(votes: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in votes {
        *counts.entry(v).or_default() += 1;
    }
    let top = counts.values().copied().max()?;
    let mut leaders = counts.iter().filter(|(_, c)| **c == top);
    let first = leaders.next().map(|(l, _)| *l);
    leaders.next().is_none().then_some(first).flatten()
}

impl Project {
    /// The experts' labels against the crowd's majority on `spec.field` (nominal fields only:
    /// referring-expression type, operation, issue tags, phase-1 flags).
    pub fn majority_check(&self, spec: &MajorityCheckSpec) -> Result<MajorityCheck> {
        if matches!(spec.field, AgreementField::Box | AgreementField::Checklist) {
            return Err(Error::Invalid(format!(
                "a majority vote needs labels; {} is not one (use the agreement's IoU or alpha)",
                spec.field
            )));
        }
        if spec.experts.is_empty() {
            return Err(Error::Invalid(
                "name the experts whose labels the crowd's majority is checked against".into(),
            ));
        }
        if spec.crowd < 1 {
            return Err(Error::Invalid("a crowd has at least one person".into()));
        }
        for name in &spec.experts {
            if self.user_by_name(name)?.is_none() {
                return Err(Error::NotFound(format!(
                    "no one named {name:?} works in this project"
                )));
            }
        }
        let rows = self.agreement_rows(spec.field, spec.dataset_id, spec.round_id)?;
        let mut by_item: BTreeMap<i64, (Vec<String>, Vec<String>)> = BTreeMap::new();
        // A blind judgement without a type or an operation reads "none": that person gave no
        // label, so they neither vote nor stand as the reference.
        let unlabelled = |label: &str| {
            label == "none" && matches!(spec.field, AgreementField::RefType | AgreementField::Op)
        };
        for ((item, _, _), who, label, _) in rows {
            if unlabelled(&label) {
                continue;
            }
            let e = by_item.entry(item).or_default();
            if spec.experts.contains(&who) {
                e.0.push(label);
            } else {
                e.1.push(label);
            }
        }
        let mut out = MajorityCheck {
            field: spec.field,
            experts: spec.experts.clone(),
            crowd: spec.crowd,
            items: 0,
            no_majority: 0,
            experts_disagree: 0,
            too_few_crowd: 0,
            labels: Vec::new(),
            confusion: Vec::new(),
            accuracy: None,
            kappa: None,
            binary_label: spec.binary.clone(),
            binary_kappa: None,
        };
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (expert, crowd) in by_item.values() {
            let Some(first) = expert.first() else {
                continue;
            };
            if expert.iter().any(|l| l != first) {
                out.experts_disagree += 1;
                continue;
            }
            if crowd.len() < spec.crowd {
                out.too_few_crowd += 1;
                continue;
            }
            match majority(crowd.iter().map(String::as_str)) {
                Some(m) => pairs.push((first.clone(), m.to_string())),
                None => out.no_majority += 1,
            }
        }
        out.items = pairs.len();
        let mut labels: Vec<String> = pairs
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        labels.sort();
        labels.dedup();
        let code = |l: &str| labels.iter().position(|x| x == l).unwrap_or(0);
        let mut confusion = vec![vec![0u64; labels.len()]; labels.len()];
        for (a, b) in &pairs {
            confusion[code(a)][code(b)] += 1;
        }
        let xs: Vec<&str> = pairs.iter().map(|p| p.0.as_str()).collect();
        let ys: Vec<&str> = pairs.iter().map(|p| p.1.as_str()).collect();
        out.kappa = cohen_kappa(&xs, &ys);
        out.accuracy = (!pairs.is_empty())
            .then(|| pairs.iter().filter(|(a, b)| a == b).count() as f64 / pairs.len() as f64);
        if let Some(label) = &spec.binary {
            let side = |l: &str| if l == label { label.as_str() } else { "other" };
            let bx: Vec<&str> = xs.iter().map(|l| side(l)).collect();
            let by: Vec<&str> = ys.iter().map(|l| side(l)).collect();
            out.binary_kappa = cohen_kappa(&bx, &by);
        }
        out.labels = labels;
        out.confusion = confusion;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_majority_is_one_label_ahead_of_every_other() {
        assert_eq!(majority(["a", "b", "a"]), Some("a"));
        assert_eq!(majority(["a", "b", "c"]), None);
        assert_eq!(majority(["a", "b", "b", "a"]), None);
        assert_eq!(majority(["c"]), Some("c"));
        assert_eq!(majority(std::iter::empty()), None);
    }
}
