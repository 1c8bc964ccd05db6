//! Per-connection SQLite setup.

use std::path::Path;
use std::time::Duration;

use rusqlite::Connection;

use crate::error::Result;

pub(crate) fn open(path: &Path) -> Result<Connection> {
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
