//! The rules every write of this module checks, each written once: the sign-off lock, the blind
//! hold, who wrote what (nobody approves their own work), the role the store holds, and the
//! canonical form and size of what is written.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{Error, Result};
use crate::model::{ItemContent, RefType, Role};
use crate::store::items::Author;

/// The largest item content a revision holds, as its canonical JSON: the team database's own
/// bound (`content_bounded`, migrations/postgres/0004), so a replica and the team refuse the
/// same rows. Images are stored apart (by hash): a real item is a few kilobytes.
pub const MAX_CONTENT_BYTES: usize = 4 << 20;

/// The longest note, comment or reason a person attaches to a change, in characters: the team
/// database's bound (`note_bounded`).
pub(crate) const MAX_NOTE_CHARS: usize = 100_000;

/// The refusal of a change to a signed-off item, worded once for every caller.
pub(crate) fn signed_off_error(item_id: i64) -> Error {
    Error::Forbidden(format!(
        "item {item_id} is signed off; an auditor must reopen it before it changes"
    ))
}

/// The sign-off lock: an item an auditor signed off takes no change until an auditor reopens it.
pub(crate) fn refuse_signed_off(conn: &Connection, item_id: i64) -> Result<()> {
    let signed: bool = conn
        .prepare_cached("SELECT signed_off FROM items WHERE id = ?1")?
        .query_row([item_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
    if signed {
        return Err(signed_off_error(item_id));
    }
    Ok(())
}

/// The blind hold: an assignee of a blind round does not change the item until an auditor has
/// adjudicated it. Before every judgement is in, a change would show the other assignee theirs;
/// after, it would pre-empt the adjudication (`store::review::blind`).
pub(crate) fn refuse_blind_hold(conn: &Connection, item_id: i64, user_id: i64) -> Result<()> {
    match crate::store::review::blind::blind_hold(conn, item_id, user_id)? {
        Some(round) => Err(Error::Forbidden(format!(
            "item {item_id} is in your blind round {round:?}: record your judgement there; \
             the item is edited once an auditor has adjudicated it"
        ))),
        None => Ok(()),
    }
}

/// Nobody approves their own work: refused when `user_id` wrote the content or the operation
/// the item holds at `rev` (see [`wrote_work`]).
pub(crate) fn refuse_own_work(
    conn: &Connection,
    item_id: i64,
    rev: i64,
    user_id: i64,
) -> Result<()> {
    if wrote_work(conn, item_id, rev, user_id)? {
        return Err(Error::Forbidden(
            "this is your work, unchanged since you made it: someone else must approve it".into(),
        ));
    }
    Ok(())
}

/// Whether `user_id` wrote the work an item holds at `rev`: made a revision up to `rev` that
/// changed the content to exactly the content at `rev`, or the refinement operation to exactly
/// the one at `rev` (clearing it included; an import's empty operation is nobody's). Issue tags are a reader's remarks on the work, not the work: a colleague
/// who adds a tag does not take over the content, and adding one makes nobody its writer. A
/// revision that changes only the status (a review's record, a flag, a bulk "to do") writes
/// nothing, and an undo or restore that brings back someone's content leaves them its writer.
/// (The same as the team's `assay_wrote`, migrations/postgres/0009.)
pub(crate) fn wrote_work(conn: &Connection, item_id: i64, rev: i64, user_id: i64) -> Result<bool> {
    let mut st = conn.prepare_cached(
        "WITH h AS (SELECT r.rev, r.author_id, revision_json(r.content) AS content, r.op,
                           lag(revision_json(r.content)) OVER w AS p_content, lag(r.op) OVER w AS p_op,
                           lag(r.rev) OVER w AS p_rev
                    FROM revisions r WHERE r.item_id = ?1 AND r.rev <= ?2
                    WINDOW w AS (ORDER BY r.rev)),
              cur AS (SELECT content, op FROM h WHERE rev = ?2)
         SELECT EXISTS (SELECT 1 FROM h, cur
                        WHERE h.author_id = ?3
                          AND ((h.content = cur.content
                                AND (h.p_rev IS NULL OR h.p_content != h.content))
                               OR (h.op IS cur.op
                                   AND ((h.p_rev IS NOT NULL AND h.p_op IS NOT h.op)
                                        OR (h.p_rev IS NULL AND h.op IS NOT NULL)))))",
    )?;
    Ok(st.query_row(params![item_id, rev, user_id], |r| r.get(0))?)
}

/// The role the store holds for this person: the caller's claim is never enough.
pub(crate) fn stored_role(conn: &Connection, user_id: i64) -> Result<Role> {
    let role: String = conn
        .prepare_cached("SELECT role FROM users WHERE id = ?1")?
        .query_row([user_id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("user {user_id}")))?;
    Ok(Role::parse(&role).unwrap_or(Role::Annotator))
}

/// `author` with the role the store holds for them, as every row records it.
pub(crate) fn as_stored(conn: &Connection, author: &Author) -> Result<Author> {
    Ok(Author {
        role: stored_role(conn, author.user_id)?,
        ..*author
    })
}

/// Only an auditor does `what` (sign off, reopen, keep a flagged item, adjudicate).
pub(crate) fn require_auditor(conn: &Connection, user_id: i64, what: &str) -> Result<()> {
    if stored_role(conn, user_id)? != Role::Auditor {
        return Err(Error::Forbidden(format!("only an auditor can {what}")));
    }
    Ok(())
}

/// A person's text attached to a change (note, comment, reason) within its size.
pub(crate) fn check_note(what: &str, text: Option<&str>) -> Result<()> {
    check_text(what, text, MAX_NOTE_CHARS)
}

/// A review's comment: its record on the item is a note that repeats it after the decision's
/// name, which must fit too.
pub(crate) fn check_comment(text: Option<&str>) -> Result<()> {
    check_text("comment", text, MAX_NOTE_CHARS - 32)
}

fn check_text(what: &str, text: Option<&str>, max: usize) -> Result<()> {
    match text.map(|t| t.chars().count()) {
        Some(n) if n > max => Err(Error::Invalid(format!(
            "a {what} holds at most {max} characters, this one has {n}"
        ))),
        _ => Ok(()),
    }
}

/// A note that reads as the store's own record of an adjudication (`store::review::blind`, which ends a
/// blind round's hold on it) is written only by an adjudication.
pub(crate) fn claims_an_adjudication(note: &str) -> bool {
    note.trim_start().to_lowercase().starts_with("adjudicated ")
}

/// Nobody approves the revision they made themselves, whatever it changed.
pub(crate) fn refuse_own_revision(
    conn: &Connection,
    item_id: i64,
    rev: i64,
    user_id: i64,
) -> Result<()> {
    let author: Option<i64> = conn
        .prepare_cached("SELECT author_id FROM revisions WHERE item_id = ?1 AND rev = ?2")?
        .query_row(params![item_id, rev], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("revision {rev} of item {item_id}")))?;
    if author == Some(user_id) {
        return Err(Error::Forbidden(
            "you cannot approve your own revision; a reviewer must".into(),
        ));
    }
    Ok(())
}

