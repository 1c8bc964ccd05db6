//! Exports of the current set (removed items left out): JSONL + images folder, Hugging Face
//! style Parquet, and a changelog CSV with one row per changed item.

mod changelog;
mod jsonl;
mod parquet_hf;

use serde::{Deserialize, Serialize};

pub use changelog::write_changelog;
pub use jsonl::export_jsonl;
pub use parquet_hf::{export_parquet, ITEM_COLUMN};

use crate::error::Result;
use crate::model::{IssueTag, ItemContent, RefinementOp};
use crate::store::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportReport {
    pub dataset: String,
    pub items: usize,
    pub removed_left_out: usize,
    pub images: usize,
    pub path: String,
}

/// The default name of a refined set: JAMMEval keeps the seed name with `-Refined`.
pub fn refined_name(dataset: &str) -> String {
    if dataset.ends_with("-Refined") {
        dataset.to_string()
    } else {
        format!("{dataset}-Refined")
    }
}

pub(crate) struct CurrentItem {
    pub ext_id: String,
    pub rev: i64,
    pub op: Option<RefinementOp>,
    pub tags: Vec<IssueTag>,
    pub content: ItemContent,
    pub original: ItemContent,
}

/// Every item of a dataset in order, current state and original.
pub(crate) fn current_items(project: &Project, dataset_id: i64) -> Result<Vec<CurrentItem>> {
    let mut st = project.conn.prepare(
        "SELECT i.ext_id, i.rev, i.op, i.tags,
                (SELECT content FROM revisions r WHERE r.item_id = i.id AND r.rev = i.rev),
                (SELECT content FROM revisions r WHERE r.item_id = i.id AND r.rev = 0)
         FROM items i WHERE i.dataset_id = ?1 ORDER BY i.seq",
    )?;
    let rows = st.query_map([dataset_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, i64>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, String>(5)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (ext_id, rev, op, tags, cur, orig) = row?;
        out.push(CurrentItem {
            ext_id,
            rev,
            op: op.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(tags),
            content: crate::store::items::parse_content(&cur)?,
            original: crate::store::items::parse_content(&orig)?,
        });
    }
    Ok(out)
}

fn image_ext(format: &str) -> &'static str {
    match format {
        "jpeg" => "jpg",
        "webp" => "webp",
        "gif" => "gif",
        _ => "png",
    }
}

/// File name an exported image gets: its hash, so identical images are written once.
pub(crate) fn image_file_name(hash: &str, format: &str) -> String {
    format!("{hash}.{}", image_ext(format))
}
