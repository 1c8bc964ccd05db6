//! Items: writing originals at import, appending edits, reading one item with its original.

pub mod bulk;
pub mod datasets;
pub mod images;
pub mod query;
pub mod revisions;
pub mod saved_views;
pub mod search;
pub mod summary;
pub mod table_extras;
pub mod versions;

use rusqlite::{params, OptionalExtension, Transaction, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemContent, ItemStatus, RefinementOp, Role};
use crate::store::write_path::{self, revision::Made};
use crate::store::Project;

/// An item as parsed by an importer, before it has an id.
#[derive(Debug, Clone)]
pub struct NewItem {
    pub ext_id: String,
    pub content: ItemContent,
}

/// Who makes a change, in which capacity and refinement round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Author {
    pub user_id: i64,
    pub role: Role,
    pub round: i64,
}

/// One change to an item: the full new content plus the refinement record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Edit {
    /// The revision this edit was made on. When the item has moved on since, the save is
    /// refused as a conflict instead of silently overwriting the other change. None: apply to
    /// whatever is current (imports, scripted bulk changes).
    #[serde(default)]
    pub base_rev: Option<i64>,
    pub content: ItemContent,
    pub op: Option<RefinementOp>,
    #[serde(default)]
    pub tags: Vec<IssueTag>,
    pub status: ItemStatus,
    #[serde(default)]
    pub note: Option<String>,
}

/// An item's current state next to its original (revision 0).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemView {
    pub id: i64,
    pub dataset_id: i64,
    pub dataset: String,
    pub ext_id: String,
    pub seq: i64,
    pub rev: i64,
    pub op: Option<RefinementOp>,
    pub tags: Vec<IssueTag>,
    pub status: ItemStatus,
    pub updated_at: String,
    /// An auditor signed it off: no edit until an auditor reopens it.
    pub signed_off: bool,
    pub content: ItemContent,
    pub original: ItemContent,
}

impl Edit {
    /// The item as it stands with a new answer, based on its current revision (so a change made
    /// meanwhile is a conflict, not overwritten).
    pub fn answer_fix(item: &ItemView, answer: &str) -> Self {
        let mut content = item.content.clone();
        content.answer = Some(answer.to_string());
        Self {
            base_rev: Some(item.rev),
            content,
            op: item.op,
            tags: item.tags.clone(),
            status: ItemStatus::Edited,
            note: None,
        }
    }
}

/// An item's first image hash as `items.thumb_hash` stores it: the 32 bytes a lower-case
/// SHA-256 hex spells (half the bytes of the text, in every row of the largest table), any
/// other text as it is. [`read_thumb_hash`] gives back the text.
pub(crate) fn stored_thumb_hash(hash: Option<&str>) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match hash {
        None => Value::Null,
        Some(h) => match hex::decode(h) {
            Ok(bytes) if bytes.len() == 32 && hex::encode(&bytes) == h => Value::Blob(bytes),
            _ => Value::Text(h.to_string()),
        },
    }
}

/// The text of a stored `items.thumb_hash`, column `idx` of `row` (a BLOB since migration
/// 0035, TEXT before it or when it is not a lower-case SHA-256 hex).
pub(crate) fn read_thumb_hash(
    row: &rusqlite::Row<'_>,
    idx: usize,
) -> rusqlite::Result<Option<String>> {
    use rusqlite::types::ValueRef;
    match row.get_ref(idx)? {
        ValueRef::Blob(b) => Ok(Some(hex::encode(b))),
        _ => row.get(idx),
    }
}

/// An imported item with everything derived from its content that the writer stores (its JSON,
/// search text, CJK tokens, box metrics), computed by [`ItemRow::new`] on the importer's reading
/// thread so the writing thread only runs SQL.
pub(crate) struct ItemRow {
    item: NewItem,
    /// The original's content as stored: its JSON as TEXT, or packed as a BLOB
    /// ([`pack_rows`]).
    json: rusqlite::types::Value,
    search: String,
    /// [`ItemContent::search_extras`] lower-cased; empty for most items, which then have no
    /// row in `item_search`.
    extras_lower: String,
    cjk: String,
    metrics: Option<crate::grounding::metrics::BoxMetrics>,
}

