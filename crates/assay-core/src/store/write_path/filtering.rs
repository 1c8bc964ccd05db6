//! Filtering's rows: keep/drop decisions at a stage (a person's, a model run's, or a person's
//! made by accepting a suggestion), phase-1 flags and auditors' overrides. Each write refreshes
//! the item's filtering columns in the same transaction.

use rusqlite::{params, Connection, OptionalExtension};

use super::rules;
use crate::error::{Error, Result};
use crate::model::Phase1Dimension;
use crate::store::filtering::stages::{refresh, DecidedBy};
use crate::store::items::Author;
use crate::store::now;

/// The rules every filtering row meets: the item exists and is not signed off, and a person
/// holds no blind round on it.
fn check_item(conn: &Connection, item_id: i64, person: Option<i64>) -> Result<()> {
    rules::refuse_signed_off(conn, item_id)?;
    if let Some(user) = person {
        rules::refuse_blind_hold(conn, item_id, user)?;
    }
    Ok(())
}

/// Appends one keep/drop decision; returns its id. A drop needs a reason.
pub(crate) fn decision(
    conn: &Connection,
    item_id: i64,
    stage_id: i64,
    keep: bool,
    reason: Option<&str>,
    by: DecidedBy<'_>,
) -> Result<i64> {
    if !keep && reason.is_none_or(|r| r.trim().is_empty()) {
        return Err(Error::Invalid("dropping an item needs a reason".into()));
    }
    rules::check_note("reason", reason)?;
    let (author, run) = match by {
        DecidedBy::Person(a) => (Some(a.user_id), None),
        DecidedBy::Run(r) => (None, Some(r)),
    };
    check_item(conn, item_id, author)?;
    conn.prepare_cached("SELECT 1 FROM stages WHERE id = ?1")?
        .query_row([stage_id], |_| Ok(()))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("stage {stage_id}")))?;
    conn.prepare_cached("INSERT INTO stage_decisions (item_id, stage_id, keep, reason, author_id, run_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?.execute(
        params![item_id, stage_id, keep, reason, author, run, now()],
    )?;
    let id = conn.last_insert_rowid();
    refresh(conn, item_id)?;
    Ok(id)
}

/// Sets or withdraws `author`'s phase-1 flag on one dimension of an item.
pub(crate) fn phase1_flag(
    conn: &Connection,
    item_id: i64,
    dimension: Phase1Dimension,
    flagged: bool,
    note: Option<&str>,
    author: &Author,
) -> Result<()> {
    rules::check_note("note", note)?;
    check_item(conn, item_id, Some(author.user_id))?;
    conn.prepare_cached(
        "INSERT INTO phase1_flags (item_id, dimension, flagged, note, author_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        item_id,
        dimension.as_str(),
        flagged,
        note,
        author.user_id,
        now()
    ])?;
    refresh(conn, item_id)
}

/// An auditor keeps an item its phase-1 flags remove (or withdraws that override).
pub(crate) fn phase1_override(
    conn: &Connection,
    item_id: i64,
    keep: bool,
    note: Option<&str>,
    author: &Author,
) -> Result<()> {
    rules::require_auditor(
        conn,
        author.user_id,
        "keep an item that phase-1 flags remove",
    )?;
    rules::check_note("note", note)?;
    check_item(conn, item_id, Some(author.user_id))?;
    conn.prepare_cached(
        "INSERT INTO phase1_overrides (item_id, keep, note, author_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![item_id, keep, note, author.user_id, now()])?;
    refresh(conn, item_id)
}
