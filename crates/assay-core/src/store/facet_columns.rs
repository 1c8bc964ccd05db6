//! The facet columns of every item, held in memory by a connection, so that the facet counts
//! under a filter are one pass over a few arrays. In SQL they read every matching row: under a
//! text search matching 185,000 of 1,000,000 items the row reads alone took ~0.2 s and the
//! grouping with its histogram sums ~0.45 s more.
//!
//! The copy follows the file. Before each use, in the caller's read transaction, it re-reads
//! the items written since it last looked (the change log of migration 0031) and reads the
//! items added since (ids are handed out in order and items are never deleted), then checks
//! that it holds as many items as the kept counts say. When the log no longer reaches back far
//! enough, or anything does not add up, it reads every item again.
//!
//! It declines, and the caller counts in SQL, when a column holds something these arrays could
//! not compare the way SQLite does (text in an integer column or the reverse, a real, a blob,
//! more than 65,536 distinct values in one column: only a crafted or very unusual file), and
//! for the filter parts it does not hold (answer format, filtering stages). The same arrays
//! list a search with other filters (`matching`): the search's ids, then the rest on them.

use std::collections::HashMap;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{params, Connection, Row};

use super::items::query::{metric_edges, value_order, Filter, Range};
use crate::error::Result;
use crate::model::IssueTag;

/// The columns counted by value, in the order of `Facets`' fields and `counted_facets`' dims.
const SELECT: &str = "SELECT id, dataset_id, category, op, status, ref_type, has_box, tags, \
                      size_ratio, center_distance, saliency FROM items";
const VALUES: usize = 6;
/// Bit positions of the filter parts a facet can leave out: the six value columns, then the
/// tags, then the three box metrics.
const TAGS: usize = 6;
const METRIC: usize = 7;
/// Re-reading more changed items than this share of all of them is slower than reading all.
const PATCH_SHARE: usize = 4;
/// Room made ahead for at most this many items: the count comes from the file, which a crafted
/// one could inflate; past it the arrays grow as they are read.
const RESERVE_AT_MOST: i64 = 2_000_000;

/// The distinct values of one column, each numbered once.
#[derive(Default)]
struct Dict {
    /// An integer column (dataset, has box): integers only. Otherwise a text column: text or
    /// no value. SQLite converts across types when it compares (`'1' = 1` in an integer
    /// column), these arrays would not, so any other value declines the file.
    integers: bool,
    values: Vec<Value>,
    text: HashMap<String, u16>,
    int: HashMap<i64, u16>,
    null: Option<u16>,
    /// The last value numbered: read in the facet index's order, a column mostly repeats it.
    last: Option<(Value, u16)>,
}

impl Dict {
    /// The value's number; None for a value SQLite would not compare as text or integer, or
    /// past 65,536 values.
    fn code(&mut self, v: ValueRef<'_>) -> Option<u16> {
        if let Some((last, c)) = &self.last {
            let same = match (last, v) {
                (Value::Null, ValueRef::Null) => true,
                (Value::Integer(a), ValueRef::Integer(b)) => *a == b,
                (Value::Text(a), ValueRef::Text(b)) => a.as_bytes() == b,
                _ => false,
            };
            if same {
                return Some(*c);
            }
        }
        let c = self.lookup(v)?;
        self.last = Some((self.values[c as usize].clone(), c));
        Some(c)
    }

    fn lookup(&mut self, v: ValueRef<'_>) -> Option<u16> {
        let fits = match v {
            ValueRef::Integer(_) => self.integers,
            ValueRef::Null | ValueRef::Text(_) => !self.integers,
            ValueRef::Real(_) | ValueRef::Blob(_) => false,
        };
        if !fits {
            return None;
        }
        let known = match v {
            ValueRef::Null => self.null,
            ValueRef::Integer(i) => self.int.get(&i).copied(),
            ValueRef::Text(t) => self.text.get(std::str::from_utf8(t).ok()?).copied(),
            ValueRef::Real(_) | ValueRef::Blob(_) => return None,
        };
        if known.is_some() {
            return known;
        }
        let c = u16::try_from(self.values.len()).ok()?;
        let value = match v {
            ValueRef::Null => {
                self.null = Some(c);
                Value::Null
            }
            ValueRef::Integer(i) => {
                self.int.insert(i, c);
                Value::Integer(i)
            }
            ValueRef::Text(t) => {
                let s = std::str::from_utf8(t).ok()?.to_string();
                self.text.insert(s.clone(), c);
                Value::Text(s)
            }
            ValueRef::Real(_) | ValueRef::Blob(_) => return None,
        };
        self.values.push(value);
        Some(c)
    }
}