impl ItemRow {
    pub(crate) fn new(item: NewItem) -> Result<Self> {
        let c = &item.content;
        let json = serde_json::to_string(c).map_err(|e| Error::Invalid(e.to_string()))?;
        // The bound every revision meets (`write_path::rules`): an original over it could be
        // imported but never edited, reviewed or restored.
        let max = crate::store::write_path::rules::MAX_CONTENT_BYTES;
        if json.len() > max {
            return Err(Error::Invalid(format!(
                "item {:?}: its content is {} KB; an item holds at most {} KB",
                item.ext_id,
                json.len().div_ceil(1024),
                max >> 10
            )));
        }
        let search = c.search_text();
        Ok(Self {
            json: rusqlite::types::Value::Text(json),
            extras_lower: c.search_extras().to_lowercase(),
            cjk: crate::store::items::search::cjk_tokens(&search),
            search,
            metrics: crate::grounding::metrics::of_item(c),
            item,
        })
    }
}

/// Packs the import's rows with the import's dictionary, learning it from the first batch.
/// Returns the dictionary when this batch made it (the writer stores it with the rows).
pub(crate) fn pack_rows(
    packing: &mut crate::store::packed::ImportPacking,
    rows: &mut [ItemRow],
) -> Result<Option<crate::store::packed::NewDict>> {
    let (packer, new_dict) = packing.for_batch(|| {
        rows.iter()
            .filter_map(|r| match &r.json {
                rusqlite::types::Value::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    });
    if let Some(packer) = packer {
        for row in rows.iter_mut() {
            if let rusqlite::types::Value::Text(t) = &row.json {
                row.json = rusqlite::types::Value::Blob(packer.pack(t)?);
            }
        }
    }
    Ok(new_dict)
}

/// How many items the writer holds back before filling the full-text indexes.
const SEARCH_BATCH: usize = 10_000;
/// How many the writer holds back once a builder fills the indexes on its own thread (where no
/// other statement splits its segments): small, so the builder ends soon after the writer.
const BUILDER_BATCH: usize = 1_000;

/// Writes imported items in bulk. The full-text indexes are filled after the other rows, a
/// batch at a time, because FTS5 flushes its pending terms to disk at every statement savepoint:
/// row by row between the other inserts, each item became its own index segment and the import
/// spent four fifths of its time merging them. Callers must end with [`ItemWriter::finish`].
pub(crate) struct ItemWriter<'t> {
    tx: &'t Transaction<'t>,
    item: rusqlite::Statement<'t>,
    revision: rusqlite::Statement<'t>,
    uid: rusqlite::Statement<'t>,
    scan: rusqlite::Statement<'t>,
    /// Items written whose search text (and CJK tokens) are not in the full-text indexes yet.
    pending: Vec<(i64, String, String)>,
    /// The originals' uids, as runs of revision ids under a prefix random per writer: with the
    /// revision's id it makes a uid no other replica holds (store/original_uids.rs).
    uid_runs: crate::store::original_uids::UidRuns,
    ts: String,
    /// The facet-count triggers are off while the writer runs; `finish` adds its items' counts.
    counts: Option<crate::store::facet_counts::BulkCounts>,
    /// Items written, and how many make a write large enough to build `BUILT_AFTER` at its end.
    written: usize,
    large_at: usize,
    /// The definitions of the triggers and indexes dropped until `finish`.
    dropped: Vec<&'static str>,
    /// Fills the full-text indexes on another thread, when the first batch is a whole one and
    /// the indexes are empty (`full_text_builder.rs`); decided at the first batch.
    builder: Option<crate::store::full_text_builder::FullTextBuilder>,
    /// The connection's page cache before the writer made it smaller, set back when it ends.
    cache_before: i64,
}

/// The page cache (KiB) while a writer runs. Its rows go to the ends of the tables and of the
/// indexes kept up row by row, so few pages are hot; the connection's usual 64 MB only held a
/// million-item import's memory near its 300 MB limit, for no speed (A/B: same import times).
const WRITER_CACHE_KIB: i64 = 16_000;

/// Indexes of items in an order no write follows (by a value, not by id): kept up row by row,
/// each new item is a seek to a random place in each of them. A large write drops them and
/// builds them at its end from one sort each, which SQLite does several times faster; inside
/// the write's transaction, so a failed write gets them back as they were.
const BUILT_AFTER: &[&str] = &[
    "items_size_ratio",
    "items_saliency",
    "items_ref_type_metrics",
    "items_question_order",
    "items_answer_order",
    "items_facets",
];

/// The insert triggers of the tables a writer fills, off while it runs. Neither does anything
/// for its rows (the facet counts are off, `BulkCounts`; the uid trigger is for edits, rev > 0),
/// but a table with an insert trigger makes SQLite copy every page each insert touches into a
/// statement journal first, in case the statement must be undone alone: ~10 % of a text import.
/// Dropped inside the write's transaction and made again by `finish` from the migrations' text,
/// so a failed write gets them back as they were.
const OFF_WHILE_WRITING: &[&str] = &["items_count_facets_insert", "revisions_get_uids"];

/// Items a write makes before its indexes are built at its end, at least: rebuilding reads
/// every item of the project, so the write must be large beside them too (half as many).
const LARGE_WRITE: usize = 20_000;

#[derive(Clone, Copy)]
enum Schema {
    Trigger,
    Index,
}

/// Drops each of `names` that the file stores exactly as the migrations made it, and returns
/// the migrations' statements that make them again. The writer runs those, never text read
/// from the file (a crafted file could append other statements to an object's stored SQL); one
/// stored otherwise is left as it is, and kept up row by row.
fn drop_as_migrated(
    tx: &Transaction<'_>,
    kind: Schema,
    names: &[&'static str],
) -> Result<Vec<&'static str>> {
    let (word, definition): (&str, fn(&str) -> Option<&'static str>) = match kind {
        Schema::Trigger => ("trigger", crate::store::migrate::trigger_definition),
        Schema::Index => ("index", crate::store::migrate::index_definition),
    };
    let mut dropped = Vec::new();
    for name in names {
        let Some(definition) = definition(name) else {
            continue;
        };
        if crate::store::migrate::stored_sql(tx, word, name)?.as_deref() == Some(definition) {
            // Kinds and names come from this file's lists, never from data.
            tx.execute_batch(&format!("DROP {word} {name}"))?;
            dropped.push(definition);
        }
    }
    Ok(dropped)
}

impl<'t> ItemWriter<'t> {
    pub(crate) fn new(tx: &'t Transaction<'t>) -> Result<Self> {
        let counts = crate::store::facet_counts::BulkCounts::begin(tx)?;
        let cache_before: i64 = tx.pragma_query_value(None, "cache_size", |r| r.get(0))?;
        // Before the statements are prepared, which would otherwise compile the triggers in.
        let triggers_off = drop_as_migrated(tx, Schema::Trigger, OFF_WHILE_WRITING)?;
        let writer = Self {
            tx,
            item: tx.prepare(
                "INSERT INTO items (dataset_id, ext_id, seq, rev, format, category, op, tags, status,
                    ref_type, has_box, image_count, thumb_hash, question, answer, updated_at, source,
                    size_ratio, center_distance, saliency)
                 VALUES (?1, ?2, ?3, 0, ?4, ?5, NULL, 0, 'todo', ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,
                    ?14, ?15, ?16)",
            )?,
            revision: tx.prepare(
                "INSERT INTO revisions (item_id, rev, author_id, role, round, created_at, op, tags, status, note, content)
                 VALUES (?1, 0, NULL, NULL, 0, ?2, NULL, 0, 'todo', 'imported', ?3)",
            )?,
            uid: tx.prepare(
                "INSERT INTO sync_uids (tbl, local_id, uid, pushed) VALUES ('revisions', ?1, ?2, ?3)",
            )?,
            scan: tx.prepare("INSERT INTO item_search (id, body) VALUES (?1, ?2)")?,
            pending: Vec::new(),
            uid_runs: crate::store::original_uids::UidRuns::new(tx.prepare_cached("SELECT lower(hex(randomblob(8)))")?.query_row(
                [],
                |r| r.get(0),
            )?),
            ts: crate::store::now_millis(),
            written: 0,
            large_at: LARGE_WRITE.max(counts.items_before() / 2),
            counts: Some(counts),
            dropped: triggers_off,
            builder: None,
            cache_before,
        };
        // Set once the writer exists, so its drop always gives the cache back.
        tx.pragma_update(None, "cache_size", -WRITER_CACHE_KIB)?;
        Ok(writer)
    }

    /// Drops `BUILT_AFTER` for `finish` to build again.
    fn defer_indexes(&mut self) -> Result<()> {
        let dropped = drop_as_migrated(self.tx, Schema::Index, BUILT_AFTER)?;
        self.dropped.extend(dropped);
        Ok(())
    }

    /// Writes a prepared item and its original; `uid` is the original's team uid when it comes
    /// from the team database (and so is already pushed), else a new one is made.
    pub(crate) fn insert_row(
        &mut self,
        dataset_id: i64,
        seq: i64,
        row: ItemRow,
        uid: Option<&str>,
    ) -> Result<i64> {
        let c = &row.item.content;
        let m = row.metrics;
        self.item.execute(params![
            dataset_id,
            row.item.ext_id,
            seq,
            c.format.as_str(),
            c.category,
            c.ref_type.map(|r| r.as_str()),
            c.has_box(),
            c.images.len() as i64,
            stored_thumb_hash(c.images.first().map(|i| i.hash.as_str())),
            c.question,
            c.answer,
            self.ts,
            c.source,
            m.map(|m| m.size_ratio),
            m.map(|m| m.center_distance),
            m.map(|m| m.saliency),
        ])?;
        let id = self.tx.last_insert_rowid();
        self.revision.execute(params![id, self.ts, row.json])?;
        let rev_id = self.tx.last_insert_rowid();
        match uid {
            Some(u) => {
                self.uid.execute(params![rev_id, u, 1])?;
            }
            None => self.uid_runs.add(self.tx, rev_id)?,
        }
        if !row.extras_lower.is_empty() {
            self.scan.execute(params![id, row.extras_lower])?;
        }
        self.written += 1;
        if self.written == self.large_at {
            self.defer_indexes()?;
        }
        self.pending.push((id, row.search, row.cjk));
        let batch = if self.builder.is_some() {
            BUILDER_BATCH
        } else {
            SEARCH_BATCH
        };
        if self.pending.len() >= batch {
            self.fill_search()?;
        }
        Ok(id)
    }

    /// Fills the full-text indexes for the items held back, one index after the other so no
    /// other statement runs between two inserts into the same one.
    fn fill_search(&mut self) -> Result<()> {
        self.uid_runs.flush(self.tx)?;
        let pending = std::mem::take(&mut self.pending);
        if pending.is_empty() {
            return Ok(());
        }
        // The first batch: every item written so far is in it.
        if pending.len() == self.written && pending.len() >= SEARCH_BATCH {
            self.builder = crate::store::full_text_builder::FullTextBuilder::start(self.tx)?;
        }
        match &mut self.builder {
            Some(builder) => builder.add(pending),
            None => crate::store::items::search::index_full_text(self.tx, &pending),
        }
    }

    /// Writes what is held back (without it the last items would not be searchable). The
    /// indexes are left as the batches wrote them, a few segments each, for FTS5 to merge as
    /// later writes come. Imports used to end by rewriting each index whole ('optimize'), a
    /// sixth of an import's time; measured without it, saving an edit right after a
    /// 100,000-item import stays at p95 2.8 ms and a trigram search at p95 6-13 ms
    /// (BENCHMARKS.md, issue 24).
    pub(crate) fn finish(mut self) -> Result<()> {
        self.fill_search()?;
        // The builder ends its last batch while this thread makes the dropped triggers and
        // indexes again.
        for sql in std::mem::take(&mut self.dropped) {
            self.tx.execute_batch(sql)?;
        }
        if let Some(builder) = self.builder.take() {
            builder.finish(self.tx)?;
        }
        match self.counts.take() {
            Some(counts) => counts.finish(self.tx),
            None => Ok(()),
        }
    }
}

