//! Counts per dataset, operation and status: what `assay stats` prints.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::store::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DatasetSummary {
    pub dataset: String,
    pub items: i64,
    pub removed: i64,
    pub edited: i64,
    /// (op or "unset", count)
    pub ops: Vec<(String, i64)>,
    pub statuses: Vec<(String, i64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ProjectSummary {
    pub datasets: Vec<DatasetSummary>,
    pub items: i64,
    pub images: i64,
    pub revisions: i64,
}

impl Project {
    pub fn summary(&self) -> Result<ProjectSummary> {
        let mut datasets = Vec::new();
        for d in self.datasets()? {
            let counts = |col: &str| -> Result<Vec<(String, i64)>> {
                let mut st = self.conn.prepare(&format!(
                    "SELECT coalesce({col}, 'unset'), count(*) FROM items WHERE dataset_id = ?1
                     GROUP BY 1 ORDER BY 1"
                ))?;
                let rows = st
                    .query_map([d.id], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            };
            let edited: i64 = self.conn.query_row(
                "SELECT count(*) FROM items WHERE dataset_id = ?1 AND rev > 0",
                [d.id],
                |r| r.get(0),
            )?;
            let ops = counts("op")?;
            let removed = ops
                .iter()
                .find(|(o, _)| o == "remove")
                .map_or(0, |(_, n)| *n);
            datasets.push(DatasetSummary {
                dataset: d.name,
                items: d.item_count,
                removed,
                edited,
                ops,
                statuses: counts("status")?,
            });
        }
        let one = |sql: &str| -> Result<i64> { Ok(self.conn.query_row(sql, [], |r| r.get(0))?) };
        Ok(ProjectSummary {
            datasets,
            items: one("SELECT count(*) FROM items")?,
            images: one("SELECT count(*) FROM images")?,
            revisions: one("SELECT count(*) FROM revisions")?,
        })
    }
}
