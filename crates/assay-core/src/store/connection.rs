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

/// Sets SQLite up once per process, before its first connection (SQLite takes its
/// configuration only before it initialises; a late call is refused with SQLITE_MISUSE and
/// changes nothing but speed):
/// - memory statistics off: with them on, every allocation SQLite makes takes a global mutex to
///   count itself; an import allocates for every row and every full-text term (`perf`: ~7 % of
///   a 100,000-item import in those locks). Nothing in Assay reads them.
/// - its allocations through mimalloc instead of glibc's malloc (~7 % of the same import).
fn configure_sqlite() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
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
        // SAFETY: sqlite3_config is documented as callable before sqlite3_initialize, from one
        // thread; the Once makes these calls single, and SQLite rejects late ones. SQLite copies
        // the methods before returning; they allocate with mimalloc's C API, which is
        // thread-safe and gives 16-byte alignment (SQLite needs 8).
        unsafe {
            rusqlite::ffi::sqlite3_config(rusqlite::ffi::SQLITE_CONFIG_MALLOC, &methods);
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            );
        }
    });
}

pub(crate) fn open(path: &Path) -> Result<Connection> {
    configure_sqlite();
    let conn = Connection::open(path)?;
    // WAL lets the UI read while the engine writes; NORMAL is durable across process crashes,
    // which is the failure that matters for a desktop app.
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "cache_size", -64_000)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    Ok(conn)
}
