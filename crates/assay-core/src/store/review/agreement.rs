//! Agreement between annotators, measured from their own work on the items more than one of them
//! did: each person's latest value per unit (an item, or one checklist criterion of one run's
//! judgement), never a reviewer's record of approving someone else's revision.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::IssueTag;
use crate::stats::{
    cohen_kappa, fleiss_kappa, krippendorff_alpha_interval, krippendorff_alpha_nominal,
    krippendorff_alpha_with, masi_distance,
};
use crate::store::Project;

crate::named_enum! {
    /// What people's agreement is measured on.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum AgreementField {
        Op = "op",
        RefType = "ref_type",
        Tags = "tags",
        Phase1 = "phase1",
        Checklist = "checklist",
        /// The target box: mean IoU between two people's boxes of the same item.
        Box = "box",
    }
}

/// Agreement on one field between the people who set it on the same units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Agreement {
    pub field: AgreementField,
    /// Units (items; for checklists, criteria of a judgement) two or more people rated.
    pub items: usize,
    pub people: Vec<String>,
    /// Every value seen, in the order confusion matrices use.
    pub labels: Vec<String>,
    /// Cohen's kappa and a confusion matrix for each pair of people on their common units.
    pub pairs: Vec<PairAgreement>,
    /// Fleiss' kappa over the units rated by the most common number of people.
    pub fleiss_kappa: Option<f64>,
    pub fleiss_items: usize,
    pub fleiss_raters: usize,
    /// Krippendorff's alpha (nominal) over every unit with two or more values.
    pub krippendorff_alpha: Option<f64>,
    /// Krippendorff's alpha (interval), where values are numbers (checklist ratings).
    pub krippendorff_alpha_interval: Option<f64>,
    /// Krippendorff's alpha with the MASI distance between sets, where a value is a set of
    /// labels (issue tags, phase-1 flags): one tag of two in common is partial agreement, not
    /// the full disagreement the nominal alpha counts it as.
    pub krippendorff_alpha_masi: Option<f64>,
    /// Boxes: the mean IoU over every pair of people's boxes of the same item.
    pub mean_iou: Option<f64>,
    /// Measured on a blind round's independent judgements (not on revisions, where the second
    /// person saw the first one's work).
    pub blind: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PairAgreement {
    pub a: String,
    pub b: String,
    pub items: usize,
    pub cohen_kappa: Option<f64>,
    /// Boxes: the mean IoU of a's and b's boxes over their common items.
    pub mean_iou: Option<f64>,
    /// Rows a, columns b: counts per (a's value, b's value), values in `labels` order.
    pub confusion: Vec<Vec<u64>>,
}

/// The people's own revisions (not review records), the latest per item and person, limited to
/// a dataset (?1) and a round's items (?2).
fn latest_own_revisions(value: &str) -> String {
    format!(
        "SELECT item_id, name, v FROM (
           SELECT r.item_id, u.name, {value} AS v,
                  row_number() OVER (PARTITION BY r.item_id, r.author_id ORDER BY r.id DESC) AS k
           FROM revisions r JOIN users u ON u.id = r.author_id JOIN items i ON i.id = r.item_id
           WHERE {value} IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM review_decisions x
                             WHERE x.item_id = r.item_id AND x.made_rev = r.rev)
             AND (?1 IS NULL OR i.dataset_id = ?1)
             AND (?2 IS NULL OR r.item_id IN (SELECT item_id FROM round_items WHERE round_id = ?2)))
         WHERE k = 1"
    )
}

type Unit = (i64, i64, i64);
/// A person's value on a unit: its label, and the number when the field is numeric.
type Value = (String, Option<f64>);
/// (unit, person, label, number) as read from the store.
type Rating = (Unit, String, String, Option<f64>);

