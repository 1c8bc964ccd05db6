//! Blind double annotation. In a blind round each assignee records their judgement of an item
//! as a row of their own (`blind_annotations`), never as the item's next revision, so two
//! people's judgements are independent and the agreement measured on them is not an upper
//! bound. The rules, shared by the CLI, the app and (as triggers and policies) the team
//! database:
//! - only an assignee of the item in that blind round records a judgement, under their name;
//! - nobody is shown another person's judgement on the item until every assignee's is in
//!   ("open"); after that nobody records again, so nobody changes their mind having seen the
//!   other's;
//! - until an auditor has adjudicated the item, its assignees do not edit it (before all are in
//!   an edit would show the other assignee their judgement; after, it would pre-empt the
//!   adjudication);
//! - a judgement the team refused (`sync_uids.pushed = 2`: recorded here after the others' were
//!   in) never counts.
//! - an auditor adjudicates an open item by writing its revision from one judgement (then edits
//!   it as any revision).

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{
    BBox, IssueTag, ItemStatus, LabeledBox, Phase1Dimension, RefType, RefinementOp, Role,
};
use crate::store::items::{current_content, Author, Edit};
use crate::store::review::rounds::QueueEntry;
use crate::store::write_path::{self, revision::Made};
use crate::store::Project;

/// One person's judgement of an item in a blind round.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BlindJudgement {
    pub op: Option<RefinementOp>,
    #[serde(default)]
    pub tags: Vec<IssueTag>,
    #[serde(default)]
    pub ref_type: Option<RefType>,
    /// The phase-1 dimensions this person flags (none: keep).
    #[serde(default)]
    pub phase1: Vec<Phase1Dimension>,
    /// A 1-5 rating of each of the item's checklist criteria, in the checklist's order (None:
    /// not rated).
    #[serde(default)]
    pub checklist: Vec<Option<u8>>,
    /// The target box in the first image's original pixels.
    #[serde(default)]
    pub target_box: Option<BBox>,
    #[serde(default)]
    pub note: Option<String>,
}

impl BlindJudgement {
    /// Checks the judgement against the item it judges.
    pub(crate) fn validate(&self, item: &crate::model::ItemContent) -> Result<()> {
        if self.op.is_none() {
            return Err(Error::Invalid(
                "a judgement names a refinement operation".into(),
            ));
        }
        if self.checklist.len() > item.checklist.len() {
            return Err(Error::Invalid(format!(
                "{} checklist ratings for {} criteria",
                self.checklist.len(),
                item.checklist.len()
            )));
        }
        if self
            .checklist
            .iter()
            .flatten()
            .any(|r| !(1..=5).contains(r))
        {
            return Err(Error::Invalid("checklist ratings are 1 to 5".into()));
        }
        if let Some(b) = &self.target_box {
            let image = item
                .images
                .first()
                .ok_or_else(|| Error::Invalid("a box needs an image".into()))?;
            let inside = b.x_min >= 0.0
                && b.y_min >= 0.0
                && b.x_max <= image.width as f64
                && b.y_max <= image.height as f64;
            if !b.is_valid() || !inside {
                return Err(Error::Invalid(format!(
                    "the box must lie inside the {}x{} image",
                    image.width, image.height
                )));
            }
        }
        if self.note.as_ref().is_some_and(|n| n.len() > 100_000) {
            return Err(Error::Invalid("the note is too long".into()));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BlindEntry {
    pub person: String,
    pub judgement: BlindJudgement,
    pub created_at: String,
}

/// An item of a blind round as one person may see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BlindItem {
    pub round_id: i64,
    pub round: String,
    pub item_id: i64,
    pub assignees: Vec<String>,
    /// The viewer is one of the assignees.
    pub assigned: bool,
    /// Every assignee's judgement is in: they are shown, and an auditor may adjudicate.
    pub open: bool,
    /// The item has a revision written after the round dealt it (the adjudication).
    pub adjudicated: bool,
    /// The viewer's own judgement, and once open everyone's (each person's latest).
    pub judgements: Vec<BlindEntry>,
}

/// A judgement `b` the team has not refused.
const KEPT: &str = "NOT EXISTS (SELECT 1 FROM sync_uids s WHERE s.tbl = 'blind_annotations'
                                AND s.local_id = b.id AND s.pushed = 2)";

/// SQL over `ri` (round_items): an auditor has adjudicated the item since it was dealt.
const ADJUDICATED: &str = "EXISTS (SELECT 1 FROM revisions r WHERE r.item_id = ri.item_id
        AND r.rev > ri.rev AND r.role = 'auditor' AND r.note LIKE 'adjudicated %')";