/// The canonical JSON of an item's content, refused when its size (and, when `validated`, its
/// own rules: option indices, checklist length, box shapes) is broken. Every revision stores
/// this form, whoever sent it, so every replica reads the same thing.
pub(crate) fn canonical_content(content: &ItemContent, validated: bool) -> Result<String> {
    if validated {
        content.validate().map_err(Error::Invalid)?;
    }
    let json = serde_json::to_string(content).map_err(|e| Error::Invalid(e.to_string()))?;
    if json.len() > MAX_CONTENT_BYTES {
        return Err(Error::Invalid(format!(
            "an item's content holds at most {} KB, this one is {} KB",
            MAX_CONTENT_BYTES >> 10,
            json.len().div_ceil(1024)
        )));
    }
    Ok(json)
}

/// The rules on content that an edit must not newly break (an item imported that way stays
/// editable until someone writes one): CRAG-MM-Diagnostics' disambiguated question, and
/// HAERAE-Vision's checklist rules when the checklist changes.
pub(crate) fn check_content_rules(before: &ItemContent, after: &ItemContent) -> Result<()> {
    if needs_disambiguation(after) && !needs_disambiguation(before) {
        return Err(Error::Invalid(
            "an ambiguous referring expression needs a disambiguated question".into(),
        ));
    }
    if before.checklist != after.checklist {
        if let Some(m) = checklist_problem(&after.checklist) {
            return Err(Error::Invalid(m));
        }
    }
    Ok(())
}

/// The rule CRAG-MM-Diagnostics' protocol sets: an ambiguous reference ("this" among many)
/// comes with a question that names the target.
pub(crate) fn needs_disambiguation(c: &ItemContent) -> bool {
    c.ref_type == Some(RefType::Ambiguous)
        && c.disambiguated_question
            .as_deref()
            .is_none_or(|q| q.trim().is_empty())
}

/// HAERAE-Vision's checklist rules for an edited checklist: 1-5 criteria (an empty list is
/// allowed: the item has no checklist), none empty, none repeated.
pub(crate) fn checklist_problem(list: &[String]) -> Option<String> {
    if list.len() > 5 {
        return Some(format!(
            "a checklist has 1-5 criteria, found {}",
            list.len()
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, c) in list.iter().enumerate() {
        let norm = c
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase();
        if norm.is_empty() {
            return Some(format!("criterion {} is empty", i + 1));
        }
        if !seen.insert(norm) {
            return Some(format!("criterion {} repeats an earlier one: {c:?}", i + 1));
        }
    }
    None
}

/// The rules the editor also checks live (ui/src/lib/review/mentions.ts, items/checklist.ts,
/// grounding/refTypes.ts) against the cases both sides are tested on.
#[cfg(test)]
mod shared_rules {
    use super::{checklist_problem, needs_disambiguation};
    use crate::model::{ItemContent, RefType};

    fn cases() -> serde_json::Value {
        serde_json::from_str(include_str!(
            "../../../../../tests/fixtures/rules/editor_rules.json"
        ))
        .unwrap()
    }

    #[test]
    fn mentions_checklists_and_disambiguation_match_the_shared_cases() {
        let f = cases();
        for c in f["mentions"].as_array().unwrap() {
            let want: Vec<String> = serde_json::from_value(c["names"].clone()).unwrap();
            let body = c["body"].as_str().unwrap();
            assert_eq!(
                crate::store::review::comments::mentioned_names(body),
                want,
                "{body}"
            );
        }
        for c in f["checklists"].as_array().unwrap() {
            let list: Vec<String> = serde_json::from_value(c["criteria"].clone()).unwrap();
            let ok = c["ok"].as_bool().unwrap();
            assert_eq!(checklist_problem(&list).is_none(), ok, "{list:?}");
        }
        for c in f["disambiguation"].as_array().unwrap() {
            let content = ItemContent {
                ref_type: c["ref_type"].as_str().and_then(RefType::parse),
                disambiguated_question: c["disambiguated_question"].as_str().map(str::to_string),
                ..Default::default()
            };
            assert_eq!(
                needs_disambiguation(&content),
                c["needs"].as_bool().unwrap(),
                "{c}"
            );
        }
    }
}
