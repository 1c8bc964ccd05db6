//! Revisions: every revision of an item is written here, after [`check`] has applied every rule
//! to it. Three ways in: a person's edit with the editor's meaning ([`edit`]), a revision made
//! here written as given ([`append`]: a restore, a review's record, a refined set's import, an
//! undo), and a revision pulled from the team ([`pulled`]).

use rusqlite::{params, Connection, OptionalExtension};

use super::rules;
use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemStatus, RefinementOp};
use crate::store::items::{current_content, stored_thumb_hash, Author, Edit};
use crate::store::now;

/// The revision a new one is made on, as the rules compare against it: which one, and its
/// status (an approval is judged against the status it changes).
struct Base {
    rev: i64,
    status: ItemStatus,
}

impl Base {
    fn head(conn: &Connection, item_id: i64) -> Result<Self> {
        Self::read(
            conn,
            "SELECT rev, status FROM items WHERE id = ?1",
            params![item_id],
        )
        .map_err(|e| e.context(&format!("item {item_id}")))
    }

    fn at(conn: &Connection, item_id: i64, rev: i64) -> Result<Self> {
        Self::read(
            conn,
            "SELECT rev, status FROM revisions WHERE item_id = ?1 AND rev = ?2",
            params![item_id, rev],
        )
        .map_err(|e| e.context(&format!("revision {rev} of item {item_id}")))
    }

    fn read(conn: &Connection, sql: &str, args: impl rusqlite::Params) -> Result<Self> {
        conn.prepare_cached(sql)?
            .query_row(args, |r| {
                Ok(Self {
                    rev: r.get(0)?,
                    status: ItemStatus::parse(&r.get::<_, String>(1)?).unwrap_or_default(),
                })
            })
            .optional()?
            .ok_or_else(|| Error::NotFound("it is not in this project".into()))
    }
}

/// Where a revision comes from, which decides the rules it meets.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Made {
    /// A person's change here.
    ByHand,
    /// A person's acceptance of a model's suggestion: its note names the suggestion.
    FromSuggestion,
    /// An auditor's adjudication of a blind round: its note ends the round's hold.
    Adjudication,
    /// Pulled from the team, which judged it in the team's order when its author pushed it.
    Pulled,
}

/// Every rule a revision meets, whichever way it came in; returns its canonical content.
///
/// A revision made here meets them all. A pulled one meets those the team enforces the same way
/// (its form and size, the sign-off lock when it becomes current here, nobody approving their
/// own revision or work): the others depend on this replica's state, which is not the team's
/// order (a blind round this replica knows of may be newer than the row), and a row the team
/// took but a replica set aside would part that replica from the team for good.
fn check(
    conn: &Connection,
    item_id: i64,
    edit: &Edit,
    author: &Author,
    base: &Base,
    becomes_head: bool,
    made: Made,
) -> Result<String> {
    let json = rules::canonical_content(&edit.content, made != Made::Pulled)?;
    rules::check_note("note", edit.note.as_deref())?;
    if let Some(note) = edit.note.as_deref() {
        if made == Made::ByHand && crate::store::suggestions::claims_a_suggestion(note) {
            return Err(Error::Invalid(
                "a note cannot claim a suggestion: accept the suggestion instead".into(),
            ));
        }
        if matches!(made, Made::ByHand | Made::FromSuggestion)
            && rules::claims_an_adjudication(note)
        {
            return Err(Error::Invalid(
                "a note cannot claim an adjudication: adjudicate the blind round instead".into(),
            ));
        }
    }
    if becomes_head {
        rules::refuse_signed_off(conn, item_id)?;
    }
    if made != Made::Pulled {
        rules::refuse_blind_hold(conn, item_id, author.user_id)?;
    }
    let approving = edit.status == ItemStatus::Approved
        && (made == Made::Pulled || base.status != ItemStatus::Approved);
    if approving {
        rules::refuse_own_revision(conn, item_id, base.rev, author.user_id)?;
        rules::refuse_own_work(conn, item_id, base.rev, author.user_id)?;
    }
    Ok(json)
}