/// One item's columns, numbered.
struct Decoded {
    id: i64,
    codes: [u16; VALUES],
    tags: u8,
    metrics: [f64; 3],
}

/// The counts [`FacetColumns::count`] makes: per value of each value column (no value
/// counted 0 is listed; each list by count, largest first, then in SQLite's order), per issue
/// tag in the order of `IssueTag::ALL`, per histogram bar of each box metric.
pub(crate) struct Counted {
    pub values: Vec<Vec<(Value, i64)>>,
    pub tags: Vec<i64>,
    pub bins: Vec<Vec<i64>>,
}

/// What a connection holds: nothing read yet, the columns, or a refusal (the file holds a
/// value the columns cannot mirror; it stays refused for this connection rather than being
/// read again, ~0.5 s at a million items, at every count).
#[derive(Default)]
pub(crate) enum Held {
    #[default]
    Unread,
    Columns(Box<FacetColumns>),
    Declined,
}

impl Held {
    /// The columns brought up to date with the file, holding `items` items; None when they
    /// decline it. Run inside a read transaction.
    pub(crate) fn refresh(
        &mut self,
        conn: &Connection,
        items: i64,
    ) -> Result<Option<&FacetColumns>> {
        let held = match std::mem::take(self) {
            Held::Declined => {
                *self = Held::Declined;
                return Ok(None);
            }
            Held::Unread => None,
            Held::Columns(c) => Some(*c),
        };
        *self = FacetColumns::refresh(conn, held, items)?
            .map_or(Held::Declined, |c| Held::Columns(Box::new(c)));
        Ok(match self {
            Held::Columns(c) => Some(c),
            _ => None,
        })
    }

    #[cfg(feature = "test-support")]
    pub(crate) fn held(&self) -> Option<usize> {
        match self {
            Held::Columns(c) => Some(c.ids.len()),
            _ => None,
        }
    }
}

pub(crate) struct FacetColumns {
    ids: Vec<i64>,
    dicts: [Dict; VALUES],
    codes: [Vec<u16>; VALUES],
    tags: Vec<u8>,
    /// NaN for no value: every comparison with it is false, as with SQL's NULL.
    metrics: [Vec<f64>; 3],
    /// The last change-log entry these columns reflect.
    seq: i64,
}

/// Facet columns read on one connection of a project file, to hand to another connection of
/// the same file: the app reads them beside its session after opening, so that the first count
/// under a filter does not wait ~0.5 s (a million items) for them.
pub struct ReadFacetColumns {
    path: std::path::PathBuf,
    held: Held,
}

impl super::Project {
    /// Reads this connection's facet columns (what the first count under a filter would) and
    /// hands them out, for [`super::Project::adopt_facet_columns`] on another connection.
    pub fn read_facet_columns(&self) -> Result<ReadFacetColumns> {
        self.with_facet_columns(|_| Ok(()))?;
        Ok(ReadFacetColumns {
            path: self.path().to_path_buf(),
            held: std::mem::take(&mut *self.facet_columns.borrow_mut()),
        })
    }

    /// Whether this connection holds facet columns (read at a count under a filter or handed
    /// over), to be caught up rather than read.
    pub fn holds_facet_columns(&self) -> bool {
        matches!(*self.facet_columns.borrow(), Held::Columns(_))
    }

    /// Takes facet columns read on another connection of this file, unless this one holds its
    /// own already (or declined the file); they catch up with the file at the next count like
    /// any others. True when taken.
    pub fn adopt_facet_columns(&self, read: ReadFacetColumns) -> bool {
        let mut held = self.facet_columns.borrow_mut();
        let adopt = read.path == self.path()
            && matches!(*held, Held::Unread)
            && matches!(read.held, Held::Columns(_));
        if adopt {
            *held = read.held;
        }
        adopt
    }
}

