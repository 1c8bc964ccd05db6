//! People rating a judge's decisions, 1 (wrong) to 5 (right), as HAERAE-Vision validated its
//! checklist judge with human ratings (Pearson 0.82 with the judge). A sample of a run's judged
//! results is drawn by seed; each rating is a row with its author, tied to the response and
//! revision the judge decided on; the report correlates people's ratings with the judge's scores
//! and measures the raters' agreement.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::stats::{krippendorff_alpha_interval, pearson, spearman, SplitMix64};
use crate::store::items::Author;
use crate::store::{now, Project};

/// Scorers whose decisions a judge model made.
pub const JUDGED_SCORERS: [&str; 5] = [
    "judge",
    "checklist_judge",
    "rating",
    "identification",
    "crag_qa",
];

/// SQL over `ri` (run_items): a scored result a judge decided. CRAG-MM's exact matches (names
/// for identification, answers for QA; and their misses when no judge was asked) were decided
/// by the rule: their evidence says whether a judge was needed but names no `judge_model`.
const JUDGE_DECIDED: &str = "ri.outcome = 'scored'
    AND NOT (CASE WHEN json_valid(ri.evidence)
                  THEN json_type(ri.evidence, '$.needs_judge') IS NOT NULL
                       AND json_type(ri.evidence, '$.judge_model') IS NULL
                  ELSE 0 END)";

/// Whether a run's scorer (as stored: `identification+JUDGE` names its judge) is a judge's.
pub fn is_judged(scorer: &str) -> bool {
    let base = scorer.split('+').next().unwrap_or(scorer);
    JUDGED_SCORERS.contains(&base)
}

/// One judged result in a person's judge-review queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgeReviewEntry {
    pub item_id: i64,
    pub ext_id: String,
    pub question: String,
    pub reference: Option<String>,
    pub response: Option<String>,
    /// The judge's score (0-1) and what it wrote.
    pub score: Option<f64>,
    pub evidence: Option<String>,
    /// This person's rating of the decision, when they gave one.
    pub my_rating: Option<u8>,
}

/// Agreement of one rater with the judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RaterAgreement {
    pub name: String,
    pub items: usize,
    pub mean_rating: Option<f64>,
    pub pearson: Option<f64>,
    pub spearman: Option<f64>,
}

/// People's ratings of a run's judge against the judge's scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgeRatingReport {
    pub run_id: i64,
    /// Judged results rated by at least one person.
    pub items: usize,
    pub ratings: usize,
    /// The mean rating, and the share of ratings of 4 or 5 (the judge's decision found
    /// appropriate, as HAERAE-Vision's raters judged it).
    pub mean_rating: Option<f64>,
    pub appropriate: Option<f64>,
    /// Each item's mean rating against the judge's score.
    pub pearson: Option<f64>,
    pub spearman: Option<f64>,
    pub raters: Vec<RaterAgreement>,
    /// Krippendorff's alpha (interval) among the raters, over items two or more rated.
    pub raters_alpha: Option<f64>,
    pub raters_alpha_items: usize,
    /// People's verdicts against the judge's: agreement itself, where the correlations above
    /// only say that ratings rise with scores. None until a rating states a verdict.
    pub verdicts: Option<VerdictAgreement>,
}

/// A rating of 4 or 5 says the judge decided right, 1 or 2 that it decided wrong; a 3 says
/// neither and is left out. On a binary judge (every score 0 or 1) a rating is thus a person's
/// own verdict (the judge's, or its opposite), and agreement is Cohen's kappa between the two,
/// which a judge right only by always saying the same does not pass. Intervals are percentile
/// bootstraps over items (an item's ratings go together), `VERDICT_BOOTSTRAP` draws, seed 42.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct VerdictAgreement {
    /// Ratings that state a verdict, and the items they rate.
    pub ratings: usize,
    pub items: usize,
    /// The share of them that agree with the judge.
    pub accuracy: f64,
    pub accuracy_ci: Option<(f64, f64)>,
    /// Binary judges only: Cohen's kappa between the people's verdicts and the judge's.
    pub kappa: Option<f64>,
    pub kappa_ci: Option<(f64, f64)>,
    pub level: f64,
}

