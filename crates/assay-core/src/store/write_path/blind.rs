//! Blind judgements: a person's judgement of an item in a blind round, a row of its own and
//! never the item's next revision (rules in `store::review::blind`).

use rusqlite::{params, Connection, OptionalExtension};

use super::rules;
use crate::error::{Error, Result};
use crate::store::items::current_content;
use crate::store::now;
use crate::store::review::blind::{check_recordable, is_blind, BlindJudgement};

/// `user_id`'s judgement made here: they are an assignee of the item in that blind round, not
/// every judgement is in yet, the judgement fits the item, and the item is not signed off.
pub(crate) fn record(
    conn: &Connection,
    round_id: i64,
    item_id: i64,
    user_id: i64,
    judgement: &BlindJudgement,
) -> Result<i64> {
    rules::refuse_signed_off(conn, item_id)?;
    check_recordable(conn, round_id, item_id, user_id)?;
    judgement.validate(&current_content(conn, item_id)?)?;
    insert(conn, round_id, item_id, user_id, judgement, &now())
}

/// A judgement pulled from the team, checked as far as a replica can: a blind round, and its
/// author assigned the item at revision `rev`. Whether the item's judgements were all in before
/// it is the team's order to judge: a replica receives everyone's judgements of an item only
/// once they are all in, after its own.
pub(crate) fn pulled(
    conn: &Connection,
    round_id: i64,
    item_id: i64,
    rev: i64,
    user_id: i64,
    judgement: &BlindJudgement,
    created_at: &str,
) -> Result<i64> {
    let assigned_at: Option<i64> = conn
        .prepare_cached(
            "SELECT rev FROM round_items WHERE round_id = ?1 AND item_id = ?2 AND user_id = ?3",
        )?
        .query_row(params![round_id, item_id, user_id], |r| r.get(0))
        .optional()?;
    if assigned_at != Some(rev) {
        return Err(Error::Forbidden(
            "its author was not assigned that item in that round".into(),
        ));
    }
    if !is_blind(conn, round_id)? {
        return Err(Error::Forbidden("its round is not blind".into()));
    }
    insert(conn, round_id, item_id, user_id, judgement, created_at)
}

fn insert(
    conn: &Connection,
    round_id: i64,
    item_id: i64,
    user_id: i64,
    judgement: &BlindJudgement,
    created_at: &str,
) -> Result<i64> {
    rules::check_note("note", judgement.note.as_deref())?;
    let json = serde_json::to_string(judgement).map_err(|e| Error::Invalid(e.to_string()))?;
    conn.prepare_cached(
        "INSERT INTO blind_annotations (round_id, item_id, user_id, judgement, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![round_id, item_id, user_id, json, created_at])?;
    Ok(conn.last_insert_rowid())
}