/// Whether `round_id` is a blind round.
pub(crate) fn is_blind(conn: &Connection, round_id: i64) -> Result<bool> {
    conn.query_row("SELECT blind FROM rounds WHERE id = ?1", [round_id], |r| {
        r.get(0)
    })
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("round {round_id}")))
}

/// The assignees of an item in a round, and whether each has a judgement in.
fn assignees(conn: &Connection, round_id: i64, item_id: i64) -> Result<Vec<(i64, String, bool)>> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT u.id, u.name, EXISTS (SELECT 1 FROM blind_annotations b
                   WHERE b.round_id = ri.round_id AND b.item_id = ri.item_id
                     AND b.user_id = ri.user_id AND {KEPT})
         FROM round_items ri JOIN users u ON u.id = ri.user_id
         WHERE ri.round_id = ?1 AND ri.item_id = ?2 ORDER BY u.name"
    ))?;
    let rows = st.query_map([round_id, item_id], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })?;
    Ok(rows.collect::<std::result::Result<_, _>>()?)
}

/// Checks that `user_id` may record a judgement of the item in the round now: a blind round,
/// an assignee of the item, and not every judgement in yet.
pub(crate) fn check_recordable(
    conn: &Connection,
    round_id: i64,
    item_id: i64,
    user_id: i64,
) -> Result<()> {
    if !is_blind(conn, round_id)? {
        return Err(Error::Invalid(format!(
            "round {round_id} is not blind: edit the item instead"
        )));
    }
    let people = assignees(conn, round_id, item_id)?;
    if !people.iter().any(|p| p.0 == user_id) {
        return Err(Error::Forbidden(format!(
            "item {item_id} is not assigned to this person in round {round_id}"
        )));
    }
    if people.iter().all(|p| p.2) {
        return Err(Error::Forbidden(format!(
            "every judgement of item {item_id} in round {round_id} is in: an auditor adjudicates it"
        )));
    }
    Ok(())
}

/// The blind round (its name) holding `user_id` off the item: they are one of its assignees and
/// no auditor has adjudicated it since it was dealt.
pub(crate) fn blind_hold(conn: &Connection, item_id: i64, user_id: i64) -> Result<Option<String>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT r.name FROM round_items ri JOIN rounds r ON r.id = ri.round_id
             WHERE ri.item_id = ?1 AND ri.user_id = ?2 AND r.blind = 1 AND NOT {ADJUDICATED}
             LIMIT 1"
        ))?
        .query_row([item_id, user_id], |r| r.get(0))
        .optional()?)
}

fn parse_judgement(json: &str) -> Result<BlindJudgement> {
    serde_json::from_str(json).map_err(|e| Error::Invalid(format!("a stored judgement: {e}")))
}

/// Each person's latest judgement of an item in a round.
fn latest(conn: &Connection, round_id: i64, item_id: i64) -> Result<Vec<(i64, BlindEntry)>> {
    let mut st = conn.prepare_cached(&format!(
        "SELECT b.user_id, u.name, b.judgement, b.created_at FROM blind_annotations b
         JOIN users u ON u.id = b.user_id
         WHERE b.round_id = ?1 AND b.item_id = ?2 AND {KEPT}
           AND b.id = (SELECT max(b.id) FROM blind_annotations b WHERE b.round_id = ?1
                         AND b.item_id = ?2 AND b.user_id = u.id AND {KEPT})
         ORDER BY u.name"
    ))?;
    let rows = st.query_map([round_id, item_id], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (uid, person, json, created_at) = row?;
        let judgement = parse_judgement(&json)?;
        out.push((
            uid,
            BlindEntry {
                person,
                judgement,
                created_at,
            },
        ));
    }
    Ok(out)
}

