//! Rounds of work: a purpose (annotate, review, audit), a set of items and the people assigned,
//! with a chosen overlap of items given to two people so their agreement can be measured. Each
//! person's queue, the round's progress and a per-person account are read from the same
//! append-only rows the work itself wrote.

use std::collections::BTreeMap;

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Role;
use crate::stats::SplitMix64;
use crate::store::items::Author;
use crate::store::write_path;
use crate::store::{now, Project};

crate::named_enum! {
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum RoundPurpose {
        Annotate = "annotate",
        Review = "review",
        Audit = "audit",
    }
}

/// Stands the items of round `round_id` in it (`round_standing`, migration 0041): their first
/// assignee and agreement, from the one definition (`round_standing_of`), unless an item stands
/// in a later round. Called by every path that deals a round (made here, pulled from a team) in
/// the transaction that deals it: one statement over the round's items, where a trigger per
/// assignment made dealing 100,000 items 3.5x slower.
pub(in crate::store) fn stand(tx: &rusqlite::Connection, round_id: i64) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO round_standing (item_id, round_id, assignee, agreement)
         SELECT v.item_id, v.round_id, v.assignee, v.agreement
           FROM round_standing_of v WHERE v.round_id = ?1
             ON CONFLICT (item_id) DO UPDATE SET round_id = excluded.round_id,
                assignee = excluded.assignee, agreement = excluded.agreement
          WHERE excluded.round_id >= round_standing.round_id",
    )?
    .execute([round_id])?;
    Ok(())
}

impl RoundPurpose {
    /// SQL for "this assignment is done", over `ri` (round_items) and `i` (items). In a blind
    /// round an assignment is done once the person's judgement is in.
    fn done_sql(self, blind: bool) -> &'static str {
        if blind {
            return "EXISTS (SELECT 1 FROM blind_annotations b WHERE b.round_id = ri.round_id
                          AND b.item_id = ri.item_id AND b.user_id = ri.user_id)";
        }
        match self {
            Self::Annotate => {
                "EXISTS (SELECT 1 FROM revisions r WHERE r.item_id = i.id
                          AND r.author_id = ri.user_id AND r.rev > ri.rev)"
            }
            Self::Review => {
                "EXISTS (SELECT 1 FROM review_decisions rd WHERE rd.item_id = i.id
                          AND rd.author_id = ri.user_id AND rd.made_rev = i.rev)"
            }
            Self::Audit => "i.signed_off != 0",
        }
    }
}

/// What a new round covers and who works on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NewRound {
    pub name: String,
    pub purpose: RoundPurpose,
    pub assignees: Vec<String>,
    /// Share of the items (0..=1) also given to a second person, for agreement.
    pub overlap: f64,
    /// Take only this many of the items, drawn at random with `seed`.
    pub sample: Option<usize>,
    pub seed: u64,
    /// Each assignee records a judgement of their own, unseen by the others until all are in,
    /// instead of editing the item (annotate rounds only; `store::review::blind`).
    #[serde(default)]
    pub blind: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssigneeProgress {
    pub name: String,
    pub assigned: usize,
    pub done: usize,
    /// Review decisions on this person's revisions (of these items, since assignment).
    pub approved: usize,
    pub sent_back: usize,
    /// Median seconds between this person's consecutive actions, pauses over 30 min left out.
    pub median_seconds: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoundSummary {
    pub id: i64,
    pub name: String,
    pub purpose: RoundPurpose,
    pub overlap: f64,
    pub blind: bool,
    pub created_by: String,
    pub created_at: String,
    pub items: usize,
    /// Items assigned to two or more people.
    pub overlapping: usize,
    pub people: Vec<AssigneeProgress>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct QueueEntry {
    pub item_id: i64,
    pub dataset: String,
    pub ext_id: String,
    pub status: String,
    pub done: bool,
}

/// One person's account over the whole project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PersonStats {
    pub name: String,
    pub role: Role,
    /// Items with at least one revision of theirs (review records not counted).
    pub items_edited: usize,
    pub revisions: usize,
    pub approved: usize,
    pub sent_back: usize,
    pub reviews: usize,
    pub signoffs: usize,
    pub median_seconds: Option<f64>,
}

/// A queue row: (item id, dataset, ext id, status, done).
pub(crate) fn queue_entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<QueueEntry> {
    Ok(QueueEntry {
        item_id: r.get(0)?,
        dataset: r.get(1)?,
        ext_id: r.get(2)?,
        status: r.get(3)?,
        done: r.get(4)?,
    })
}

/// Pauses longer than this are breaks, not time spent on an item.
pub(crate) const MAX_GAP_SECONDS: f64 = 30.0 * 60.0;

/// Deals items to people: each item to one person in turn, and the first `overlap` share of the
/// (shuffled) items to the next person as well. Returns (item, person index) pairs.
pub fn deal(items: &[i64], people: usize, overlap: f64, seed: u64) -> Vec<(i64, usize)> {
    let mut order = items.to_vec();
    shuffle(&mut order, seed);
    let doubled = (overlap * order.len() as f64).round() as usize;
    let mut out = Vec::with_capacity(order.len() + doubled);
    for (n, item) in order.iter().enumerate() {
        out.push((*item, n % people));
        if n < doubled && people > 1 {
            out.push((*item, (n + 1) % people));
        }
    }
    out
}

fn shuffle(v: &mut [i64], seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i + 1));
    }
}

pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

pub(crate) fn seconds(ts: &str) -> Option<f64> {
    let t = time::OffsetDateTime::parse(ts, &time::format_description::well_known::Rfc3339).ok()?;
    Some(t.unix_timestamp_nanos() as f64 / 1e9)
}

/// The median gap between consecutive actions, per person, from (person, timestamp) rows.
fn median_gaps(rows: Vec<(String, String)>) -> BTreeMap<String, f64> {
    let mut times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (who, ts) in rows {
        if let Some(s) = seconds(&ts) {
            times.entry(who).or_default().push(s);
        }
    }
    times
        .into_iter()
        .filter_map(|(who, mut t)| {
            t.sort_by(f64::total_cmp);
            let gaps: Vec<f64> = t
                .windows(2)
                .map(|w| w[1] - w[0])
                .filter(|g| *g <= MAX_GAP_SECONDS)
                .collect();
            Some((who, median(gaps)?))
        })
        .collect()
}

/// Revisions that are people's own work: a review's record of a decision is not.
const OWN_REVISION: &str = "NOT EXISTS (SELECT 1 FROM review_decisions x
    WHERE x.item_id = r.item_id AND x.made_rev = r.rev)";

impl Project {
    /// Makes a round over `items` and deals them to the assignees. Only an auditor (the team's
    /// lead) may. A review round never gives a person an item whose current revision is theirs
    /// when someone else can take it.
    pub fn create_round(
        &mut self,
        round: &NewRound,
        items: &[i64],
        author: &Author,
    ) -> Result<i64> {
        let name = round.name.trim();
        if name.is_empty() {
            return Err(Error::Invalid("a round needs a name".into()));
        }
        if !(0.0..=1.0).contains(&round.overlap) {
            return Err(Error::Invalid("overlap is a share between 0 and 1".into()));
        }
        let mut people: Vec<String> = round
            .assignees
            .iter()
            .map(|a| a.trim().to_string())
            .collect();
        people.retain(|a| !a.is_empty());
        people.dedup();
        if people.is_empty() {
            return Err(Error::Invalid("a round needs at least one assignee".into()));
        }
        if round.overlap > 0.0 && people.len() < 2 {
            return Err(Error::Invalid(
                "an overlap needs two or more assignees".into(),
            ));
        }
        if items.is_empty() {
            return Err(Error::Invalid("the round has no items".into()));
        }
        if round.blind && round.purpose != RoundPurpose::Annotate {
            return Err(Error::Invalid("only an annotate round can be blind".into()));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        if write_path::rules::stored_role(&tx, author.user_id)? != Role::Auditor {
            return Err(Error::Forbidden("only an auditor can make a round".into()));
        }
        let mut ids = Vec::new();
        for p in &people {
            let id: i64 = tx
                .query_row("SELECT id FROM users WHERE name = ?1", [p], |r| r.get(0))
                .optional()?
                .ok_or_else(|| Error::Invalid(format!("{p}: no such person in this project")))?;
            ids.push(id);
        }
        let mut chosen = items.to_vec();
        if let Some(n) = round.sample {
            shuffle(&mut chosen, round.seed ^ 0x5A4D_504C_4521);
            chosen.truncate(n);
            chosen.sort_unstable();
        }
        tx.execute(
            "INSERT INTO rounds (name, purpose, overlap, created_by, created_at, blind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                name,
                round.purpose.as_str(),
                round.overlap,
                author.user_id,
                now(),
                round.blind
            ],
        )
        .map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, _)
                if f.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                Error::Invalid(format!("a round named {name:?} exists already"))
            }
            e => e.into(),
        })?;
        let round_id = tx.last_insert_rowid();
        {
            let mut current = tx.prepare(
                "SELECT i.rev, r.author_id FROM items i
                 JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev WHERE i.id = ?1",
            )?;
            let mut insert = tx.prepare(
                "INSERT OR IGNORE INTO round_items (round_id, user_id, item_id, rev)
                 VALUES (?1, ?2, ?3, ?4)",
            )?;
            let dealt = deal(&chosen, ids.len(), round.overlap, round.seed);
            let mut taken: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
            for (item, mut who) in dealt {
                let (rev, owner): (i64, Option<i64>) = current
                    .query_row([item], |r| Ok((r.get(0)?, r.get(1)?)))
                    .optional()?
                    .ok_or_else(|| Error::NotFound(format!("item {item}")))?;
                let have = taken.entry(item).or_default();
                if round.purpose == RoundPurpose::Review {
                    for step in 0..ids.len() {
                        let cand = (who + step) % ids.len();
                        if Some(ids[cand]) != owner && !have.contains(&cand) {
                            who = cand;
                            break;
                        }
                    }
                }
                if have.contains(&who) {
                    continue;
                }
                have.push(who);
                insert.execute(params![round_id, ids[who], item, rev])?;
            }
        }
        stand(&tx, round_id)?;
        tx.commit()?;
        Ok(round_id)
    }

    pub fn rounds(&self) -> Result<Vec<RoundSummary>> {
        let mut st = self.conn.prepare(
            "SELECT r.id, r.name, r.purpose, r.overlap, u.name, r.created_at, r.blind
             FROM rounds r JOIN users u ON u.id = r.created_by ORDER BY r.id",
        )?;
        type Head = (i64, String, String, f64, String, String, bool);
        let heads: Vec<Head> = st
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                ))
            })?
            .collect::<std::result::Result<_, _>>()?;
        heads
            .into_iter()
            .map(|(id, name, purpose, overlap, created_by, created_at, blind)| {
                let purpose = RoundPurpose::parse(&purpose).unwrap_or(RoundPurpose::Annotate);
                let (items, overlapping) = self.conn.query_row(
                    "SELECT count(*), coalesce(sum(n >= 2), 0) FROM
                       (SELECT count(*) AS n FROM round_items WHERE round_id = ?1 GROUP BY item_id)",
                    [id],
                    |r| Ok((r.get::<_, i64>(0)? as usize, r.get::<_, i64>(1)? as usize)),
                )?;
                Ok(RoundSummary {
                    id,
                    name,
                    purpose,
                    overlap,
                    blind,
                    created_by,
                    created_at,
                    items,
                    overlapping,
                    people: self.round_progress(id, purpose, blind)?,
                })
            })
            .collect()
    }

    fn round_progress(
        &self,
        round_id: i64,
        purpose: RoundPurpose,
        blind: bool,
    ) -> Result<Vec<AssigneeProgress>> {
        let mut st = self.conn.prepare(&format!(
            "WITH verdicts AS (
               -- Decisions on the assignee's own revisions of the round's items since assignment.
               SELECT ri2.user_id, sum(rd.decision = 'approve') AS approved,
                      sum(rd.decision = 'request_changes') AS sent_back
               FROM round_items ri2
               JOIN review_decisions rd ON rd.item_id = ri2.item_id AND rd.rev > ri2.rev
               JOIN revisions r ON r.item_id = rd.item_id AND r.rev = rd.rev
                               AND r.author_id = ri2.user_id
               WHERE ri2.round_id = ?1 GROUP BY ri2.user_id)
             SELECT u.name, count(*), coalesce(sum({done}), 0),
               coalesce((SELECT approved FROM verdicts v WHERE v.user_id = u.id), 0),
               coalesce((SELECT sent_back FROM verdicts v WHERE v.user_id = u.id), 0)
             FROM round_items ri JOIN items i ON i.id = ri.item_id JOIN users u ON u.id = ri.user_id
             WHERE ri.round_id = ?1 GROUP BY u.id ORDER BY u.name",
            done = purpose.done_sql(blind)
        ))?;
        let mut people: Vec<AssigneeProgress> = st
            .query_map([round_id], |r| {
                Ok(AssigneeProgress {
                    name: r.get(0)?,
                    assigned: r.get::<_, i64>(1)? as usize,
                    done: r.get::<_, i64>(2)? as usize,
                    approved: r.get::<_, i64>(3)? as usize,
                    sent_back: r.get::<_, i64>(4)? as usize,
                    median_seconds: None,
                })
            })?
            .collect::<std::result::Result<_, _>>()?;
        let mut acts = self.conn.prepare(
            "SELECT u.name, r.created_at FROM round_items ri
               JOIN revisions r ON r.item_id = ri.item_id AND r.rev > ri.rev AND r.author_id = ri.user_id
               JOIN users u ON u.id = ri.user_id
             WHERE ri.round_id = ?1
             UNION ALL
             SELECT u.name, s.created_at FROM round_items ri
               JOIN signoffs s ON s.item_id = ri.item_id AND s.author_id = ri.user_id AND s.rev >= ri.rev
               JOIN users u ON u.id = ri.user_id
             WHERE ri.round_id = ?1
             UNION ALL
             SELECT u.name, b.created_at FROM blind_annotations b JOIN users u ON u.id = b.user_id
             WHERE b.round_id = ?1",
        )?;
        let rows: Vec<(String, String)> = acts
            .query_map([round_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<std::result::Result<_, _>>()?;
        let gaps = median_gaps(rows);
        for p in &mut people {
            p.median_seconds = gaps.get(&p.name).copied();
        }
        Ok(people)
    }

    /// One person's queue in a round: their items with whether each is done. A review round never
    /// shows a person an open item whose current revision is their own.
    pub fn round_queue(&self, round_id: i64, user_id: i64) -> Result<Vec<QueueEntry>> {
        let (purpose, blind): (String, bool) = self
            .conn
            .query_row(
                "SELECT purpose, blind FROM rounds WHERE id = ?1",
                [round_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?
            .ok_or_else(|| Error::NotFound(format!("round {round_id}")))?;
        let purpose = RoundPurpose::parse(&purpose).unwrap_or(RoundPurpose::Annotate);
        let done = purpose.done_sql(blind);
        let own = if purpose == RoundPurpose::Review {
            format!("AND ({done} OR cur.author_id IS NULL OR cur.author_id != ri.user_id)")
        } else {
            String::new()
        };
        let mut st = self.conn.prepare(&format!(
            "SELECT i.id, d.name, i.ext_id, i.status, {done}
             FROM round_items ri JOIN items i ON i.id = ri.item_id
             JOIN datasets d ON d.id = i.dataset_id
             JOIN revisions cur ON cur.item_id = i.id AND cur.rev = i.rev
             WHERE ri.round_id = ?1 AND ri.user_id = ?2 {own}
             ORDER BY i.id"
        ))?;
        let rows = st.query_map(params![round_id, user_id], queue_entry)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Items sent back to this person: the latest decision on a revision of theirs asked for
    /// changes and they have not revised the item since.
    pub fn sent_back(&self, user_id: i64) -> Result<Vec<QueueEntry>> {
        let mut st = self.conn.prepare(
            "SELECT i.id, d.name, i.ext_id, i.status, 0
             FROM items i JOIN datasets d ON d.id = i.dataset_id
             JOIN review_decisions rd ON rd.item_id = i.id
             JOIN revisions mine ON mine.item_id = i.id AND mine.rev = rd.rev
             WHERE mine.author_id = ?1 AND rd.decision = 'request_changes'
               AND rd.made_rev = i.rev AND i.signed_off = 0
             ORDER BY i.id",
        )?;
        let rows = st.query_map([user_id], queue_entry)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Everyone's account: work done, decisions on it, reviews and sign-offs made, time per item.
    pub fn people_stats(&self) -> Result<Vec<PersonStats>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT u.name, u.role,
               (SELECT count(DISTINCT r.item_id) FROM revisions r WHERE r.author_id = u.id AND {OWN_REVISION}),
               (SELECT count(*) FROM revisions r WHERE r.author_id = u.id AND {OWN_REVISION}),
               coalesce(v.approved, 0), coalesce(v.sent_back, 0),
               (SELECT count(*) FROM review_decisions rd WHERE rd.author_id = u.id),
               (SELECT count(*) FROM signoffs s WHERE s.author_id = u.id AND s.signed = 1)
             FROM users u LEFT JOIN (
               -- Decisions others made on this person's revisions.
               SELECT r.author_id, sum(rd.decision = 'approve') AS approved,
                      sum(rd.decision = 'request_changes') AS sent_back
               FROM review_decisions rd JOIN revisions r ON r.item_id = rd.item_id AND r.rev = rd.rev
               GROUP BY r.author_id) v ON v.author_id = u.id
             ORDER BY u.name"
        ))?;
        let mut people: Vec<PersonStats> = st
            .query_map([], |r| {
                Ok(PersonStats {
                    name: r.get(0)?,
                    role: Role::parse(&r.get::<_, String>(1)?).unwrap_or(Role::Annotator),
                    items_edited: r.get::<_, i64>(2)? as usize,
                    revisions: r.get::<_, i64>(3)? as usize,
                    approved: r.get::<_, i64>(4)? as usize,
                    sent_back: r.get::<_, i64>(5)? as usize,
                    reviews: r.get::<_, i64>(6)? as usize,
                    signoffs: r.get::<_, i64>(7)? as usize,
                    median_seconds: None,
                })
            })?
            .collect::<std::result::Result<_, _>>()?;
        let mut acts = self.conn.prepare(
            "SELECT u.name, r.created_at FROM revisions r JOIN users u ON u.id = r.author_id
             UNION ALL
             SELECT u.name, s.created_at FROM signoffs s JOIN users u ON u.id = s.author_id",
        )?;
        let rows: Vec<(String, String)> = acts
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<std::result::Result<_, _>>()?;
        let gaps = median_gaps(rows);
        people.retain(|p| p.revisions + p.reviews + p.signoffs > 0);
        for p in &mut people {
            p.median_seconds = gaps.get(&p.name).copied();
        }
        Ok(people)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dealing_gives_every_item_one_person_and_the_overlap_two() {
        let items: Vec<i64> = (1..=100).collect();
        let dealt = deal(&items, 3, 0.1, 7);
        assert_eq!(dealt.len(), 110);
        let mut per_item: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        for (i, p) in &dealt {
            per_item.entry(*i).or_default().push(*p);
        }
        assert_eq!(per_item.len(), 100);
        assert_eq!(per_item.values().filter(|v| v.len() == 2).count(), 10);
        assert!(per_item.values().all(|v| v.len() < 2 || v[0] != v[1]));
        let mut load = [0; 3];
        for (_, p) in &dealt {
            load[*p] += 1;
        }
        assert!(load.iter().all(|n| (35..=38).contains(n)), "{load:?}");
        // The same seed deals the same way; another does not.
        assert_eq!(deal(&items, 3, 0.1, 7), dealt);
        assert_ne!(deal(&items, 3, 0.1, 8), dealt);
    }

    #[test]
    fn time_per_item_ignores_breaks() {
        let rows = vec![
            ("a".to_string(), "2026-11-30T10:00:00Z".to_string()),
            ("a".to_string(), "2026-11-30T10:00:40Z".to_string()),
            ("a".to_string(), "2026-11-30T10:01:00.5Z".to_string()),
            ("a".to_string(), "2026-11-30T14:00:00Z".to_string()),
        ];
        let m = median_gaps(rows);
        assert!((m["a"] - 30.25).abs() < 1e-9);
    }
}