/// Bootstrap draws behind a verdict interval.
pub const VERDICT_BOOTSTRAP: usize = 2000;

/// (item, agrees, judge's score) for each rating that states a verdict.
fn verdict_agreement(rows: &[(i64, String, f64, f64)]) -> Option<VerdictAgreement> {
    let mut by_item: BTreeMap<i64, Vec<(bool, f64)>> = BTreeMap::new();
    for (item, _, rating, score) in rows {
        let agrees = match *rating {
            r if r >= 4.0 => true,
            r if r <= 2.0 => false,
            _ => continue,
        };
        by_item.entry(*item).or_default().push((agrees, *score));
    }
    if by_item.is_empty() {
        return None;
    }
    let binary = rows.iter().all(|r| r.3 == 0.0 || r.3 == 1.0);
    let measure = |items: &[&Vec<(bool, f64)>]| -> (f64, Option<f64>) {
        let pairs: Vec<&(bool, f64)> = items.iter().flat_map(|v| v.iter()).collect();
        let agree = pairs.iter().filter(|p| p.0).count() as f64 / pairs.len() as f64;
        let kappa = binary
            .then(|| {
                let label = |yes: bool| if yes { "right" } else { "wrong" };
                let judge: Vec<&str> = pairs.iter().map(|p| label(p.1 == 1.0)).collect();
                // Agreeing takes the judge's verdict; disagreeing, the other.
                let person: Vec<&str> = pairs.iter().map(|p| label((p.1 == 1.0) == p.0)).collect();
                crate::stats::cohen_kappa(&person, &judge)
            })
            .flatten();
        (agree, kappa)
    };
    let all: Vec<&Vec<(bool, f64)>> = by_item.values().collect();
    let (accuracy, kappa) = measure(&all);
    let mut rng = SplitMix64::new(42);
    let (mut accs, mut kappas) = (Vec::new(), Vec::new());
    for _ in 0..VERDICT_BOOTSTRAP {
        let draw: Vec<&Vec<(bool, f64)>> =
            (0..all.len()).map(|_| all[rng.below(all.len())]).collect();
        let (a, k) = measure(&draw);
        accs.push(a);
        kappas.extend(k);
    }
    let level = 0.95;
    // Draws where kappa is undefined (every verdict the same) are not a kappa of their own:
    // an interval from the rest would describe only the draws that happened to vary, so it
    // is given only when nearly all are defined (as the table's rho interval).
    let kappa_ci = (kappa.is_some() && kappas.len() * 20 >= VERDICT_BOOTSTRAP * 19)
        .then(|| crate::stats::percentile_interval(kappas, level))
        .flatten();
    Some(VerdictAgreement {
        ratings: all.iter().map(|v| v.len()).sum(),
        items: all.len(),
        accuracy,
        accuracy_ci: crate::stats::percentile_interval(accs, level),
        kappa,
        kappa_ci,
        level,
    })
}

