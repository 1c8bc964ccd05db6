//! Comment threads and rounds between replicas. Both are append-only here, so they travel like
//! revisions: by uid, items by their revision's uid, people by name.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Role;
use crate::store::team::sync::{adopt_uid, revision_by_uid};
use crate::store::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncComment {
    pub uid: String,
    /// The revision that was current when the comment was written.
    pub revision_uid: String,
    pub body: String,
    pub mentions: Vec<String>,
    pub author: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncRound {
    pub uid: String,
    pub name: String,
    pub purpose: String,
    pub overlap: f64,
    pub created_by: String,
    pub created_at: String,
    /// (person, revision uid the item was assigned at).
    pub assignments: Vec<(String, String)>,
    /// A blind round (`store::review::blind`).
    #[serde(default)]
    pub blind: bool,
}

/// One person's judgement in a blind round: the item by the revision it was assigned at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncBlind {
    pub uid: String,
    pub round_uid: String,
    pub revision_uid: String,
    pub author: String,
    /// The judgement as JSON (`BlindJudgement`).
    pub judgement: String,
    pub created_at: String,
    /// Every assignee's judgement of the item is in and the team drew the position it opened
    /// at. Read from the team's page only: never taken from a body a client sends.
    #[serde(default, skip_deserializing)]
    pub opened: bool,
}

impl SyncBlind {
    /// The blind hold on reading: a judgement is its author's alone until every assignee's is
    /// in. The team service checks each page it sends with this, whatever the database let
    /// through (its row-level security says the same, in depth).
    pub fn readable_by(&self, member: &str) -> bool {
        self.author == member || self.opened
    }
}

