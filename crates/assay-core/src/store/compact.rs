//! Giving a project file's free pages back to the file system. SQLite keeps the pages a write
//! freed (a migration that cut a table, merged full-text segments, a failed import's growth)
//! for later writes and never shrinks the file by itself.

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// What [`crate::Project::compact`] did, in bytes of the main file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CompactReport {
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// Pages that held nothing before.
    pub free_pages_before: i64,
}

impl crate::Project {
    /// Rewrites the file without its free pages (SQLite's `VACUUM`), then folds the log back
    /// into it so the file on disk is the smaller one. Needs free disk space about the file's
    /// size while it runs, and holds the project's write lock until it ends; items, revisions
    /// and their ids are unchanged.
    pub fn compact(&self) -> Result<CompactReport> {
        let size = |conn: &rusqlite::Connection| -> Result<(u64, i64)> {
            let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
            let page_size: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
            let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
            Ok(((pages * page_size) as u64, free))
        };
        let (bytes_before, free_pages_before) = size(&self.conn)?;
        // The copy VACUUM builds goes where temporary tables go, which for a project's
        // connection is memory: a file instead, so a large project is not held whole in RAM.
        let temp_store = super::connection::temp_files_on_disk(&self.conn);
        let vacuumed = self.conn.execute_batch("VACUUM");
        super::connection::restore_temp_store(&self.conn, temp_store);
        if let Err(e) = vacuumed {
            let e = crate::Error::from(e);
            if e.is_busy() {
                return Err(crate::Error::Invalid(
                    "the project is being written (an evaluation, a suggestion run or an import): \
                     compact it when that has finished; nothing was changed"
                        .into(),
                ));
            }
            return Err(e);
        }
        // Another connection still reading an older snapshot keeps the log; the file has
        // shrunk all the same once it is checkpointed later.
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        let (bytes_after, _) = size(&self.conn)?;
        Ok(CompactReport {
            bytes_before,
            bytes_after,
            free_pages_before,
        })
    }
}
