//! Review decisions and sign-offs: a reviewer's verdict on a revision, and an auditor's final
//! pass that locks an item.

use rusqlite::{params, Connection, OptionalExtension};

use super::{revision, rules};
use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemStatus, RefinementOp};
use crate::store::items::{current_content, Author, Edit};
use crate::store::now;
use crate::store::review::comments::insert_comment;
use crate::store::review::ReviewDecision;

/// The user who made revision `rev` of an item (None: the import).
fn author_of(conn: &Connection, item_id: i64, rev: i64) -> Result<Option<i64>> {
    conn.prepare_cached("SELECT author_id FROM revisions WHERE item_id = ?1 AND rev = ?2")?
        .query_row(params![item_id, rev], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("revision {rev} of item {item_id}")))
}

/// The rules on a review of revision `rev`, made here or pulled: nobody reviews their own
/// revision, and nobody approves work of their own ([`rules::wrote_work`]).
fn check_review(
    conn: &Connection,
    item_id: i64,
    rev: i64,
    decision: &str,
    comment: Option<&str>,
    user_id: i64,
) -> Result<()> {
    let decision = ReviewDecision::parse(decision)
        .ok_or_else(|| Error::Invalid(format!("a review decision {decision:?}")))?;
    rules::check_comment(comment)?;
    if author_of(conn, item_id, rev)? == Some(user_id) {
        return Err(Error::Forbidden(
            "you cannot review your own revision; someone else must".into(),
        ));
    }
    if decision == ReviewDecision::Approve {
        rules::refuse_own_work(conn, item_id, rev, user_id)?;
    }
    Ok(())
}

/// A reviewer approves the current revision or asks for changes, with a comment: the
/// decision, its record on the item (a revision "approved" or "flagged") and the comment in the
/// item's thread, which mentions whoever made the revision when changes are asked.
pub(crate) fn review(
    conn: &Connection,
    item_id: i64,
    decision: ReviewDecision,
    comment: Option<&str>,
    author: &Author,
) -> Result<i64> {
    let (rev, op, tags): (i64, Option<String>, i64) = conn
        .prepare_cached("SELECT rev, op, tags FROM items WHERE id = ?1")?
        .query_row([item_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
    check_review(
        conn,
        item_id,
        rev,
        decision.as_str(),
        comment,
        author.user_id,
    )?;
    // The sign-off lock is met by the record appended below (the transaction undoes the comment).
    let said = decision.as_str().replace('_', " ");
    if let Some(text) = comment.filter(|c| !c.trim().is_empty()) {
        let owner = match decision {
            ReviewDecision::RequestChanges => author_of(conn, item_id, rev)?,
            ReviewDecision::Approve => None,
        };
        insert_comment(
            conn,
            item_id,
            &format!("{said}: {text}"),
            owner.as_slice(),
            author,
        )?;
    }
    let edit = Edit {
        base_rev: None,
        content: current_content(conn, item_id)?,
        op: op.as_deref().and_then(RefinementOp::parse),
        tags: IssueTag::from_bits(tags),
        status: match decision {
            ReviewDecision::Approve => ItemStatus::Approved,
            ReviewDecision::RequestChanges => ItemStatus::Flagged,
        },
        note: Some(match comment {
            Some(c) => format!("{said}: {c}"),
            None => said,
        }),
    };
    let made = revision::append(conn, item_id, &edit, author)?;
    insert_decision(
        conn,
        &DecisionRow {
            item_id,
            rev,
            decision: decision.as_str(),
            comment,
            user_id: author.user_id,
            created_at: &now(),
            made_rev: Some(made),
        },
    )?;
    Ok(made)
}

/// One review decision as stored: on revision `rev`, recorded on the item by `made_rev`.
pub(crate) struct DecisionRow<'a> {
    pub item_id: i64,
    pub rev: i64,
    pub decision: &'a str,
    pub comment: Option<&'a str>,
    pub user_id: i64,
    pub created_at: &'a str,
    pub made_rev: Option<i64>,
}

/// A review decision pulled from the team; returns its row id. The same rules as a review made
/// here.
pub(crate) fn pulled_review(conn: &Connection, d: &DecisionRow<'_>) -> Result<i64> {
    check_review(conn, d.item_id, d.rev, d.decision, d.comment, d.user_id)?;
    insert_decision(conn, d)
}

fn insert_decision(conn: &Connection, d: &DecisionRow<'_>) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO review_decisions (item_id, rev, decision, comment, author_id, created_at,
                                       made_rev)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        d.item_id,
        d.rev,
        d.decision,
        d.comment,
        d.user_id,
        d.created_at,
        d.made_rev
    ])?;
    Ok(conn.last_insert_rowid())
}

