//! Originals' team uids kept as runs of revision ids until a team needs them as rows
//! (migration 0036). An import writes one `original_uid_runs` row per run of consecutive
//! originals instead of a `sync_uids` row each. Publishing, each push batch and each pull page
//! write the rows from the runs first (`Project::write_original_uids`, `write_rows`), and the
//! readers a push relies on refuse to run while runs remain, so no original can be left out
//! of a push unnoticed, even when an import commits on another connection during a sync.

use rusqlite::{params, Connection, Transaction};

use super::Project;
use crate::error::{Error, Result};

/// The run of originals a writer is making: consecutive revision ids under one prefix. Kept in
/// `original_uid_runs` by `flush`, which the writer calls at each batch and at its end, inside
/// the write's transaction (a failed write takes its runs with it).
pub(crate) struct UidRuns {
    prefix: String,
    run: Option<(i64, i64)>,
}

impl UidRuns {
    pub(crate) fn new(prefix: String) -> Self {
        UidRuns { prefix, run: None }
    }

    /// The original `revision_id` takes its uid from this writer's prefix. An id that does not
    /// follow the run (a row with a team uid came between) starts a new one.
    pub(crate) fn add(&mut self, tx: &Transaction<'_>, revision_id: i64) -> Result<()> {
        match &mut self.run {
            Some((_, last)) if *last + 1 == revision_id => *last = revision_id,
            _ => {
                self.flush(tx)?;
                self.run = Some((revision_id, revision_id));
            }
        }
        Ok(())
    }

    /// Writes the run as far as it goes (again, longer, at each call).
    pub(crate) fn flush(&self, tx: &Transaction<'_>) -> Result<()> {
        if let Some((first, last)) = self.run {
            tx.prepare_cached(
                "INSERT INTO original_uid_runs (first_id, last_id, prefix) VALUES (?1, ?2, ?3)
                 ON CONFLICT (first_id) DO UPDATE SET last_id = excluded.last_id",
            )?
            .execute(params![first, last, self.prefix])?;
        }
        Ok(())
    }
}

/// Originals whose uid is still a run, not a row: pending like any unpushed row.
pub(crate) fn originals_in_runs(conn: &Connection) -> Result<i64> {
    Ok(conn
        .prepare_cached("SELECT coalesce(sum(last_id - first_id + 1), 0) FROM original_uid_runs")?
        .query_row([], |r| r.get(0))?)
}

/// An error unless every original's uid is a row: the team readers join `sync_uids`, and an
/// original missing there would silently drop out of what they read.
pub(crate) fn require_rows(conn: &Connection) -> Result<()> {
    if originals_in_runs(conn)? > 0 {
        return Err(Error::Invalid(
            "originals' team uids are not written yet (Project::write_original_uids)".into(),
        ));
    }
    Ok(())
}

/// Writes a `sync_uids` row for each original whose uid is still a run and forgets the runs,
/// inside the caller's transaction. Returns how many rows it wrote. A run's uids rise with its
/// ids, so each run's reach their unique index in order without a sort.
pub(crate) fn write_rows(conn: &Connection) -> Result<usize> {
    let written = conn
        .prepare_cached(
            "INSERT INTO sync_uids (tbl, local_id, uid, pushed)
         SELECT 'revisions', v.local_id, v.uid, 0 FROM original_run_uids v
         WHERE NOT EXISTS (SELECT 1 FROM sync_uids s
                           WHERE s.tbl = 'revisions' AND s.local_id = v.local_id)",
        )?
        .execute([])?;
    conn.prepare_cached("DELETE FROM original_uid_runs")?
        .execute([])?;
    Ok(written)
}

