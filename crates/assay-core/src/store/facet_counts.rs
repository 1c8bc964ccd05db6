//! Facet counts kept as items change (`facet_counts`, migration 0028): the facets with no
//! filter, read from a table of a few hundred rows instead of counted over every item.
//!
//! Triggers keep the table on every write of an item. A bulk import turns them off for its
//! transaction ([`BulkCounts::begin`]) and adds its items' counts in one pass at the end
//! ([`BulkCounts::finish`]).

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{params, Connection, Transaction};

use super::items::query::{bin_sums, bins_from, tag_sums, BoxHistograms, Facets};
use crate::error::Result;
use crate::model::IssueTag;

/// The columns counted by value, in the order of [`Facets`]' fields.
const COLUMNS: [&str; 6] = [
    "dataset_id",
    "category",
    "op",
    "status",
    "ref_type",
    "has_box",
];
/// The box metrics, in the order of [`BoxHistograms`]' fields (and of `query::METRIC_COLUMNS`).
const METRICS: [&str; 3] = ["size_ratio", "center_distance", "saliency"];

/// A NULL value is stored as an empty blob: a key column cannot hold NULL.
fn key(v: Value) -> Value {
    match v {
        Value::Null => Value::Blob(Vec::new()),
        v => v,
    }
}

/// An import in progress: the per-row triggers are off until [`BulkCounts::finish`] adds the
/// new items' counts. Both run inside the import's transaction, so no other connection ever
/// sees the triggers off or the counts half added.
pub(crate) struct BulkCounts {
    first_id: i64,
}

impl BulkCounts {
    pub(crate) fn begin(tx: &Transaction<'_>) -> Result<Self> {
        tx.execute("UPDATE facet_state SET bulk = 1", [])?;
        let first_id = tx.query_row("SELECT coalesce(max(id), 0) + 1 FROM items", [], |r| {
            r.get(0)
        })?;
        Ok(Self { first_id })
    }

    /// How many items the project held when the write began, at most (its highest id).
    pub(crate) fn items_before(&self) -> usize {
        (self.first_id - 1).max(0) as usize
    }

    /// Counts the items written since `begin` in one pass (grouped by the value columns, with
    /// a sum per tag and per histogram bar) and turns the triggers back on.
    pub(crate) fn finish(self, tx: &Transaction<'_>) -> Result<()> {
        let (bins, shapes) = bin_sums(&[0, 1, 2]);
        let tags = tag_sums();
        let cols = COLUMNS.join(", ");
        let mut st = tx.prepare(&format!(
            "SELECT {cols}, count(*), {}, {} FROM items WHERE id >= ?1 GROUP BY {cols}",
            tags.join(", "),
            bins.join(", ")
        ))?;
        // A few hundred (facet, value) pairs at most: a list is enough, and Value has no Hash.
        let mut add: Vec<(&str, Value, i64)> = Vec::new();
        let mut count = |facet: &'static str, value: Value, n: i64| match add
            .iter_mut()
            .find(|e| e.0 == facet && e.1 == value)
        {
            Some(e) => e.2 += n,
            None => add.push((facet, value, n)),
        };
        let mut tag_totals = vec![0i64; tags.len()];
        let mut bin_totals = vec![0i64; bins.len()];
        let mut rows = st.query(params![self.first_id])?;
        while let Some(r) = rows.next()? {
            let n: i64 = r.get(COLUMNS.len())?;
            for (i, col) in COLUMNS.iter().enumerate() {
                count(col, key(r.get(i)?), n);
            }
            let sums = COLUMNS.len() + 1;
            for (j, t) in tag_totals.iter_mut().enumerate() {
                *t += r.get::<_, Option<i64>>(sums + j)?.unwrap_or(0);
            }
            for (j, t) in bin_totals.iter_mut().enumerate() {
                *t += r.get::<_, Option<i64>>(sums + tags.len() + j)?.unwrap_or(0);
            }
        }
        drop(rows);
        for (tag, n) in IssueTag::ALL.iter().zip(tag_totals) {
            count("tag", Value::Integer(tag.bit()), n);
        }
        for (metric, bars) in METRICS.iter().zip(bins_from(&shapes, &bin_totals)) {
            for (i, bar) in bars.iter().enumerate() {
                count(metric, Value::Integer(i as i64), bar.count);
            }
        }
        let mut upsert = tx.prepare(
            "INSERT INTO facet_counts (facet, value, n) VALUES (?1, ?2, ?3)
             ON CONFLICT (facet, value) DO UPDATE SET n = n + excluded.n",
        )?;
        for (facet, value, n) in add {
            if n != 0 {
                upsert.execute(params![facet, value, n])?;
            }
        }
        tx.execute("UPDATE facet_state SET bulk = 0", [])?;
        Ok(())
    }
}

