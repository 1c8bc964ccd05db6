//! Bulk actions on a selection of items: set the refinement operation, add or remove issue
//! tags, set the status, keep or drop at a filtering stage. Each action is one transaction that
//! goes through the same rules as a single edit (the write path: `write_path::revision::edit`,
//! `write_path::filtering::decision`):
//! an item those rules refuse (signed off, held by a blind round, your own revision to approve)
//! is skipped with the reason, never forced. What the action did is recorded
//! (`bulk_actions`), so it is undone as one step; an item changed by someone else since is left
//! alone by the undo, and said so.

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemStatus, RefinementOp};
use crate::store::filtering::stages::DecidedBy;
use crate::store::items::query::Filter;
use crate::store::items::{Author, Edit};
use crate::store::write_path::{filtering, revision, revision::Made};
use crate::store::{now, Project};

/// What a bulk action changes. Fields left empty are left as they are on each item.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BulkChange {
    /// Set the operation to `op` (None clears it); false leaves each item's as it is.
    pub set_op: bool,
    pub op: Option<RefinementOp>,
    pub add_tags: Vec<IssueTag>,
    pub remove_tags: Vec<IssueTag>,
    /// Set the status: todo, edited or flagged. Approval is a review, one item at a time.
    pub status: Option<ItemStatus>,
    /// Keep (true) or drop (false) at this stage; a drop needs `reason`.
    pub stage: Option<(i64, bool)>,
    pub reason: Option<String>,
}

/// What one bulk action (or its undo) did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BulkReport {
    /// The recorded action (None when nothing changed, so there is nothing to undo).
    pub action_id: Option<i64>,
    pub label: String,
    pub changed: i64,
    /// Items already as asked.
    pub unchanged: i64,
    /// Items the rules refused, with why (at most the first 50 are listed).
    pub skipped: i64,
    pub skipped_reasons: Vec<(i64, String)>,
}

/// A recorded bulk action, for the list of what can be undone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BulkAction {
    pub id: i64,
    pub label: String,
    pub author: String,
    pub created_at: String,
    pub items: i64,
    pub undo_of: Option<i64>,
    pub undone_by: Option<i64>,
}

/// Bulk actions are capped so one click cannot hold the write lock for long (~0.4 ms an item:
/// about 20 s at the cap; others' saves wait that long at most).
pub const BULK_LIMIT: usize = 50_000;
const LISTED: usize = 50;

impl BulkChange {
    fn label(&self, n: usize) -> String {
        let mut parts = Vec::new();
        if self.set_op {
            parts.push(format!(
                "operation {}",
                self.op.map_or("none", |o| o.as_str())
            ));
        }
        if !self.add_tags.is_empty() {
            let t: Vec<_> = self.add_tags.iter().map(|t| t.as_str()).collect();
            parts.push(format!("tag +{}", t.join(" +")));
        }
        if !self.remove_tags.is_empty() {
            let t: Vec<_> = self.remove_tags.iter().map(|t| t.as_str()).collect();
            parts.push(format!("tag -{}", t.join(" -")));
        }
        if let Some(s) = self.status {
            parts.push(format!("status {}", s.as_str()));
        }
        if let Some((stage, keep)) = self.stage {
            parts.push(format!(
                "{} at stage {stage}",
                if keep { "keep" } else { "drop" }
            ));
        }
        format!("{} on {n} items", parts.join(", "))
    }

    fn validate(&self) -> Result<()> {
        if !self.set_op
            && self.add_tags.is_empty()
            && self.remove_tags.is_empty()
            && self.status.is_none()
            && self.stage.is_none()
        {
            return Err(Error::Invalid(
                "a bulk action needs something to change".into(),
            ));
        }
        if self.status == Some(ItemStatus::Approved) {
            return Err(Error::Forbidden(
                "approval is a review of one revision at a time, not a bulk action".into(),
            ));
        }
        if let Some((_, false)) = self.stage {
            if self.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
                return Err(Error::Invalid("dropping items needs a reason".into()));
            }
        }
        Ok(())
    }

    fn touches_revision(&self) -> bool {
        self.set_op
            || !self.add_tags.is_empty()
            || !self.remove_tags.is_empty()
            || self.status.is_some()
    }
}