impl Project {
    /// (unit, person, value, number) rows for a field, before pairing.
    pub(super) fn agreement_rows(
        &self,
        field: AgreementField,
        dataset_id: Option<i64>,
        round_id: Option<i64>,
    ) -> Result<Vec<Rating>> {
        if let Some(round) = round_id
            .filter(|r| crate::store::review::blind::is_blind(&self.conn, *r).unwrap_or(false))
        {
            return self.blind_rows(field, round, dataset_id);
        }
        let args = rusqlite::params![dataset_id, round_id];
        Ok(match field {
            AgreementField::Box => {
                let mut st = self.conn.prepare(&latest_own_revisions(
                    "json_extract(revision_json(r.content), '$.images[0].target_boxes[0]')",
                ))?;
                let rows = st.query_map(args, |r| {
                    Ok(((r.get(0)?, 0, 0), r.get(1)?, r.get::<_, String>(2)?, None))
                })?;
                rows.collect::<std::result::Result<_, _>>()?
            }
            AgreementField::Op | AgreementField::RefType => {
                let value = if field == AgreementField::Op {
                    "r.op"
                } else {
                    "json_extract(revision_json(r.content), '$.ref_type')"
                };
                let mut st = self.conn.prepare(&latest_own_revisions(value))?;
                let rows = st.query_map(args, |r| {
                    Ok(((r.get(0)?, 0, 0), r.get(1)?, r.get(2)?, None))
                })?;
                rows.collect::<std::result::Result<_, _>>()?
            }
            AgreementField::Tags => {
                let mut st = self.conn.prepare(&latest_own_revisions("r.tags"))?;
                let rows = st.query_map(args, |r| {
                    let bits: i64 = r.get(2)?;
                    Ok(((r.get(0)?, 0, 0), r.get(1)?, tag_label(bits), None))
                })?;
                rows.collect::<std::result::Result<_, _>>()?
            }
            AgreementField::Phase1 => {
                let mut st = self.conn.prepare(
                    "SELECT f.item_id, u.name, f.dimension, f.flagged
                     FROM phase1_flags f JOIN users u ON u.id = f.author_id
                     JOIN items i ON i.id = f.item_id
                     WHERE f.id = (SELECT max(f2.id) FROM phase1_flags f2
                                   WHERE f2.item_id = f.item_id AND f2.author_id = f.author_id
                                     AND f2.dimension = f.dimension)
                       AND (?1 IS NULL OR i.dataset_id = ?1)
                       AND (?2 IS NULL OR f.item_id IN
                            (SELECT item_id FROM round_items WHERE round_id = ?2))",
                )?;
                let mut sets: BTreeMap<(i64, String), Vec<String>> = BTreeMap::new();
                let rows = st.query_map(args, |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get(2)?,
                        r.get(3)?,
                    ))
                })?;
                for row in rows {
                    let (item, who, dim, flagged): (i64, String, String, bool) = row?;
                    let set = sets.entry((item, who)).or_default();
                    if flagged {
                        set.push(dim);
                    }
                }
                sets.into_iter()
                    .map(|((item, who), mut dims)| {
                        dims.sort();
                        let label = if dims.is_empty() {
                            "none".to_string()
                        } else {
                            dims.join("+")
                        };
                        ((item, 0, 0), who, label, None)
                    })
                    .collect()
            }
            AgreementField::Checklist => {
                let mut st = self.conn.prepare(
                    "SELECT o.run_id, o.item_id, o.criterion, u.name, o.rating
                     FROM criterion_overrules o JOIN users u ON u.id = o.author_id
                     JOIN items i ON i.id = o.item_id
                     WHERE o.id = (SELECT max(o2.id) FROM criterion_overrules o2
                                   WHERE o2.run_id = o.run_id AND o2.item_id = o.item_id
                                     AND o2.criterion = o.criterion AND o2.author_id = o.author_id)
                       AND (?1 IS NULL OR i.dataset_id = ?1)
                       AND (?2 IS NULL OR o.item_id IN
                            (SELECT item_id FROM round_items WHERE round_id = ?2))",
                )?;
                let rows = st.query_map(args, |r| {
                    let rating: f64 = r.get(4)?;
                    Ok((
                        (r.get(1)?, r.get(0)?, r.get(2)?),
                        r.get(3)?,
                        format!("{rating}"),
                        Some(rating),
                    ))
                })?;
                rows.collect::<std::result::Result<_, _>>()?
            }
        })
    }

    /// The rows of a blind round's judgements (only items whose judgements are all in).
    fn blind_rows(
        &self,
        field: AgreementField,
        round_id: i64,
        dataset_id: Option<i64>,
    ) -> Result<Vec<Rating>> {
        let mut out = Vec::new();
        for (item, who, j) in self.blind_judgements(round_id, dataset_id)? {
            let unit = (item, 0, 0);
            match field {
                AgreementField::Op => {
                    if let Some(op) = j.op {
                        out.push((unit, who, op.as_str().to_string(), None));
                    }
                }
                // A judgement is whole: a type or box one person gave and the other did not is a
                // disagreement, not a unit to leave out.
                AgreementField::RefType => {
                    let label = j.ref_type.map_or("none", |t| t.as_str());
                    out.push((unit, who, label.to_string(), None));
                }
                AgreementField::Tags => {
                    out.push((unit, who, tag_label(IssueTag::to_bits(&j.tags)), None));
                }
                AgreementField::Phase1 => {
                    let mut dims: Vec<&str> = j.phase1.iter().map(|d| d.as_str()).collect();
                    dims.sort_unstable();
                    dims.dedup();
                    let label = if dims.is_empty() {
                        "none".to_string()
                    } else {
                        dims.join("+")
                    };
                    out.push((unit, who, label, None));
                }
                AgreementField::Checklist => {
                    for (k, rating) in j.checklist.iter().enumerate() {
                        if let Some(r) = rating {
                            let unit = (item, 0, k as i64);
                            out.push((unit, who.clone(), format!("{r}"), Some(*r as f64)));
                        }
                    }
                }
                AgreementField::Box => {
                    let label = j.target_box.map_or("none".to_string(), |b| {
                        serde_json::to_string(&b).unwrap_or_default()
                    });
                    out.push((unit, who, label, None));
                }
            }
        }
        Ok(out)
    }

    /// Agreement on `field` among the people who set it on the same units, optionally within a
    /// dataset and a round's items; in a blind round, on the judgements people recorded apart.
    pub fn agreement(
        &self,
        field: AgreementField,
        dataset_id: Option<i64>,
        round_id: Option<i64>,
    ) -> Result<Agreement> {
        let rows = self.agreement_rows(field, dataset_id, round_id)?;
        let blind = match round_id {
            Some(r) => crate::store::review::blind::is_blind(&self.conn, r)?,
            None => false,
        };
        let numeric = field == AgreementField::Checklist;
        let mut by_unit: BTreeMap<Unit, BTreeMap<String, Value>> = BTreeMap::new();
        for (unit, person, label, number) in rows {
            by_unit
                .entry(unit)
                .or_default()
                .insert(person, (label, number));
        }
        by_unit.retain(|_, m| m.len() >= 2);
        if field == AgreementField::Box {
            // Items nobody drew a box on say nothing about boxes.
            by_unit.retain(|_, m| m.values().any(|v| v.0 != "none"));
        }
        let mut people: Vec<String> = by_unit.values().flat_map(|m| m.keys().cloned()).collect();
        people.sort();
        people.dedup();
        let mut labels: Vec<String> = by_unit
            .values()
            .flat_map(|m| m.values().map(|v| v.0.clone()))
            .collect();
        labels.sort();
        labels.dedup();
        let code = |v: &str| labels.iter().position(|l| l == v).unwrap_or(0);

        let table = |value: &dyn Fn(&Value) -> Option<f64>| {
            by_unit
                .values()
                .map(|m| people.iter().map(|p| m.get(p).and_then(value)).collect())
                .collect::<Vec<Vec<Option<f64>>>>()
        };
        let nominal = table(&|v| Some(code(&v.0) as f64));
        let interval = numeric.then(|| table(&|v| v.1));

        let mut pairs = Vec::new();
        for (i, a) in people.iter().enumerate() {
            for b in &people[i + 1..] {
                let common: Vec<(&str, &str)> = by_unit
                    .values()
                    .filter_map(|m| Some((m.get(a)?.0.as_str(), m.get(b)?.0.as_str())))
                    .collect();
                if common.is_empty() {
                    continue;
                }
                if field == AgreementField::Box {
                    let ious: Vec<f64> = common.iter().filter_map(|(x, y)| box_iou(x, y)).collect();
                    pairs.push(PairAgreement {
                        a: a.clone(),
                        b: b.clone(),
                        items: common.len(),
                        cohen_kappa: None,
                        mean_iou: mean(&ious),
                        confusion: Vec::new(),
                    });
                    continue;
                }
                let xs: Vec<&str> = common.iter().map(|c| c.0).collect();
                let ys: Vec<&str> = common.iter().map(|c| c.1).collect();
                let mut confusion = vec![vec![0u64; labels.len()]; labels.len()];
                for (x, y) in &common {
                    confusion[code(x)][code(y)] += 1;
                }
                pairs.push(PairAgreement {
                    a: a.clone(),
                    b: b.clone(),
                    items: common.len(),
                    cohen_kappa: cohen_kappa(&xs, &ys),
                    mean_iou: None,
                    confusion,
                });
            }
        }

        if field == AgreementField::Box {
            // Every pair of people on every item, each pair of boxes counted once.
            let mut ious = Vec::new();
            for m in by_unit.values() {
                let boxes: Vec<&str> = m.values().map(|v| v.0.as_str()).collect();
                for (i, x) in boxes.iter().enumerate() {
                    for y in &boxes[i + 1..] {
                        ious.extend(box_iou(x, y));
                    }
                }
            }
            return Ok(Agreement {
                field,
                items: by_unit.len(),
                people,
                labels: Vec::new(),
                pairs,
                fleiss_kappa: None,
                fleiss_items: 0,
                fleiss_raters: 0,
                krippendorff_alpha: None,
                krippendorff_alpha_interval: None,
                krippendorff_alpha_masi: None,
                mean_iou: mean(&ious),
                blind,
            });
        }

        // Fleiss needs the same number of ratings per unit: take the most common number.
        let mut sizes: BTreeMap<usize, usize> = BTreeMap::new();
        for m in by_unit.values() {
            *sizes.entry(m.len()).or_default() += 1;
        }
        let raters = sizes
            .iter()
            .max_by_key(|(size, n)| (**n, **size))
            .map(|(size, _)| *size)
            .unwrap_or(0);
        let fleiss_table: Vec<Vec<u64>> = by_unit
            .values()
            .filter(|m| m.len() == raters)
            .map(|m| {
                let mut row = vec![0u64; labels.len()];
                for v in m.values() {
                    row[code(&v.0)] += 1;
                }
                row
            })
            .collect();

        Ok(Agreement {
            field,
            items: by_unit.len(),
            people,
            labels: labels.clone(),
            pairs,
            fleiss_kappa: fleiss_kappa(&fleiss_table),
            fleiss_items: fleiss_table.len(),
            fleiss_raters: raters,
            krippendorff_alpha: krippendorff_alpha_nominal(&nominal),
            krippendorff_alpha_interval: interval.as_deref().and_then(krippendorff_alpha_interval),
            krippendorff_alpha_masi: matches!(field, AgreementField::Tags | AgreementField::Phase1)
                .then(|| {
                    let sets: Vec<BTreeSet<&str>> = labels.iter().map(|l| label_set(l)).collect();
                    krippendorff_alpha_with(&nominal, |a, b| {
                        masi_distance(&sets[a as usize], &sets[b as usize])
                    })
                })
                .flatten(),
            mean_iou: None,
            blind,
        })
    }
}

/// The IoU of two boxes stored as JSON (a `BBox`, or a `LabeledBox` with its corners); a box
/// against "none" (one person drew none) is 0, two "none"s are no pair.
fn box_iou(a: &str, b: &str) -> Option<f64> {
    match (a == "none", b == "none") {
        (true, true) => return None,
        (true, false) | (false, true) => return Some(0.0),
        _ => {}
    }
    let a: crate::model::BBox = serde_json::from_str(a).ok()?;
    let b: crate::model::BBox = serde_json::from_str(b).ok()?;
    Some(a.iou(&b))
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The set a set-valued label ("none", or names joined by "+") stands for.
fn label_set(label: &str) -> BTreeSet<&str> {
    if label == "none" {
        return BTreeSet::new();
    }
    label.split('+').collect()
}

/// A set of issue tags as one nominal value ("none" when empty).
fn tag_label(bits: i64) -> String {
    let tags = IssueTag::from_bits(bits);
    if tags.is_empty() {
        return "none".into();
    }
    let mut names: Vec<&str> = tags.iter().map(|t| t.as_str()).collect();
    names.sort_unstable();
    names.join("+")
}