/// How many items there are, by the kept counts (every item has one status): a read of a few
/// rows. Added without overflow, whatever a damaged file holds.
pub(crate) fn items(conn: &Connection) -> Result<i64> {
    let mut st = conn.prepare_cached("SELECT n FROM facet_counts WHERE facet = 'status'")?;
    let mut rows = st.query([])?;
    let mut sum = 0i64;
    while let Some(r) = rows.next()? {
        sum = sum.saturating_add(r.get::<_, i64>(0)?);
    }
    Ok(sum)
}

/// The facets of every item (no filter), from the kept counts; each list by count, largest
/// first, like the counted facets.
pub(crate) fn read(conn: &Connection) -> Result<Facets> {
    let mut st = conn.prepare_cached(
        "SELECT facet, value, n FROM facet_counts WHERE n != 0 ORDER BY facet, n DESC, value",
    )?;
    let mut by_facet: HashMap<String, Vec<(Value, i64)>> = HashMap::new();
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        by_facet
            .entry(r.get(0)?)
            .or_default()
            .push((r.get(1)?, r.get(2)?));
    }
    let mut take = |facet: &str| by_facet.remove(facet).unwrap_or_default();
    let text = |v: Value| match v {
        Value::Text(s) => Some(s),
        _ => None,
    };
    let int = |v: &Value| match v {
        Value::Integer(i) => *i,
        _ => 0,
    };
    let mut f = Facets {
        datasets: take("dataset_id")
            .into_iter()
            .map(|(v, n)| (int(&v), n))
            .collect(),
        categories: take("category")
            .into_iter()
            .map(|(v, n)| (text(v), n))
            .collect(),
        ops: take("op").into_iter().map(|(v, n)| (text(v), n)).collect(),
        statuses: take("status")
            .into_iter()
            .map(|(v, n)| (text(v).unwrap_or_default(), n))
            .collect(),
        ref_types: take("ref_type")
            .into_iter()
            .map(|(v, n)| (text(v), n))
            .collect(),
        has_box: take("has_box")
            .into_iter()
            .map(|(v, n)| (int(&v) != 0, n))
            .collect(),
        tags: Vec::new(),
        boxes: BoxHistograms::default(),
    };
    let tags = take("tag");
    f.tags = IssueTag::ALL
        .iter()
        .map(|t| {
            let n = tags
                .iter()
                .find(|(v, _)| int(v) == t.bit())
                .map_or(0, |e| e.1);
            (t.as_str().to_string(), n)
        })
        .collect();
    let (_, shapes) = bin_sums(&[0, 1, 2]);
    let mut counts = Vec::new();
    for (metric, edges) in METRICS.iter().zip(&shapes) {
        let bars = take(metric);
        counts.extend((0..edges.len() - 1).map(|i| {
            bars.iter()
                .find(|(v, _)| int(v) == i as i64)
                .map_or(0, |e| e.1)
        }));
    }
    let mut hists = bins_from(&shapes, &counts).into_iter();
    f.boxes = BoxHistograms {
        size_ratio: hists.next().unwrap_or_default(),
        center_distance: hists.next().unwrap_or_default(),
        saliency: hists.next().unwrap_or_default(),
    };
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grounding::metrics::{bar_conditions, SIZE_RATIO_EDGES, UNIT_EDGES};

    const MIGRATION: &str = include_str!("../../../../migrations/0028_facet_counts.sql");

    /// The triggers spell out the tag bits and the histogram edges in SQL: a tag or an edge
    /// changed in the code without a migration would quietly read 0 from the kept counts.
    #[test]
    fn the_triggers_count_the_tags_and_bars_of_the_code() {
        for t in IssueTag::ALL {
            for row in ["NEW", "OLD"] {
                let carries = format!("({row}.tags & {}) != 0", t.bit());
                assert!(MIGRATION.contains(&carries), "{carries}");
            }
        }
        let next_bit = IssueTag::ALL.iter().map(|t| t.bit()).max().unwrap_or(0) * 2;
        assert!(!MIGRATION.contains(&format!("tags & {next_bit})")));
        let edges: [&[f64]; 3] = [&SIZE_RATIO_EDGES, &UNIT_EDGES, &UNIT_EDGES];
        for (metric, edges) in METRICS.iter().zip(edges) {
            let bars = bar_conditions(edges, &format!("NEW.{metric}"))
                .iter()
                .enumerate()
                .map(|(i, c)| format!("WHEN {c} THEN {i}"))
                .collect::<Vec<_>>()
                .join(" ");
            assert!(MIGRATION.contains(&format!("CASE {bars} END")), "{metric}");
        }
    }
}