/// The item as `viewer` may see it in one blind round.
fn view(conn: &Connection, round_id: i64, item_id: i64, viewer: i64) -> Result<BlindItem> {
    let round: String =
        conn.query_row("SELECT name FROM rounds WHERE id = ?1", [round_id], |r| {
            r.get(0)
        })?;
    let people = assignees(conn, round_id, item_id)?;
    let open = !people.is_empty() && people.iter().all(|p| p.2);
    let judgements = latest(conn, round_id, item_id)?
        .into_iter()
        .filter(|(uid, _)| open || *uid == viewer)
        .map(|(_, e)| e)
        .collect();
    let adjudicated: bool = conn.query_row(
        &format!(
            "SELECT EXISTS (SELECT 1 FROM round_items ri WHERE ri.round_id = ?1
                              AND ri.item_id = ?2 AND {ADJUDICATED})"
        ),
        [round_id, item_id],
        |r| r.get(0),
    )?;
    Ok(BlindItem {
        round_id,
        round,
        item_id,
        assigned: people.iter().any(|p| p.0 == viewer),
        assignees: people.into_iter().map(|p| p.1).collect(),
        open,
        adjudicated,
        judgements,
    })
}

impl Project {
    /// Records `author`'s judgement of an item in a blind round (rules in the module's doc).
    pub fn record_blind(
        &mut self,
        round_id: i64,
        item_id: i64,
        judgement: &BlindJudgement,
        author: &Author,
    ) -> Result<BlindItem> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        write_path::blind::record(&tx, round_id, item_id, author.user_id, judgement)?;
        let shown = view(&tx, round_id, item_id, author.user_id)?;
        tx.commit()?;
        Ok(shown)
    }

    /// The blind rounds holding this item that `viewer` takes part in (as an assignee) or, for
    /// an auditor, every blind round holding it; judgements shown by the rules above.
    pub fn blind_items(&self, item_id: i64, viewer: &Author) -> Result<Vec<BlindItem>> {
        let auditor = write_path::rules::stored_role(&self.conn, viewer.user_id)? == Role::Auditor;
        let mut st = self.conn.prepare_cached(
            "SELECT DISTINCT ri.round_id FROM round_items ri JOIN rounds r ON r.id = ri.round_id
             WHERE ri.item_id = ?1 AND r.blind = 1
               AND (?3 OR EXISTS (SELECT 1 FROM round_items m WHERE m.round_id = ri.round_id
                                    AND m.item_id = ri.item_id AND m.user_id = ?2))
             ORDER BY ri.round_id",
        )?;
        let rounds: Vec<i64> = st
            .query_map(params![item_id, viewer.user_id, auditor], |r| r.get(0))?
            .collect::<std::result::Result<_, _>>()?;
        rounds
            .into_iter()
            .map(|r| view(&self.conn, r, item_id, viewer.user_id))
            .collect()
    }

    /// Items of blind rounds whose judgements are all in and that nobody has adjudicated yet.
    pub fn adjudication_queue(&self) -> Result<Vec<QueueEntry>> {
        let mut st = self.conn.prepare(&format!(
            "WITH groups AS (
               SELECT ri.round_id, ri.item_id,
                      min(EXISTS (SELECT 1 FROM blind_annotations b WHERE b.round_id = ri.round_id
                                    AND b.item_id = ri.item_id AND b.user_id = ri.user_id
                                    AND {KEPT})) AS open,
                      max({ADJUDICATED}) AS adjudicated
               FROM round_items ri JOIN rounds r ON r.id = ri.round_id
               WHERE r.blind = 1 GROUP BY ri.round_id, ri.item_id)
             SELECT i.id, d.name, i.ext_id, i.status, 0
             FROM items i JOIN datasets d ON d.id = i.dataset_id
             WHERE i.id IN (SELECT g.item_id FROM groups g WHERE g.open = 1 AND g.adjudicated = 0)
             ORDER BY i.id"
        ))?;
        let rows = st.query_map([], crate::store::review::rounds::queue_entry)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// An auditor adjudicates an item whose judgements are all in: its next revision takes the
    /// operation, tags, referring-expression type and box of `take`'s judgement (the auditor
    /// edits it further as any revision). Returns the new revision.
    pub fn adjudicate_blind(
        &mut self,
        round_id: i64,
        item_id: i64,
        take: &str,
        author: &Author,
    ) -> Result<i64> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if write_path::rules::stored_role(&tx, author.user_id)? != Role::Auditor {
            return Err(Error::Forbidden("only an auditor adjudicates".into()));
        }
        if !is_blind(&tx, round_id)? {
            return Err(Error::Invalid(format!("round {round_id} is not blind")));
        }
        let shown = view(&tx, round_id, item_id, author.user_id)?;
        if !shown.open {
            return Err(Error::Forbidden(format!(
                "item {item_id}: not every judgement in round {round_id} is in yet"
            )));
        }
        let chosen = shown
            .judgements
            .iter()
            .find(|e| e.person == take)
            .ok_or_else(|| Error::Invalid(format!("{take} has no judgement of item {item_id}")))?
            .judgement
            .clone();
        let mut content = current_content(&tx, item_id)?;
        if chosen.ref_type.is_some() {
            content.ref_type = chosen.ref_type;
        }
        if let (Some(b), Some(image)) = (chosen.target_box, content.images.first_mut()) {
            image.target_boxes = vec![LabeledBox::plain(b)];
        }
        let edit = Edit {
            base_rev: None,
            content,
            op: chosen.op,
            tags: chosen.tags.clone(),
            status: ItemStatus::Edited,
            note: Some(format!(
                "adjudicated {}: took {take}'s judgement",
                shown.round
            )),
        };
        let rev = write_path::revision::edit(&tx, item_id, &edit, author, Made::Adjudication)?;
        tx.commit()?;
        Ok(rev)
    }

    /// (item, person, judgement) of every person's latest judgement in a blind round, for
    /// agreement, limited to a dataset.
    pub(crate) fn blind_judgements(
        &self,
        round_id: i64,
        dataset_id: Option<i64>,
    ) -> Result<Vec<(i64, String, BlindJudgement)>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT b.item_id, u.name, b.judgement FROM blind_annotations b
             JOIN users u ON u.id = b.user_id JOIN items i ON i.id = b.item_id
             WHERE b.round_id = ?1 AND (?2 IS NULL OR i.dataset_id = ?2) AND {KEPT}
               AND b.id = (SELECT max(b.id) FROM blind_annotations b WHERE b.round_id = ?1
                             AND b.item_id = i.id AND b.user_id = u.id AND {KEPT})"
        ))?;
        let rows = st.query_map(params![round_id, dataset_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (item, who, json) = row?;
            out.push((item, who, parse_judgement(&json)?));
        }
        // Agreement is measured only where every assignee's judgement is in: a unit one person
        // could see the other's answer on is never counted, and a half-done item is no unit.
        let mut by_item: BTreeMap<i64, usize> = BTreeMap::new();
        for (item, _, _) in &out {
            *by_item.entry(*item).or_default() += 1;
        }
        let mut open = BTreeMap::new();
        for item in by_item.keys() {
            let people = assignees(&self.conn, round_id, *item)?;
            open.insert(*item, people.iter().all(|p| p.2));
        }
        out.retain(|(item, _, _)| open[item]);
        Ok(out)
    }
}
