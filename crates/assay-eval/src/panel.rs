//! Judge panels (HAERAE-Vision validates its checklist judge this way): several judges score the
//! same stored responses of a run, with no model request sent again; their agreement is
//! reported per pair (Pearson and Spearman of the item scores), over all judges
//! (Krippendorff's alpha, interval), per checklist criterion, and as the items where they
//! disagree most. Verdicts are kept apart from the run's results (`panel_judgements`), so
//! the run's own numbers never change by being judged again, and go through the response
//! cache like every judge call.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::cancel::CancelToken;
use crate::error::{EvalError, Result};
use crate::judging::{ask_judge, JudgeAsk, JudgeSummary};
use crate::prompt::Variant;
use crate::scorers::{judge, ScoreContext, ScorerKind};
use assay_core::stats::{krippendorff_alpha_interval, pearson, spearman};
use assay_core::store::PanelJudgement;
use assay_core::Project;

/// Asks each judge about every response of `run_id` it has no verdict on yet; returns one
/// summary per judge. Identification asks only about names that are not an exact match (the
/// others score 1 for every judge, as the scorer does).
pub async fn judge_panel(
    project: &Project,
    run_id: i64,
    scorer: ScorerKind,
    judges: &[String],
    cancel: CancelToken,
) -> Result<Vec<(String, JudgeSummary)>> {
    if !scorer.uses_judge() {
        return Err(EvalError::Config(format!(
            "scorer {} does not use a judge; a panel compares judge scorers (judge, checklist_judge, rating, identification, crag_qa)",
            scorer.as_str()
        )));
    }
    if judges.is_empty() {
        return Err(EvalError::Config("a panel needs at least one judge".into()));
    }
    let run = project.run(run_id)?;
    let variant = Variant::parse(&run.variant).unwrap_or(Variant::Original);
    let mut out = Vec::new();
    for name in judges {
        let judge_model = crate::trust::model_for_requests(project, name)?;
        judge_model.config.validate()?;
        let todo = project.panel_todo(run_id, scorer.as_str(), name)?;
        let mut summary = JudgeSummary {
            run_id,
            ..Default::default()
        };
        let mut asks = Vec::new();
        let mut pending = BTreeMap::new();
        for t in todo {
            let question = variant
                .question(&t.content)
                .map_or(t.content.question.clone(), |q| q.0.into_owned());
            if let Some(rule) = scorer.local().filter(|_| scorer.exact_then_judge()) {
                let local = rule.score(&t.content, &t.response, &ScoreContext::default());
                if local.evidence["needs_judge"] != true {
                    // An exact match (or an item without a name) needs no judge: recorded
                    // as such and left out of the agreement, where it would only add
                    // agreement no judge gave.
                    let mut w = local.clone();
                    if local.score.is_some() {
                        w.evidence["exact"] = serde_json::json!(true);
                    }
                    write(project, run_id, &t, scorer, name, &w, None)?;
                    continue;
                }
                let pred = local.parsed.clone().unwrap_or_default();
                let (system, text) = scorer.miss_request(&question, &t.content, &pred);
                asks.push(JudgeAsk {
                    item_id: t.item_id,
                    system,
                    text,
                });
                pending.insert(t.item_id, (t, Some(local)));
                continue;
            }
            let (system, text) = judge::judge_request(scorer, &question, &t.content, &t.response);
            asks.push(JudgeAsk {
                item_id: t.item_id,
                system,
                text,
            });
            pending.insert(t.item_id, (t, None));
        }
        ask_judge(
            project,
            &judge_model,
            asks,
            run.run_index as u32,
            &cancel,
            |project, item_id, key, reply| {
                let Some((t, local)) = pending.get(&item_id) else {
                    return Ok(());
                };
                let scored = match reply {
                    Ok((raw, from_cache)) => {
                        summary.from_cache += usize::from(from_cache);
                        summary.judged += 1;
                        let s = match local {
                            Some(l) => scorer.miss_judged(l, &raw, name),
                            None => judge::parse_judge(scorer, &raw, &t.content),
                        };
                        if s.score.is_none() {
                            summary.unparsed += 1;
                        }
                        s
                    }
                    Err(e) => {
                        summary.errors += 1;
                        let j = PanelJudgement {
                            run_id,
                            item_id,
                            item_rev: t.item_rev,
                            response_key: t.response_key.clone(),
                            scorer: scorer.as_str().into(),
                            judge: name.clone(),
                            outcome: "error".into(),
                            score: None,
                            evidence: Some(serde_json::json!({ "error": e }).to_string()),
                            judge_key: Some(key.to_string()),
                        };
                        return Ok(project.write_panel_judgement(&j)?);
                    }
                };
                write(project, run_id, t, scorer, name, &scored, Some(key))
            },
        )
        .await?;
        out.push((name.clone(), summary));
    }
    Ok(out)
}

