//! Joining a team: a new local replica made from the team database.

use assay_core::store::team::sync::SyncItem;
use assay_core::Project;

use crate::connect::{connect_with, redact};
use crate::pull::pull;
use crate::sync::SyncReport;
use crate::Result;

/// Makes a new local replica at `path` from the team database: datasets, items, then every row
/// of history in the team's order (images come on first view, or with `fetch_images`).
pub fn join(url: &str, path: &std::path::Path) -> Result<(Project, SyncReport)> {
    join_with(url, None, path)
}

pub fn join_with(
    url: &str,
    password: Option<&str>,
    path: &std::path::Path,
) -> Result<(Project, SyncReport)> {
    let mut db = connect_with(url, password)?;
    crate::schema::require_current(&mut db)?;
    let mut project = Project::create(path)?;
    // Originals are the owner's (members cannot write a revision without a base).
    let rows = db.query(
        "SELECT i.dataset, d.layout, i.ext_id, i.seq, r.uid, r.content::text
         FROM items i JOIN datasets d ON d.name = i.dataset
         JOIN revisions r ON r.dataset = i.dataset AND r.ext_id = i.ext_id AND r.author IS NULL
                          AND r.base_uid IS NULL
         ORDER BY d.name, i.seq",
        &[],
    )?;
    let items: Vec<SyncItem> = rows
        .iter()
        .map(|r| SyncItem {
            dataset: r.get(0),
            layout: r.get(1),
            ext_id: r.get(2),
            seq: r.get(3),
            original_uid: r.get(4),
            original: r.get(5),
        })
        .collect();
    project.insert_replica_items(&items)?;
    project.sync_set("team", &redact(url))?;
    let pulled = pull(&mut db, &mut project)?;
    Ok((
        project,
        SyncReport {
            pulled,
            ..Default::default()
        },
    ))
}
