//! The local side of team replicas: rows waiting to be pushed, rows pulled from the team
//! database applied to the replica, and conflicts between revisions made on the same base.
//! Pulled rows go through the write path (`write_path`) like rows made here, so a replica
//! applies the same rules as the one its author wrote it on; a row they refuse is set aside.

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemContent, ItemStatus, RefinementOp, Role};
use crate::store::items::{pack_rows, Author, Edit, ItemRow, ItemWriter, NewItem};
use crate::store::write_path;
use crate::store::{now, Project};

/// A revision as it travels: the item by its natural key, people by name, the base by uid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncRevision {
    pub uid: String,
    pub dataset: String,
    pub ext_id: String,
    pub base_uid: Option<String>,
    pub author: Option<String>,
    pub author_role: Option<String>,
    pub created_at: String,
    pub op: Option<String>,
    pub tags: i64,
    pub status: String,
    pub note: Option<String>,
    pub content: String,
}

impl SyncRevision {
    /// The one form a revision travels and is stored in, by the team service and every
    /// replica alike: its content as the item it parses to (fields Assay does not know are
    /// dropped, so no hidden field can make two readers disagree), its tags as the tags Assay
    /// knows, its operation as one Assay knows (or none), its status as a status.
    pub fn canonical(&self) -> Result<SyncRevision> {
        let content: ItemContent = serde_json::from_str(&self.content)
            .map_err(|e| Error::Invalid(format!("revision {}: {e}", self.uid)))?;
        let status = ItemStatus::parse(&self.status).ok_or_else(|| {
            Error::Invalid(format!("revision {}: status {:?}", self.uid, self.status))
        })?;
        Ok(SyncRevision {
            content: serde_json::to_string(&content)
                .map_err(|e| Error::Invalid(format!("revision {}: {e}", self.uid)))?,
            tags: IssueTag::to_bits(&IssueTag::from_bits(self.tags)),
            op: self
                .op
                .as_deref()
                .and_then(RefinementOp::parse)
                .map(|o| o.as_str().to_string()),
            status: status.as_str().to_string(),
            ..self.clone()
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncReview {
    pub uid: String,
    pub revision_uid: String,
    pub made_uid: Option<String>,
    pub decision: String,
    pub comment: Option<String>,
    pub author: String,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncSignoff {
    pub uid: String,
    pub revision_uid: String,
    pub signed: bool,
    pub note: Option<String>,
    pub author: String,
    pub created_at: String,
}

/// An item of a published project, with the uid of its original (revision 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncItem {
    pub dataset: String,
    pub layout: String,
    pub ext_id: String,
    pub seq: i64,
    pub original_uid: String,
    pub original: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConflictSide {
    pub uid: String,
    pub author: Option<String>,
    pub created_at: String,
    pub op: Option<RefinementOp>,
    pub tags: Vec<IssueTag>,
    pub content: ItemContent,
}

/// An item's open conflict: the revision the replicas show and the one that met it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConflictSides {
    pub item_id: i64,
    pub current: ConflictSide,
    pub other: ConflictSide,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SyncConflict {
    pub item_id: i64,
    pub dataset: String,
    pub ext_id: String,
    pub head_uid: String,
    pub other_uid: String,
}

/// Counts for the sync state shown to people.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SyncStatus {
    pub team: Option<String>,
    pub pending: i64,
    pub conflicts: i64,
    /// Local rows the team refused.
    pub refused: i64,
    pub last_sync: Option<String>,
}

const REVISION_ROW: &str =
    "SELECT s.uid, d.name, i.ext_id, s.base_uid, u.name, r.role, r.created_at,
        r.op, r.tags, r.status, r.note, revision_json(r.content)
    FROM sync_uids s JOIN revisions r ON r.id = s.local_id
    JOIN items i ON i.id = r.item_id JOIN datasets d ON d.id = i.dataset_id
    LEFT JOIN users u ON u.id = r.author_id
    WHERE s.tbl = 'revisions'";

fn revision_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SyncRevision> {
    Ok(SyncRevision {
        uid: r.get(0)?,
        dataset: r.get(1)?,
        ext_id: r.get(2)?,
        base_uid: r.get(3)?,
        author: r.get(4)?,
        author_role: r.get(5)?,
        created_at: r.get(6)?,
        op: r.get(7)?,
        tags: r.get(8)?,
        status: r.get(9)?,
        note: r.get(10)?,
        content: r.get(11)?,
    })
}

/// The local (item, rev) of a revision known by its team uid.
pub(crate) fn revision_by_uid(conn: &rusqlite::Connection, uid: &str) -> Result<(i64, i64)> {
    conn.prepare_cached(
        "SELECT r.item_id, r.rev FROM sync_uids s JOIN revisions r ON r.id = s.local_id
         WHERE s.uid = ?1 AND s.tbl = 'revisions'",
    )?
    .query_row([uid], |r| Ok((r.get(0)?, r.get(1)?)))
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("revision {uid} (pulled out of order?)")))
}

/// A pulled row written locally takes the team's uid and position in place of the one its
/// insert trigger drew.
pub(crate) fn adopt_uid(
    conn: &rusqlite::Connection,
    tbl: &str,
    local_id: i64,
    uid: &str,
    seq: i64,
) -> Result<()> {
    conn.prepare_cached(
        "UPDATE sync_uids SET uid = ?3, pushed = 1, seq = ?4 WHERE tbl = ?1 AND local_id = ?2",
    )?
    .execute(params![tbl, local_id, uid, seq])?;
    Ok(())
}

impl Project {
    /// A pulled row this replica already has (its own, pushed earlier): record its position.
    /// Only a row of the same table counts: a uid another table uses is not this row. A row
    /// that names another author than the one held under its uid is refused: a uid someone
    /// else took is not a push to repeat (the team service checks each push with this).
    pub(crate) fn mark_known(
        &self,
        tbl: &str,
        uid: &str,
        seq: i64,
        author: Option<&str>,
    ) -> Result<bool> {
        let by = match tbl {
            "rounds" => "created_by",
            "blind_annotations" => "user_id",
            _ => "author_id",
        };
        let held: Option<(bool, Option<String>)> = self
            .conn
            .prepare_cached(&format!(
                "SELECT t.id IS NOT NULL, u.name FROM sync_uids s
                 LEFT JOIN {tbl} t ON t.id = s.local_id
                 LEFT JOIN users u ON u.id = t.{by} WHERE s.tbl = ?1 AND s.uid = ?2"
            ))?
            .query_row(params![tbl, uid], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((present, held)) = held else {
            return Ok(false);
        };
        if present && held.as_deref() != author {
            return Err(Error::Invalid(format!(
                "{tbl} {uid}: another member already wrote a row under this id (a push repeats \
                 only its own rows)"
            )));
        }
        self.conn
            .prepare_cached(
                "UPDATE sync_uids SET pushed = 1, seq = ?3 WHERE uid = ?2 AND tbl = ?1",
            )?
            .execute(params![tbl, uid, seq])?;
        Ok(true)
    }

    /// Records the team's positions of rows this replica holds (uid, seq), whatever position
    /// they were applied at: the team service's check applies a push at provisional positions.
    pub fn record_team_positions(&self, rows: &[(String, i64)]) -> Result<()> {
        let mut st = self
            .conn
            .prepare_cached("UPDATE sync_uids SET pushed = 1, seq = ?2 WHERE uid = ?1")?;
        for (uid, seq) in rows {
            st.execute(params![uid, seq])?;
        }
        Ok(())
    }

    pub fn sync_get(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT value FROM sync_state WHERE key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()?)
    }

    pub fn sync_set(&self, key: &str, value: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO sync_state (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            )?
            .execute(params![key, value])?;
        Ok(())
    }

    /// Conflicts no person has resolved yet, counted (a sync reports how many it brought).
    pub fn open_conflict_count(&self) -> Result<i64> {
        Ok(self
            .conn
            .prepare_cached("SELECT count(*) FROM sync_conflicts WHERE resolved_by IS NULL")?
            .query_row([], |r| r.get(0))?)
    }

    pub fn sync_status(&self) -> Result<SyncStatus> {
        Ok(SyncStatus {
            team: self.sync_get("team")?,
            pending: self
                .conn
                .prepare_cached("SELECT count(*) FROM sync_uids WHERE pushed = 0")?
                .query_row([], |r| r.get::<_, i64>(0))?
                + crate::store::original_uids::originals_in_runs(&self.conn)?,
            conflicts: self.open_conflict_count()?,
            refused: self
                .conn
                .prepare_cached(
                    "SELECT (SELECT count(*) FROM sync_uids WHERE pushed = 2)
                      + (SELECT count(*) FROM sync_set_aside)",
                )?
                .query_row([], |r| r.get(0))?,
            last_sync: self.sync_get("last_sync")?,
        })
    }

    /// Every item with its original, for publishing a project.
    pub fn sync_items(&self) -> Result<Vec<SyncItem>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(
            "SELECT d.name, d.layout, i.ext_id, i.seq, s.uid, revision_json(r.content)
             FROM items i JOIN datasets d ON d.id = i.dataset_id
             JOIN revisions r ON r.item_id = i.id AND r.rev = 0
             JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = r.id
             ORDER BY i.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(SyncItem {
                dataset: r.get(0)?,
                layout: r.get(1)?,
                ext_id: r.get(2)?,
                seq: r.get(3)?,
                original_uid: r.get(4)?,
                original: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    pub fn image_hashes(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT hash FROM images ORDER BY hash")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The next revisions to push, oldest first (originals are published with their items): at
    /// most `limit` of them, and no more after
    /// those read hold `max_bytes` of content (always one at least), so a batch of large items
    /// stays within what the team takes in one request. The flag says the bytes cut it short.
    pub fn pending_revisions(
        &self,
        limit: i64,
        max_bytes: usize,
    ) -> Result<(Vec<SyncRevision>, bool)> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(&format!(
            "{REVISION_ROW} AND s.pushed = 0 AND r.rev > 0 ORDER BY r.id LIMIT ?1"
        ))?;
        let mut rows = st.query_map([limit], revision_row)?;
        let mut out: Vec<SyncRevision> = Vec::new();
        let mut bytes = 0;
        for row in rows.by_ref() {
            if bytes >= max_bytes {
                return Ok((out, true));
            }
            let row = row?;
            bytes += row.content.len() + row.note.as_ref().map_or(0, String::len);
            out.push(row);
        }
        Ok((out, false))
    }

    pub fn pending_reviews(&self) -> Result<Vec<SyncReview>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(
            "SELECT s.uid, rs.uid, ms.uid, d.decision, d.comment, u.name, d.created_at
             FROM sync_uids s JOIN review_decisions d ON d.id = s.local_id
             JOIN revisions rr ON rr.item_id = d.item_id AND rr.rev = d.rev
             JOIN sync_uids rs ON rs.tbl = 'revisions' AND rs.local_id = rr.id
             LEFT JOIN revisions mr ON mr.item_id = d.item_id AND mr.rev = d.made_rev
             LEFT JOIN sync_uids ms ON ms.tbl = 'revisions' AND ms.local_id = mr.id
             JOIN users u ON u.id = d.author_id
             WHERE s.tbl = 'review_decisions' AND s.pushed = 0 ORDER BY d.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(SyncReview {
                uid: r.get(0)?,
                revision_uid: r.get(1)?,
                made_uid: r.get(2)?,
                decision: r.get(3)?,
                comment: r.get(4)?,
                author: r.get(5)?,
                created_at: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    pub fn pending_signoffs(&self) -> Result<Vec<SyncSignoff>> {
        crate::store::original_uids::require_rows(&self.conn)?;
        let mut st = self.conn.prepare_cached(
            "SELECT s.uid, rs.uid, g.signed, g.note, u.name, g.created_at
             FROM sync_uids s JOIN signoffs g ON g.id = s.local_id
             JOIN revisions rr ON rr.item_id = g.item_id AND rr.rev = g.rev
             JOIN sync_uids rs ON rs.tbl = 'revisions' AND rs.local_id = rr.id
             JOIN users u ON u.id = g.author_id
             WHERE s.tbl = 'signoffs' AND s.pushed = 0 ORDER BY g.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(SyncSignoff {
                uid: r.get(0)?,
                revision_uid: r.get(1)?,
                signed: r.get(2)?,
                note: r.get(3)?,
                author: r.get(4)?,
                created_at: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Records that the team database holds these rows (uid, its seq there).
    pub fn mark_pushed(&mut self, rows: &[(String, i64)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut st =
                tx.prepare_cached("UPDATE sync_uids SET pushed = 1, seq = ?2 WHERE uid = ?1")?;
            for (uid, seq) in rows {
                st.execute(params![uid, seq])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Forgets every push (a publish that failed as a whole).
    pub fn reset_sync_marks(&mut self) -> Result<()> {
        self.conn
            .prepare_cached("UPDATE sync_uids SET pushed = 0, seq = NULL, refusal = NULL")?
            .execute([])?;
        Ok(())
    }

    /// Rows the team refused: kept here, never pushed again, listed with the reason.
    pub fn mark_refused(&mut self, rows: &[(String, String)]) -> Result<()> {
        for (uid, why) in rows {
            self.conn
                .prepare_cached("UPDATE sync_uids SET pushed = 2, refusal = ?2 WHERE uid = ?1")?
                .execute(params![uid, why])?;
        }
        Ok(())
    }

    /// Applies a page of pulled rows as one transaction (each row in a savepoint of its own, so a
    /// row set aside leaves the others): one commit per page instead of one per row. The page is
    /// committed by `end_pull_page`; dropped on error, the page is pulled again next time.
    /// Originals an import kept as uid runs (committed since the sync began) get their rows
    /// first, inside the page: a pulled row looks its revision up by uid.
    pub fn begin_pull_page(&mut self) -> Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let begun = crate::store::original_uids::write_rows(&self.conn)
            .and_then(|_| crate::store::items::search::defer_full_text(&self.conn));
        if let Err(e) = begun {
            let _ = self.conn.execute_batch("ROLLBACK");
            return Err(e);
        }
        Ok(())
    }

    /// Commits a page begun with `begin_pull_page`, its items' search rows with it; on any
    /// failure the page is rolled back whole, so no transaction is left open behind an error.
    pub fn end_pull_page(&mut self) -> Result<()> {
        let ended = crate::store::items::search::flush_full_text(&self.conn)
            .and_then(|()| Ok(self.conn.execute_batch("COMMIT")?));
        if ended.is_err() {
            self.abandon_pull_page();
        }
        ended
    }

    /// Abandons a page begun with `begin_pull_page` (an error while pulling it).
    pub fn abandon_pull_page(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    /// A row pulled from the team that this replica cannot accept: kept aside with the reason,
    /// and the pull goes on past it.
    pub fn set_aside_pulled(
        &self,
        tbl: &str,
        uid: &str,
        seq: Option<i64>,
        reason: &str,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO sync_set_aside (tbl, uid, seq, reason, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![tbl, uid, seq, reason, now()])?;
        Ok(())
    }

    /// Rows not taken on either side: local rows the team refused, and pulled rows set aside
    /// here (their table named "pulled TABLE"): (table, uid, reason).
    pub fn refused_rows(&self) -> Result<Vec<(String, String, String)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT tbl, uid, coalesce(refusal, '') FROM
               (SELECT tbl, uid, refusal, 0 AS side, local_id AS o FROM sync_uids WHERE pushed = 2
                UNION ALL SELECT 'pulled ' || tbl, uid, reason, 1, seq FROM sync_set_aside)
             ORDER BY side, tbl, o",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Marks every row as already in the team database (after publishing or joining).
    pub fn mark_all_pushed(&mut self) -> Result<()> {
        // Ratings of a judge name a run snapshot the team holds: those of runs published with
        // the project wait for the next sync, once the runs' positions are known here.
        self.conn
            .prepare_cached(
                "UPDATE sync_uids SET pushed = 1 WHERE pushed = 0 AND tbl <> 'judge_ratings'",
            )?
            .execute([])?;
        Ok(())
    }

    /// Makes this (empty) project a replica's start: datasets and items with their originals,
    /// each original keeping its team uid. One transaction.
    pub fn insert_replica_items(&mut self, items: &[SyncItem]) -> Result<()> {
        let mut pages = std::iter::once(items);
        self.insert_replica_item_pages(|| Ok::<_, Error>(pages.next()))
    }

    /// As `insert_replica_items`, with the items arriving in pages (in (dataset, seq) order)
    /// from `next_page` until it returns None, so a join can insert one page while the next is
    /// on its way. One transaction: an error from `next_page` leaves the project empty.
    pub fn insert_replica_item_pages<P: AsRef<[SyncItem]>, E: From<Error>>(
        &mut self,
        mut next_page: impl FnMut() -> std::result::Result<Option<P>, E>,
    ) -> std::result::Result<(), E> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(Error::from)?;
        {
            let mut writer = ItemWriter::new(&tx)?;
            let mut dict_id = crate::store::packed::next_dict_id(&tx)?;
            let mut datasets: std::collections::HashMap<String, i64> = Default::default();
            // The dataset being inserted and its packing: each dataset's originals are packed
            // as its import packed them on the lead's machine, a dictionary from its first
            // batch, whichever page that batch arrived in.
            let mut current: Option<(String, i64, crate::store::packed::ImportPacking)> = None;
            while let Some(page) = next_page()? {
                for run in page.as_ref().chunk_by(|a, b| a.dataset == b.dataset) {
                    let first = &run[0];
                    if current.as_ref().map(|c| c.0.as_str()) != Some(first.dataset.as_str()) {
                        let id = match datasets.get(&first.dataset) {
                            Some(id) => *id,
                            None => {
                                let id = crate::store::items::datasets::insert(
                                    &tx,
                                    &first.dataset,
                                    &first.layout,
                                    None,
                                )?;
                                datasets.insert(first.dataset.clone(), id);
                                id
                            }
                        };
                        current = Some((
                            first.dataset.clone(),
                            id,
                            crate::store::packed::ImportPacking::new(dict_id),
                        ));
                    }
                    let (_, ds, packing) = current.as_mut().expect("set above");
                    for batch in run.chunks(1000) {
                        let mut rows = batch
                            .iter()
                            .map(|it| {
                                let content: ItemContent = serde_json::from_str(&it.original)
                                    .map_err(|e| {
                                        Error::Invalid(format!(
                                            "{} / {}: {e}",
                                            it.dataset, it.ext_id
                                        ))
                                    })?;
                                ItemRow::new(NewItem {
                                    ext_id: it.ext_id.clone(),
                                    content,
                                })
                            })
                            .collect::<Result<Vec<_>>>()?;
                        if let Some(dict) = pack_rows(packing, &mut rows)? {
                            crate::store::packed::save_dict(&tx, &dict)?;
                            dict_id += 1;
                        }
                        for (it, row) in batch.iter().zip(rows) {
                            writer.insert_row(*ds, it.seq, row, Some(&it.original_uid))?;
                        }
                    }
                }
            }
            writer.finish()?;
        }
        tx.commit().map_err(Error::from)?;
        Ok(())
    }

    pub fn put_image_bytes(
        &mut self,
        img: &crate::store::items::images::StoredImage,
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        crate::store::items::images::put(&tx, img)?;
        tx.commit()?;
        Ok(())
    }

    /// Applies a revision pulled from the team database at position `seq`. Its own rows coming
    /// back are only marked. The item's current revision is the one latest in the team's order,
    /// so every replica ends on the same one; a revision not made on the revision it competes
    /// with is a conflict for a person to resolve.
    pub fn apply_pulled_revision(&mut self, rev: &SyncRevision, seq: i64) -> Result<bool> {
        if self.mark_known("revisions", &rev.uid, seq, rev.author.as_deref())? {
            return Ok(false);
        }
        let name = rev.author.as_deref().ok_or_else(|| {
            Error::Invalid(format!(
                "revision {} has no author; only originals do",
                rev.uid
            ))
        })?;
        // The person's role is the team's (pulled with the members), never the row's say.
        let author = self.ensure_user(name, Role::Annotator)?;
        let item_id = self.item_id_by_ext(&rev.dataset, &rev.ext_id)?;
        let base = rev.base_uid.as_deref().ok_or_else(|| {
            Error::Invalid(format!(
                "revision {} has no base; only originals do",
                rev.uid
            ))
        })?;
        let (base_item, base_rev) = revision_by_uid(&self.conn, base)?;
        if base_item != item_id {
            return Err(Error::Invalid(format!(
                "revision {}: its base is a revision of another item",
                rev.uid
            )));
        }
        let status = ItemStatus::parse(&rev.status).ok_or_else(|| {
            Error::Invalid(format!("revision {}: status {:?}", rev.uid, rev.status))
        })?;
        let tx = self.conn.savepoint()?;
        let (head_uid, head_seq): (String, Option<i64>) = tx
            .prepare_cached(
                "SELECT s.uid, s.seq FROM items i
                 JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
                 JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = r.id WHERE i.id = ?1",
            )?
            .query_row([item_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let content: ItemContent = serde_json::from_str(&rev.content)
            .map_err(|e| Error::Invalid(format!("revision {}: {e}", rev.uid)))?;
        let edit = Edit {
            base_rev: None,
            content,
            op: rev.op.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(rev.tags),
            status,
            note: rev.note.clone(),
        };
        let who = Author {
            user_id: author.id,
            role: author.role,
            round: 0,
        };
        // Older in the team's order than what this replica shows: history only.
        let becomes_head = head_seq.is_some_and(|h| seq > h);
        let local_rev = write_path::revision::pulled(
            &tx,
            item_id,
            &edit,
            &who,
            base_rev,
            &rev.created_at,
            becomes_head,
        )
        .map_err(|e| e.context(&format!("revision {} of {name}", rev.uid)))?;
        let new_id: i64 = tx
            .prepare_cached("SELECT id FROM revisions WHERE item_id = ?1 AND rev = ?2")?
            .query_row(params![item_id, local_rev], |r| r.get(0))?;
        adopt_uid(&tx, "revisions", new_id, &rev.uid, seq)?;
        tx.prepare_cached(
            "UPDATE sync_uids SET base_uid = ?2 WHERE tbl = 'revisions' AND local_id = ?1",
        )?
        .execute(params![new_id, rev.base_uid])?;
        if rev.base_uid.as_deref() != Some(head_uid.as_str()) {
            let (head, other) = if becomes_head {
                (rev.uid.clone(), head_uid)
            } else {
                (head_uid, rev.uid.clone())
            };
            tx.prepare_cached(
                "INSERT INTO sync_conflicts (item_id, head_uid, other_uid, created_at)
                 VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![item_id, head, other, now()])?;
        }
        tx.commit()?;
        Ok(true)
    }

    pub fn apply_pulled_review(&mut self, d: &SyncReview, seq: i64) -> Result<bool> {
        if self.mark_known("review_decisions", &d.uid, seq, Some(&d.author))? {
            return Ok(false);
        }
        let user = self.ensure_user(&d.author, Role::Annotator)?;
        let tx = self.conn.savepoint()?;
        let (item_id, rev) = revision_by_uid(&tx, &d.revision_uid)?;
        // The revision a decision names as its record is a revision of the same item: else a
        // decision on one item would count as the review record of another's revision.
        let made_rev = match &d.made_uid {
            Some(u) => {
                let (made_item, made) = revision_by_uid(&tx, u)?;
                if made_item != item_id {
                    return Err(Error::Invalid(format!(
                        "review {}: its record {u} is a revision of another item",
                        d.uid
                    )));
                }
                Some(made)
            }
            None => None,
        };
        let row = write_path::decisions::DecisionRow {
            item_id,
            rev,
            decision: &d.decision,
            comment: d.comment.as_deref(),
            user_id: user.id,
            created_at: &d.created_at,
            made_rev,
        };
        let id = write_path::decisions::pulled_review(&tx, &row)
            .map_err(|e| e.context(&format!("review {} by {}", d.uid, d.author)))?;
        adopt_uid(&tx, "review_decisions", id, &d.uid, seq)?;
        tx.commit()?;
        Ok(true)
    }

    pub fn apply_pulled_signoff(&mut self, g: &SyncSignoff, seq: i64) -> Result<bool> {
        if self.mark_known("signoffs", &g.uid, seq, Some(&g.author))? {
            return Ok(false);
        }
        let user = self.ensure_user(&g.author, Role::Annotator)?;
        let tx = self.conn.savepoint()?;
        let (item_id, rev) = revision_by_uid(&tx, &g.revision_uid)?;
        let row = write_path::decisions::SignoffRow {
            item_id,
            rev,
            signed: g.signed,
            note: g.note.as_deref(),
            user_id: user.id,
            created_at: &g.created_at,
        };
        let id = write_path::decisions::pulled_sign_off(&tx, &row)
            .map_err(|e| e.context(&format!("sign-off {} by {}", g.uid, g.author)))?;
        adopt_uid(&tx, "signoffs", id, &g.uid, seq)?;
        tx.commit()?;
        Ok(true)
    }

    /// Conflicts no person has resolved yet.
    pub fn sync_conflicts(&self) -> Result<Vec<SyncConflict>> {
        let mut st = self.conn.prepare_cached(
            "SELECT c.item_id, d.name, i.ext_id, c.head_uid, c.other_uid FROM sync_conflicts c
             JOIN items i ON i.id = c.item_id JOIN datasets d ON d.id = i.dataset_id
             WHERE c.resolved_by IS NULL ORDER BY c.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(SyncConflict {
                item_id: r.get(0)?,
                dataset: r.get(1)?,
                ext_id: r.get(2)?,
                head_uid: r.get(3)?,
                other_uid: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// The two revisions of an item's oldest open conflict, for a person to choose from.
    pub fn conflict_sides(&self, item_id: i64) -> Result<Option<ConflictSides>> {
        let pair: Option<(String, String)> = self
            .conn
            .prepare_cached(
                "SELECT head_uid, other_uid FROM sync_conflicts
                 WHERE item_id = ?1 AND resolved_by IS NULL ORDER BY id LIMIT 1",
            )?
            .query_row([item_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let Some((head, other)) = pair else {
            return Ok(None);
        };
        let side = |uid: &str| -> Result<ConflictSide> {
            self.conn
                .prepare_cached("SELECT u.name, r.created_at, r.op, r.tags, revision_json(r.content) FROM sync_uids s
                     JOIN revisions r ON r.id = s.local_id LEFT JOIN users u ON u.id = r.author_id
                     WHERE s.tbl = 'revisions' AND s.uid = ?1")?.query_row(
                    [uid],
                    |r| {
                        Ok((
                            r.get::<_, Option<String>>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, Option<String>>(2)?,
                            r.get::<_, i64>(3)?,
                            r.get::<_, String>(4)?,
                        ))
                    },
                )
                .optional()?
                .ok_or_else(|| Error::NotFound(format!("revision {uid}")))
                .and_then(|(author, created_at, op, tags, content)| {
                    Ok(ConflictSide {
                        uid: uid.to_string(),
                        author,
                        created_at,
                        op: op.as_deref().and_then(RefinementOp::parse),
                        tags: IssueTag::from_bits(tags),
                        content: serde_json::from_str(&content)
                            .map_err(|e| Error::Invalid(e.to_string()))?,
                    })
                })
        };
        Ok(Some(ConflictSides {
            item_id,
            current: side(&head)?,
            other: side(&other)?,
        }))
    }

    /// A person resolves an item's open conflicts with `edit` (one side, or fields merged from
    /// both) saved as a new revision; it is pushed like any other.
    pub fn resolve_conflict_with(
        &mut self,
        item_id: i64,
        edit: &Edit,
        author: &Author,
    ) -> Result<i64> {
        let mut edit = edit.clone();
        edit.base_rev = None;
        if edit.note.is_none() {
            edit.note = Some("conflict resolved".into());
        }
        let rev = self.save_edit(item_id, &edit, author)?;
        self.conn
            .prepare_cached(
                "UPDATE sync_conflicts SET resolved_by = (SELECT s.uid FROM sync_uids s
                 JOIN revisions r ON r.id = s.local_id WHERE s.tbl = 'revisions'
                   AND r.item_id = ?1 AND r.rev = ?2)
             WHERE item_id = ?1 AND resolved_by IS NULL",
            )?
            .execute(params![item_id, rev])?;
        Ok(rev)
    }

    /// A person resolves an item's conflicts by saving the revision to keep (`keep_uid`, one of
    /// the two) as a new revision; it is pushed like any other.
    pub fn resolve_conflict(
        &mut self,
        item_id: i64,
        keep_uid: &str,
        author: &Author,
    ) -> Result<i64> {
        let keep: Option<(String, Option<String>, i64, String)> = self
            .conn
            .prepare_cached(
                "SELECT revision_json(r.content), r.op, r.tags, r.status FROM sync_uids s
                 JOIN revisions r ON r.id = s.local_id
                 WHERE s.uid = ?1 AND s.tbl = 'revisions' AND r.item_id = ?2",
            )?
            .query_row(params![keep_uid, item_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()?;
        let (content, op, tags, _status) =
            keep.ok_or_else(|| Error::NotFound(format!("revision {keep_uid} of item {item_id}")))?;
        let edit = Edit {
            base_rev: None,
            content: serde_json::from_str(&content).map_err(|e| Error::Invalid(e.to_string()))?,
            op: op.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(tags),
            status: ItemStatus::Edited,
            note: Some(format!("conflict resolved: kept {keep_uid}")),
        };
        self.resolve_conflict_with(item_id, &edit, author)
    }
}
