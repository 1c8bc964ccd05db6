//! A read snapshot: a savepoint released when dropped.

use crate::error::Result;

/// A savepoint taken as a read snapshot; released when dropped, so a panic in between does not
/// leave the connection inside a transaction.
pub(crate) struct ReadSnapshot<'c> {
    conn: &'c rusqlite::Connection,
    name: &'static str,
    open: bool,
}

impl<'c> ReadSnapshot<'c> {
    /// `f` inside the snapshot, released afterwards whatever `f` returned (its error first).
    pub(crate) fn run<T>(
        conn: &'c rusqlite::Connection,
        name: &'static str,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let snapshot = Self::begin(conn, name)?;
        let result = f();
        let released = snapshot.release();
        let result = result?;
        released?;
        Ok(result)
    }

    pub(in crate::store) fn begin(
        conn: &'c rusqlite::Connection,
        name: &'static str,
    ) -> Result<Self> {
        conn.execute_batch(&format!("SAVEPOINT {name}"))?;
        Ok(Self {
            conn,
            name,
            open: true,
        })
    }

    pub(in crate::store) fn release(mut self) -> Result<()> {
        self.open = false;
        self.conn.execute_batch(&format!("RELEASE {}", self.name))?;
        Ok(())
    }
}

impl Drop for ReadSnapshot<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch(&format!("RELEASE {}", self.name));
        }
    }
}
