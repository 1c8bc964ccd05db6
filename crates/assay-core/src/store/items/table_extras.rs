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
        // The same definitions the list sorts by (`query::sort`), so a column and its order
        // never disagree.
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT items.id, {}, {} FROM items
             WHERE items.id IN (SELECT value FROM json_each(?1))",
            super::query::assignees_sql(),
            super::query::agreement_sql()
        ))?;
        let rows = st.query_map([&ids_json], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })?;
        for row in rows {
            let (id, names, agreement) = row?;
            if let Some(k) = at(&mut out, id) {
                let mut names: Vec<String> = names
                    .map(|n| n.split('\n').map(str::to_string).collect())
                    .unwrap_or_default();
                names.sort();
                out[k].assignees = names;
                out[k].agreement = agreement;
            }
        }
        if !runs.is_empty() {
            let runs_json = serde_json::to_string(runs).unwrap_or_default();
            let mut st = self.conn.prepare_cached(&format!(
                "SELECT s.item_id, s.run_id, {}, s.item_rev != i.rev
                 FROM run_items s JOIN items i ON i.id = s.item_id
                 WHERE s.item_id IN (SELECT value FROM json_each(?1))
                   AND s.run_id IN (SELECT value FROM json_each(?2)) AND s.outcome != 'skipped'",
                super::query::EFFECTIVE_SCORE
            ))?;
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
