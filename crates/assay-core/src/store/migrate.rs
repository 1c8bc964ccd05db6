//! Embedded schema migrations. Each runs in one IMMEDIATE transaction that also records the new
//! version, so a crash leaves the file at the old version or the new one, never between.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::error::{Error, Result};

/// Migrations in order; index + 1 is the schema version each one produces. Never edit one that
/// has landed: add a new file.
pub const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_project_store",
        include_str!("../../../../migrations/0001_project_store.sql"),
    ),
    (
        "0002_evaluation",
        include_str!("../../../../migrations/0002_evaluation.sql"),
    ),
    (
        "0003_traceability",
        include_str!("../../../../migrations/0003_traceability.sql"),
    ),
    (
        "0004_cjk_search",
        include_str!("../../../../migrations/0004_cjk_search.sql"),
    ),
    (
        "0005_box_metrics",
        include_str!("../../../../migrations/0005_box_metrics.sql"),
    ),
    (
        "0006_filtering_stages",
        include_str!("../../../../migrations/0006_filtering_stages.sql"),
    ),
    (
        "0007_criterion_overrules",
        include_str!("../../../../migrations/0007_criterion_overrules.sql"),
    ),
    (
        "0008_failure_tags",
        include_str!("../../../../migrations/0008_failure_tags.sql"),
    ),
    (
        "0009_review",
        include_str!("../../../../migrations/0009_review.sql"),
    ),
    (
        "0010_rounds_comments",
        include_str!("../../../../migrations/0010_rounds_comments.sql"),
    ),
    (
        "0011_sync",
        include_str!("../../../../migrations/0011_sync.sql"),
    ),
    (
        "0012_sync_runs",
        include_str!("../../../../migrations/0012_sync_runs.sql"),
    ),
    (
        "0013_sync_refusals",
        include_str!("../../../../migrations/0013_sync_refusals.sql"),
    ),
    (
        "0014_sync_comments_rounds",
        include_str!("../../../../migrations/0014_sync_comments_rounds.sql"),
    ),
    (
        "0015_sync_trust",
        include_str!("../../../../migrations/0015_sync_trust.sql"),
    ),
    (
        "0016_scorer_versions",
        include_str!("../../../../migrations/0016_scorer_versions.sql"),
    ),
    (
        "0017_bulk_uids",
        include_str!("../../../../migrations/0017_bulk_uids.sql"),
    ),
    (
        "0018_fts_hashsize",
        include_str!("../../../../migrations/0018_fts_hashsize.sql"),
    ),
    (
        "0019_image_views",
        include_str!("../../../../migrations/0019_image_views.sql"),
    ),
    (
        "0020_judge_panels",
        include_str!("../../../../migrations/0020_judge_panels.sql"),
    ),
    (
        "0021_run_replicas",
        include_str!("../../../../migrations/0021_run_replicas.sql"),
    ),
    (
        "0022_blind_rounds",
        include_str!("../../../../migrations/0022_blind_rounds.sql"),
    ),
    (
        "0023_judge_ratings",
        include_str!("../../../../migrations/0023_judge_ratings.sql"),
    ),
    (
        "0024_bulk_actions_saved_views",
        include_str!("../../../../migrations/0024_bulk_actions_saved_views.sql"),
    ),
    (
        "0025_cjk_rowids_only",
        include_str!("../../../../migrations/0025_cjk_rowids_only.sql"),
    ),
    (
        "0026_suggestions",
        include_str!("../../../../migrations/0026_suggestions.sql"),
    ),
    (
        "0027_facet_index",
        include_str!("../../../../migrations/0027_facet_index.sql"),
    ),
    (
        "0028_facet_counts",
        include_str!("../../../../migrations/0028_facet_counts.sql"),
    ),
    (
        "0029_packed_contents",
        include_str!("../../../../migrations/0029_packed_contents.sql"),
    ),
    (
        "0030_ref_type_metrics",
        include_str!("../../../../migrations/0030_ref_type_metrics.sql"),
    ),
    (
        "0031_item_changes",
        include_str!("../../../../migrations/0031_item_changes.sql"),
    ),
    (
        "0032_text_order",
        include_str!("../../../../migrations/0032_text_order.sql"),
    ),
    (
        "0033_search_tidy",
        include_str!("../../../../migrations/0033_search_tidy.sql"),
    ),
    (
        "0034_search_extras",
        include_str!("../../../../migrations/0034_search_extras.sql"),
    ),
    (
        "0035_thumb_hash_bytes",
        include_str!("../../../../migrations/0035_thumb_hash_bytes.sql"),
    ),
    (
        "0036_original_uid_runs",
        include_str!("../../../../migrations/0036_original_uid_runs.sql"),
    ),
    (
        "0037_official_center_distance",
        include_str!("../../../../migrations/0037_official_center_distance.sql"),
    ),
    (
        "0038_run_protocols",
        include_str!("../../../../migrations/0038_run_protocols.sql"),
    ),
    (
        "0039_run_score_order",
        include_str!("../../../../migrations/0039_run_score_order.sql"),
    ),
    (
        "0040_unsure_verdicts",
        include_str!("../../../../migrations/0040_unsure_verdicts.sql"),
    ),
    (
        "0041_round_standing",
        include_str!("../../../../migrations/0041_round_standing.sql"),
    ),
];