/// (item, person, rating, judge's score) rows into the report (pure, so it is checked against
/// SciPy and krippendorff on a fixture).
pub fn rating_report(run_id: i64, rows: &[(i64, String, f64, f64)]) -> JudgeRatingReport {
    let mut by_item: BTreeMap<i64, (f64, BTreeMap<&str, f64>)> = BTreeMap::new();
    let mut by_person: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for (item, who, rating, score) in rows {
        by_item
            .entry(*item)
            .or_insert((*score, BTreeMap::new()))
            .1
            .insert(who, *rating);
        by_person.entry(who).or_default().push((*rating, *score));
    }
    let means: Vec<f64> = by_item
        .values()
        .map(|(_, m)| m.values().sum::<f64>() / m.len() as f64)
        .collect();
    let scores: Vec<f64> = by_item.values().map(|(s, _)| *s).collect();
    let people: Vec<&str> = by_person.keys().copied().collect();
    let units: Vec<Vec<Option<f64>>> = by_item
        .values()
        .filter(|(_, m)| m.len() >= 2)
        .map(|(_, m)| people.iter().map(|p| m.get(p).copied()).collect())
        .collect();
    let all: Vec<f64> = rows.iter().map(|r| r.2).collect();
    JudgeRatingReport {
        run_id,
        items: by_item.len(),
        ratings: rows.len(),
        mean_rating: crate::stats::mean(&all),
        appropriate: (!all.is_empty())
            .then(|| all.iter().filter(|r| **r >= 4.0).count() as f64 / all.len() as f64),
        pearson: pearson(&means, &scores),
        spearman: spearman(&means, &scores),
        raters: by_person
            .iter()
            .map(|(name, v)| {
                let r: Vec<f64> = v.iter().map(|x| x.0).collect();
                let s: Vec<f64> = v.iter().map(|x| x.1).collect();
                RaterAgreement {
                    name: name.to_string(),
                    items: v.len(),
                    mean_rating: crate::stats::mean(&r),
                    pearson: pearson(&r, &s),
                    spearman: spearman(&r, &s),
                }
            })
            .collect(),
        raters_alpha: if units.is_empty() {
            None
        } else {
            krippendorff_alpha_interval(&units)
        },
        raters_alpha_items: units.len(),
        verdicts: verdict_agreement(rows),
    }
}

/// Score intervals a judge-review sample is stratified by: [0, 0.2), [0.2, 0.4), …, [0.8, 1].
pub const STRATA: usize = 5;

/// The stratum of a judge's score (a score outside [0, 1] goes to the nearest end).
fn stratum(score: Option<f64>) -> usize {
    let s = score.unwrap_or(0.0).clamp(0.0, 1.0);
    ((s * STRATA as f64) as usize).min(STRATA - 1)
}

/// `size` of the (item, score) pairs, drawn with `seed`: the pairs are shuffled once, then each
/// stratum gives its share of `size` (the first `size % 5` strata one more) in shuffled order;
/// a stratum with fewer items than its share leaves the rest to the others, taken in shuffled
/// order, so a binary judge's sample is half 0s and half 1s where it can be. The result keeps
/// the shuffled order, so the strata come mixed.
pub fn stratified(mut scored: Vec<(i64, Option<f64>)>, size: usize, seed: u64) -> Vec<i64> {
    let mut rng = SplitMix64::new(seed);
    for i in (1..scored.len()).rev() {
        scored.swap(i, rng.below(i + 1));
    }
    let mut quota: Vec<usize> = (0..STRATA)
        .map(|k| size / STRATA + usize::from(k < size % STRATA))
        .collect();
    let mut taken = vec![false; scored.len()];
    let mut n = 0;
    for (i, (_, score)) in scored.iter().enumerate() {
        let k = stratum(*score);
        if quota[k] > 0 {
            quota[k] -= 1;
            taken[i] = true;
            n += 1;
        }
    }
    for t in taken.iter_mut() {
        if n >= size {
            break;
        }
        if !*t {
            *t = true;
            n += 1;
        }
    }
    scored
        .into_iter()
        .zip(taken)
        .filter(|(_, t)| *t)
        .map(|((id, _), _)| id)
        .collect()
}