fn write(
    project: &Project,
    run_id: i64,
    t: &assay_core::store::PanelTodo,
    scorer: ScorerKind,
    judge: &str,
    s: &crate::scorers::Scored,
    judge_key: Option<&str>,
) -> Result<()> {
    let outcome = if s.evidence["exact"] == true {
        "exact"
    } else if s.score.is_some() {
        "scored"
    } else {
        "unparsed"
    };
    project.write_panel_judgement(&PanelJudgement {
        run_id,
        item_id: t.item_id,
        item_rev: t.item_rev,
        response_key: t.response_key.clone(),
        scorer: scorer.as_str().into(),
        judge: judge.into(),
        outcome: outcome.into(),
        score: s.score,
        evidence: Some(s.evidence.to_string()),
        judge_key: judge_key.map(String::from),
    })?;
    Ok(())
}

/// Agreement of two judges over the items both scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairAgreement {
    pub a: String,
    pub b: String,
    pub items: usize,
    pub pearson: Option<f64>,
    pub spearman: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionAgreement {
    /// 1-based position of the criterion in the item's checklist.
    pub criterion: usize,
    pub items: usize,
    pub alpha_interval: Option<f64>,
}

/// An item the judges scored apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    pub item_id: i64,
    pub ext_id: String,
    /// One per judge, in the report's judge order; None where that judge has no score.
    pub scores: Vec<Option<f64>>,
    /// Highest minus lowest score.
    pub spread: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PanelReport {
    pub run_id: i64,
    pub scorer: String,
    pub judges: Vec<String>,
    /// Items at least one judge gave a verdict on.
    pub items: usize,
    /// Identification's exact matches: scored 1 without a judge, not in the figures.
    pub exact: usize,
    pub pairs: Vec<PairAgreement>,
    /// Krippendorff's alpha (interval) over every judge and item.
    pub alpha_interval: Option<f64>,
    /// Checklist judges: agreement on each criterion's rating.
    pub criteria: Vec<CriterionAgreement>,
    /// Items by spread, widest first (spread > 0 only).
    pub disagreements: Vec<Disagreement>,
}

/// Pairwise Pearson and Spearman and Krippendorff's alpha (interval) of a judge x item score
/// matrix (None: no score).
pub fn panel_stats(
    judges: &[String],
    scores: &[Vec<Option<f64>>],
) -> (Vec<PairAgreement>, Option<f64>) {
    let mut pairs = Vec::new();
    for a in 0..judges.len() {
        for b in a + 1..judges.len() {
            let (x, y): (Vec<f64>, Vec<f64>) = scores[a]
                .iter()
                .zip(&scores[b])
                .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
                .unzip();
            let finite = |v: Option<f64>| v.filter(|r| r.is_finite());
            pairs.push(PairAgreement {
                a: judges[a].clone(),
                b: judges[b].clone(),
                items: x.len(),
                pearson: finite(pearson(&x, &y)),
                spearman: finite(spearman(&x, &y)),
            });
        }
    }
    let items = scores.first().map_or(0, Vec::len);
    let units: Vec<Vec<Option<f64>>> = (0..items)
        .map(|i| scores.iter().map(|j| j[i]).collect())
        .collect();
    let alpha = krippendorff_alpha_interval(&units).filter(|a| a.is_finite());
    (pairs, alpha)
}