/// The per-item record of an action, as undo reads it back.
struct Done {
    item_id: i64,
    rev_before: Option<i64>,
    rev_after: Option<i64>,
    stage_id: Option<i64>,
    keep_before: Option<bool>,
    keep_after: Option<bool>,
}

fn insert_action(
    tx: &rusqlite::Transaction<'_>,
    label: &str,
    author: &Author,
    undo_of: Option<i64>,
    done: &[Done],
) -> Result<i64> {
    tx.execute(
        "INSERT INTO bulk_actions (label, author_id, created_at, undo_of) VALUES (?1, ?2, ?3, ?4)",
        params![label, author.user_id, now(), undo_of],
    )?;
    let id = tx.last_insert_rowid();
    let mut st = tx.prepare(
        "INSERT INTO bulk_action_items (action_id, item_id, rev_before, rev_after, stage_id, keep_before, keep_after)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for d in done {
        st.execute(params![
            id,
            d.item_id,
            d.rev_before,
            d.rev_after,
            d.stage_id,
            d.keep_before,
            d.keep_after
        ])?;
    }
    if let Some(of) = undo_of {
        tx.execute(
            "UPDATE bulk_actions SET undone_by = ?1 WHERE id = ?2",
            params![id, of],
        )?;
    }
    Ok(id)
}

fn note_skip(report: &mut BulkReport, item_id: i64, e: Error) -> Result<()> {
    match e {
        // A failing disk or a broken database is not a rule: the whole action stops.
        Error::Sqlite(_) | Error::Io { .. } => Err(e),
        e => {
            report.skipped += 1;
            if report.skipped_reasons.len() < LISTED {
                report.skipped_reasons.push((item_id, e.to_string()));
            }
            Ok(())
        }
    }
}

/// Runs `step` on each of `items` in a savepoint of its own: kept when it changed the item
/// (recorded) or found it already so, rolled back and reported when the rules refused it.
fn each_in_savepoint<T>(
    tx: &mut rusqlite::Transaction<'_>,
    report: &mut BulkReport,
    items: &[T],
    item_id: impl Fn(&T) -> i64,
    mut step: impl FnMut(&rusqlite::Connection, &T) -> Result<Option<Done>>,
) -> Result<Vec<Done>> {
    let mut done = Vec::new();
    for it in items {
        let sp = tx.savepoint()?;
        match step(&sp, it) {
            Ok(changed) => {
                sp.commit()?;
                match changed {
                    Some(d) => {
                        report.changed += 1;
                        done.push(d);
                    }
                    None => report.unchanged += 1,
                }
            }
            Err(e) => {
                drop(sp);
                note_skip(report, item_id(it), e)?;
            }
        }
    }
    Ok(done)
}