impl Project {
    /// The run, checked to be scored by a judge.
    fn judged_run(&self, run_id: i64) -> Result<()> {
        let scorer: String = self
            .conn
            .query_row("SELECT scorer FROM runs WHERE id = ?1", [run_id], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("run {run_id}")))?;
        if !is_judged(&scorer) {
            return Err(Error::Invalid(format!(
                "run {run_id} is scored by {scorer}, not by a judge: there is no judge to rate"
            )));
        }
        Ok(())
    }

    /// A sample of `size` of the run's judged results, drawn with `seed` (the same seed draws
    /// the same sample for everyone, so several people rate the same decisions), stratified by
    /// the judge's score as HAERAE-Vision validated its judge (250 items, 50 per 0.2 interval):
    /// an equal share from each fifth of [0, 1] (see [`stratified`]).
    pub fn judge_review_sample(
        &self,
        run_id: i64,
        size: usize,
        seed: u64,
        viewer: &Author,
    ) -> Result<Vec<JudgeReviewEntry>> {
        self.judged_run(run_id)?;
        let mut st = self.conn.prepare(&format!(
            "SELECT ri.item_id, ri.score FROM run_items ri
             WHERE ri.run_id = ?1 AND {JUDGE_DECIDED} ORDER BY ri.item_id"
        ))?;
        let scored: Vec<(i64, Option<f64>)> = st
            .query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<std::result::Result<_, _>>()?;
        let ids = stratified(scored, size, seed);
        let mut one = self.conn.prepare(
            "SELECT i.ext_id, revision_json(rv.content), resp.text, ri.score, ri.evidence,
                    (SELECT jr.rating FROM judge_ratings jr WHERE jr.run_id = ri.run_id
                       AND jr.item_id = ri.item_id AND jr.author_id = ?3
                       AND jr.item_rev = ri.item_rev AND jr.response_key IS ri.cache_key
                       AND jr.judge_score IS ri.score
                     ORDER BY jr.id DESC LIMIT 1)
             FROM run_items ri JOIN items i ON i.id = ri.item_id
             JOIN revisions rv ON rv.item_id = ri.item_id AND rv.rev = ri.item_rev
             LEFT JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE ri.run_id = ?1 AND ri.item_id = ?2",
        )?;
        ids.into_iter()
            .map(|id| {
                let (ext_id, json, response, score, evidence, mine) =
                    one.query_row(params![run_id, id, viewer.user_id], |r| {
                        Ok((
                            r.get::<_, String>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, Option<f64>>(3)?,
                            r.get::<_, Option<String>>(4)?,
                            r.get::<_, Option<u8>>(5)?,
                        ))
                    })?;
                let content = crate::store::items::parse_content(&json)?;
                Ok(JudgeReviewEntry {
                    item_id: id,
                    ext_id,
                    question: content.question,
                    reference: content.answer,
                    response,
                    score,
                    evidence,
                    my_rating: mine,
                })
            })
            .collect()
    }

    /// Records `author`'s 1-5 rating of the judge's decision on the item in this run.
    pub fn rate_judge(
        &mut self,
        run_id: i64,
        item_id: i64,
        rating: u8,
        note: Option<&str>,
        author: &Author,
    ) -> Result<()> {
        if !(1..=5).contains(&rating) {
            return Err(Error::Invalid("a rating is 1 to 5".into()));
        }
        self.judged_run(run_id)?;
        let (rev, key, score): (i64, Option<String>, Option<f64>) = self
            .conn
            .query_row(
                &format!(
                    "SELECT item_rev, cache_key, score FROM run_items ri
                     WHERE ri.run_id = ?1 AND ri.item_id = ?2 AND {JUDGE_DECIDED}"
                ),
                [run_id, item_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "run {run_id} has no result of item {item_id} that its judge decided"
                ))
            })?;
        insert_rating(
            &self.conn,
            &RatingRow {
                run_id,
                item_id,
                item_rev: rev,
                response_key: key.as_deref(),
                judge_score: score,
                rating,
                note,
                author_id: author.user_id,
                created_at: &now(),
            },
        )?;
        Ok(())
    }

    /// Everyone's latest rating of each of the run's current judged results, with the judge's
    /// score, into the report.
    pub fn judge_rating_report(&self, run_id: i64) -> Result<JudgeRatingReport> {
        self.judged_run(run_id)?;
        let mut st = self.conn.prepare(&format!(
            "SELECT jr.item_id, u.name, jr.rating, ri.score FROM judge_ratings jr
             JOIN users u ON u.id = jr.author_id
             JOIN run_items ri ON ri.run_id = jr.run_id AND ri.item_id = jr.item_id
                              AND ri.item_rev = jr.item_rev AND ri.cache_key IS jr.response_key
                              AND ri.score IS jr.judge_score
             WHERE jr.run_id = ?1 AND {JUDGE_DECIDED} AND ri.score IS NOT NULL
               AND jr.id = (SELECT max(j2.id) FROM judge_ratings j2 WHERE j2.run_id = jr.run_id
                              AND j2.item_id = jr.item_id AND j2.author_id = jr.author_id)
             ORDER BY jr.item_id, u.name"
        ))?;
        let rows: Vec<(i64, String, f64, f64)> = st
            .query_map([run_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as f64, r.get(3)?))
            })?
            .collect::<std::result::Result<_, _>>()?;
        Ok(rating_report(run_id, &rows))
    }
}

