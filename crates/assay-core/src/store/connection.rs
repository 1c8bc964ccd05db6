//! Per-connection SQLite setup.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::Result;

mod sqlite_malloc {
    //! SQLite's allocations through mimalloc, the allocator the binaries use for Rust's.
    use std::ffi::{c_int, c_void};

    pub(super) unsafe extern "C" fn malloc(n: c_int) -> *mut c_void {
        libmimalloc_sys::mi_malloc(n.max(0) as usize)
    }
    pub(super) unsafe extern "C" fn free(p: *mut c_void) {
        libmimalloc_sys::mi_free(p)
    }
    pub(super) unsafe extern "C" fn realloc(p: *mut c_void, n: c_int) -> *mut c_void {
        libmimalloc_sys::mi_realloc(p, n.max(0) as usize)
    }
    pub(super) unsafe extern "C" fn size(p: *mut c_void) -> c_int {
        libmimalloc_sys::mi_usable_size(p).min(c_int::MAX as usize) as c_int
    }
    pub(super) unsafe extern "C" fn roundup(n: c_int) -> c_int {
        (n + 7) & !7
    }
    pub(super) unsafe extern "C" fn init(_: *mut c_void) -> c_int {
        0
    }
    pub(super) unsafe extern "C" fn shutdown(_: *mut c_void) {}
}

/// Sets SQLite up once per process, before it initialises (SQLite takes its configuration only
/// then; a late call is refused with SQLITE_MISUSE and changes nothing but speed):
/// - memory statistics off: with them on, every allocation SQLite makes takes a global mutex to
///   count itself; an import allocates for every row and every full-text term (`perf`: ~7 % of
///   a 100,000-item import in those locks). Nothing in Assay reads them.
/// - its allocations through mimalloc instead of glibc's malloc (~7 % of the same import).
///
/// SQLite is initialised inside the same `Once`, so a connection opened any other way waits
/// for it or comes after. `sqlite3_config` must not run while another thread is inside SQLite:
/// the binaries call this first thing in `main`, before any thread exists; every
/// [`open`] calls it too, for library users and tests. Returns whether SQLite took the
/// configuration (false: it was initialised before, and keeps its defaults consistently).
pub fn configure_sqlite() -> bool {
    static TAKEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TAKEN.get_or_init(|| {
        let methods = rusqlite::ffi::sqlite3_mem_methods {
            xMalloc: Some(sqlite_malloc::malloc),
            xFree: Some(sqlite_malloc::free),
            xRealloc: Some(sqlite_malloc::realloc),
            xSize: Some(sqlite_malloc::size),
            xRoundup: Some(sqlite_malloc::roundup),
            xInit: Some(sqlite_malloc::init),
            xShutdown: Some(sqlite_malloc::shutdown),
            pAppData: std::ptr::null_mut(),
        };
        // SAFETY: sqlite3_config is documented as callable before sqlite3_initialize with no
        // other thread inside SQLite (see above); the OnceLock makes these calls single.
        // SQLite copies the methods before returning (`sqlite3GlobalConfig.m = *...`); they
        // allocate with mimalloc's C API, thread-safe and 16-byte aligned (SQLite needs 8).
        unsafe {
            let ok = rusqlite::ffi::SQLITE_OK;
            let malloc =
                rusqlite::ffi::sqlite3_config(rusqlite::ffi::SQLITE_CONFIG_MALLOC, &methods);
            // Statistics off only with mimalloc in: a refused MALLOC means SQLite is already
            // running, and it refuses this too.
            let stats = rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            );
            rusqlite::ffi::sqlite3_initialize();
            malloc == ok && stats == ok
        }
    })
}

/// Leaves the log (WAL) for a rollback journal when no other connection has the file open, and
/// says whether it did. For a large write into a file with nothing to read yet: through the log
/// every page is written twice, into the log and from it into the file at the commit (~0.3 s
/// of a 100,000-item import's ~2.2 s, and the writer's CPU for the log besides). A rollback
/// journal keeps only the pages the write changes that were there before it, which for a new
/// project's import is almost nothing. It is as safe against a crash (a hot journal is rolled
/// back at the next open; `synchronous` is FULL meanwhile, as SQLite advises for a rollback
/// journal against power loss). But while it writes, a connection opening the file waits for it
/// (its busy timeout, then [`open`]'s error), so it is only for a connection that has the file
/// to itself, which SQLite checks, at once and without waiting: it leaves the log only with
/// every other connection closed (they hold the file while in WAL). Followed by
/// [`back_to_wal`].
pub(crate) fn rollback_journal_if_alone(conn: &Connection) -> Result<bool> {
    let mode = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| {
        r.get::<_, String>(0)
    });
    let left = mode.is_ok_and(|m| m.eq_ignore_ascii_case("delete"));
    if left {
        conn.pragma_update(None, "synchronous", "FULL")?;
    }
    Ok(left)
}

/// Goes back to the log after [`rollback_journal_if_alone`]. Best effort: if another
/// connection opened the file meanwhile, it set the log itself (as every [`open`] does).
pub(crate) fn back_to_wal(conn: &Connection) {
    let _ = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0));
    let _ = conn.pragma_update(None, "synchronous", "NORMAL");
}