/// The statement that creates index `name`, as the last migration that creates it wrote it
/// (without its semicolon): what `sqlite_master` holds for it in a file these migrations made.
pub(crate) fn index_definition(name: &str) -> Option<&'static str> {
    last_statement_starting(&format!("CREATE INDEX {name} ON "))
}

/// The statement that creates virtual table `name`, as `index_definition` finds an index's.
pub(crate) fn virtual_table_definition(name: &str) -> Option<&'static str> {
    last_statement_starting(&format!("CREATE VIRTUAL TABLE {name} USING "))
}

/// The statement that creates trigger `name`, as `index_definition` finds an index's: up to
/// the `END` that closes its body (the body's own statements end in semicolons).
pub(crate) fn trigger_definition(name: &str) -> Option<&'static str> {
    last_statement_between(&format!("CREATE TRIGGER {name} "), "\nEND;", "\nEND".len())
}

fn last_statement_starting(head: &str) -> Option<&'static str> {
    last_statement_between(head, ";", 0)
}

/// The last migration's text from `head` to its first `end`, keeping `keep` bytes of `end`.
fn last_statement_between(head: &str, end: &str, keep: usize) -> Option<&'static str> {
    MIGRATIONS.iter().rev().find_map(|(_, sql)| {
        let start = sql.find(head)?;
        let len = sql[start..].find(end)? + keep;
        Some(&sql[start..start + len])
    })
}

/// The SQL `conn`'s file stores for the table or index `name` (`kind`), if any.
pub(crate) fn stored_sql(conn: &Connection, kind: &str, name: &str) -> Result<Option<String>> {
    let sql: Option<Option<String>> = conn
        .query_row(
            "SELECT sql FROM sqlite_master WHERE type = ?1 AND name = ?2",
            [kind, name],
            |r| r.get(0),
        )
        .optional()?;
    Ok(sql.flatten())
}

pub fn latest_version() -> i64 {
    MIGRATIONS.len() as i64
}

pub fn schema_version(conn: &Connection) -> Result<i64> {
    Ok(conn.pragma_query_value(None, "user_version", |r| r.get(0))?)
}

pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<()> {
    migrate_with(conn, path, MIGRATIONS)
}

pub(crate) fn migrate_with(
    conn: &mut Connection,
    path: &Path,
    migrations: &[(&str, &str)],
) -> Result<()> {
    let found = schema_version(conn)?;
    let known = migrations.len() as i64;
    if found > known {
        return Err(Error::NewerSchema {
            path: path.display().to_string(),
            found,
            known,
        });
    }
    if found == known {
        return Ok(());
    }
    if found > 0 {
        backup(conn, path, found)?;
    }
    // A migration's statement over every row (0035 rewrites every item) keeps a statement
    // journal of each page it changes, where temporary files go: memory, on a project's
    // connection. 0035 held ~330 MB at a million items. Files while migrating instead.
    let temp_store = super::connection::temp_files_on_disk(conn);
    let migrated = run_migrations(conn, migrations, found);
    super::connection::restore_temp_store(conn, temp_store);
    migrated
}

fn run_migrations(conn: &mut Connection, migrations: &[(&str, &str)], found: i64) -> Result<()> {
    for (i, (name, sql)) in migrations.iter().enumerate().skip(found as usize) {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // A file whose version was set back (a restored backup's header, or tests that
        // simulate an older file) may have the column already: adding it again would fail.
        let done = (*name == "0038_run_protocols" && has_column(&tx, "runs", "protocol")?)
            || (*name == "0040_unsure_verdicts" && has_column(&tx, "run_items", "unsure")?);
        if !done {
            tx.execute_batch(sql)?;
        }
        // Steps SQL cannot express run in the same transaction as their migration.
        if *name == "0004_cjk_search" || *name == "0025_cjk_rowids_only" {
            super::items::search::backfill_cjk(&tx)?;
        }
        if *name == "0034_search_extras" {
            super::items::search::keep_extras_only(&tx)?;
        }
        if *name == "0005_box_metrics" || *name == "0037_official_center_distance" {
            super::grounding::boxes::backfill_metrics(&tx)?;
        }
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}

fn has_column(conn: &Connection, table: &str, column: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2",
        [table, column],
        |r| r.get::<_, i64>(0),
    )? > 0)
}

