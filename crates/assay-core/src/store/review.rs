//! Review and the auditor's final pass, enforced here so the CLI, the app and a team server
//! agree: nobody reviews or approves their own revision; only an auditor signs off an item, and
//! a signed-off item takes no edit until an auditor reopens it. Agreement between annotators is
//! measured in `agreement`.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::comments::insert_comment;
use super::items::{append_revision, current_content, Author, Edit};
use super::{now, Project};
use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemStatus, RefinementOp, Role};

crate::named_enum! {
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum ReviewDecision {
        Approve = "approve",
        RequestChanges = "request_changes",
    }
}

/// One review decision as stored (made here, or pulled from the team).
pub(crate) struct DecisionRow<'a> {
    pub item_id: i64,
    pub rev: i64,
    pub decision: &'a str,
    pub comment: Option<&'a str>,
    pub author_id: i64,
    pub created_at: &'a str,
    /// The revision the decision appended (its record on the item).
    pub made_rev: Option<i64>,
}

pub(crate) fn insert_decision(conn: &Connection, d: &DecisionRow<'_>) -> Result<()> {
    conn.execute(
        "INSERT INTO review_decisions (item_id, rev, decision, comment, author_id, created_at,
                                       made_rev)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            d.item_id,
            d.rev,
            d.decision,
            d.comment,
            d.author_id,
            d.created_at,
            d.made_rev
        ],
    )?;
    Ok(())
}

/// The user who made an item's current revision (None: the import).
pub(crate) fn current_author(conn: &Connection, item_id: i64) -> Result<Option<i64>> {
    conn.query_row(
        "SELECT r.author_id FROM items i JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
         WHERE i.id = ?1",
        [item_id],
        |r| r.get(0),
    )
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("item {item_id}")))
}

/// Whether `user_id` wrote the content an item has at `rev`: made a revision up to `rev` that
/// changed the item's content, operation or tags to exactly what they are at `rev`. A revision
/// that only changes the status (a review's record, a flag, a bulk "to do") writes nothing, and
/// an undo or restore that brings back someone's content leaves them its writer, so nobody
/// approves their own work because someone else touched the item last. (The same as the team's
/// `assay_wrote`.)
pub(crate) fn wrote_content(
    conn: &Connection,
    item_id: i64,
    rev: i64,
    user_id: i64,
) -> Result<bool> {
    let mut st = conn.prepare_cached(
        "WITH h AS (SELECT r.rev, r.author_id, revision_json(r.content) AS content, r.op, r.tags,
                           lag(revision_json(r.content)) OVER w AS p_content, lag(r.op) OVER w AS p_op,
                           lag(r.tags) OVER w AS p_tags, lag(r.rev) OVER w AS p_rev
                    FROM revisions r WHERE r.item_id = ?1 AND r.rev <= ?2
                    WINDOW w AS (ORDER BY r.rev)),
              cur AS (SELECT content, op, tags FROM h WHERE rev = ?2)
         SELECT EXISTS (SELECT 1 FROM h, cur
                        WHERE h.author_id = ?3
                          AND h.content = cur.content AND h.op IS cur.op AND h.tags = cur.tags
                          AND (h.p_rev IS NULL OR h.p_content != h.content
                               OR h.p_op IS NOT h.op OR h.p_tags != h.tags))",
    )?;
    Ok(st.query_row(params![item_id, rev, user_id], |r| r.get(0))?)
}

pub(crate) fn is_signed_off(conn: &Connection, item_id: i64) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT signed_off FROM items WHERE id = ?1",
        [item_id],
        |r| r.get(0),
    )?)
}

/// The role the store has for this user: the caller's claim is not enough.
pub(crate) fn stored_role(conn: &Connection, author: &Author) -> Result<Role> {
    let role: String = conn
        .query_row(
            "SELECT role FROM users WHERE id = ?1",
            [author.user_id],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("user {}", author.user_id)))?;
    Ok(Role::parse(&role).unwrap_or(Role::Annotator))
}