/// Whether the columns here answer every part of `filter`.
pub(crate) fn supports(filter: &Filter) -> bool {
    filter.formats.is_empty() && filter.dropped_at.is_none() && filter.kept.is_none()
}

impl FacetColumns {
    fn empty(seq: i64) -> Self {
        let mut dicts: [Dict; VALUES] = Default::default();
        // dataset_id and has_box; the others are text columns.
        dicts[0].integers = true;
        dicts[5].integers = true;
        Self {
            ids: Vec::new(),
            dicts,
            codes: Default::default(),
            tags: Vec::new(),
            metrics: Default::default(),
            seq,
        }
    }

    /// `held` brought up to date with the file (or read whole), holding `items` items; None
    /// when the items hold values these arrays cannot mirror. Run inside a read transaction.
    fn refresh(conn: &Connection, held: Option<Self>, items: i64) -> Result<Option<Self>> {
        let seq: i64 = conn
            .prepare_cached("SELECT coalesce(max(seq), 0) FROM item_changes")?
            .query_row([], |r| r.get(0))?;
        if let Some(mut cols) = held {
            if cols.catch_up(conn, seq)? && cols.ids.len() as i64 == items {
                return Ok(Some(cols));
            }
        }
        let mut cols = Self::empty(seq);
        if !cols.read_all(conn, items)? || cols.ids.len() as i64 != items {
            return Ok(None);
        }
        Ok(Some(cols))
    }

    /// Reads every item from the facet index, a tenth of the table's pages (the index holds
    /// all ten columns), then puts them in id order; false on a value these arrays cannot hold.
    fn read_all(&mut self, conn: &Connection, items: i64) -> Result<bool> {
        let mut st = conn.prepare_cached(&format!("{SELECT} INDEXED BY items_facets"))?;
        let mut rows = st.query([])?;
        let n = usize::try_from(items.clamp(0, RESERVE_AT_MOST)).unwrap_or(0);
        let mut all = Vec::with_capacity(n);
        self.ids.reserve(n);
        self.tags.reserve(n);
        for col in &mut self.codes {
            col.reserve(n);
        }
        for col in &mut self.metrics {
            col.reserve(n);
        }
        while let Some(r) = rows.next()? {
            match self.decode(r)? {
                Some(d) => all.push(d),
                None => return Ok(false),
            }
        }
        all.sort_unstable_by_key(|d| d.id);
        for d in &all {
            self.push(d);
        }
        Ok(true)
    }

    /// Re-reads the items changed since `self.seq` and reads those added; false when that
    /// cannot be done from the log (the caller reads every item).
    fn catch_up(&mut self, conn: &Connection, seq: i64) -> Result<bool> {
        if seq < self.seq {
            return Ok(false);
        }
        if seq > self.seq {
            let oldest: Option<i64> = conn
                .prepare_cached("SELECT min(seq) FROM item_changes")?
                .query_row([], |r| r.get(0))?;
            if oldest.is_none_or(|o| o > self.seq + 1) {
                return Ok(false);
            }
            let changed: Vec<i64> = conn
                .prepare_cached(
                    "SELECT DISTINCT item_id FROM item_changes WHERE seq > ?1 ORDER BY item_id",
                )?
                .query_map([self.seq], |r| r.get(0))?
                .collect::<std::result::Result<_, _>>()?;
            if changed.len() > self.ids.len() / PATCH_SHARE {
                return Ok(false);
            }
            let mut st = conn.prepare_cached(&format!(
                "{SELECT} WHERE id IN (SELECT value FROM json_each(?1))"
            ))?;
            let mut rows = st.query([serde_json::to_string(&changed).unwrap_or_default()])?;
            let last = self.ids.last().copied().unwrap_or(0);
            while let Some(r) = rows.next()? {
                let Some(d) = self.decode(r)? else {
                    return Ok(false);
                };
                match self.ids.binary_search(&d.id) {
                    Ok(i) => self.set(i, &d),
                    // Added since: read with the new items below.
                    Err(_) if d.id > last => {}
                    Err(_) => return Ok(false),
                }
            }
            self.seq = seq;
        }
        let last = self.ids.last().copied().unwrap_or(0);
        self.append_from(conn, last)
    }