impl Project {
    /// `write_rows` in a transaction of its own: what publishing and each push batch do first.
    /// Without runs it writes nothing and takes no write lock (a push batch asks every time).
    pub fn write_original_uids(&mut self) -> Result<usize> {
        if originals_in_runs(&self.conn)? == 0 {
            return Ok(0);
        }
        let tx = self.conn.transaction()?;
        let written = write_rows(&tx)?;
        tx.commit()?;
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An original's team uid as the importer made each one when it wrote them as rows: its
    /// writer's prefix and its revision id in 16 hex digits.
    fn original_uid(prefix: &str, revision_id: i64) -> String {
        format!("{prefix}{revision_id:016x}")
    }

    fn import(p: &mut Project, dir: &std::path::Path, name: &str, n: usize) {
        let text: String = (0..n)
            .map(|i| format!("{{\"id\":\"q{i}\",\"question\":\"what is {i}\",\"answer\":\"a\"}}\n"))
            .collect();
        let file = dir.join(format!("{name}.jsonl"));
        std::fs::write(&file, text).unwrap();
        let opts = crate::import::ImportOptions {
            layout: Some("jammeval".into()),
            ..Default::default()
        };
        let cancel = std::sync::atomic::AtomicBool::new(false);
        crate::import::import_path(p, &file, &opts, &mut |_| {}, &cancel).unwrap();
    }

    fn count(p: &Project, sql: &str) -> i64 {
        p.conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn originals_stay_runs_until_a_team_needs_their_rows_then_get_the_same_uids() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Project::create(dir.path().join("p.assay")).unwrap();
        import(&mut p, dir.path(), "first", 2_500);
        import(&mut p, dir.path(), "second", 40);
        assert_eq!(count(&p, "SELECT count(*) FROM sync_uids"), 0);
        assert_eq!(count(&p, "SELECT count(*) FROM original_uid_runs"), 2);
        assert_eq!(p.sync_status().unwrap().pending, 2_540, "runs are pending");
        // What a team reads refuses to run on runs rather than miss their originals.
        assert!(matches!(p.sync_items(), Err(Error::Invalid(_))));
        assert!(matches!(
            p.pending_revisions(10, usize::MAX),
            Err(Error::Invalid(_))
        ));
        assert!(matches!(p.pending_comments(), Err(Error::Invalid(_))));

        let prefixes: Vec<String> = {
            let mut st = p
                .conn
                .prepare("SELECT prefix FROM original_uid_runs ORDER BY first_id")
                .unwrap();
            let rows = st.query_map([], |r| r.get(0)).unwrap();
            rows.collect::<std::result::Result<_, _>>().unwrap()
        };
        assert_ne!(prefixes[0], prefixes[1], "a prefix per import");
        assert_eq!(p.write_original_uids().unwrap(), 2_540);
        assert_eq!(p.write_original_uids().unwrap(), 0, "written once");
        assert_eq!(p.sync_status().unwrap().pending, 2_540);
        assert_eq!(
            count(
                &p,
                "SELECT count(*) FROM sync_uids s JOIN revisions r ON r.id = s.local_id
                 WHERE s.tbl = 'revisions' AND r.rev = 0 AND s.pushed = 0 AND length(s.uid) = 32"
            ),
            2_540
        );
        let items = p.sync_items().unwrap();
        assert_eq!(items.len(), 2_540);
        // Each uid is its import's prefix and its original's revision id, as the rows held
        // when the importer wrote one each.
        for it in &items {
            let (rev_id, dataset): (i64, i64) = p
                .conn
                .query_row(
                    "SELECT r.id, i.dataset_id FROM revisions r JOIN items i ON i.id = r.item_id
                     JOIN datasets d ON d.id = i.dataset_id
                     WHERE d.name = ?1 AND i.ext_id = ?2 AND r.rev = 0",
                    params![it.dataset, it.ext_id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            let prefix = &prefixes[usize::from(dataset != 1)];
            assert_eq!(it.original_uid, original_uid(prefix, rev_id));
        }

        // An import committed during a sync (another connection): the next pull page writes
        // its originals' rows before it reads anything by uid.
        import(&mut p, dir.path(), "third", 10);
        assert_eq!(count(&p, "SELECT count(*) FROM original_uid_runs"), 1);
        p.begin_pull_page().unwrap();
        p.end_pull_page().unwrap();
        assert_eq!(count(&p, "SELECT count(*) FROM original_uid_runs"), 0);
        assert_eq!(
            count(&p, "SELECT count(*) FROM sync_uids WHERE pushed = 0"),
            2_550
        );
    }

    #[test]
    fn a_run_breaks_where_revision_ids_do_not_follow() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Project::create(dir.path().join("p.assay")).unwrap();
        let tx = p.conn.transaction().unwrap();
        let mut runs = UidRuns::new("00ff".into());
        for id in [5, 6, 7, 9, 10, 12] {
            runs.add(&tx, id).unwrap();
            if id == 6 {
                runs.flush(&tx).unwrap();
            }
        }
        runs.flush(&tx).unwrap();
        let mut st = tx
            .prepare("SELECT first_id, last_id FROM original_uid_runs ORDER BY first_id")
            .unwrap();
        let got: Vec<(i64, i64)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<std::result::Result<_, _>>()
            .unwrap();
        assert_eq!(got, [(5, 7), (9, 10), (12, 12)]);
    }
}
