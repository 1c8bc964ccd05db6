//! Review and the auditor's final pass, enforced here so the CLI, the app and a team server
//! agree: nobody reviews or approves their own revision; only an auditor signs off an item, and
//! a signed-off item takes no edit until an auditor reopens it. Agreement between annotators is
//! measured from their own revisions on the items more than one of them worked on.

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use super::items::{append_revision, current_content, Author, Edit};
use super::{now, Project};
use crate::error::{Error, Result};
use crate::model::{IssueTag, ItemStatus, RefinementOp, Role};
use crate::stats::{cohen_kappa, krippendorff_alpha_nominal};

crate::named_enum! {
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum ReviewDecision {
        Approve = "approve",
        RequestChanges = "request_changes",
    }
}

/// The user who made an item's current revision (None: the import).
pub(crate) fn current_author(conn: &Connection, item_id: i64) -> Result<Option<i64>> {
    conn.query_row(
        "SELECT r.author_id FROM items i JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
         WHERE i.id = ?1",
        [item_id],
        |r| r.get(0),
    )
    .optional()?
    .ok_or_else(|| Error::NotFound(format!("item {item_id}")))
}

pub(crate) fn is_signed_off(conn: &Connection, item_id: i64) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT signed_off FROM items WHERE id = ?1",
        [item_id],
        |r| r.get(0),
    )?)
}

/// The role the store has for this user: the caller's claim is not enough.
fn stored_role(conn: &Connection, author: &Author) -> Result<Role> {
    let role: String = conn
        .query_row(
            "SELECT role FROM users WHERE id = ?1",
            [author.user_id],
            |r| r.get(0),
        )
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("user {}", author.user_id)))?;
    Ok(Role::parse(&role).unwrap_or(Role::Annotator))
}

/// Agreement on one field between the people who set it on the same items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Agreement {
    pub field: String,
    /// Items at least two people set the field on.
    pub items: usize,
    pub people: Vec<String>,
    /// Cohen's kappa for each pair of people on their common items.
    pub pairs: Vec<PairAgreement>,
    /// Krippendorff's alpha (nominal) over every item with two or more values.
    pub krippendorff_alpha: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PairAgreement {
    pub a: String,
    pub b: String,
    pub items: usize,
    pub cohen_kappa: Option<f64>,
    /// Rows a, columns b: counts per (a's value, b's value), values in `labels` order.
    pub labels: Vec<String>,
    pub confusion: Vec<Vec<u64>>,
}

