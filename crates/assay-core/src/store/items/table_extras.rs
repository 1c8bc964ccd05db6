//! The item table's columns that are not on the item itself, read for the rows on screen only:
//! who the item is dealt to in its latest round and whether they agree, and its score in chosen
//! runs.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::store::Project;

/// One item's round and run columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemExtras {
    pub item_id: i64,
    /// The people its latest round dealt it to.
    pub assignees: Vec<String>,
    /// Across those people (two or more): "agree" when all recorded the same operation since,
    /// "differ" when not, "pending" while some have not; None for one person or no round.
    pub agreement: Option<String>,
    /// Its score in each asked run, in the order asked (None: no result in that run).
    pub scores: Vec<Option<f64>>,
    /// Whether that result scored an older revision than the current one.
    pub stale: Vec<bool>,
}

impl Project {
    /// Round and run columns for `ids` (at most a few hundred: the rows on screen).
    pub fn table_extras(&self, ids: &[i64], runs: &[i64]) -> Result<Vec<ItemExtras>> {
        let ids_json = serde_json::to_string(&ids[..ids.len().min(2000)]).unwrap_or_default();
        let mut out: Vec<ItemExtras> = ids
            .iter()
            .take(2000)
            .map(|&item_id| ItemExtras {
                item_id,
                scores: vec![None; runs.len()],
                stale: vec![false; runs.len()],
                ..Default::default()
            })
            .collect();
        let at = |out: &mut Vec<ItemExtras>, id: i64| out.iter().position(|e| e.item_id == id);
        let mut st = self.conn.prepare_cached(
            "WITH latest AS (SELECT item_id, max(round_id) AS round_id FROM round_items
                             WHERE item_id IN (SELECT value FROM json_each(?1)) GROUP BY item_id),
                  dealt AS (SELECT ri.item_id, ri.user_id, ri.rev FROM round_items ri
                            JOIN latest l ON l.item_id = ri.item_id AND l.round_id = ri.round_id),
                  judged AS (SELECT d.item_id, d.user_id,
                                    (SELECT coalesce(r.op, '') FROM revisions r
                                     WHERE r.item_id = d.item_id AND r.author_id = d.user_id
                                       AND r.rev > d.rev ORDER BY r.rev DESC LIMIT 1) AS op
                             FROM dealt d)
             SELECT j.item_id, group_concat(u.name, char(10)), count(*), count(j.op),
                    count(DISTINCT j.op)
             FROM judged j JOIN users u ON u.id = j.user_id GROUP BY j.item_id",
        )?;
        let rows = st.query_map([&ids_json], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, i64>(4)?,
            ))
        })?;
        for row in rows {
            let (id, names, people, done, ops) = row?;
            if let Some(k) = at(&mut out, id) {
                let mut names: Vec<String> = names.split('\n').map(str::to_string).collect();
                names.sort();
                out[k].assignees = names;
                out[k].agreement = (people >= 2).then(|| {
                    if done < people {
                        "pending"
                    } else if ops == 1 {
                        "agree"
                    } else {
                        "differ"
                    }
                    .to_string()
                });
            }
        }
        if !runs.is_empty() {
            let runs_json = serde_json::to_string(runs).unwrap_or_default();
            let mut st = self.conn.prepare_cached(
                "SELECT ri.item_id, ri.run_id, CASE WHEN ri.outcome = 'error' THEN 0 ELSE ri.score END,
                        ri.item_rev != i.rev
                 FROM run_items ri JOIN items i ON i.id = ri.item_id
                 WHERE ri.item_id IN (SELECT value FROM json_each(?1))
                   AND ri.run_id IN (SELECT value FROM json_each(?2)) AND ri.outcome != 'skipped'",
            )?;
            let rows = st.query_map(params![ids_json, runs_json], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Option<f64>>(2)?,
                    r.get::<_, bool>(3)?,
                ))
            })?;
            for row in rows {
                let (id, run, score, stale) = row?;
                let (Some(k), Some(j)) = (at(&mut out, id), runs.iter().position(|r| *r == run))
                else {
                    continue;
                };
                out[k].scores[j] = score.or(Some(0.0));
                out[k].stale[j] = stale;
            }
        }
        Ok(out)
    }
}