/// The panel's agreement on `run_id` under `scorer`; `top` disagreements at most.
pub fn panel_report(
    project: &Project,
    run_id: i64,
    scorer: ScorerKind,
    top: usize,
) -> Result<PanelReport> {
    let all = project.panel_rows(run_id, scorer.as_str())?;
    let exact = all
        .iter()
        .filter(|r| r.outcome == "exact")
        .map(|r| r.item_id)
        .collect::<BTreeSet<_>>()
        .len();
    let rows: Vec<_> = all.into_iter().filter(|r| r.outcome != "exact").collect();
    let judges: Vec<String> = rows
        .iter()
        .map(|r| r.judge.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut items: Vec<(i64, String)> = Vec::new();
    for r in &rows {
        if items.last().is_none_or(|(id, _)| *id != r.item_id) {
            items.push((r.item_id, r.ext_id.clone()));
        }
    }
    let pos: BTreeMap<i64, usize> = items
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (*id, i))
        .collect();
    let jpos: BTreeMap<&str, usize> = judges
        .iter()
        .enumerate()
        .map(|(i, j)| (j.as_str(), i))
        .collect();
    let mut scores = vec![vec![None; items.len()]; judges.len()];
    // criterion -> judge -> item -> rating
    let mut ratings: BTreeMap<usize, Vec<Vec<Option<f64>>>> = BTreeMap::new();
    for r in &rows {
        let (j, i) = (jpos[r.judge.as_str()], pos[&r.item_id]);
        if r.outcome != "scored" {
            continue;
        }
        scores[j][i] = r.score;
        if scorer == ScorerKind::ChecklistJudge {
            let ev: serde_json::Value = r
                .evidence
                .as_deref()
                .and_then(|e| serde_json::from_str(e).ok())
                .unwrap_or_default();
            for (k, c) in ev["criteria"].as_array().into_iter().flatten().enumerate() {
                let m = ratings
                    .entry(k + 1)
                    .or_insert_with(|| vec![vec![None; items.len()]; judges.len()]);
                m[j][i] = c["rating"].as_f64();
            }
        }
    }
    let (pairs, alpha) = panel_stats(&judges, &scores);
    let criteria = ratings
        .into_iter()
        .map(|(criterion, m)| {
            let units: Vec<Vec<Option<f64>>> = (0..items.len())
                .map(|i| m.iter().map(|j| j[i]).collect::<Vec<_>>())
                .filter(|u| u.iter().filter(|v| v.is_some()).count() > 0)
                .collect();
            CriterionAgreement {
                criterion,
                items: units.len(),
                alpha_interval: krippendorff_alpha_interval(&units).filter(|a| a.is_finite()),
            }
        })
        .collect();
    let mut disagreements: Vec<Disagreement> = items
        .iter()
        .enumerate()
        .filter_map(|(i, (id, ext))| {
            let s: Vec<Option<f64>> = scores.iter().map(|j| j[i]).collect();
            let known: Vec<f64> = s.iter().flatten().copied().collect();
            let spread = known.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                - known.iter().copied().fold(f64::INFINITY, f64::min);
            (known.len() > 1 && spread > 0.0).then(|| Disagreement {
                item_id: *id,
                ext_id: ext.clone(),
                scores: s,
                spread,
            })
        })
        .collect();
    disagreements.sort_by(|a, b| {
        b.spread
            .partial_cmp(&a.spread)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.item_id.cmp(&b.item_id))
    });
    disagreements.truncate(top);
    Ok(PanelReport {
        run_id,
        scorer: scorer.as_str().into(),
        judges,
        items: items.len(),
        exact,
        pairs,
        alpha_interval: alpha,
        criteria,
        disagreements,
    })
}