/// Sends the connection's temporary files (sorts, statement journals, VACUUM's copy) to disk
/// for a long write, where a project's connection keeps them in memory; returns the setting to
/// give back with [`restore_temp_store`]. Best effort: a write must not fail on it.
pub(crate) fn temp_files_on_disk(conn: &Connection) -> Option<i64> {
    let before = conn.query_row("PRAGMA temp_store", [], |r| r.get(0)).ok();
    let _ = conn.pragma_update(None, "temp_store", "FILE");
    before
}

/// Gives back the setting [`temp_files_on_disk`] found.
pub(crate) fn restore_temp_store(conn: &Connection, before: Option<i64>) {
    if let Some(before) = before {
        let _ = conn.pragma_update(None, "temp_store", before);
    }
}

pub(crate) fn open(path: &Path) -> Result<Connection> {
    configure_sqlite();
    let conn = Connection::open(path)?;
    // Before the first statement, which reads the file and may wait for a writer.
    conn.busy_timeout(Duration::from_secs(10))?;
    // WAL lets the UI read while the engine writes; NORMAL is durable across process crashes,
    // which is the failure that matters for a desktop app.
    if let Err(e) = conn.pragma_update(None, "journal_mode", "WAL") {
        let e = crate::Error::from(e);
        if e.is_busy() {
            return Err(crate::Error::Invalid(format!(
                "{} is being written by another process that holds it alone (the first import \
                 into a new project does, until it ends); try again when it has finished",
                path.display()
            )));
        }
        return Err(e);
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -64_000)?;
    // The commit that fills the log past this many pages copies it back into the file. At
    // SQLite's 1,000 (4 MB) that was one save in twenty or so once an edit touched ~25 pages,
    // and those saves took ~10 ms, so the 95th percentile was a checkpoint's (3 ms -> 10 ms
    // when migration 0032 added two indexes). At 4,000 a save p95 is ~2 ms; a longer log
    // costs reads little (its index is a hash), and no checkpoint at all let it grow until
    // every save was slower.
    conn.pragma_update(None, "wal_autocheckpoint", 4_000)?;
    // A pulled revision runs about twenty distinct statements, and a sync (gathering what is
    // pending, applying what is pulled, the status after) over a hundred: the write path and
    // the team's statements are prepared once per connection (`prepare_cached`), and at
    // rusqlite's default of 16 cached statements each one was prepared again every time.
    conn.set_prepared_statement_cache_capacity(256);
    super::packed::register(&conn)?;
    super::items::search::register(&conn)?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    fn synchronous(conn: &rusqlite::Connection) -> i64 {
        conn.query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap()
    }

    fn mode(conn: &rusqlite::Connection) -> String {
        conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap()
    }

    /// The log is left only by a connection alone with the file, at once (SQLite does not wait
    /// for the others), and taken back after.
    #[test]
    fn a_rollback_journal_only_for_a_connection_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.sqlite");
        let conn = super::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        let other = super::open(&path).unwrap();
        // Waiting would go through the busy handler: count its calls instead of timing.
        static WAITS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        fn count_wait(_: i32) -> bool {
            WAITS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            false
        }
        conn.busy_handler(Some(count_wait)).unwrap();
        assert!(!super::rollback_journal_if_alone(&conn).unwrap());
        assert_eq!(
            WAITS.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "it waited"
        );
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .unwrap();
        assert_eq!(mode(&conn), "wal");
        drop(other);
        assert!(super::rollback_journal_if_alone(&conn).unwrap());
        assert_eq!(mode(&conn), "delete");
        assert_eq!(synchronous(&conn), 2, "FULL with a rollback journal");
        conn.execute_batch("BEGIN; INSERT INTO t VALUES (1);")
            .unwrap();
        // Another process opening the file while the write holds it: a clear error after
        // its wait, not SQLite's "database is locked".
        conn.execute_batch("PRAGMA cache_size = 1; INSERT INTO t SELECT zeroblob(100000);")
            .unwrap();
        let Err(e) = super::open(&path) else {
            panic!("opened beside a writer holding the file alone")
        };
        assert!(
            e.to_string().contains("being written by another process"),
            "{e}"
        );
        conn.execute_batch("COMMIT").unwrap();
        super::back_to_wal(&conn);
        assert_eq!(mode(&conn), "wal");
        assert_eq!(synchronous(&conn), 1, "NORMAL again");
        let again = super::open(&path).unwrap();
        let n: i64 = again
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 2, "both rows written with the rollback journal");
    }

    #[test]
    fn sqlite_takes_mimalloc_and_works_with_it() {
        // Every connection of this test binary opens through `open`, so the configuration
        // comes first and is taken.
        assert!(super::configure_sqlite());
        let dir = tempfile::tempdir().unwrap();
        let conn = super::open(&dir.path().join("m.sqlite")).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (x TEXT); CREATE VIRTUAL TABLE f USING fts5 (b, tokenize = 'trigram');",
        )
        .unwrap();
        for i in 0..2000 {
            let text = format!("{i} {}", "長い文章とlong text ".repeat(i % 50));
            conn.execute("INSERT INTO t (x) VALUES (?1)", [&text])
                .unwrap();
            conn.execute("INSERT INTO f (b) VALUES (?1)", [&text])
                .unwrap();
        }
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM f WHERE f MATCH '\"文章とl\"'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 2000 - 2000 / 50);
        let used = unsafe { rusqlite::ffi::sqlite3_memory_used() };
        // Statistics off: SQLite counts nothing.
        assert_eq!(used, 0);
    }
}
