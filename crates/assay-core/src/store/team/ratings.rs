//! People's ratings of a judge between replicas: a rating names the run snapshot the team holds
//! (`origin@finished_at`), the item by the revision the judge decided on, and the response by its
//! team key (a pulled response is kept here as `team:AUTHOR:KEY`; the team knows it as `KEY`).

use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Role;
use crate::store::evaluation::judge_ratings::{insert_rating, RatingRow};
use crate::store::team::sync::{adopt_uid, revision_by_uid};
use crate::store::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncJudgeRating {
    pub uid: String,
    /// The run snapshot, `origin@finished_at`.
    pub snapshot: String,
    pub ext_id: String,
    pub revision_uid: String,
    pub response_key: Option<String>,
    /// The judge's score the rating was of.
    pub judge_score: Option<f64>,
    pub rating: i32,
    pub note: Option<String>,
    pub author: String,
    pub created_at: String,
}

/// A response's key as the team knows it: a response pulled with `author`'s run is kept here
/// as `team:AUTHOR:KEY` (`sync_runs::apply_pulled_run`).
fn team_key(local: &str, author: Option<&str>) -> String {
    let prefix = format!("team:{}:", author.unwrap_or("owner"));
    local.strip_prefix(&prefix).unwrap_or(local).to_string()
}

impl Project {
    /// Ratings made here not yet in the team, of runs whose current state the team holds (a
    /// rating of a state not yet published waits for it).
    pub fn pending_judge_ratings(&self) -> Result<Vec<SyncJudgeRating>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(
            "SELECT s.uid, sr.origin || '@' || sr.snapshot, i.ext_id, vs.uid, jr.response_key,
                    jr.rating, jr.note, u.name, jr.created_at, jr.judge_score, sr.author
             FROM sync_uids s JOIN judge_ratings jr ON jr.id = s.local_id
             JOIN runs r ON r.id = jr.run_id
             JOIN sync_runs sr ON sr.run_id = jr.run_id
             JOIN items i ON i.id = jr.item_id
             JOIN revisions rv ON rv.item_id = jr.item_id AND rv.rev = jr.item_rev
             JOIN sync_uids vs ON vs.tbl = 'revisions' AND vs.local_id = rv.id
             JOIN users u ON u.id = jr.author_id
             WHERE s.tbl = 'judge_ratings' AND s.pushed = 0
               AND sr.seq IS NOT NULL AND sr.snapshot IS r.finished_at
             ORDER BY jr.id",
        )?;
        let rows = st.query_map([], |r| {
            let run_author: Option<String> = r.get(10)?;
            Ok(SyncJudgeRating {
                uid: r.get(0)?,
                snapshot: r.get(1)?,
                ext_id: r.get(2)?,
                revision_uid: r.get(3)?,
                response_key: r
                    .get::<_, Option<String>>(4)?
                    .map(|k| team_key(&k, run_author.as_deref())),
                rating: r.get(5)?,
                note: r.get(6)?,
                author: r.get(7)?,
                created_at: r.get(8)?,
                judge_score: r.get(9)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// A rating pulled from the team, on this replica's copy of the run; its response key is
    /// this replica's name for the same response when the run's result still has it.
    pub fn apply_pulled_judge_rating(&mut self, g: &SyncJudgeRating, seq: i64) -> Result<bool> {
        if self.mark_known("judge_ratings", &g.uid, seq, Some(&g.author))? {
            return Ok(false);
        }
        if !(1..=5).contains(&g.rating) {
            return Err(Error::Invalid(format!("rating {}: not 1 to 5", g.uid)));
        }
        let origin = g
            .snapshot
            .rsplit_once('@')
            .map(|(o, _)| o)
            .ok_or_else(|| Error::Invalid(format!("rating {}: no run snapshot", g.uid)))?;
        let author = self.ensure_user(&g.author, Role::Annotator)?;
        let tx = self.conn.savepoint()?;
        let (run_id, run_author): (i64, Option<String>) = tx
            .prepare_cached("SELECT run_id, author FROM sync_runs WHERE origin = ?1")?
            .query_row([origin], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("run {origin}")))?;
        let (item_id, rev) = revision_by_uid(&tx, &g.revision_uid)?;
        let local_key: Option<String> = tx
            .prepare_cached("SELECT cache_key FROM run_items WHERE run_id = ?1 AND item_id = ?2")?
            .query_row([run_id, item_id], |r| r.get(0))
            .optional()?
            .flatten();
        let key = match (&local_key, &g.response_key) {
            (Some(local), Some(team)) if team_key(local, run_author.as_deref()) == *team => {
                Some(local.clone())
            }
            (_, team) => team.clone(),
        };
        let id = insert_rating(
            &tx,
            &RatingRow {
                run_id,
                item_id,
                item_rev: rev,
                response_key: key.as_deref(),
                judge_score: g.judge_score,
                rating: g.rating as u8,
                note: g.note.as_deref(),
                author_id: author.id,
                created_at: &g.created_at,
            },
        )?;
        adopt_uid(&tx, "judge_ratings", id, &g.uid, seq)?;
        tx.commit()?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn team_keys_drop_the_pulled_prefix() {
        assert_eq!(super::team_key("abc", None), "abc");
        assert_eq!(
            super::team_key("team:aiko:recorded:1:5", Some("aiko")),
            "recorded:1:5"
        );
        assert_eq!(super::team_key("team:owner:k", None), "k");
    }
}
