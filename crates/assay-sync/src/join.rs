//! Joining a team: a new local replica made from the team database.

use assay_core::store::team::sync::SyncItem;
use assay_core::Project;

use crate::connect::{connect_with, redact};
use crate::pull::pull;
use crate::sync::SyncReport;
use crate::Result;

/// Items per page of `items_page`.
pub const ITEMS_PAGE: i64 = 20_000;

/// The team's items with their originals after `after` (dataset, seq), a page in (dataset,
/// seq) order: what a new replica starts from, whether it joins through the database or the
/// team service. Originals are the owner's (members cannot write a revision without a base).
pub fn items_page(
    db: &mut impl postgres::GenericClient,
    after: Option<(&str, i64)>,
) -> Result<Vec<SyncItem>> {
    let (dataset, seq) = after.unwrap_or(("", i64::MIN));
    let rows = db.query(
        // The page's items first (by the key), then each one's original: else every page
        // would join the rest of the table.
        "WITH page AS (SELECT dataset, ext_id, seq FROM items
                       WHERE (dataset, seq) > ($1, $2)
                       ORDER BY dataset, seq LIMIT $3)
         SELECT p.dataset, d.layout, p.ext_id, p.seq, r.uid, r.content::text
         FROM page p JOIN datasets d ON d.name = p.dataset
         CROSS JOIN LATERAL (SELECT uid, content FROM revisions r
                             WHERE r.dataset = p.dataset AND r.ext_id = p.ext_id
                               AND r.author IS NULL AND r.base_uid IS NULL
                             LIMIT 1) r
         ORDER BY p.dataset, p.seq",
        &[&dataset, &seq, &ITEMS_PAGE],
    )?;
    Ok(rows
        .iter()
        .map(|r| SyncItem {
            dataset: r.get(0),
            layout: r.get(1),
            ext_id: r.get(2),
            seq: r.get(3),
            original_uid: r.get(4),
            original: r.get(5),
        })
        .collect())
}

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
    let mut items: Vec<SyncItem> = Vec::new();
    loop {
        let after = items.last().map(|i| (i.dataset.clone(), i.seq));
        let page = items_page(&mut db, after.as_ref().map(|(d, s)| (d.as_str(), *s)))?;
        if page.is_empty() {
            break;
        }
        items.extend(page);
    }
    project.insert_replica_items(&items)?;
    project.sync_set("team", &redact(url))?;
    let pulled = pull(&mut db, &mut project)?;
    project.sync_set("last_sync", &assay_core::store::now())?;
    Ok((
        project,
        SyncReport {
            pulled,
            ..Default::default()
        },
    ))
}