    /// Reads the items with an id above `after`, in id order; false on a value these arrays
    /// cannot hold.
    fn append_from(&mut self, conn: &Connection, after: i64) -> Result<bool> {
        let mut st = conn.prepare_cached(&format!("{SELECT} WHERE id > ?1 ORDER BY id"))?;
        let mut rows = st.query(params![after])?;
        while let Some(r) = rows.next()? {
            let Some(d) = self.decode(r)? else {
                return Ok(false);
            };
            self.push(&d);
        }
        Ok(true)
    }

    fn push(&mut self, d: &Decoded) {
        self.ids.push(d.id);
        for (col, c) in self.codes.iter_mut().zip(d.codes) {
            col.push(c);
        }
        self.tags.push(d.tags);
        for (col, m) in self.metrics.iter_mut().zip(d.metrics) {
            col.push(m);
        }
    }

    fn set(&mut self, i: usize, d: &Decoded) {
        for (col, c) in self.codes.iter_mut().zip(d.codes) {
            col[i] = c;
        }
        self.tags[i] = d.tags;
        for (col, m) in self.metrics.iter_mut().zip(d.metrics) {
            col[i] = m;
        }
    }

    fn decode(&mut self, r: &Row<'_>) -> Result<Option<Decoded>> {
        let id: i64 = r.get(0)?;
        let mut codes = [0u16; VALUES];
        for (k, code) in codes.iter_mut().enumerate() {
            match self.dicts[k].code(r.get_ref(1 + k)?) {
                Some(c) => *code = c,
                None => return Ok(None),
            }
        }
        let tags = match r.get_ref(1 + VALUES)? {
            ValueRef::Integer(t) => match u8::try_from(t) {
                Ok(t) => t,
                Err(_) => return Ok(None),
            },
            _ => return Ok(None),
        };
        let mut metrics = [f64::NAN; 3];
        for (k, m) in metrics.iter_mut().enumerate() {
            *m = match r.get_ref(2 + VALUES + k)? {
                ValueRef::Null => f64::NAN,
                ValueRef::Real(f) => f,
                ValueRef::Integer(i) => i as f64,
                _ => return Ok(None),
            };
        }
        Ok(Some(Decoded {
            id,
            codes,
            tags,
            metrics,
        }))
    }