impl Drop for ItemWriter<'_> {
    /// Gives the connection its page cache back, whether the write ended or failed.
    fn drop(&mut self) {
        let _ = self.tx.pragma_update(None, "cache_size", self.cache_before);
    }
}

impl Project {
    /// Saves an edit as a new revision in one transaction, under every rule of the write path
    /// (`write_path::revision::edit` says what an edit means).
    pub fn save_edit(&mut self, item_id: i64, edit: &Edit, author: &Author) -> Result<i64> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let rev = write_path::revision::edit(&tx, item_id, edit, author, Made::ByHand)?;
        tx.commit()?;
        Ok(rev)
    }

    /// Appends a revision whose content is that of an older revision: history is never rewritten.
    pub fn restore_revision(&mut self, item_id: i64, rev: i64, author: &Author) -> Result<i64> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let old = crate::store::items::revisions::load(&tx, item_id, rev)?;
        let edit = Edit {
            base_rev: None,
            content: old.content,
            op: old.info.op,
            tags: old.info.tags,
            status: if rev == 0 {
                ItemStatus::Todo
            } else {
                ItemStatus::Edited
            },
            note: Some(format!("restored revision {rev}")),
        };
        let new_rev = write_path::revision::append(&tx, item_id, &edit, author)?;
        tx.commit()?;
        Ok(new_rev)
    }

    pub fn item(&self, item_id: i64) -> Result<ItemView> {
        let row = self
            .conn
            .prepare_cached("SELECT i.id, i.dataset_id, d.name, i.ext_id, i.seq, i.rev, i.op, i.tags, i.status,
                        i.updated_at,
                        (SELECT revision_json(content) FROM revisions r WHERE r.item_id = i.id AND r.rev = i.rev),
                        (SELECT revision_json(content) FROM revisions r WHERE r.item_id = i.id AND r.rev = 0),
                        i.signed_off
                 FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE i.id = ?1")?.query_row(
                [item_id],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, i64>(5)?,
                        r.get::<_, Option<String>>(6)?,
                        r.get::<_, i64>(7)?,
                        r.get::<_, String>(8)?,
                        r.get::<_, String>(9)?,
                        r.get::<_, String>(10)?,
                        r.get::<_, String>(11)?,
                        r.get::<_, bool>(12)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
        Ok(ItemView {
            id: row.0,
            dataset_id: row.1,
            dataset: row.2,
            ext_id: row.3,
            seq: row.4,
            rev: row.5,
            op: row.6.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(row.7),
            status: ItemStatus::parse(&row.8).unwrap_or_default(),
            updated_at: row.9,
            signed_off: row.12,
            content: parse_content(&row.10)?,
            original: parse_content(&row.11)?,
        })
    }

    /// Finds an item by dataset name and its id in the source file.
    pub fn item_id_by_ext(&self, dataset: &str, ext_id: &str) -> Result<i64> {
        self.conn
            .prepare_cached(
                "SELECT i.id FROM items i JOIN datasets d ON d.id = i.dataset_id
                 WHERE d.name = ?1 AND i.ext_id = ?2",
            )?
            .query_row(params![dataset, ext_id], |r| r.get(0))
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("item {ext_id:?} in dataset {dataset:?}")))
    }
}