/// One rating as stored (made here, or pulled from the team).
pub(crate) struct RatingRow<'a> {
    pub run_id: i64,
    pub item_id: i64,
    pub item_rev: i64,
    pub response_key: Option<&'a str>,
    pub judge_score: Option<f64>,
    pub rating: u8,
    pub note: Option<&'a str>,
    pub author_id: i64,
    pub created_at: &'a str,
}

pub(crate) fn insert_rating(conn: &rusqlite::Connection, r: &RatingRow<'_>) -> Result<i64> {
    conn.execute(
        "INSERT INTO judge_ratings (run_id, item_id, item_rev, response_key, judge_score, rating,
                                    note, author_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            r.run_id,
            r.item_id,
            r.item_rev,
            r.response_key,
            r.judge_score,
            r.rating,
            r.note,
            r.author_id,
            r.created_at
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

#[cfg(test)]
mod stratified_tests {
    use super::*;

    #[test]
    fn each_fifth_of_the_scores_gives_its_share() {
        // 100 items per fifth: 250 draws 50 from each, as HAERAE-Vision sampled.
        let scored: Vec<(i64, Option<f64>)> = (0..500)
            .map(|i| (i, Some((i % 5) as f64 * 0.2 + 0.1)))
            .collect();
        let ids = stratified(scored.clone(), 250, 9);
        assert_eq!(ids.len(), 250);
        for k in 0..5 {
            let n = ids.iter().filter(|id| *id % 5 == k).count();
            assert_eq!(n, 50, "stratum {k}");
        }
        assert_eq!(ids, stratified(scored.clone(), 250, 9), "the seed decides");
        assert_ne!(ids, stratified(scored, 250, 10));
        // A binary judge: the two ends share the sample; the middle's shares go to them.
        let binary: Vec<(i64, Option<f64>)> =
            (0..100).map(|i| (i, Some(f64::from(i % 2 == 0)))).collect();
        let ids = stratified(binary, 20, 1);
        assert_eq!(ids.len(), 20);
        let ones = ids.iter().filter(|id| *id % 2 == 0).count();
        assert!((4..=16).contains(&ones), "{ones} of 20 are 1s");
        // 1.0 is in the top fifth; fewer items than asked: all of them.
        assert_eq!(stratum(Some(1.0)), 4);
        assert_eq!(stratum(Some(0.2)), 1);
        assert_eq!(stratified(vec![(1, Some(0.5)), (2, None)], 10, 3).len(), 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference values in tests/fixtures/stats/judge_ratings.json come from SciPy
    /// (pearsonr, spearmanr) and krippendorff (interval); make_judge_rating_fixtures.py.
    #[test]
    fn the_report_matches_scipy_and_krippendorff() {
        let text = include_str!("../../../../../tests/fixtures/stats/judge_ratings.json");
        let f: serde_json::Value = serde_json::from_str(text).unwrap();
        let rows = fixture_rows(&f["rows"]);
        let got = rating_report(1, &rows);
        let close = |a: Option<f64>, b: &serde_json::Value, what: &str| {
            let (a, b) = (a.unwrap(), b.as_f64().unwrap());
            assert!((a - b).abs() < 1e-9, "{what}: {a} vs {b}");
        };
        close(got.pearson, &f["pearson"], "pearson");
        close(got.spearman, &f["spearman"], "spearman");
        close(got.raters_alpha, &f["alpha"], "alpha");
        close(got.mean_rating, &f["mean_rating"], "mean rating");
        close(got.appropriate, &f["appropriate"], "share of 4 and 5");
        assert_eq!(got.items, f["items"].as_u64().unwrap() as usize);
        for r in &got.raters {
            let want = &f["raters"][&r.name];
            close(r.pearson, &want["pearson"], &format!("{} pearson", r.name));
            close(
                r.spearman,
                &want["spearman"],
                &format!("{} spearman", r.name),
            );
        }
        // A judge with graded scores has no verdict to put a kappa on; the share that agrees
        // is still there.
        let v = got.verdicts.expect("ratings state verdicts");
        assert!(v.kappa.is_none());
        let stated: Vec<f64> = rows.iter().map(|r| r.2).filter(|r| *r != 3.0).collect();
        let agree = stated.iter().filter(|r| **r >= 4.0).count() as f64 / stated.len() as f64;
        assert!((v.accuracy - agree).abs() < 1e-12);
    }

    /// (item, person, rating, judge's score) rows as the fixture lists them.
    fn fixture_rows(v: &serde_json::Value) -> Vec<(i64, String, f64, f64)> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r[0].as_i64().unwrap(),
                    r[1].as_str().unwrap().to_string(),
                    r[2].as_f64().unwrap(),
                    r[3].as_f64().unwrap(),
                )
            })
            .collect()
    }

    /// scikit-learn's `cohen_kappa_score` between the people's verdicts and a binary judge's
    /// (the fixture's `binary` part).
    #[test]
    fn verdict_kappa_on_a_binary_judge_matches_scikit_learn() {
        let text = include_str!("../../../../../tests/fixtures/stats/judge_ratings.json");
        let f: serde_json::Value = serde_json::from_str(text).unwrap();
        let b = &f["binary"];
        let rows = fixture_rows(&b["rows"]);
        let v = rating_report(1, &rows).verdicts.unwrap();
        assert_eq!(v.ratings, b["ratings"].as_u64().unwrap() as usize);
        assert_eq!(v.items, b["items"].as_u64().unwrap() as usize);
        assert!((v.accuracy - b["accuracy"].as_f64().unwrap()).abs() < 1e-12);
        let k = v.kappa.unwrap();
        assert!((k - b["kappa"].as_f64().unwrap()).abs() < 1e-9, "{k}");
        let (lo, hi) = v.kappa_ci.unwrap();
        assert!(lo < k && k < hi, "{lo} {k} {hi}");
        let (alo, ahi) = v.accuracy_ci.unwrap();
        assert!(alo < v.accuracy && v.accuracy < ahi);
        assert_eq!(
            rating_report(1, &rows).verdicts,
            Some(v),
            "the same draws each time"
        );
    }

    /// A judge that says "right" every time, rated right nine times in ten: correlation has
    /// nothing to say (the judge's score never varies), the share agreeing looks high, and
    /// kappa shows the judge tells nothing apart.
    #[test]
    fn a_judge_that_always_says_the_same_agrees_by_chance_only() {
        let rows: Vec<(i64, String, f64, f64)> = (0..20)
            .map(|i| (i, "aiko".to_string(), if i < 18 { 5.0 } else { 1.0 }, 1.0))
            .collect();
        let r = rating_report(1, &rows);
        assert_eq!(r.pearson, None);
        let v = r.verdicts.unwrap();
        assert!((v.accuracy - 0.9).abs() < 1e-12);
        assert!(v.kappa.unwrap().abs() < 1e-12, "{:?}", v.kappa);
        // Only 3s: no verdict stated.
        let unsure = vec![(1, "aiko".to_string(), 3.0, 1.0)];
        assert_eq!(rating_report(1, &unsure).verdicts, None);
    }
}