    /// Which numbers of value column `k` pass `filter` (None: the filter has no such part).
    fn value_mask<'f>(&self, k: usize, filter: &'f Filter) -> Option<Vec<bool>> {
        // Text values in `names`, and no value when `null`: SQL's `IN (...)` and `IS NULL`.
        fn named<'a>(names: Vec<&'a str>, null: bool) -> Box<dyn Fn(&Value) -> bool + 'a> {
            Box::new(move |v| match v {
                Value::Text(s) => names.contains(&s.as_str()),
                Value::Null => null,
                _ => false,
            })
        }
        let pass: Box<dyn Fn(&Value) -> bool + 'f> = match k {
            0 if !filter.datasets.is_empty() => {
                Box::new(|v| matches!(v, Value::Integer(d) if filter.datasets.contains(d)))
            }
            1 if !filter.categories.is_empty() => named(
                filter.categories.iter().map(String::as_str).collect(),
                false,
            ),
            2 if !filter.ops.is_empty() => named(
                filter.ops.iter().flatten().map(|o| o.as_str()).collect(),
                filter.ops.contains(&None),
            ),
            3 if !filter.statuses.is_empty() => {
                named(filter.statuses.iter().map(|s| s.as_str()).collect(), false)
            }
            4 if !filter.ref_types.is_empty() => {
                named(filter.ref_types.iter().map(|s| s.as_str()).collect(), false)
            }
            5 => {
                let b = filter.has_box?;
                Box::new(move |v| matches!(v, Value::Integer(x) if *x == b as i64))
            }
            _ => return None,
        };
        Some(self.dicts[k].values.iter().map(pass).collect())
    }

    /// The facet counts under `filter`, each facet without its own part of it (as
    /// `Filter::without`); `only`: the ids a text search or a selection allows, ascending.
    /// The caller checks [`supports`] first.
    pub(crate) fn count(&self, filter: &Filter, only: Option<&[i64]>) -> Counted {
        let n = self.ids.len();
        let allowed = only.map(|only| self.positions(only));
        let parts = Parts::of(self, filter);
        let edges: Vec<&[f64]> = (0..3).map(metric_edges).collect();
        let mut values: Vec<Vec<i64>> =
            self.dicts.iter().map(|d| vec![0; d.values.len()]).collect();
        let mut tags = vec![0i64; IssueTag::ALL.len()];
        let mut bins: Vec<Vec<i64>> = edges.iter().map(|e| vec![0; e.len() - 1]).collect();
        for i in 0..n {
            if allowed.as_ref().is_some_and(|a| !a[i]) {
                continue;
            }
            let fail = parts.fails(self, i);
            // Failing two parts, the item is out of every facet (`counts_in` says so too; this
            // only skips the work); failing one, it still counts in that part's own facet.
            if fail & fail.wrapping_sub(1) != 0 {
                continue;
            }
            let counts_in = |part: usize| fail & !(1 << part) == 0;
            for (k, col) in values.iter_mut().enumerate() {
                if counts_in(k) {
                    col[self.codes[k][i] as usize] += 1;
                }
            }
            if counts_in(TAGS) && self.tags[i] != 0 {
                for (t, tag) in tags.iter_mut().zip(IssueTag::ALL) {
                    if i64::from(self.tags[i]) & tag.bit() != 0 {
                        *t += 1;
                    }
                }
            }
            for (m, bars) in bins.iter_mut().enumerate() {
                if counts_in(METRIC + m) {
                    count_bar(edges[m], self.metrics[m][i], bars);
                }
            }
        }
        let values = values
            .into_iter()
            .zip(&self.dicts)
            .map(|(counts, dict)| {
                let mut listed: Vec<(Value, i64)> = counts
                    .into_iter()
                    .zip(&dict.values)
                    .filter(|(n, _)| *n > 0)
                    .map(|(n, v)| (v.clone(), n))
                    .collect();
                listed.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| value_order(&a.0, &b.0)));
                listed
            })
            .collect();
        Counted { values, tags, bins }
    }

    /// The ids among `only` (ascending) that pass every part of `filter`, in id order. The
    /// caller checks [`supports`] first.
    pub(crate) fn matching(&self, filter: &Filter, only: Option<&[i64]>) -> Vec<i64> {
        let parts = Parts::of(self, filter);
        let Some(only) = only else {
            // Every item, in id order (the list's).
            return (0..self.ids.len())
                .filter(|&i| parts.fails(self, i) == 0)
                .map(|i| self.ids[i])
                .collect();
        };
        let dense = self.is_dense();
        only.iter()
            .copied()
            .filter(|id| {
                self.position(*id, dense)
                    .is_some_and(|i| parts.fails(self, i) == 0)
            })
            .collect()
    }

    fn is_dense(&self) -> bool {
        self.ids.first() == Some(&1) && self.ids.last() == Some(&(self.ids.len() as i64))
    }

    /// Where `id` is held, if it is.
    fn position(&self, id: i64, dense: bool) -> Option<usize> {
        if dense {
            id.checked_sub(1)
                .and_then(|i| usize::try_from(i).ok())
                .filter(|i| *i < self.ids.len())
        } else {
            self.ids.binary_search(&id).ok()
        }
    }

    /// Which positions hold one of `only`'s ids.
    fn positions(&self, only: &[i64]) -> Vec<bool> {
        let mut at = vec![false; self.ids.len()];
        let dense = self.is_dense();
        for id in only {
            if let Some(i) = self.position(*id, dense) {
                at[i] = true;
            }
        }
        at
    }
}

/// A filter's parts over the columns: which numbers of each value column pass, the tag bits,
/// the metric ranges.
struct Parts<'f> {
    masks: Vec<Option<Vec<bool>>>,
    tag_bits: i64,
    ranges: [&'f Option<Range>; 3],
}