impl Project {
    /// A reviewer approves the current revision or asks for changes, with a comment. Refused on
    /// one's own revision; approving sets the status "approved", asking sets "flagged".
    pub fn review(
        &mut self,
        item_id: i64,
        decision: ReviewDecision,
        comment: Option<&str>,
        author: &Author,
    ) -> Result<i64> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if current_author(&tx, item_id)? == Some(author.user_id) {
            return Err(Error::Forbidden(
                "you cannot review your own revision; someone else must".into(),
            ));
        }
        if is_signed_off(&tx, item_id)? {
            return Err(Error::Forbidden(format!(
                "item {item_id} is signed off; an auditor must reopen it"
            )));
        }
        let rev: i64 = tx.query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
            r.get(0)
        })?;
        tx.execute(
            "INSERT INTO review_decisions (item_id, rev, decision, comment, author_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                item_id,
                rev,
                decision.as_str(),
                comment,
                author.user_id,
                now()
            ],
        )?;
        let (op, tags): (Option<String>, i64) =
            tx.query_row("SELECT op, tags FROM items WHERE id = ?1", [item_id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
        let edit = Edit {
            base_rev: None,
            content: current_content(&tx, item_id)?,
            op: op.as_deref().and_then(RefinementOp::parse),
            tags: IssueTag::from_bits(tags),
            status: match decision {
                ReviewDecision::Approve => ItemStatus::Approved,
                ReviewDecision::RequestChanges => ItemStatus::Flagged,
            },
            note: Some(match comment {
                Some(c) => format!("{}: {c}", decision.as_str().replace('_', " ")),
                None => decision.as_str().replace('_', " "),
            }),
        };
        let new_rev = append_revision(&tx, item_id, &edit, author)?;
        tx.commit()?;
        Ok(new_rev)
    }

    /// Items waiting for review that this person may review: edited, not signed off, and whose
    /// current revision someone else made.
    pub fn review_queue(&self, user_id: i64) -> Result<Vec<i64>> {
        let mut st = self.conn.prepare(
            "SELECT i.id FROM items i JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
             WHERE i.status = 'edited' AND i.signed_off = 0
               AND (r.author_id IS NULL OR r.author_id != ?1)
             ORDER BY i.id",
        )?;
        let rows = st.query_map([user_id], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// An auditor signs an item off (locking it) or reopens it. Only auditors may.
    pub fn sign_off(
        &mut self,
        item_id: i64,
        signed: bool,
        note: Option<&str>,
        author: &Author,
    ) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if stored_role(&tx, author)? != Role::Auditor {
            return Err(Error::Forbidden(
                "only an auditor can sign off or reopen an item".into(),
            ));
        }
        let rev: i64 = tx
            .query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
        tx.execute(
            "INSERT INTO signoffs (item_id, rev, signed, note, author_id, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![item_id, rev, signed, note, author.user_id, now()],
        )?;
        tx.execute(
            "UPDATE items SET signed_off = ?2 WHERE id = ?1",
            params![item_id, signed],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// An auditor signs off every item of a dataset not signed off yet, in one transaction;
    /// returns how many were signed. Only auditors may.
    pub fn sign_off_dataset(
        &mut self,
        dataset_id: i64,
        note: Option<&str>,
        author: &Author,
    ) -> Result<usize> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if stored_role(&tx, author)? != Role::Auditor {
            return Err(Error::Forbidden(
                "only an auditor can sign off a dataset".into(),
            ));
        }
        let ts = now();
        let n = tx.execute(
            "INSERT INTO signoffs (item_id, rev, signed, note, author_id, created_at)
             SELECT id, rev, 1, ?2, ?3, ?4 FROM items WHERE dataset_id = ?1 AND signed_off = 0",
            params![dataset_id, note, author.user_id, ts],
        )?;
        tx.execute(
            "UPDATE items SET signed_off = 1 WHERE dataset_id = ?1",
            [dataset_id],
        )?;
        tx.commit()?;
        Ok(n)
    }

    /// Agreement on `field` ("op" or "ref_type") among the people who set it: each person's
    /// latest value per item from their own revisions, on the items two or more people set.
    pub fn agreement(&self, dataset_id: Option<i64>, field: &str) -> Result<Agreement> {
        let value = match field {
            "op" => "r.op",
            "ref_type" => "json_extract(r.content, '$.ref_type')",
            other => {
                return Err(Error::Invalid(format!(
                    "agreement is measured on op or ref_type, not {other:?}"
                )))
            }
        };
        let mut st = self.conn.prepare(&format!(
            "SELECT r.item_id, u.name, {value} FROM revisions r JOIN users u ON u.id = r.author_id
             JOIN items i ON i.id = r.item_id
             WHERE {value} IS NOT NULL AND (?1 IS NULL OR i.dataset_id = ?1)
               AND r.id = (SELECT max(r2.id) FROM revisions r2
                           WHERE r2.item_id = r.item_id AND r2.author_id = r.author_id
                             AND {v2} IS NOT NULL)
             ORDER BY r.item_id, u.name",
            v2 = value.replace("r.", "r2.")
        ))?;
        let rows: Vec<(i64, String, String)> = st
            .query_map([dataset_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<std::result::Result<_, _>>()?;
        let mut by_item: BTreeMap<i64, BTreeMap<String, String>> = BTreeMap::new();
        for (item, person, v) in rows {
            by_item.entry(item).or_default().insert(person, v);
        }
        by_item.retain(|_, m| m.len() >= 2);
        let mut people: Vec<String> = by_item.values().flat_map(|m| m.keys().cloned()).collect();
        people.sort();
        people.dedup();
        let mut labels: Vec<String> = by_item.values().flat_map(|m| m.values().cloned()).collect();
        labels.sort();
        labels.dedup();
        let code = |v: &str| labels.iter().position(|l| l == v).unwrap_or(0) as f64;
        let units: Vec<Vec<Option<f64>>> = by_item
            .values()
            .map(|m| people.iter().map(|p| m.get(p).map(|v| code(v))).collect())
            .collect();
        let mut pairs = Vec::new();
        for (i, a) in people.iter().enumerate() {
            for b in &people[i + 1..] {
                let common: Vec<(&str, &str)> = by_item
                    .values()
                    .filter_map(|m| Some((m.get(a)?.as_str(), m.get(b)?.as_str())))
                    .collect();
                if common.is_empty() {
                    continue;
                }
                let xs: Vec<&str> = common.iter().map(|c| c.0).collect();
                let ys: Vec<&str> = common.iter().map(|c| c.1).collect();
                let mut confusion = vec![vec![0u64; labels.len()]; labels.len()];
                for (x, y) in &common {
                    confusion[code(x) as usize][code(y) as usize] += 1;
                }
                pairs.push(PairAgreement {
                    a: a.clone(),
                    b: b.clone(),
                    items: common.len(),
                    cohen_kappa: cohen_kappa(&xs, &ys),
                    labels: labels.clone(),
                    confusion,
                });
            }
        }
        Ok(Agreement {
            field: field.to_string(),
            items: by_item.len(),
            people,
            pairs,
            krippendorff_alpha: krippendorff_alpha_nominal(&units),
        })
    }
}
