//! The full-text indexes of a large import into an empty project, built on a thread of their
//! own. Filling them took two fifths of a text import's time on the thread that writes every
//! other row (FTS5 gathers each trigram of every text in a hash and writes it out as segments),
//! while the machine's other core was three quarters idle. The builder fills the same two FTS5
//! tables, defined by the same statements, in a scratch database beside the project (on another
//! thread and connection); at the import's end the writer replaces its own (empty) tables'
//! stored rows with the builder's, inside the import's transaction, so a failed import still
//! writes nothing. FTS5's stored format depends only on the table's definition, which both
//! share.
//!
//! Only when both indexes are empty: segments built elsewhere cannot be merged into an index
//! that holds rows already, so an import into a project with items fills them in place, as does
//! one whose scratch file cannot be made.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use rusqlite::{Connection, OptionalExtension};

use super::migrate::stored_sql;
use crate::error::{Error, Result};

/// The two FTS5 tables, and the tables FTS5 stores each one's rows in with their columns (its
/// configuration table is left alone: both sides hold the one their definition made).
const TABLES: [&str; 2] = super::items::search::FULL_TEXT_INDEXES;
const STORED: [(&str, &str); 3] = [
    ("data", "id, block"),
    ("idx", "segid, term, pgno"),
    ("docsize", "id, sz, origin"),
];

/// How many bytes of new terms each index holds before writing them out as a segment: the
/// project's own setting (migration 0018). With 8 MB a million-item import left ~1.8x slower
/// searches until its segments were merged; the writer's smaller page cache pays for these.
const HASHSIZE: i64 = 16 << 20;

/// FTS5's id of an index's structure row, whose first four bytes are the configuration cookie.
const STRUCTURE_ROW: i64 = 10;

/// Items whose rows the builder adds: (item id, search text, CJK tokens), as
/// [`super::items::search::index_full_text`] takes them.
pub(crate) type Batch = Vec<(i64, String, String)>;

pub(crate) struct FullTextBuilder {
    send: Option<SyncSender<Batch>>,
    thread: Option<JoinHandle<Result<Connection>>>,
    /// Set when the import fails: the builder drops what it holds without finishing.
    stop: Arc<AtomicBool>,
    scratch: Scratch,
}

/// The builder's file, beside the project (where the import is already writing; a temporary
/// folder may be small, or memory), removed when the builder ends and, left by a crash, when
/// the next one starts.
struct Scratch(Option<PathBuf>);

impl Scratch {
    fn beside(conn: &Connection) -> Self {
        Self(
            conn.path()
                .filter(|p| !p.is_empty())
                .map(|p| PathBuf::from(format!("{p}-full-text-build"))),
        )
    }

