//! The two versions every comparison is between, defined once: "before" is revision 0 of every
//! item, "after" is the current revision of every item not removed.

use crate::error::Result;
use crate::model::{ItemContent, RefinementOp};
use crate::store::items::parse_content;
use crate::store::Project;

crate::named_enum! {
    pub enum Version {
        /// The originals (revision 0 of every item).
        Before = "before",
        /// Current states minus removed items and items filtering took out (dropped at a
        /// stage, or removed by phase-1 flags no auditor overrode).
        After = "after",
    }
}

impl Version {
    /// Whether an item belongs to this version, given its current operation and whether
    /// filtering kept it.
    pub fn includes(self, op: Option<RefinementOp>, kept: bool) -> bool {
        match self {
            Self::Before => true,
            Self::After => op != Some(RefinementOp::Remove) && kept,
        }
    }
}

/// An item as one version sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionItem {
    pub id: i64,
    pub ext_id: String,
    /// Position in the dataset as imported (0-based): what position-keyed tools call `doc_id`.
    pub seq: i64,
    /// The revision this version uses (0 before).
    pub rev: i64,
    pub op: Option<RefinementOp>,
    pub category: Option<String>,
}

impl Project {
    /// The items of a version in dataset order, without their content.
    pub fn version_members(&self, dataset_id: i64, version: Version) -> Result<Vec<VersionItem>> {
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT id, ext_id, seq, rev, op, category, {}
             FROM items WHERE dataset_id = ?1 ORDER BY seq",
            crate::store::filtering::stages::KEPT
        ))?;
        let rows = st.query_map([dataset_id], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, bool>(6)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, ext_id, seq, rev, op, category, kept) = row?;
            let op = op.as_deref().and_then(RefinementOp::parse);
            if !version.includes(op, kept) {
                continue;
            }
            out.push(VersionItem {
                id,
                ext_id,
                seq,
                rev: if version == Version::Before { 0 } else { rev },
                op,
                category,
            });
        }
        Ok(out)
    }

    /// The items of a version in dataset order with their content at that version.
    pub fn version_items(
        &self,
        dataset_id: i64,
        version: Version,
    ) -> Result<Vec<(VersionItem, ItemContent)>> {
        let members = self.version_members(dataset_id, version)?;
        let at: Vec<(i64, i64)> = members.iter().map(|m| (m.id, m.rev)).collect();
        let contents = self.contents_at(&at)?;
        Ok(members.into_iter().zip(contents).collect())
    }

    /// Items' contents, each at its given revision (`(item id, rev)`), in the order asked.
    pub fn contents_at(&self, at: &[(i64, i64)]) -> Result<Vec<ItemContent>> {
        let mut st = self.conn.prepare_cached(
            "SELECT revision_json(content) FROM revisions WHERE item_id = ?1 AND rev = ?2",
        )?;
        let mut out = Vec::with_capacity(at.len());
        for (id, rev) in at {
            let json: String = st.query_row(rusqlite::params![id, rev], |r| r.get(0))?;
            out.push(parse_content(&json)?);
        }
        Ok(out)
    }

    /// An item's content at one revision.
    pub fn content_at(&self, item_id: i64, rev: i64) -> Result<ItemContent> {
        Ok(crate::store::items::revisions::load(&self.conn, item_id, rev)?.content)
    }
}