impl Project {
    pub fn pending_comments(&self) -> Result<Vec<SyncComment>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(
            "SELECT s.uid, rs.uid, c.body, u.name, c.created_at,
                    (SELECT group_concat(mu.name, char(31)) FROM comment_mentions m
                     JOIN users mu ON mu.id = m.user_id WHERE m.comment_id = c.id)
             FROM sync_uids s JOIN comments c ON c.id = s.local_id
             JOIN revisions r ON r.item_id = c.item_id AND r.rev = c.rev
             JOIN sync_uids rs ON rs.tbl = 'revisions' AND rs.local_id = r.id
             JOIN users u ON u.id = c.author_id
             WHERE s.tbl = 'comments' AND s.pushed = 0 ORDER BY c.id",
        )?;
        let rows = st.query_map([], |r| {
            let mentions: Option<String> = r.get(5)?;
            Ok(SyncComment {
                uid: r.get(0)?,
                revision_uid: r.get(1)?,
                body: r.get(2)?,
                author: r.get(3)?,
                created_at: r.get(4)?,
                mentions: mentions
                    .map(|m| m.split('\u{1f}').map(str::to_string).collect())
                    .unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    pub fn pending_rounds(&self) -> Result<Vec<SyncRound>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(
            "SELECT s.uid, r.id, r.name, r.purpose, r.overlap, u.name, r.created_at, r.blind
             FROM sync_uids s JOIN rounds r ON r.id = s.local_id JOIN users u ON u.id = r.created_by
             WHERE s.tbl = 'rounds' AND s.pushed = 0 ORDER BY r.id",
        )?;
        let heads: Vec<(i64, SyncRound)> = st
            .query_map([], |r| {
                Ok((
                    r.get(1)?,
                    SyncRound {
                        uid: r.get(0)?,
                        name: r.get(2)?,
                        purpose: r.get(3)?,
                        overlap: r.get(4)?,
                        created_by: r.get(5)?,
                        created_at: r.get(6)?,
                        assignments: Vec::new(),
                        blind: r.get(7)?,
                    },
                ))
            })?
            .collect::<std::result::Result<_, _>>()?;
        let mut items = self.conn.prepare_cached(
            "SELECT u.name, s.uid FROM round_items ri JOIN users u ON u.id = ri.user_id
             JOIN revisions r ON r.item_id = ri.item_id AND r.rev = ri.rev
             JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = r.id
             WHERE ri.round_id = ?1 ORDER BY ri.item_id, u.name",
        )?;
        heads
            .into_iter()
            .map(|(id, mut round)| {
                round.assignments = items
                    .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<std::result::Result<_, _>>()?;
                Ok(round)
            })
            .collect()
    }

    pub fn apply_pulled_comment(&mut self, c: &SyncComment, seq: i64) -> Result<bool> {
        if self.mark_known("comments", &c.uid, seq, Some(&c.author))? {
            return Ok(false);
        }
        let author = self.ensure_user(&c.author, Role::Annotator)?;
        let tx = self.conn.savepoint()?;
        let (item_id, rev) = revision_by_uid(&tx, &c.revision_uid)?;
        tx.prepare_cached(
            "INSERT INTO comments (item_id, rev, body, author_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![item_id, rev, c.body, author.id, c.created_at])?;
        let id = tx.last_insert_rowid();
        for name in &c.mentions {
            tx.prepare_cached(
                "INSERT OR IGNORE INTO comment_mentions (comment_id, user_id)
                 SELECT ?1, id FROM users WHERE name = ?2",
            )?
            .execute(params![id, name])?;
        }
        adopt_uid(&tx, "comments", id, &c.uid, seq)?;
        tx.commit()?;
        Ok(true)
    }

    pub fn apply_pulled_round(&mut self, r: &SyncRound, seq: i64) -> Result<bool> {
        if self.mark_known("rounds", &r.uid, seq, Some(&r.created_by))? {
            return Ok(false);
        }
        let lead = self.ensure_user(&r.created_by, Role::Annotator)?;
        if lead.role != Role::Auditor {
            return Err(Error::Forbidden(format!(
                "round {}: {} is not an auditor of the team",
                r.uid, r.created_by
            )));
        }
        for (who, _) in &r.assignments {
            self.ensure_user(who, Role::Annotator)?;
        }
        let tx = self.conn.savepoint()?;
        // Two leads may name rounds alike on their own machines: the later keeps its maker's name.
        let taken: Option<i64> = tx
            .prepare_cached("SELECT id FROM rounds WHERE name = ?1")?
            .query_row([&r.name], |x| x.get(0))
            .optional()?;
        let name = match taken {
            Some(_) => format!("{} ({})", r.name, r.created_by),
            None => r.name.clone(),
        };
        tx.prepare_cached(
            "INSERT INTO rounds (name, purpose, overlap, created_by, created_at, blind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            name,
            r.purpose,
            r.overlap,
            lead.id,
            r.created_at,
            r.blind
        ])?;
        let id = tx.last_insert_rowid();
        for (who, rev_uid) in &r.assignments {
            let (item_id, rev) = revision_by_uid(&tx, rev_uid)?;
            let user: i64 = tx
                .prepare_cached("SELECT id FROM users WHERE name = ?1")?
                .query_row([who], |x| x.get(0))
                .optional()?
                .ok_or_else(|| Error::NotFound(format!("user {who}")))?;
            tx.prepare_cached(
                "INSERT OR IGNORE INTO round_items (round_id, user_id, item_id, rev)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, user, item_id, rev])?;
        }
        crate::store::review::rounds::stand(&tx, id)?;
        adopt_uid(&tx, "rounds", id, &r.uid, seq)?;
        tx.commit()?;
        Ok(true)
    }

    /// This replica's judgements in blind rounds not yet in the team.
    pub fn pending_blind(&self) -> Result<Vec<SyncBlind>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(
            "SELECT s.uid, rs.uid, vs.uid, u.name, b.judgement, b.created_at
             FROM sync_uids s JOIN blind_annotations b ON b.id = s.local_id
             JOIN sync_uids rs ON rs.tbl = 'rounds' AND rs.local_id = b.round_id
             JOIN round_items ri ON ri.round_id = b.round_id AND ri.item_id = b.item_id
                                AND ri.user_id = b.user_id
             JOIN revisions r ON r.item_id = ri.item_id AND r.rev = ri.rev
             JOIN sync_uids vs ON vs.tbl = 'revisions' AND vs.local_id = r.id
             JOIN users u ON u.id = b.user_id
             WHERE s.tbl = 'blind_annotations' AND s.pushed = 0 ORDER BY b.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(SyncBlind {
                uid: r.get(0)?,
                round_uid: r.get(1)?,
                revision_uid: r.get(2)?,
                author: r.get(3)?,
                judgement: r.get(4)?,
                created_at: r.get(5)?,
                opened: false,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// A judgement pulled from the team, under the write path's rules for one
    /// (`write_path::blind::pulled`).
    pub fn apply_pulled_blind(&mut self, b: &SyncBlind, seq: i64) -> Result<bool> {
        if self.mark_known("blind_annotations", &b.uid, seq, Some(&b.author))? {
            return Ok(false);
        }
        let judgement: crate::store::review::blind::BlindJudgement =
            serde_json::from_str(&b.judgement)
                .map_err(|e| Error::Invalid(format!("judgement {}: {e}", b.uid)))?;
        let author = self.ensure_user(&b.author, Role::Annotator)?;
        let tx = self.conn.savepoint()?;
        let round_id: i64 = tx
            .prepare_cached("SELECT local_id FROM sync_uids WHERE tbl = 'rounds' AND uid = ?1")?
            .query_row([&b.round_uid], |r| r.get(0))
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("round {}", b.round_uid)))?;
        let (item_id, rev) = revision_by_uid(&tx, &b.revision_uid)?;
        let id = crate::store::write_path::blind::pulled(
            &tx,
            round_id,
            item_id,
            rev,
            author.id,
            &judgement,
            &b.created_at,
        )
        .map_err(|e| e.context(&format!("judgement {} by {}", b.uid, b.author)))?;
        adopt_uid(&tx, "blind_annotations", id, &b.uid, seq)?;
        tx.commit()?;
        Ok(true)
    }
}