/// One item of a dataset as exports and bulk edits read it: current state and original.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentItem {
    pub id: i64,
    pub ext_id: String,
    pub rev: i64,
    pub op: Option<RefinementOp>,
    pub tags: Vec<IssueTag>,
    pub status: ItemStatus,
    /// Filtering kept it (not dropped at a stage, not removed by phase-1 flags).
    pub kept: bool,
    /// An auditor signed it off.
    pub signed_off: bool,
    pub content: ItemContent,
    pub original: ItemContent,
}

impl Project {
    /// Every item of a dataset in file order, current state and original.
    pub fn current_items(&self, dataset_id: i64) -> Result<Vec<CurrentItem>> {
        let mut out = Vec::new();
        self.each_current_item(dataset_id, &mut |item| {
            out.push(item);
            Ok(())
        })?;
        Ok(out)
    }

    /// `f` reading one snapshot of the project: writes committed meanwhile by other
    /// connections are not seen, so several passes over the items (an export's files and its
    /// changelog) agree with each other.
    pub fn in_read_snapshot<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        crate::store::items::query::ReadSnapshot::run(&self.conn, "read_snapshot", f)
    }

    /// Every item of a dataset in file order, current state and original, handed to `each`
    /// one at a time: an export of a million items holds one of them, where the whole list
    /// took 6.6 GB.
    pub fn each_current_item(
        &self,
        dataset_id: i64,
        each: &mut dyn FnMut(CurrentItem) -> Result<()>,
    ) -> Result<()> {
        // One snapshot for the whole read: an edit committed meanwhile is in all of it or none.
        crate::store::items::query::ReadSnapshot::run(&self.conn, "each_current_item", || {
            self.each_current_item_now(dataset_id, each)
        })
    }

    fn each_current_item_now(
        &self,
        dataset_id: i64,
        each: &mut dyn FnMut(CurrentItem) -> Result<()>,
    ) -> Result<()> {
        // Only the ids are sorted, then each item is read by its id: sorting whole rows by seq
        // put every item's JSON in SQLite's sorter, 1.5 GB at a million items.
        let ids: Vec<i64> = self
            .conn
            .prepare_cached("SELECT id FROM items WHERE dataset_id = ?1 ORDER BY seq")?
            .query_map([dataset_id], |r| r.get(0))?
            .collect::<std::result::Result<_, _>>()?;
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT i.id, i.ext_id, i.rev, i.op, i.tags, i.status, {}, i.signed_off,
                    (SELECT revision_json(content) FROM revisions r WHERE r.item_id = i.id AND r.rev = i.rev),
                    (SELECT revision_json(content) FROM revisions r WHERE r.item_id = i.id AND r.rev = 0)
             FROM items i WHERE i.id = ?1",
            crate::store::filtering::stages::KEPT
        ))?;
        for id in ids {
            let row = st.query_row([id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, bool>(6)?,
                    r.get::<_, bool>(7)?,
                    r.get::<_, String>(8)?,
                    r.get::<_, String>(9)?,
                ))
            })?;
            let (id, ext_id, rev, op, tags, status, kept, signed_off, cur, orig) = row;
            each(CurrentItem {
                id,
                ext_id,
                rev,
                op: op.as_deref().and_then(RefinementOp::parse),
                tags: IssueTag::from_bits(tags),
                status: ItemStatus::parse(&status).unwrap_or_default(),
                kept,
                signed_off,
                content: parse_content(&cur)?,
                original: parse_content(&orig)?,
            })?;
        }
        Ok(())
    }

    /// The items of a dataset as (id, source id), in file order.
    pub fn item_ext_ids(&self, dataset_id: i64) -> Result<Vec<(i64, String)>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, ext_id FROM items WHERE dataset_id = ?1 ORDER BY seq")?;
        let rows = st.query_map([dataset_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// An item's content at its current revision.
    pub fn current_content(&self, item_id: i64) -> Result<ItemContent> {
        current_content(&self.conn, item_id)
    }
}

/// An item's content at its current revision.
pub(crate) fn current_content(conn: &rusqlite::Connection, item_id: i64) -> Result<ItemContent> {
    let json: String = conn.prepare_cached("SELECT revision_json(r.content) FROM items i JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev WHERE i.id = ?1")?.query_row(
        [item_id],
        |r| r.get(0),
    )?;
    parse_content(&json)
}

pub(crate) fn parse_content(json: &str) -> Result<ItemContent> {
    serde_json::from_str(json).map_err(|e| Error::Invalid(format!("stored item content: {e}")))
}

#[cfg(test)]
mod built_after {
    use super::{Author, Edit};
    use super::{BUILT_AFTER, OFF_WHILE_WRITING};
    use crate::model::{ItemStatus, RefinementOp, Role};
    use crate::store::migrate::{index_definition, stored_sql, trigger_definition};
    use crate::Project;

    /// Each index a large write builds at its end is stored in a new project exactly as the
    /// migrations wrote it, so the write recognises it (and builds it from that text).
    #[test]
    fn every_index_built_at_the_end_is_stored_as_its_migration_wrote_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = Project::create(dir.path().join("p.assay")).unwrap();
        for name in BUILT_AFTER {
            let stored: String = p
                .conn
                .query_row(
                    "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?1",
                    [name],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(index_definition(name), Some(stored.as_str()), "{name}");
        }
        assert_eq!(index_definition("items_nothing"), None);
        for name in OFF_WHILE_WRITING {
            let stored = stored_sql(&p.conn, "trigger", name).unwrap().unwrap();
            assert_eq!(trigger_definition(name), Some(stored.as_str()), "{name}");
        }
    }

    fn schema(p: &Project) -> Vec<(String, String, Option<String>)> {
        let mut st = p
            .conn
            .prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
            .unwrap();
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)));
        rows.unwrap().collect::<Result<_, _>>().unwrap()
    }

    fn import(p: &mut Project, dir: &std::path::Path, n: usize, broken: bool) -> bool {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!(
                "{{\"id\":\"q{i}\",\"question\":\"what is shown {i}\",\"answer\":\"a{i}\"}}\n"
            ));
        }
        if broken {
            text.push_str("{\"id\": \"cut\", \"question\": \n");
        }
        let file = dir.join(format!("set{n}-{broken}.jsonl"));
        std::fs::write(&file, text).unwrap();
        let opts = crate::import::ImportOptions {
            layout: Some("jammeval".into()),
            ..Default::default()
        };
        let cancel = std::sync::atomic::AtomicBool::new(false);
        crate::import::import_path(p, &file, &opts, &mut |_| {}, &cancel).is_ok()
    }

    /// A write drops the insert triggers (and, when large, some indexes) and makes them again:
    /// after it, and after one that failed, the file's schema is what it was, and the triggers
    /// work (an edit gets its team uid and base, and moves its facet counts).
    #[test]
    fn a_write_leaves_the_schema_as_it_found_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Project::create(dir.path().join("p.assay")).unwrap();
        let before = schema(&p);
        assert!(!import(&mut p, dir.path(), 30, true));
        assert_eq!(schema(&p), before, "after a failed write");
        assert!(import(&mut p, dir.path(), 30, false));
        assert_eq!(schema(&p), before, "after a small write");
        assert!(import(&mut p, dir.path(), super::LARGE_WRITE, false));
        assert_eq!(schema(&p), before, "after a large write");
        let mode: String = p
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(
            mode, "wal",
            "an import alone with the file goes back to the log"
        );

        let user = p.ensure_user("ann", Role::Annotator).unwrap();
        let author = Author {
            user_id: user.id,
            role: Role::Annotator,
            round: 0,
        };
        let id = p.item_id_by_ext("set30-false", "q7").unwrap();
        let mut content = p.item(id).unwrap().content;
        content.answer = Some("fixed".into());
        let edit = Edit {
            base_rev: None,
            content,
            op: Some(RefinementOp::AnswerCorrection),
            tags: vec![],
            status: ItemStatus::Edited,
            note: None,
        };
        p.save_edit(id, &edit, &author).unwrap();
        // The original's uid is still a run: the trigger takes the base from it.
        let (base, edited): (Option<String>, i64) = p
            .conn
            .query_row(
                "SELECT e.base_uid,
                        (SELECT n FROM facet_counts WHERE facet = 'status' AND value = 'edited')
                 FROM revisions r1
                 JOIN sync_uids e ON e.tbl = 'revisions' AND e.local_id = r1.id
                 WHERE r1.item_id = ?1 AND r1.rev = 1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(edited, 1);
        assert_eq!(p.write_original_uids().unwrap(), 30 + super::LARGE_WRITE);
        let original: String = p
            .conn
            .query_row(
                "SELECT o.uid FROM revisions r0
                 JOIN sync_uids o ON o.tbl = 'revisions' AND o.local_id = r0.id
                 WHERE r0.item_id = ?1 AND r0.rev = 0",
                [id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            base,
            Some(original),
            "the edit's base is its original's uid"
        );
    }
}

#[cfg(test)]
mod thumb_hash_tests {
    use super::*;

    #[test]
    fn a_sha256_hex_is_stored_as_its_bytes_and_read_back_as_text() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, h)")
            .unwrap();
        let hex64 = "940ef62485559cb42c732fb3b3589daa0f958add1415d908d8db902db532648e";
        let upper = hex64.to_uppercase();
        let cases = [
            Some(hex64),
            Some(upper.as_str()),
            Some("not-a-hash"),
            Some("abcd"),
            None,
        ];
        for (i, h) in cases.iter().enumerate() {
            conn.execute(
                "INSERT INTO t (id, h) VALUES (?1, ?2)",
                rusqlite::params![i as i64, stored_thumb_hash(*h)],
            )
            .unwrap();
        }
        let mut st = conn
            .prepare("SELECT h, typeof(h) FROM t ORDER BY id")
            .unwrap();
        let got: Vec<(Option<String>, String)> = st
            .query_map([], |r| Ok((read_thumb_hash(r, 0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let want: Vec<(Option<String>, String)> = cases
            .iter()
            .zip(["blob", "text", "text", "text", "null"])
            .map(|(h, t)| (h.map(str::to_string), t.to_string()))
            .collect();
        assert_eq!(got, want);
    }
}