impl<'f> Parts<'f> {
    fn of(cols: &FacetColumns, filter: &'f Filter) -> Self {
        Self {
            masks: (0..VALUES).map(|k| cols.value_mask(k, filter)).collect(),
            tag_bits: IssueTag::to_bits(&filter.tags),
            ranges: [
                &filter.size_ratio,
                &filter.center_distance,
                &filter.saliency,
            ],
        }
    }

    /// One bit per part the item at `i` fails (bit positions: the value columns, `TAGS`,
    /// `METRIC` + m).
    fn fails(&self, cols: &FacetColumns, i: usize) -> u32 {
        let mut fail: u32 = 0;
        for (k, mask) in self.masks.iter().enumerate() {
            if let Some(mask) = mask {
                if !mask[cols.codes[k][i] as usize] {
                    fail |= 1 << k;
                }
            }
        }
        if self.tag_bits != 0 && (i64::from(cols.tags[i]) & self.tag_bits) == 0 {
            fail |= 1 << TAGS;
        }
        for (m, range) in self.ranges.iter().enumerate() {
            if let Some(r) = range {
                if !in_range(cols.metrics[m][i], r) {
                    fail |= 1 << (METRIC + m);
                }
            }
        }
        fail
    }
}

/// `Filter`'s range as SQL applies it (`where_clause_with`): `min <= v`, `v < max` (`<=` from
/// 1 up), and with neither bound, any value.
fn in_range(v: f64, r: &Range) -> bool {
    let above = r.min.is_none_or(|min| v >= min);
    let below = r
        .max
        .is_none_or(|max| if max >= 1.0 { v <= max } else { v < max });
    above && below && !v.is_nan()
}

/// Adds `v` to each bar of `edges` it falls in, as `bin_sums` counts: `lo <= v < hi`, the last
/// bar closed.
fn count_bar(edges: &[f64], v: f64, bars: &mut [i64]) {
    if let Some(i) = crate::grounding::metrics::bar(edges, v) {
        bars[i] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_bars_follow_the_sql() {
        let r = Range {
            min: Some(0.1),
            max: Some(0.2),
        };
        assert!(in_range(0.1, &r));
        assert!(!in_range(0.2, &r));
        assert!(!in_range(f64::NAN, &r));
        let top = Range {
            min: None,
            max: Some(1.0),
        };
        assert!(in_range(1.0, &top));
        assert!(in_range(0.0, &Range::default()));
        assert!(!in_range(f64::NAN, &Range::default()));
        let mut bars = [0i64; 3];
        for v in [0.0, 0.5, 1.0, 2.0, 3.0, 3.5, f64::NAN] {
            count_bar(&[0.0, 1.0, 2.0, 3.0], v, &mut bars);
        }
        assert_eq!(bars, [2, 1, 2]);
    }

    #[test]
    fn a_column_that_sqlite_would_compare_otherwise_is_declined() {
        let mut d = Dict::default();
        assert_eq!(d.code(ValueRef::Text(b"chart")), Some(0));
        assert_eq!(d.code(ValueRef::Null), Some(1));
        assert_eq!(d.code(ValueRef::Text(b"chart")), Some(0));
        assert_eq!(d.code(ValueRef::Text(&[0xff])), None);
        // An integer in a text column: SQLite would compare it as text, these arrays not.
        assert_eq!(d.code(ValueRef::Integer(3)), None);
        assert_eq!(d.code(ValueRef::Real(0.5)), None);
        assert_eq!(d.code(ValueRef::Blob(b"x")), None);
        let mut ints = Dict {
            integers: true,
            ..Default::default()
        };
        assert_eq!(ints.code(ValueRef::Integer(3)), Some(0));
        assert_eq!(ints.code(ValueRef::Text(b"3")), None);
        assert_eq!(ints.code(ValueRef::Null), None);
        let mut many = Dict {
            integers: true,
            ..Default::default()
        };
        for i in 0..65_536 {
            assert!(many.code(ValueRef::Integer(i)).is_some());
        }
        assert_eq!(many.code(ValueRef::Integer(65_536)), None);
    }
}