impl Project {
    /// Applies `change` to every item `target` matches (a hand selection is `Filter::ids`),
    /// in one transaction; see the module notes.
    pub fn bulk_edit(
        &mut self,
        target: &Filter,
        change: &BulkChange,
        author: &Author,
    ) -> Result<BulkReport> {
        change.validate()?;
        let ids = self.query_ids(target)?;
        if ids.len() > BULK_LIMIT {
            return Err(Error::Invalid(format!(
                "{} items: a bulk action takes at most {BULK_LIMIT}; narrow the filter",
                ids.len()
            )));
        }
        let mut tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if let Some((stage, _)) = change.stage {
            let known: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM stages WHERE id = ?1)",
                [stage],
                |r| r.get(0),
            )?;
            if !known {
                return Err(Error::NotFound(format!("stage {stage}")));
            }
        }
        let mut report = BulkReport {
            label: change.label(ids.len()),
            ..Default::default()
        };
        let done = each_in_savepoint(
            &mut tx,
            &mut report,
            &ids,
            |&id| id,
            |sp, &id| apply_one(sp, id, change, author),
        )?;
        if !done.is_empty() {
            report.action_id = Some(insert_action(&tx, &report.label, author, None, &done)?);
        }
        tx.commit()?;
        Ok(report)
    }

    /// Undoes a bulk action as one step: each item it changed goes back to its state before,
    /// through the same rules (a new revision, a new decision; history is never rewritten).
    /// Items changed since by anyone are left as they are and reported. Undoing an undo redoes.
    pub fn undo_bulk(&mut self, action_id: i64, author: &Author) -> Result<BulkReport> {
        let mut tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (label, undone_by): (String, Option<i64>) = tx
            .query_row(
                "SELECT label, undone_by FROM bulk_actions WHERE id = ?1",
                [action_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("bulk action {action_id}")))?;
        if let Some(by) = undone_by {
            return Err(Error::Invalid(format!(
                "bulk action {action_id} was already undone (by {by}); undo that to redo it"
            )));
        }
        let rows: Vec<Done> = tx
            .prepare(
                "SELECT item_id, rev_before, rev_after, stage_id, keep_before, keep_after
                 FROM bulk_action_items WHERE action_id = ?1 ORDER BY item_id",
            )?
            .query_map([action_id], |r| {
                Ok(Done {
                    item_id: r.get(0)?,
                    rev_before: r.get(1)?,
                    rev_after: r.get(2)?,
                    stage_id: r.get(3)?,
                    keep_before: r.get(4)?,
                    keep_after: r.get(5)?,
                })
            })?
            .collect::<std::result::Result<_, _>>()?;
        let mut report = BulkReport {
            label: format!("undo: {label}"),
            ..Default::default()
        };
        let note = format!("undo of bulk action {action_id}");
        let done = each_in_savepoint(
            &mut tx,
            &mut report,
            &rows,
            |d| d.item_id,
            |sp, d| undo_one(sp, d, &note, author),
        )?;
        report.action_id = Some(insert_action(
            &tx,
            &report.label,
            author,
            Some(action_id),
            &done,
        )?);
        tx.commit()?;
        Ok(report)
    }

    /// The latest bulk actions, newest first.
    pub fn bulk_actions(&self, limit: i64) -> Result<Vec<BulkAction>> {
        let mut st = self.conn.prepare_cached(
            "SELECT a.id, a.label, coalesce(u.name, '?'), a.created_at,
                    (SELECT count(*) FROM bulk_action_items i WHERE i.action_id = a.id),
                    a.undo_of, a.undone_by
             FROM bulk_actions a LEFT JOIN users u ON u.id = a.author_id
             ORDER BY a.id DESC LIMIT ?1",
        )?;
        let rows = st
            .query_map([limit.clamp(1, 1000)], |r| {
                Ok(BulkAction {
                    id: r.get(0)?,
                    label: r.get(1)?,
                    author: r.get(2)?,
                    created_at: r.get(3)?,
                    items: r.get(4)?,
                    undo_of: r.get(5)?,
                    undone_by: r.get(6)?,
                })
            })?
            .collect::<std::result::Result<_, _>>()?;
        Ok(rows)
    }
}