/// A person's edit, with the editor's meaning:
/// - an edit based on an older revision than the current one is a conflict
///   (`Error::Conflict`), unless it makes exactly the change already made;
/// - an edit that changes nothing (content, operation, tags, status, no note) writes nothing
///   and returns the current revision;
/// - changing content, operation or tags makes the item "edited" (an approved item is no
///   longer approved once changed), unless the edit newly flags it (a change to an item a
///   reviewer flagged is the fix and becomes "edited"); a status-only edit (approve, flag)
///   keeps the content;
/// - a rewritten or deleted checklist criterion loses its flags.
pub(crate) fn edit(
    conn: &Connection,
    item_id: i64,
    edit: &Edit,
    author: &Author,
    made: Made,
) -> Result<i64> {
    let (base, op, tags) = conn
        .prepare_cached("SELECT rev, status, op, tags FROM items WHERE id = ?1")?
        .query_row([item_id], |r| {
            let base = Base {
                rev: r.get(0)?,
                status: ItemStatus::parse(&r.get::<_, String>(1)?).unwrap_or_default(),
            };
            Ok((base, r.get::<_, Option<String>>(2)?, r.get::<_, i64>(3)?))
        })
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
    let content = current_content(conn, item_id)?;
    let changes_item = content != edit.content
        || op.as_deref().and_then(RefinementOp::parse) != edit.op
        || tags != IssueTag::to_bits(&edit.tags);
    if let Some(from) = edit.base_rev.filter(|b| *b != base.rev) {
        if changes_item {
            let by: Option<String> = conn
                .prepare_cached(
                    "SELECT u.name FROM revisions r LEFT JOIN users u ON u.id = r.author_id
                     WHERE r.item_id = ?1 AND r.rev = ?2",
                )?
                .query_row(params![item_id, base.rev], |r| r.get(0))
                .optional()?
                .flatten();
            return Err(Error::Conflict {
                item_id,
                base_rev: from,
                current_rev: base.rev,
                by: by.unwrap_or_else(|| "the import".into()),
            });
        }
    }
    if !changes_item && edit.status == base.status && edit.note.is_none() {
        // Nothing to write; a signed-off item still says so.
        rules::refuse_signed_off(conn, item_id)?;
        return Ok(base.rev);
    }
    // A flag belongs to a criterion's text: a rewritten or deleted criterion loses its flags.
    let mut applied = edit.clone();
    let criteria = &edit.content.checklist;
    applied
        .content
        .checklist_flags
        .retain(|f| criteria.contains(&f.criterion));
    let json = check(conn, item_id, &applied, author, &base, true, made)?;
    // An edit must not newly break the content rules; a restore, an undo or a pulled row brings
    // back what was there.
    rules::check_content_rules(&content, &applied.content)?;
    // Flagging while changing keeps the flag; changing an item that was already flagged (a
    // reviewer asked for changes) is the fix, so it becomes "edited" and goes back for review.
    let flags_now = edit.status == ItemStatus::Flagged && base.status != ItemStatus::Flagged;
    if changes_item && !flags_now {
        applied.status = ItemStatus::Edited;
    }
    write(conn, item_id, &applied, &json, author, &now(), true)
}

/// A revision made here, written as given (its status too) after the same rules.
pub(crate) fn append(conn: &Connection, item_id: i64, edit: &Edit, author: &Author) -> Result<i64> {
    let base = Base::head(conn, item_id)?;
    let json = check(conn, item_id, edit, author, &base, true, Made::ByHand)?;
    write(conn, item_id, edit, &json, author, &now(), true)
}

/// A revision pulled from the team, made by `author` on the item's revision `base_rev` at
/// `created_at`; it becomes the current one here when it is the latest in the team's order.
pub(crate) fn pulled(
    conn: &Connection,
    item_id: i64,
    edit: &Edit,
    author: &Author,
    base_rev: i64,
    created_at: &str,
    becomes_head: bool,
) -> Result<i64> {
    let base = Base::at(conn, item_id, base_rev)?;
    let json = check(
        conn,
        item_id,
        edit,
        author,
        &base,
        becomes_head,
        Made::Pulled,
    )?;
    write(conn, item_id, edit, &json, author, created_at, becomes_head)
}

/// Writes the revision after the item's highest one (which a pulled revision kept as history
/// can be) under the role the store holds for its author, and makes it current when `head`.
fn write(
    conn: &Connection,
    item_id: i64,
    edit: &Edit,
    json: &str,
    author: &Author,
    ts: &str,
    head: bool,
) -> Result<i64> {
    let author = rules::as_stored(conn, author)?;
    let rev: i64 = conn
        .prepare_cached("SELECT max(rev) + 1 FROM revisions WHERE item_id = ?1")?
        .query_row([item_id], |r| r.get::<_, Option<i64>>(0))?
        .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
    conn.prepare_cached(
        "INSERT INTO revisions (item_id, rev, author_id, role, round, created_at, op, tags, status, note, content)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
            item_id,
            rev,
            author.user_id,
            author.role.as_str(),
            author.round,
            ts,
            edit.op.map(|o| o.as_str()),
            IssueTag::to_bits(&edit.tags),
            edit.status.as_str(),
            edit.note,
            json
        ])?;
    if head {
        let c = &edit.content;
        // The box metrics in the same statement: the facet-count and change-log triggers fire
        // once per UPDATE naming their columns, and a second UPDATE for the metrics fired
        // them twice for every revision saved or pulled.
        let m = crate::grounding::metrics::of_item(c);
        conn.prepare_cached(
            "UPDATE items SET rev = ?2, format = ?3, category = ?4, op = ?5, tags = ?6, status = ?7,
                ref_type = ?8, has_box = ?9, image_count = ?10, thumb_hash = ?11, question = ?12,
                answer = ?13, updated_at = ?14, source = ?15, size_ratio = ?16,
                center_distance = ?17, saliency = ?18
             WHERE id = ?1",
        )?
        .execute(params![
                item_id,
                rev,
                c.format.as_str(),
                c.category,
                edit.op.map(|o| o.as_str()),
                IssueTag::to_bits(&edit.tags),
                edit.status.as_str(),
                c.ref_type.map(|r| r.as_str()),
                c.has_box(),
                c.images.len() as i64,
                stored_thumb_hash(c.images.first().map(|i| i.hash.as_str())),
                c.question,
                c.answer,
                ts,
                c.source,
                m.map(|m| m.size_ratio),
                m.map(|m| m.center_distance),
                m.map(|m| m.saliency)
            ])?;
        crate::store::items::search::reindex(conn, item_id, c)?;
    }
    Ok(rev)
}
