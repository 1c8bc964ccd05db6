//! Judge panels: several judges' verdicts on one run's stored responses (`panel_judgements`),
//! apart from the run's own results.

use rusqlite::params;

use crate::error::Result;
use crate::model::ItemContent;
use crate::store::{now, Project};

/// A stored response a judge has not given a verdict on yet.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelTodo {
    pub item_id: i64,
    pub item_rev: i64,
    pub response_key: String,
    pub content: ItemContent,
    pub response: String,
}

/// One judge's verdict on one response.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelJudgement {
    pub run_id: i64,
    pub item_id: i64,
    pub item_rev: i64,
    pub response_key: String,
    pub scorer: String,
    pub judge: String,
    /// "scored", "unparsed", "error" or "exact" (identification's exact matches, not asked).
    pub outcome: String,
    pub score: Option<f64>,
    pub evidence: Option<String>,
    pub judge_key: Option<String>,
}

/// A verdict that still matches the run's response for the item.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelRow {
    pub item_id: i64,
    pub ext_id: String,
    pub judge: String,
    pub outcome: String,
    pub score: Option<f64>,
    pub evidence: Option<String>,
}

impl Project {
    /// The run's stored responses (not errors) without a verdict by `judge` under `scorer`
    /// for that very response and revision; a verdict that failed is asked again.
    pub fn panel_todo(&self, run_id: i64, scorer: &str, judge: &str) -> Result<Vec<PanelTodo>> {
        let mut st = self.conn.prepare(
            "SELECT ri.item_id, ri.item_rev, ri.cache_key, revision_json(rv.content), resp.text FROM run_items ri
             JOIN revisions rv ON rv.item_id = ri.item_id AND rv.rev = ri.item_rev
             JOIN responses resp ON resp.cache_key = ri.cache_key
             WHERE ri.run_id = ?1 AND ri.outcome <> 'error'
               AND NOT EXISTS (SELECT 1 FROM panel_judgements pj
                   WHERE pj.run_id = ri.run_id AND pj.item_id = ri.item_id AND pj.scorer = ?2
                     AND pj.judge = ?3 AND pj.response_key = ri.cache_key
                     AND pj.item_rev = ri.item_rev AND pj.outcome <> 'error')
             ORDER BY ri.item_id",
        )?;
        let rows = st.query_map(params![run_id, scorer, judge], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (item_id, item_rev, response_key, json, response) = row?;
            out.push(PanelTodo {
                item_id,
                item_rev,
                response_key,
                content: crate::store::items::parse_content(&json)?,
                response,
            });
        }
        Ok(out)
    }

    pub fn write_panel_judgement(&self, j: &PanelJudgement) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO panel_judgements
               (run_id, item_id, item_rev, response_key, scorer, judge, outcome, score, evidence, judge_key, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                j.run_id,
                j.item_id,
                j.item_rev,
                j.response_key,
                j.scorer,
                j.judge,
                j.outcome,
                j.score,
                j.evidence,
                j.judge_key,
                now()
            ],
        )?;
        Ok(())
    }

    /// Every verdict under `scorer` that matches the run's current response, by item then judge.
    pub fn panel_rows(&self, run_id: i64, scorer: &str) -> Result<Vec<PanelRow>> {
        let mut st = self.conn.prepare(
            "SELECT pj.item_id, i.ext_id, pj.judge, pj.outcome, pj.score, pj.evidence
             FROM panel_judgements pj
             JOIN run_items ri ON ri.run_id = pj.run_id AND ri.item_id = pj.item_id
                               AND ri.cache_key = pj.response_key AND ri.item_rev = pj.item_rev
             JOIN items i ON i.id = pj.item_id
             WHERE pj.run_id = ?1 AND pj.scorer = ?2
             ORDER BY i.seq, pj.judge",
        )?;
        let rows = st.query_map(params![run_id, scorer], |r| {
            Ok(PanelRow {
                item_id: r.get(0)?,
                ext_id: r.get(1)?,
                judge: r.get(2)?,
                outcome: r.get(3)?,
                score: r.get(4)?,
                evidence: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}
