//! Revision history. Rows are append-only: triggers in the schema abort UPDATE and DELETE.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemContent, ItemStatus, RefinementOp, Role};
use crate::store::items::parse_content;
use crate::store::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RevisionInfo {
    pub rev: i64,
    pub author: Option<String>,
    pub role: Option<Role>,
    pub round: i64,
    pub created_at: String,
    pub op: Option<RefinementOp>,
    pub tags: Vec<IssueTag>,
    pub status: ItemStatus,
    pub note: Option<String>,
    /// The suggestion whose acceptance wrote this revision (recorded by the store, so a note
    /// cannot claim it).
    pub suggestion: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    pub info: RevisionInfo,
    pub content: ItemContent,
}

const SELECT: &str = "SELECT r.rev, u.name, r.role, r.round, r.created_at, r.op, r.tags, r.status,
        r.note, revision_json(r.content),
        (SELECT f.suggestion_id FROM suggestion_reviews f JOIN suggestions s ON s.id = f.suggestion_id
          WHERE s.item_id = r.item_id AND f.rev = r.rev)
     FROM revisions r LEFT JOIN users u ON u.id = r.author_id";

fn row_to_revision(r: &rusqlite::Row<'_>) -> rusqlite::Result<(RevisionInfo, String)> {
    let role: Option<String> = r.get(2)?;
    let op: Option<String> = r.get(5)?;
    let status: String = r.get(7)?;
    Ok((
        RevisionInfo {
            rev: r.get(0)?,
            author: r.get(1)?,
            role: role.as_deref().and_then(Role::parse),
            round: r.get(3)?,
            created_at: r.get(4)?,
            op: op.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(r.get(6)?),
            status: ItemStatus::parse(&status).unwrap_or_default(),
            note: r.get(8)?,
            suggestion: r.get(10)?,
        },
        r.get(9)?,
    ))
}

pub(crate) fn load(conn: &Connection, item_id: i64, rev: i64) -> Result<Revision> {
    let (info, json) = conn
        .query_row(
            &format!("{SELECT} WHERE r.item_id = ?1 AND r.rev = ?2"),
            params![item_id, rev],
            row_to_revision,
        )
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("revision {rev} of item {item_id}")))?;
    Ok(Revision {
        info,
        content: parse_content(&json)?,
    })
}

impl Project {
    /// Every revision of an item, oldest first.
    pub fn revisions(&self, item_id: i64) -> Result<Vec<RevisionInfo>> {
        let mut st = self
            .conn
            .prepare(&format!("{SELECT} WHERE r.item_id = ?1 ORDER BY r.rev"))?;
        let rows = st.query_map([item_id], row_to_revision)?;
        rows.map(|r| r.map(|(info, _)| info).map_err(Error::from))
            .collect()
    }

    pub fn revision(&self, item_id: i64, rev: i64) -> Result<Revision> {
        load(&self.conn, item_id, rev)
    }
}