/// Copies the file before a migration touches it: `<name>.v<old>.bak`.
fn backup(conn: &Connection, path: &Path, version: i64) -> Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".v{version}.bak"));
    let target = path.with_file_name(name);
    if target.exists() {
        std::fs::remove_file(&target).map_err(|e| Error::io(&target, e))?;
    }
    conn.execute("VACUUM INTO ?1", [target.to_string_lossy()])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_file_is_backed_up_then_upgraded() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.assay");
        let v1: &[(&str, &str)] = &[("one", "CREATE TABLE a (x INTEGER);")];
        let v2: &[(&str, &str)] = &[
            ("one", "CREATE TABLE a (x INTEGER);"),
            ("two", "ALTER TABLE a ADD COLUMN y TEXT;"),
        ];
        let mut conn = crate::store::connection::open(&path).unwrap();
        migrate_with(&mut conn, &path, v1).unwrap();
        conn.execute("INSERT INTO a (x) VALUES (7)", []).unwrap();
        migrate_with(&mut conn, &path, v2).unwrap();
        assert_eq!(schema_version(&conn).unwrap(), 2);
        let y: Option<String> = conn.query_row("SELECT y FROM a", [], |r| r.get(0)).unwrap();
        assert_eq!(y, None);
        let backup = dir.path().join("p.assay.v1.bak");
        let old = Connection::open(&backup).unwrap();
        assert_eq!(schema_version(&old).unwrap(), 1);
        let x: i64 = old.query_row("SELECT x FROM a", [], |r| r.get(0)).unwrap();
        assert_eq!(x, 7);
    }

    #[test]
    fn results_survive_the_run_items_rebuild_and_gain_the_hedged_outcome() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.assay");
        let mut conn = crate::store::connection::open(&path).unwrap();
        let before = MIGRATIONS
            .iter()
            .position(|(n, _)| *n == "0016_scorer_versions")
            .unwrap();
        migrate_with(&mut conn, &path, &MIGRATIONS[..before]).unwrap();
        conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO run_items (run_id, item_id, item_rev, cache_key, outcome, from_cache, score, parsed, evidence, error, scorer)
             VALUES (1, 2, 3, 'k', 'scored', 1, 0.5, 'B', '{}', NULL, 'choice');",
        )
        .unwrap();
        assert!(conn
            .execute("UPDATE run_items SET outcome = 'hedged'", [])
            .is_err());
        // (The result's run and item are not there: the check of references stays off.)
        migrate_with(&mut conn, &path, MIGRATIONS).unwrap();
        let row: (i64, String, f64, String, Option<i64>) = conn
            .query_row(
                "SELECT item_rev, outcome, score, scorer, scorer_version FROM run_items",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(row, (3, "scored".into(), 0.5, "choice".into(), None));
        conn.execute(
            "UPDATE run_items SET outcome = 'hedged', scorer_version = 2",
            [],
        )
        .unwrap();
        assert!(conn
            .execute("UPDATE run_items SET outcome = 'bogus'", [])
            .is_err());
        assert!(conn
            .execute("UPDATE run_items SET scorer_version = 0", [])
            .is_err());
    }

    #[test]
    fn newer_file_is_refused_with_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.assay");
        let mut conn = crate::store::connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        let err = migrate_with(&mut conn, &path, MIGRATIONS).unwrap_err();
        assert_eq!(err.code(), "newer_schema");
        assert!(err.to_string().contains("newer Assay"), "{err}");
    }

    #[test]
    fn a_failing_migration_leaves_the_old_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.assay");
        let bad: &[(&str, &str)] = &[(
            "bad",
            "CREATE TABLE a (x INTEGER); CREATE TABLE a (x INTEGER);",
        )];
        let mut conn = crate::store::connection::open(&path).unwrap();
        assert!(migrate_with(&mut conn, &path, bad).is_err());
        assert_eq!(schema_version(&conn).unwrap(), 0);
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'a'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 0);
    }
}