/// An auditor signs an item off at its current revision (locking it) or reopens it.
pub(crate) fn sign_off(
    conn: &Connection,
    item_id: i64,
    signed: bool,
    note: Option<&str>,
    author: &Author,
) -> Result<()> {
    rules::require_auditor(conn, author.user_id, "sign off or reopen an item")?;
    rules::check_note("note", note)?;
    let rev: i64 = conn
        .prepare_cached("SELECT rev FROM items WHERE id = ?1")?
        .query_row([item_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
    insert_signoff(
        conn,
        &SignoffRow {
            item_id,
            rev,
            signed,
            note,
            user_id: author.user_id,
            created_at: &now(),
        },
    )?;
    Ok(())
}

/// An auditor signs off every item of a dataset not signed off yet; returns how many.
pub(crate) fn sign_off_dataset(
    conn: &Connection,
    dataset_id: i64,
    note: Option<&str>,
    author: &Author,
) -> Result<usize> {
    rules::require_auditor(conn, author.user_id, "sign off a dataset")?;
    rules::check_note("note", note)?;
    let ts = now();
    let n = conn
        .prepare_cached(
            "INSERT INTO signoffs (item_id, rev, signed, note, author_id, created_at)
         SELECT id, rev, 1, ?2, ?3, ?4 FROM items WHERE dataset_id = ?1 AND signed_off = 0",
        )?
        .execute(params![dataset_id, note, author.user_id, ts])?;
    conn.prepare_cached("UPDATE items SET signed_off = 1 WHERE dataset_id = ?1")?
        .execute([dataset_id])?;
    Ok(n)
}

/// One sign-off (or reopening) as stored: by `user_id`, of revision `rev`.
pub(crate) struct SignoffRow<'a> {
    pub item_id: i64,
    pub rev: i64,
    pub signed: bool,
    pub note: Option<&'a str>,
    pub user_id: i64,
    pub created_at: &'a str,
}

/// A sign-off pulled from the team: the same rule (an auditor of the team) and, for a
/// sign-off, the lock on what the auditor saw; reopening needs no particular revision.
pub(crate) fn pulled_sign_off(conn: &Connection, g: &SignoffRow<'_>) -> Result<i64> {
    rules::require_auditor(conn, g.user_id, "sign off or reopen an item")?;
    rules::check_note("note", g.note)?;
    let head: i64 = conn
        .prepare_cached("SELECT rev FROM items WHERE id = ?1")?
        .query_row([g.item_id], |r| r.get(0))?;
    if g.signed && head != g.rev {
        return Err(Error::Forbidden(
            "the item has a newer revision than the one signed".into(),
        ));
    }
    insert_signoff(conn, g)
}

fn insert_signoff(conn: &Connection, g: &SignoffRow<'_>) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO signoffs (item_id, rev, signed, note, author_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        g.item_id,
        g.rev,
        g.signed,
        g.note,
        g.user_id,
        g.created_at
    ])?;
    let id = conn.last_insert_rowid();
    conn.prepare_cached("UPDATE items SET signed_off = ?2 WHERE id = ?1")?
        .execute(params![g.item_id, g.signed])?;
    Ok(id)
}