    fn remove(&self) {
        if let Some(path) = &self.0 {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl FullTextBuilder {
    /// A builder for the indexes of `conn`, or `None` when either index holds rows, is not
    /// defined exactly as the migrations define it (a file made otherwise is filled in place),
    /// or the builder's own database cannot be made.
    pub(crate) fn start(conn: &Connection) -> Result<Option<Self>> {
        let mut definitions = Vec::new();
        for table in TABLES {
            let Some(definition) = super::migrate::virtual_table_definition(table) else {
                return Ok(None);
            };
            if stored_sql(conn, "table", table)?.as_deref() != Some(definition) {
                return Ok(None);
            }
            // Names come from the lists above, never from data.
            let empty: Option<bool> = conn
                .query_row(
                    &format!("SELECT NOT EXISTS (SELECT 1 FROM {table}_docsize)"),
                    [],
                    |r| r.get(0),
                )
                .ok();
            if empty != Some(true) {
                return Ok(None);
            }
            definitions.push((table, definition));
        }
        let scratch = Scratch::beside(conn);
        let Some(builder) = scratch_database(&scratch, &definitions) else {
            scratch.remove();
            return Ok(None);
        };
        // The stored tables must be the project's: the copy names their columns.
        for (table, _) in &definitions {
            for (stored, _) in STORED {
                let name = format!("{table}_{stored}");
                if stored_sql(conn, "table", &name)? != stored_sql(&builder, "table", &name)? {
                    drop(builder);
                    scratch.remove();
                    return Ok(None);
                }
            }
        }
        #[cfg(test)]
        tests::STARTED.with(|n| n.set(n.get() + 1));
        // A few batches waiting at most: the writer never runs far ahead of the builder.
        let (send, receive) = sync_channel::<Batch>(8);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::Builder::new()
            .name("assay-full-text".into())
            .spawn(move || -> Result<Connection> {
                builder.execute_batch("BEGIN")?;
                for batch in receive {
                    if stopped.load(Ordering::Relaxed) {
                        return Err(Error::Cancelled);
                    }
                    super::items::search::index_full_text(&builder, &batch)?;
                }
                if stopped.load(Ordering::Relaxed) {
                    return Err(Error::Cancelled);
                }
                builder.execute_batch("COMMIT")?;
                Ok(builder)
            })
            .map_err(|e| Error::Invalid(format!("cannot start the full-text builder: {e}")))?;
        Ok(Some(Self {
            send: Some(send),
            thread: Some(thread),
            stop,
            scratch,
        }))
    }

    /// Hands items to the builder; waits while it is eight batches behind.
    pub(crate) fn add(&mut self, batch: Batch) -> Result<()> {
        let sent = self.send.as_ref().map(|s| s.send(batch).is_ok());
        if sent == Some(true) {
            return Ok(());
        }
        // The builder stopped: its error says why.
        self.join()?;
        Err(Error::Invalid("the full-text builder stopped".into()))
    }

    /// Waits for the builder and puts its rows in place of `conn`'s empty indexes.
    pub(crate) fn finish(mut self, conn: &Connection) -> Result<()> {
        let built = self.join()?;
        for table in TABLES {
            let cookie_before = structure_row(conn, table)?.map_or(0, |row| cookie(&row));
            // 'delete-all' empties the stored rows and makes the table part of this
            // transaction, so it hears of the savepoint below.
            conn.execute(
                &format!("INSERT INTO {table} ({table}) VALUES ('delete-all')"),
                [],
            )?;
            for (stored, columns) in STORED {
                let name = format!("{table}_{stored}");
                conn.execute(&format!("DELETE FROM {name}"), [])?;
                copy_rows(&built, conn, &name, columns)?;
            }
            // Other connections reload an index's settings when its cookie changes: the copied
            // structure row carries the builder's, which must not go back.
            if let Some(mut row) = structure_row(conn, table)? {
                let next = cookie_before.max(cookie(&row)).wrapping_add(1);
                row[..4].copy_from_slice(&next.to_be_bytes());
                conn.execute(
                    &format!("UPDATE {table}_data SET block = ?2 WHERE id = ?1"),
                    rusqlite::params![STRUCTURE_ROW, row],
                )?;
            }
        }
        // FTS5 keeps an index's layout in memory per connection and reloads it only when
        // another connection has changed the file, or when a savepoint it is part of is rolled
        // back: then it must read its stored rows again, which are the copied ones. Rolling
        // back to a savepoint taken after the copy undoes nothing else.
        conn.execute_batch(
            "SAVEPOINT full_text_copied; ROLLBACK TO full_text_copied; RELEASE full_text_copied;",
        )?;
        Ok(())
    }

    fn join(&mut self) -> Result<Connection> {
        self.send = None;
        match self.thread.take() {
            Some(t) => t
                .join()
                .map_err(|_| Error::Invalid("the full-text builder failed".into()))?,
            None => Err(Error::Invalid(
                "the full-text builder was already used".into(),
            )),
        }
    }
}

impl Drop for FullTextBuilder {
    /// A failed import stops the builder and waits for it, so its file is gone when the import
    /// returns.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.send = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.scratch.remove();
    }
}

/// The builder's database with the two tables, or `None` when it cannot be made.
fn scratch_database(scratch: &Scratch, definitions: &[(&str, &str)]) -> Option<Connection> {
    let make = || -> rusqlite::Result<Connection> {
        let builder = match &scratch.0 {
            Some(path) => {
                scratch.remove();
                Connection::open(path)?
            }
            // A project in memory: SQLite's own temporary file.
            None => Connection::open("")?,
        };
        // A throwaway file: nothing to roll back or sync.
        builder.pragma_update(None, "journal_mode", "OFF")?;
        builder.pragma_update(None, "synchronous", "OFF")?;
        builder.pragma_update(None, "cache_size", -2_000)?;
        for (table, definition) in definitions {
            builder.execute_batch(definition)?;
            builder.execute(
                &format!("INSERT INTO {table} ({table}, rank) VALUES ('hashsize', ?1)"),
                [HASHSIZE],
            )?;
        }
        Ok(builder)
    };
    make().ok()
}

/// An index's structure row, whose first four bytes are its configuration cookie.
fn structure_row(conn: &Connection, table: &str) -> Result<Option<Vec<u8>>> {
    Ok(conn
        .query_row(
            &format!("SELECT block FROM {table}_data WHERE id = ?1"),
            [STRUCTURE_ROW],
            |r| r.get(0),
        )
        .optional()?
        .filter(|b: &Vec<u8>| b.len() >= 4))
}

fn cookie(row: &[u8]) -> u32 {
    u32::from_be_bytes([row[0], row[1], row[2], row[3]])
}

/// Copies every row of one stored table, column by column as named.
fn copy_rows(from: &Connection, to: &Connection, table: &str, columns: &str) -> Result<()> {
    let mut read = from.prepare(&format!("SELECT {columns} FROM {table}"))?;
    let count = read.column_count();
    let marks = vec!["?"; count].join(", ");
    let mut write = to.prepare(&format!("INSERT INTO {table} ({columns}) VALUES ({marks})"))?;
    let mut rows = read.query([])?;
    while let Some(row) = rows.next()? {
        let values = (0..count)
            .map(|i| row.get_ref(i).map(rusqlite::types::ToSqlOutput::Borrowed))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        write.execute(rusqlite::params_from_iter(values))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::AtomicBool;

    use crate::import::{import_path, ImportOptions};
    use crate::store::{Author, Edit, Filter, Page};
    use crate::{Project, Role};

    thread_local! {
        /// Builders started on this thread (an import's writer is the caller's thread).
        pub(super) static STARTED: Cell<usize> = const { Cell::new(0) };
    }

    fn started() -> usize {
        STARTED.with(|n| n.get())
    }

    /// Item i's pair of kanji (the second shared by every hundredth item) and Hangul syllable.
    fn marks(i: usize) -> (char, char, char) {
        let a = char::from_u32(0x4E00 + (i / 100) as u32).unwrap();
        let b = char::from_u32(0x6000 + (i % 100) as u32).unwrap();
        let h = char::from_u32(0xAC00 + (i % 11_172) as u32).unwrap();
        (a, b, h)
    }

    /// Item i: a Latin word, a pair of kanji and a Hangul syllable of its own, a phrase all
    /// share; every line of `broken_at` and after is cut short.
    fn items(dir: &Path, name: &str, n: usize, first: usize, broken_at: Option<usize>) -> PathBuf {
        let mut text = String::new();
        for i in first..first + n {
            if broken_at.is_some_and(|b| i >= b) {
                text.push_str("{\"id\": \"cut\", \"question\": \n");
                continue;
            }
            let (a, b, h) = marks(i);
            text.push_str(&format!(
                "{{\"id\":\"q{i}\",\"question\":\"zq{i:05}x what is shown {a}{b}\",\"answer\":\"{h} old{i:05}w\"}}\n"
            ));
        }
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn import(p: &mut Project, file: &Path) -> crate::Result<usize> {
        let opts = ImportOptions {
            layout: Some("jammeval".into()),
            ..Default::default()
        };
        import_path(p, file, &opts, &mut |_| {}, &AtomicBool::new(false)).map(|r| r.items)
    }

    fn found(p: &Project, text: &str) -> Vec<String> {
        let f = Filter {
            text: Some(text.into()),
            ..Default::default()
        };
        let page = Page {
            offset: 0,
            limit: 1000,
        };
        p.query(&f, page)
            .unwrap()
            .rows
            .into_iter()
            .map(|r| r.ext_id)
            .collect()
    }

    /// What each kind of search finds, for items on both sides of every batch boundary.
    fn probe(p: &Project, n: usize) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for i in [0, 1, 999, 1_000, 9_999, 10_000, 10_001, 11_999, n - 1] {
            let (a, b, h) = marks(i);
            out.push(found(p, &format!("zq{i:05}x")));
            out.push(found(p, &format!("old{i:05}w")));
            out.push(found(p, &format!("{a}{b}")));
            out.push(found(p, &format!("{b}")));
            out.push(found(p, &format!("{h}")));
        }
        out.push(found(p, "what is shown"));
        out.push(found(p, "nowhere at all"));
        out
    }

    fn fts_checks(p: &Project) {
        for table in super::TABLES {
            p.conn
                .execute(
                    &format!("INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 0)"),
                    [],
                )
                .unwrap_or_else(|e| panic!("{table}: {e}"));
        }
        let ok: String = p
            .conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
    }

    fn rows_in(p: &Project, table: &str) -> i64 {
        p.conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    }

    /// A first large import fills its full-text indexes on the builder's thread; they must
    /// answer every search as indexes filled in place do, be whole by FTS5's own check, and
    /// serve this same connection (FTS5 caches an index's layout per connection) through an
    /// edit and a second import. A failed one leaves them empty.
    #[test]
    fn indexes_built_aside_answer_as_indexes_filled_in_place() {
        let dir = tempfile::tempdir().unwrap();
        // Past 20,000 items the writer also drops and builds indexes in the same transaction.
        let n = 20_500;
        let file = items(dir.path(), "many.jsonl", n, 0, None);

        // In place: a project that holds an item already.
        let mut in_place = Project::create(dir.path().join("in-place.assay")).unwrap();
        let seed = dir.path().join("seed.jsonl");
        std::fs::write(
            &seed,
            "{\"id\":\"seed\",\"question\":\"a seed\",\"answer\":\"x\"}\n",
        )
        .unwrap();
        import(&mut in_place, &seed).unwrap();
        let before = started();
        assert_eq!(import(&mut in_place, &file).unwrap(), n);
        assert_eq!(started(), before, "an index with rows is filled in place");

        // A failed first import: the builder ran, and nothing of it stays.
        let mut aside = Project::create(dir.path().join("aside.assay")).unwrap();
        let scratch = dir.path().join("aside.assay-full-text-build");
        // Another connection, open before the import (as the app's readers are).
        let reader = Project::open(dir.path().join("aside.assay")).unwrap();
        assert!(found(&reader, "what is shown").is_empty());
        let broken = items(dir.path(), "broken.jsonl", n, 0, Some(n - 1));
        let err = import(&mut aside, &broken).unwrap_err().to_string();
        assert!(err.contains("broken.jsonl:20500"), "{err}");
        assert_eq!(started(), before + 1);
        for table in ["items", "items_fts_docsize", "items_cjk_docsize"] {
            assert_eq!(rows_in(&aside, table), 0, "{table}");
        }
        assert!(found(&aside, "what is shown").is_empty());
        let cache = |p: &Project| -> i64 {
            p.conn
                .query_row("PRAGMA cache_size", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(
            cache(&aside),
            -64_000,
            "a failed write gives the cache back"
        );
        assert!(!scratch.exists(), "the builder's file is removed");

        assert_eq!(import(&mut aside, &file).unwrap(), n);
        assert_eq!(started(), before + 2, "a first large import builds aside");
        assert_eq!(cache(&aside), -64_000);
        assert!(!scratch.exists());
        fts_checks(&aside);
        let expected = probe(&in_place, n);
        assert_eq!(probe(&aside, n), expected);
        assert_eq!(probe(&reader, n), expected, "another connection");
        assert_eq!(expected[0], vec!["q0".to_string()]);
        assert_eq!(expected[5 * 5 + 1], vec!["q10000".to_string()]);
        assert_eq!(expected[expected.len() - 2].len(), 1000, "a page of them");
        assert!(expected.last().unwrap().is_empty());
        for table in super::TABLES {
            assert_eq!(
                rows_in(&aside, &format!("{table}_docsize")),
                n as i64,
                "{table}"
            );
        }

        // The same connection: an edit replaces an item's rows, a second import adds its own.
        let user = aside.ensure_user("aiko", Role::Annotator).unwrap();
        let author = Author {
            user_id: user.id,
            role: Role::Annotator,
            round: 1,
        };
        let id = aside.item_id_by_ext("many", "q10000").unwrap();
        let it = aside.item(id).unwrap();
        let mut content = it.content;
        content.answer = Some("new10000w".into());
        let edit = Edit {
            base_rev: Some(it.rev),
            content,
            op: it.op,
            tags: it.tags,
            status: it.status,
            note: None,
        };
        aside.save_edit(id, &edit, &author).unwrap();
        assert!(found(&aside, "old10000w").is_empty());
        assert_eq!(found(&aside, "new10000w"), vec!["q10000".to_string()]);
        let more = items(dir.path(), "more.jsonl", 10_500, 50_000, None);
        assert_eq!(import(&mut aside, &more).unwrap(), 10_500);
        assert_eq!(
            started(),
            before + 2,
            "the second import fills them in place"
        );
        assert_eq!(found(&aside, "zq50001x"), vec!["q50001".to_string()]);
        assert_eq!(found(&aside, "zq00007x"), vec!["q7".to_string()]);
        fts_checks(&aside);
    }

    /// A member joining a team writes the lead's items through the same writer: 10,000 or more
    /// go through the builder too, and are found as the lead finds them.
    #[test]
    fn a_joining_members_items_are_indexed_aside() {
        let dir = tempfile::tempdir().unwrap();
        let n = 10_500;
        let file = items(dir.path(), "many.jsonl", n, 0, None);
        let mut lead = Project::create(dir.path().join("lead.assay")).unwrap();
        import(&mut lead, &file).unwrap();
        let synced: Vec<crate::store::team::sync::SyncItem> = (0..n)
            .map(|i| {
                let ext_id = format!("q{i}");
                let item = lead
                    .item(lead.item_id_by_ext("many", &ext_id).unwrap())
                    .unwrap();
                crate::store::team::sync::SyncItem {
                    dataset: "many".into(),
                    layout: "jammeval".into(),
                    ext_id,
                    seq: i as i64,
                    original_uid: format!("{i:032x}"),
                    original: serde_json::to_string(&item.content).unwrap(),
                }
            })
            .collect();
        let mut member = Project::create(dir.path().join("member.assay")).unwrap();
        let schema = |p: &Project| -> Vec<(String, Option<String>)> {
            let mut st = p
                .conn
                .prepare("SELECT name, sql FROM sqlite_master ORDER BY name")
                .unwrap();
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)));
            rows.unwrap().collect::<Result<_, _>>().unwrap()
        };
        let schema_before = schema(&member);
        let before = started();
        member.insert_replica_items(&synced).unwrap();
        assert_eq!(started(), before + 1, "the join built its indexes aside");
        assert_eq!(
            schema(&member),
            schema_before,
            "the join's writer made its triggers and indexes again"
        );
        fts_checks(&member);
        for i in [0, 9_999, 10_000, n - 1] {
            let word = format!("zq{i:05}x");
            assert_eq!(found(&member, &word), vec![format!("q{i}")], "{word}");
        }
        assert_eq!(
            found(&member, "what is shown"),
            found(&lead, "what is shown")
        );
        let b = char::from_u32(0x6000 + 7).unwrap().to_string();
        assert_eq!(found(&member, &b), found(&lead, &b));
    }
}
