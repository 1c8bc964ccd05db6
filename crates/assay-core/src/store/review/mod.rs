//! Review and the auditor's final pass: nobody reviews or approves their own revision; only an
//! auditor signs off an item, and a signed-off item takes no edit until an auditor reopens it.
//! The rules and the rows are the write path's (`write_path::decisions`); agreement between
//! annotators is measured in `agreement`.

pub mod agreement;
pub mod blind;
pub mod comments;
pub mod majority_check;
pub mod rounds;
pub mod users;

use rusqlite::TransactionBehavior;

use crate::error::Result;
use crate::store::items::Author;
use crate::store::write_path::decisions;
use crate::store::Project;

crate::named_enum! {
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum ReviewDecision {
        Approve = "approve",
        RequestChanges = "request_changes",
    }
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
        let rev = decisions::review(&tx, item_id, decision, comment, author)?;
        tx.commit()?;
        Ok(rev)
    }

    /// Items waiting for review that this person may review: edited, not signed off, and whose
    /// current revision someone else made.
    pub fn review_queue(&self, user_id: i64) -> Result<Vec<i64>> {
        Ok(self
            .review_entries(user_id)?
            .into_iter()
            .map(|e| e.item_id)
            .collect())
    }

    /// The review queue with each item's dataset and id, for lists.
    pub fn review_entries(
        &self,
        user_id: i64,
    ) -> Result<Vec<crate::store::review::rounds::QueueEntry>> {
        let mut st = self.conn.prepare(
            "SELECT i.id, d.name, i.ext_id, i.status, 0 FROM items i
             JOIN datasets d ON d.id = i.dataset_id
             JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
             WHERE i.status = 'edited' AND i.signed_off = 0
               AND (r.author_id IS NULL OR r.author_id != ?1)
             ORDER BY i.id",
        )?;
        let rows = st.query_map([user_id], crate::store::review::rounds::queue_entry)?;
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
        decisions::sign_off(&tx, item_id, signed, note, author)?;
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
        let n = decisions::sign_off_dataset(&tx, dataset_id, note, author)?;
        tx.commit()?;
        Ok(n)
    }

    /// Who signed off the items of a dataset that are signed off now: each auditor with the
    /// number of items whose latest sign-off is theirs, most first.
    pub fn sign_off_counts(&self, dataset_id: i64) -> Result<Vec<(String, i64)>> {
        let mut st = self.conn.prepare(
            "SELECT u.name, COUNT(*) FROM items i
             JOIN signoffs s ON s.id = (SELECT MAX(s2.id) FROM signoffs s2 WHERE s2.item_id = i.id)
             JOIN users u ON u.id = s.author_id
             WHERE i.dataset_id = ?1 AND i.signed_off = 1
             GROUP BY u.name ORDER BY COUNT(*) DESC, u.name",
        )?;
        let rows = st.query_map([dataset_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}
