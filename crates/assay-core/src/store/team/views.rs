//! Saved views between replicas. A view's filter names datasets by name on the way out (their
//! ids are each replica's own) and by this replica's ids on the way in; a hand selection is
//! never part of a saved view.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Role;
use crate::store::items::query::Filter;
use crate::store::team::sync::adopt_uid;
use crate::store::{now, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SyncSavedView {
    pub uid: String,
    pub name: String,
    /// The filter as JSON, with `datasets` and `ids` emptied.
    pub filter: String,
    /// The filter's datasets, by name.
    pub datasets: Vec<String>,
    /// The columns as a JSON array.
    pub columns: String,
    pub author: String,
    pub shared: bool,
    pub deleted: bool,
    pub created_at: String,
}

impl SyncSavedView {
    /// A view is its author's until shared. The team service checks each page it sends with
    /// this (the database's row-level security says the same, in depth).
    pub fn readable_by(&self, member: &str) -> bool {
        self.shared || self.author == member
    }
}

impl Project {
    /// Views saved (or deleted) here that the team does not have yet.
    pub fn pending_saved_views(&self) -> Result<Vec<SyncSavedView>> {
        let mut st = self.conn.prepare_cached(
            "SELECT s.uid, v.name, v.filter, v.columns, u.name, v.shared, v.deleted, v.created_at
             FROM sync_uids s JOIN saved_views v ON v.id = s.local_id
             JOIN users u ON u.id = v.author_id
             WHERE s.tbl = 'saved_views' AND s.pushed = 0 ORDER BY v.id",
        )?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, bool>(5)?,
                    r.get::<_, bool>(6)?,
                    r.get::<_, String>(7)?,
                ))
            })?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let names: std::collections::HashMap<i64, String> = self
            .datasets()?
            .into_iter()
            .map(|d| (d.id, d.name))
            .collect();
        rows.into_iter()
            .map(
                |(uid, name, filter, columns, author, shared, deleted, created_at)| {
                    let mut f: Filter = serde_json::from_str(&filter).unwrap_or_default();
                    let datasets = f
                        .datasets
                        .iter()
                        .filter_map(|id| names.get(id).cloned())
                        .collect();
                    f.datasets.clear();
                    f.ids.clear();
                    drop_run_sort(&mut f);
                    Ok(SyncSavedView {
                        uid,
                        name,
                        filter: serde_json::to_string(&f)
                            .map_err(|e| Error::Invalid(e.to_string()))?,
                        datasets,
                        columns,
                        author,
                        shared,
                        deleted,
                        created_at,
                    })
                },
            )
            .collect()
    }

    /// A view pulled from the team, under its author's name here. Datasets this replica does
    /// not hold are left out of its filter.
    pub fn apply_pulled_saved_view(&mut self, v: &SyncSavedView, seq: i64) -> Result<bool> {
        if self.mark_known("saved_views", &v.uid, seq, Some(&v.author))? {
            return Ok(false);
        }
        let mut f: Filter = serde_json::from_str(&v.filter)
            .map_err(|e| Error::Invalid(format!("view {}: {e}", v.uid)))?;
        let mut ids = Vec::new();
        for name in &v.datasets {
            if let Ok(d) = self.dataset_by_name(name) {
                ids.push(d.id);
            }
        }
        // Datasets this replica does not hold: the view keeps the ones it does; if it holds
        // none, the view matches nothing here (an empty list would mean every dataset).
        if ids.is_empty() && !v.datasets.is_empty() {
            ids.push(-1);
        }
        f.datasets = ids;
        f.ids.clear();
        drop_run_sort(&mut f);
        let columns: Vec<String> = serde_json::from_str(&v.columns).unwrap_or_default();
        let author = self.ensure_user(&v.author, Role::Annotator)?;
        let tx = self.conn.savepoint()?;
        tx.prepare_cached("INSERT INTO saved_views (name, filter, columns, author_id, shared, created_at, deleted)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?.execute(
            params![
                v.name,
                serde_json::to_string(&f).map_err(|e| Error::Invalid(e.to_string()))?,
                serde_json::to_string(&columns).map_err(|e| Error::Invalid(e.to_string()))?,
                author.id,
                v.shared,
                if v.created_at.is_empty() { now() } else { v.created_at.clone() },
                v.deleted
            ],
        )?;
        let id = tx.last_insert_rowid();
        adopt_uid(&tx, "saved_views", id, &v.uid, seq)?;
        tx.commit()?;
        Ok(true)
    }
}

/// A run's score names its run by this replica's id, which means another run (or none) on a
/// colleague's: the order is left out of a view between replicas, both ways, rather than
/// sorting by a run nobody chose.
fn drop_run_sort(f: &mut Filter) {
    if f.sort
        .is_some_and(|s| s.column == crate::store::items::query::SortColumn::RunScore)
    {
        f.sort = None;
    }
}
