//! Publishing a project: the team schema, the project's people as members, its items with
//! their originals, images and every row of history, in one transaction.

use assay_core::Project;

use crate::connect::{connect, redact};
use crate::images::image_size;
use crate::pull::pull;
use crate::push::{push_batch, push_runs};
use crate::schema::SCHEMA;
use crate::sync::{mark_runs, SyncReport};
use crate::{Result, SyncError};

/// Publishes a project to an empty database: Assay's schema and policies, the project's people
/// as members (without logins until `add_member` gives them one), datasets, items, images and
/// every row of history. The project then syncs with `url` (stored without its password).
pub fn init(admin_url: &str, project: &mut Project) -> Result<SyncReport> {
    let mut db = connect(admin_url)?;
    let empty = db
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
            &[],
        )?
        .get::<_, i64>(0)
        == 0;
    if !empty {
        return Err(SyncError::Invalid(
            "the database is not empty: publish to a new database".into(),
        ));
    }
    // The originals an import kept as uid runs get their rows, which publishing reads.
    project.write_original_uids()?;
    let mut tx = db.transaction()?;
    for step in SCHEMA {
        tx.batch_execute(step)?;
    }
    for u in project.users()? {
        tx.execute(
            "INSERT INTO members (name, role, db_role) VALUES ($1, $2, $1)",
            &[&u.name, &u.role.as_str()],
        )?;
    }
    let items = project.sync_items()?;
    let mut seen = std::collections::HashSet::new();
    for it in &items {
        if seen.insert(it.dataset.clone()) {
            tx.execute(
                "INSERT INTO datasets (name, layout) VALUES ($1, $2)",
                &[&it.dataset, &it.layout],
            )?;
        }
    }
    let ins_item = tx.prepare("INSERT INTO items (dataset, ext_id, seq) VALUES ($1, $2, $3)")?;
    let ins_orig = tx.prepare(
        "INSERT INTO revisions (uid, dataset, ext_id, created_at, tags, status, note, content)
         VALUES ($1, $2, $3, '', 0, 'todo', 'imported', $4::text::jsonb)",
    )?;
    for it in &items {
        tx.execute(&ins_item, &[&it.dataset, &it.ext_id, &it.seq])?;
        tx.execute(
            &ins_orig,
            &[&it.original_uid, &it.dataset, &it.ext_id, &it.original],
        )?;
    }
    for hash in project.image_hashes()? {
        let (bytes, format) = project.image_bytes(&hash)?;
        let (w, h) = image_size(&bytes);
        tx.execute(
            "INSERT INTO images (hash, width, height, format, bytes) VALUES ($1, $2, $3, $4, $5)",
            &[&hash, &w, &h, &format, &bytes],
        )?;
    }
    // The project's runs are its owner's (the first person of the project file).
    let owner = project.owner()?;
    let mut report = SyncReport::default();
    // The owner writes every person's history once; from now on each pushes their own.
    let mut runs = Vec::new();
    let published = (|| -> Result<()> {
        loop {
            let batch = push_batch(&mut tx, project)?;
            if batch.is_empty() {
                break;
            }
            report.pushed += batch.done.len();
            // Marked as it goes so the next batch moves on (the owner is refused nothing).
            project.mark_pushed(&batch.done)?;
            project.mark_refused(&batch.refused)?;
        }
        runs = push_runs(&mut tx, project, owner.as_deref())?;
        Ok(())
    })()
    .and_then(|()| Ok(tx.commit()?));
    if let Err(e) = published {
        // Nothing of it exists in the team: the replica's rows are all pending again.
        project.reset_sync_marks()?;
        return Err(e);
    }
    // Statistics for the planner now, not when autovacuum gets to it: without them the first
    // joins plan nested loops over every row (a 20,000-item join took 38 s instead of 1).
    db.batch_execute("ANALYZE")?;
    report.pushed += mark_runs(project, &runs, owner.as_deref())?;
    project.mark_all_pushed()?;
    project.sync_set("team", &redact(admin_url))?;
    report.pulled += pull(&mut db, project)?;
    Ok(report)
}