/// The item's current record, as an edit of it would start from.
fn current_edit(conn: &rusqlite::Connection, item_id: i64) -> Result<(i64, Edit)> {
    let (rev, op, tags, status): (i64, Option<String>, i64, String) = conn
        .query_row(
            "SELECT rev, op, tags, status FROM items WHERE id = ?1",
            [item_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
    Ok((
        rev,
        Edit {
            base_rev: Some(rev),
            content: crate::store::items::current_content(conn, item_id)?,
            op: op.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(tags),
            status: ItemStatus::parse(&status).unwrap_or_default(),
            note: None,
        },
    ))
}

fn apply_one(
    tx: &rusqlite::Connection,
    item_id: i64,
    change: &BulkChange,
    author: &Author,
) -> Result<Option<Done>> {
    let mut d = Done {
        item_id,
        rev_before: None,
        rev_after: None,
        stage_id: None,
        keep_before: None,
        keep_after: None,
    };
    let mut changed = false;
    if change.touches_revision() {
        let (rev, mut edit) = current_edit(tx, item_id)?;
        if change.set_op {
            edit.op = change.op;
        }
        let mut bits = IssueTag::to_bits(&edit.tags);
        bits |= IssueTag::to_bits(&change.add_tags);
        bits &= !IssueTag::to_bits(&change.remove_tags);
        edit.tags = IssueTag::from_bits(bits);
        if let Some(s) = change.status {
            edit.status = s;
        }
        let new_rev = revision::edit(tx, item_id, &edit, author, Made::ByHand)?;
        if new_rev != rev {
            d.rev_before = Some(rev);
            d.rev_after = Some(new_rev);
            changed = true;
        }
    }
    if let Some((stage, keep)) = change.stage {
        let before = crate::store::filtering::stages::latest_decision(tx, item_id, stage)?;
        if before != Some(keep) {
            filtering::decision(
                tx,
                item_id,
                stage,
                keep,
                change.reason.as_deref(),
                DecidedBy::Person(author),
            )?;
            d.stage_id = Some(stage);
            d.keep_before = before;
            d.keep_after = Some(keep);
            changed = true;
        }
    }
    Ok(changed.then_some(d))
}

fn undo_one(
    tx: &rusqlite::Connection,
    d: &Done,
    note: &str,
    author: &Author,
) -> Result<Option<Done>> {
    let mut back = Done {
        item_id: d.item_id,
        rev_before: None,
        rev_after: None,
        stage_id: None,
        keep_before: None,
        keep_after: None,
    };
    let mut changed = false;
    if let (Some(before), Some(after)) = (d.rev_before, d.rev_after) {
        let (rev, _) = current_edit(tx, d.item_id)?;
        if rev != after {
            return Err(Error::Conflict {
                item_id: d.item_id,
                base_rev: after,
                current_rev: rev,
                by: "a later change".into(),
            });
        }
        let old = crate::store::items::revisions::load(tx, d.item_id, before)?;
        let edit = Edit {
            base_rev: Some(rev),
            content: old.content,
            op: old.info.op,
            tags: old.info.tags,
            // An approval belonged to the reviewer who gave it: the restored state goes back
            // for review rather than being approved by the person undoing.
            status: match old.info.status {
                ItemStatus::Approved => ItemStatus::Edited,
                s => s,
            },
            note: Some(note.into()),
        };
        let new_rev = revision::append(tx, d.item_id, &edit, author)?;
        back.rev_before = Some(rev);
        back.rev_after = Some(new_rev);
        changed = true;
    }
    if let (Some(stage), Some(after)) = (d.stage_id, d.keep_after) {
        let now_keep = crate::store::filtering::stages::latest_decision(tx, d.item_id, stage)?;
        if now_keep != Some(after) {
            return Err(Error::Invalid(format!(
                "item {}: its decision at stage {stage} changed since",
                d.item_id
            )));
        }
        // Decisions are append-only: "never decided" comes back as a keep, which filters the
        // same way (only a drop takes an item out).
        let to = d.keep_before.unwrap_or(true);
        if to != after {
            filtering::decision(
                tx,
                d.item_id,
                stage,
                to,
                Some(note),
                DecidedBy::Person(author),
            )?;
            back.stage_id = Some(stage);
            back.keep_before = Some(after);
            back.keep_after = Some(to);
            changed = true;
        }
    }
    Ok(changed.then_some(back))
}
