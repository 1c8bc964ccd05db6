//! Datasets: one per imported file or folder.

use rusqlite::{params, OptionalExtension, Transaction};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::{now, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Dataset {
    pub id: i64,
    pub name: String,
    pub layout: String,
    pub source_path: Option<String>,
    pub imported_at: String,
    pub item_count: i64,
}

pub(crate) fn insert(
    tx: &Transaction<'_>,
    name: &str,
    layout: &str,
    source: Option<&str>,
) -> Result<i64> {
    let exists: Option<i64> = tx
        .query_row("SELECT id FROM datasets WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?;
    if exists.is_some() {
        return Err(Error::Invalid(format!(
            "a dataset named {name:?} already exists in this project; import it under another name"
        )));
    }
    tx.execute(
        "INSERT INTO datasets (name, layout, source_path, imported_at) VALUES (?1, ?2, ?3, ?4)",
        params![name, layout, source, now()],
    )?;
    Ok(tx.last_insert_rowid())
}

impl Project {
    pub fn datasets(&self) -> Result<Vec<Dataset>> {
        let mut st = self.conn.prepare(
            "SELECT d.id, d.name, d.layout, d.source_path, d.imported_at,
                    (SELECT count(*) FROM items i WHERE i.dataset_id = d.id)
             FROM datasets d ORDER BY d.id",
        )?;
        let rows = st.query_map([], |r| {
            Ok(Dataset {
                id: r.get(0)?,
                name: r.get(1)?,
                layout: r.get(2)?,
                source_path: r.get(3)?,
                imported_at: r.get(4)?,
                item_count: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn dataset_by_name(&self, name: &str) -> Result<Dataset> {
        self.datasets()?
            .into_iter()
            .find(|d| d.name == name)
            .ok_or_else(|| Error::NotFound(format!("dataset {name:?}")))
    }
}