impl Project {
    /// A reviewer approves the current revision or asks for changes, with a comment. Refused on
    /// one's own revision; approving sets the status "approved", asking sets "flagged".
    pub fn review(
        &mut self,
        item_id: i64,
        decision: ReviewDecision,
        comment: Option<&str>,
        author: &Author,
    ) -> Result<i64> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if current_author(&tx, item_id)? == Some(author.user_id) {
            return Err(Error::Forbidden(
                "you cannot review your own revision; someone else must".into(),
            ));
        }
        let head: i64 = tx.query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
            r.get(0)
        })?;
        if decision == ReviewDecision::Approve && wrote_content(&tx, item_id, head, author.user_id)?
        {
            return Err(Error::Forbidden(
                "this is your work, unchanged since you made it: someone else must approve it"
                    .into(),
            ));
        }
        if is_signed_off(&tx, item_id)? {
            return Err(Error::Forbidden(format!(
                "item {item_id} is signed off; an auditor must reopen it"
            )));
        }
        let rev: i64 = tx.query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
            r.get(0)
        })?;
        // The thread carries the reviewer's words; asking for changes mentions whoever made the
        // revision, so it waits in their queue until they act.
        if let Some(text) = comment.filter(|c| !c.trim().is_empty()) {
            let owner = match decision {
                ReviewDecision::RequestChanges => current_author(&tx, item_id)?,
                ReviewDecision::Approve => None,
            };
            let body = format!("{}: {text}", decision.as_str().replace('_', " "));
            insert_comment(&tx, item_id, &body, owner.as_slice(), author)?;
        }
        let (op, tags): (Option<String>, i64) =
            tx.query_row("SELECT op, tags FROM items WHERE id = ?1", [item_id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
        let edit = Edit {
            base_rev: None,
            content: current_content(&tx, item_id)?,
            op: op.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(tags),
            status: match decision {
                ReviewDecision::Approve => ItemStatus::Approved,
                ReviewDecision::RequestChanges => ItemStatus::Flagged,
            },
            note: Some(match comment {
                Some(c) => format!("{}: {c}", decision.as_str().replace('_', " ")),
                None => decision.as_str().replace('_', " "),
            }),
        };
        let new_rev = append_revision(&tx, item_id, &edit, author)?;
        insert_decision(
            &tx,
            &DecisionRow {
                item_id,
                rev,
                decision: decision.as_str(),
                comment,
                author_id: author.user_id,
                created_at: &now(),
                made_rev: Some(new_rev),
            },
        )?;
        tx.commit()?;
        Ok(new_rev)
    }

    /// Items waiting for review that this person may review: edited, not signed off, and whose
    /// current revision someone else made.
    pub fn review_queue(&self, user_id: i64) -> Result<Vec<i64>> {
        Ok(self
            .review_entries(user_id)?
            .into_iter()
            .map(|e| e.item_id)
            .collect())
    }

    /// The review queue with each item's dataset and id, for lists.
    pub fn review_entries(&self, user_id: i64) -> Result<Vec<super::rounds::QueueEntry>> {
        let mut st = self.conn.prepare(
            "SELECT i.id, d.name, i.ext_id, i.status, 0 FROM items i
             JOIN datasets d ON d.id = i.dataset_id
             JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
             WHERE i.status = 'edited' AND i.signed_off = 0
               AND (r.author_id IS NULL OR r.author_id != ?1)
             ORDER BY i.id",
        )?;
        let rows = st.query_map([user_id], super::rounds::queue_entry)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// An auditor signs an item off (locking it) or reopens it. Only auditors may.
    pub fn sign_off(
        &mut self,
        item_id: i64,
        signed: bool,
        note: Option<&str>,
        author: &Author,
    ) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if stored_role(&tx, author)? != Role::Auditor {
            return Err(Error::Forbidden(
                "only an auditor can sign off or reopen an item".into(),
            ));
        }
        let rev: i64 = tx
            .query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
        tx.execute(
            "INSERT INTO signoffs (item_id, rev, signed, note, author_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![item_id, rev, signed, note, author.user_id, now()],
        )?;
        tx.execute(
            "UPDATE items SET signed_off = ?2 WHERE id = ?1",
            params![item_id, signed],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// An auditor signs off every item of a dataset not signed off yet, in one transaction;
    /// returns how many were signed. Only auditors may.
    pub fn sign_off_dataset(
        &mut self,
        dataset_id: i64,
        note: Option<&str>,
        author: &Author,
    ) -> Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if stored_role(&tx, author)? != Role::Auditor {
            return Err(Error::Forbidden(
                "only an auditor can sign off a dataset".into(),
            ));
        }
        let ts = now();
        let n = tx.execute(
            "INSERT INTO signoffs (item_id, rev, signed, note, author_id, created_at)
             SELECT id, rev, 1, ?2, ?3, ?4 FROM items WHERE dataset_id = ?1 AND signed_off = 0",
            params![dataset_id, note, author.user_id, ts],
        )?;
        tx.execute(
            "UPDATE items SET signed_off = 1 WHERE dataset_id = ?1",
            [dataset_id],
        )?;
        tx.commit()?;
        Ok(n)
    }

    /// Who signed off the items of a dataset that are signed off now: each auditor with the
    /// number of items whose latest sign-off is theirs, most first.
    pub fn sign_off_counts(&self, dataset_id: i64) -> Result<Vec<(String, i64)>> {
        let mut st = self.conn.prepare(
            "SELECT u.name, COUNT(*) FROM items i
             JOIN signoffs s ON s.id = (SELECT MAX(s2.id) FROM signoffs s2 WHERE s2.item_id = i.id)
             JOIN users u ON u.id = s.author_id
             WHERE i.dataset_id = ?1 AND i.signed_off = 1
             GROUP BY u.name ORDER BY COUNT(*) DESC, u.name",
        )?;
        let rows = st.query_map([dataset_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}
