//! Filtering, paging and facet counts over items' current state.

use rusqlite::types::Value;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::grounding::metrics;
use crate::model::{AnswerFormat, IssueTag, ItemStatus, RefType, RefinementOp};
use crate::store::Project;

/// A combinable filter. Empty lists mean "any"; several values in one list mean "any of them".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Filter {
    pub datasets: Vec<i64>,
    pub categories: Vec<String>,
    /// `None` inside the list selects items with no operation recorded yet.
    pub ops: Vec<Option<RefinementOp>>,
    /// Items carrying any of these issue tags.
    pub tags: Vec<IssueTag>,
    pub statuses: Vec<ItemStatus>,
    pub ref_types: Vec<RefType>,
    pub formats: Vec<AnswerFormat>,
    pub has_box: Option<bool>,
    /// Box metrics of the primary target box (see `grounding::metrics`); items without a box
    /// never match a range.
    pub size_ratio: Option<Range>,
    pub center_distance: Option<Range>,
    pub saliency: Option<Range>,
    /// Items whose earliest "drop" decision is at this stage position.
    pub dropped_at: Option<i64>,
    /// True: the kept set (not dropped at any stage, not removed by phase-1 flags); false: the
    /// items filtering took out.
    pub kept: Option<bool>,
    /// Substring of question, answer, options or question variants; case-insensitive for Latin.
    pub text: Option<String>,
    /// Only these items (a selection made by hand); empty means no such limit.
    pub ids: Vec<i64>,
    /// The list's order; None is dataset order (import order).
    pub sort: Option<Sort>,
}

crate::named_enum! {
    /// A column the item list can be ordered by.
    #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
    pub enum SortColumn {
        ExtId = "ext_id",
        Question = "question",
        Answer = "answer",
        Category = "category",
        Op = "op",
        Status = "status",
        RefType = "ref_type",
        SizeRatio = "size_ratio",
        CenterDistance = "center_distance",
        Saliency = "saliency",
        Revision = "rev",
        Updated = "updated_at",
    }
}

impl SortColumn {
    /// Whether an index holds the column's non-empty values in order (so a page of the list
    /// sorted by it is a walk of that index, not a sort of every match).
    fn indexed(self) -> bool {
        matches!(
            self,
            Self::Question
                | Self::Answer
                | Self::Category
                | Self::Op
                | Self::Status
                | Self::RefType
                | Self::SizeRatio
                | Self::Saliency
        )
    }

    /// The SQL expression; every value comes from this list, never from the caller's text.
    fn sql(self) -> &'static str {
        match self {
            Self::ExtId => "items.ext_id",
            Self::Question => "items.question",
            Self::Answer => "items.answer",
            Self::Category => "items.category",
            Self::Op => "items.op",
            Self::Status => "items.status",
            Self::RefType => "items.ref_type",
            Self::SizeRatio => "items.size_ratio",
            Self::CenterDistance => "items.center_distance",
            Self::Saliency => "items.saliency",
            Self::Revision => "items.rev",
            Self::Updated => "items.updated_at",
        }
    }

    /// The ORDER BY terms that walk the column's index. The question and the answer are
    /// indexed by their first 24 characters (migration 0032): ordering by that prefix and then
    /// by the whole text is the same order (texts compare byte by byte, and a prefix's order
    /// never contradicts the whole's), and SQLite then sorts only the items sharing a prefix.
    fn order_terms(self, dir: &str) -> String {
        let col = self.sql();
        match self {
            Self::Question | Self::Answer => format!("substr({col}, 1, 24) {dir}, {col} {dir}"),
            _ => format!("{col} {dir}"),
        }
    }

    /// The condition that an item has a value in the column, in a form its index answers
    /// (a text is NULL exactly when its prefix is, and the prefix index holds its NULLs first:
    /// with `answer IS NOT NULL` an ascending page read the row of every item without one).
    fn has_value(self) -> String {
        let col = self.sql();
        match self {
            Self::Question | Self::Answer => format!("substr({col}, 1, 24) IS NOT NULL"),
            _ => format!("{col} IS NOT NULL"),
        }
    }

    /// Columns with a handful of values, each shared by many items.
    fn few_values(self) -> bool {
        matches!(
            self,
            Self::Category | Self::Op | Self::Status | Self::RefType
        )
    }

    /// The index to name for an unfiltered page: without statistics, SQLite's planner may
    /// prefer sorting a small table to walking an index on an expression, and the choice
    /// must not depend on the table's size.
    fn order_index(self) -> Option<&'static str> {
        match self {
            Self::Question => Some("items_question_order"),
            Self::Answer => Some("items_answer_order"),
            _ => None,
        }
    }
}

/// An order for the list: a column, descending or not; empty values always last, and ties in
/// dataset order so paging is stable.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Sort {
    pub column: SortColumn,
    #[serde(default)]
    pub desc: bool,
}

impl Sort {
    fn order_by(sort: Option<Sort>) -> String {
        match sort {
            None => "items.id".into(),
            Some(s) => format!(
                "{} {} NULLS LAST, items.id",
                s.column.sql(),
                if s.desc { "DESC" } else { "ASC" }
            ),
        }
    }
}

/// The ids of a page's items that have a value in the sorted column, in the list's order:
/// the walk of the column's index. `and` adds a condition to the filter's WHERE clause.
fn with_value_sql(and: &dyn Fn(&str) -> String, sort: Sort, unfiltered: bool) -> String {
    let dir = if sort.desc { "DESC" } else { "ASC" };
    let index = sort
        .column
        .order_index()
        .filter(|_| unfiltered)
        .map_or(String::new(), |i| format!(" INDEXED BY {i}"));
    format!(
        "SELECT items.id FROM items{index}{} ORDER BY {}, items.id LIMIT ? OFFSET ?",
        and(&sort.column.has_value()),
        sort.column.order_terms(dir)
    )
}

/// `min <= value < max`; a max of 1 or more includes 1 (the metrics' upper end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

/// One bar of a histogram: items with `lo <= value < hi` (the last bar includes `hi`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub count: i64,
}

/// Histograms of the box metrics under the current filter (each ignoring its own range).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BoxHistograms {
    pub size_ratio: Vec<Bin>,
    pub center_distance: Vec<Bin>,
    pub saliency: Vec<Bin>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Page {
    pub offset: i64,
    pub limit: i64,
}

impl Default for Page {
    fn default() -> Self {
        Self {
            offset: 0,
            limit: 100,
        }
    }
}

/// What a list row needs; the full item is read with [`Project::item`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemRow {
    pub id: i64,
    pub dataset_id: i64,
    pub ext_id: String,
    pub seq: i64,
    pub rev: i64,
    pub format: AnswerFormat,
    pub category: Option<String>,
    pub op: Option<RefinementOp>,
    pub tags: Vec<IssueTag>,
    pub status: ItemStatus,
    pub ref_type: Option<RefType>,
    pub has_box: bool,
    pub image_count: i64,
    pub thumb_hash: Option<String>,
    pub question: String,
    pub answer: Option<String>,
    /// The primary target box's metrics (see `grounding::metrics`); None without a box.
    pub size_ratio: Option<f64>,
    pub center_distance: Option<f64>,
    pub saliency: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct QueryResult {
    pub total: i64,
    pub rows: Vec<ItemRow>,
}

/// Counts per value of each facet. Each facet ignores its own filter (so picking one category
/// still shows how many items the other categories have) and honours all the others.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Facets {
    pub datasets: Vec<(i64, i64)>,
    pub categories: Vec<(Option<String>, i64)>,
    pub ops: Vec<(Option<String>, i64)>,
    pub statuses: Vec<(String, i64)>,
    pub ref_types: Vec<(Option<String>, i64)>,
    pub tags: Vec<(String, i64)>,
    pub has_box: Vec<(bool, i64)>,
    pub boxes: BoxHistograms,
}

#[derive(Clone, Copy, PartialEq)]
enum Skip {
    None,
    Datasets,
    Categories,
    Ops,
    Statuses,
    RefTypes,
    Tags,
    HasBox,
    SizeRatio,
    CenterDistance,
    Saliency,
}

pub(in crate::store) fn metric_edges(m: usize) -> &'static [f64] {
    if m == 0 {
        &metrics::SIZE_RATIO_EDGES
    } else {
        &metrics::UNIT_EDGES
    }
}

/// One `sum(...)` per histogram bin of the metric columns `which`, and each metric's edges.
pub(in crate::store) fn bin_sums(which: &[usize]) -> (Vec<String>, Vec<&'static [f64]>) {
    let mut sums = Vec::new();
    let mut shapes = Vec::new();
    for &m in which {
        let col = format!("items.{}", METRIC_COLUMNS[m].1);
        let edges = metric_edges(m);
        for cond in metrics::bar_conditions(edges, &col) {
            sums.push(format!("sum({cond})"));
        }
        shapes.push(edges);
    }
    (sums, shapes)
}

/// The histograms of `bin_sums`, from its sums in order.
pub(in crate::store) fn bins_from(shapes: &[&'static [f64]], counts: &[i64]) -> Vec<Vec<Bin>> {
    let mut k = 0;
    shapes
        .iter()
        .map(|edges| {
            edges
                .windows(2)
                .map(|w| {
                    k += 1;
                    Bin {
                        lo: w[0],
                        hi: w[1],
                        count: counts.get(k - 1).copied().unwrap_or(0),
                    }
                })
                .collect()
        })
        .collect()
}

/// How facet values with equal counts are listed: SQLite's order (numbers, text, blobs; text
/// by its bytes, the BINARY collation) with no value last. The kept counts store "no value" as
/// an empty blob, which SQLite sorts after all text, so both ways give one order.
pub(in crate::store) fn value_order(a: &Value, b: &Value) -> std::cmp::Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Integer(_) | Value::Real(_) => 0,
            Value::Text(_) => 1,
            Value::Blob(_) => 2,
            Value::Null => 3,
        }
    }
    rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
        (Value::Integer(x), Value::Integer(y)) => x.cmp(y),
        (Value::Real(x), Value::Real(y)) => x.total_cmp(y),
        (Value::Text(x), Value::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Blob(x), Value::Blob(y)) => x.cmp(y),
        _ => std::cmp::Ordering::Equal,
    })
}

/// Facet `i` of the kept counts (in the order of `counted_facets`' dims) as the values a
/// GROUP BY returns.
fn kept_values(k: &Facets, i: usize) -> Vec<(Value, i64)> {
    let text = |v: &Option<String>| v.clone().map_or(Value::Null, Value::Text);
    match i {
        0 => k
            .datasets
            .iter()
            .map(|(d, n)| (Value::Integer(*d), *n))
            .collect(),
        1 => k.categories.iter().map(|(v, n)| (text(v), *n)).collect(),
        2 => k.ops.iter().map(|(v, n)| (text(v), *n)).collect(),
        3 => k
            .statuses
            .iter()
            .map(|(v, n)| (Value::Text(v.clone()), *n))
            .collect(),
        4 => k.ref_types.iter().map(|(v, n)| (text(v), *n)).collect(),
        _ => k
            .has_box
            .iter()
            .map(|(b, n)| (Value::Integer(*b as i64), *n))
            .collect(),
    }
}

/// One `sum(...)` per issue tag: the items carrying it.
pub(in crate::store) fn tag_sums() -> Vec<String> {
    IssueTag::ALL
        .iter()
        .map(|t| format!("sum((items.tags & {}) != 0)", t.bit()))
        .collect()
}

const METRIC_COLUMNS: [(Skip, &str); 3] = [
    (Skip::SizeRatio, "size_ratio"),
    (Skip::CenterDistance, "center_distance"),
    (Skip::Saliency, "saliency"),
];

fn in_list(col: &str, n: usize) -> String {
    let marks = vec!["?"; n].join(", ");
    format!("{col} IN ({marks})")
}

/// Text search: FTS5 trigram for 3+ characters, a scan (see `text_select`)
/// for shorter strings (trigrams cannot index them; one or two CJK characters are common).
fn text_clause(text: &str, wh: &mut Vec<String>, params: &mut Vec<Value>) {
    if text.trim().is_empty() {
        return;
    }
    let (select, ps) = text_select(text);
    wh.push(format!("items.id IN ({select})"));
    params.extend(ps.into_iter().map(Value::Text));
}

impl Filter {
    /// The text searched for, unless blank (a blank search narrows nothing).
    pub fn search(&self) -> Option<&str> {
        self.text.as_deref().filter(|t| !t.trim().is_empty())
    }

    /// True when the filter lets every item through (an order or a blank search narrows
    /// nothing).
    pub fn is_everything(&self) -> bool {
        self.search().is_none()
            && Filter {
                sort: None,
                text: None,
                ..self.clone()
            } == Filter::default()
    }

    /// How many of the facet columns (dataset, category, op, tag, status, type, box and the
    /// three box metrics) the filter narrows.
    fn columns_filtered(&self) -> usize {
        [
            !self.datasets.is_empty(),
            !self.categories.is_empty(),
            !self.ops.is_empty(),
            !self.tags.is_empty(),
            !self.statuses.is_empty(),
            !self.ref_types.is_empty(),
            self.has_box.is_some(),
            self.size_ratio.is_some(),
            self.center_distance.is_some(),
            self.saliency.is_some(),
        ]
        .into_iter()
        .filter(|&b| b)
        .count()
    }

    /// The filter without the part `skip` names: what that part's own facet is counted under
    /// (the one definition: `where_clause_with` builds its SQL from it).
    fn without(&self, skip: Skip) -> Filter {
        let mut f = self.clone();
        match skip {
            Skip::None => {}
            Skip::Datasets => f.datasets.clear(),
            Skip::Categories => f.categories.clear(),
            Skip::Ops => f.ops.clear(),
            Skip::Statuses => f.statuses.clear(),
            Skip::RefTypes => f.ref_types.clear(),
            Skip::Tags => f.tags.clear(),
            Skip::HasBox => f.has_box = None,
            Skip::SizeRatio => f.size_ratio = None,
            Skip::CenterDistance => f.center_distance = None,
            Skip::Saliency => f.saliency = None,
        }
        f
    }

    fn ranges(&self) -> [Option<Range>; 3] {
        [self.size_ratio, self.center_distance, self.saliency]
    }

    fn where_clause(&self, skip: Skip) -> (String, Vec<Value>) {
        self.where_clause_with(skip, false)
    }

    /// `text_in_temp`: the text match was already materialised into `temp.facet_ids`, so the
    /// seven facet queries do not each re-run the full-text search.
    /// `skip` leaves out the part [`Filter::without`] removes (a facet's own filter).
    fn where_clause_with(&self, skip: Skip, text_in_temp: bool) -> (String, Vec<Value>) {
        if skip != Skip::None {
            return self
                .without(skip)
                .where_clause_with(Skip::None, text_in_temp);
        }
        let mut wh: Vec<String> = Vec::new();
        let mut p: Vec<Value> = Vec::new();
        if !self.datasets.is_empty() {
            wh.push(in_list("items.dataset_id", self.datasets.len()));
            p.extend(self.datasets.iter().map(|d| Value::Integer(*d)));
        }
        if !self.categories.is_empty() {
            wh.push(in_list("items.category", self.categories.len()));
            p.extend(self.categories.iter().map(|c| Value::Text(c.clone())));
        }
        if !self.ops.is_empty() {
            let named: Vec<_> = self.ops.iter().flatten().collect();
            let mut alt = Vec::new();
            if !named.is_empty() {
                alt.push(in_list("items.op", named.len()));
                p.extend(named.iter().map(|o| Value::Text(o.as_str().into())));
            }
            if self.ops.iter().any(Option::is_none) {
                alt.push("items.op IS NULL".into());
            }
            wh.push(format!("({})", alt.join(" OR ")));
        }
        if !self.tags.is_empty() {
            // `tags != 0` lets SQLite use the partial index of tagged items.
            wh.push("items.tags != 0 AND (items.tags & ?) != 0".into());
            p.push(Value::Integer(IssueTag::to_bits(&self.tags)));
        }
        if !self.statuses.is_empty() {
            wh.push(in_list("items.status", self.statuses.len()));
            p.extend(self.statuses.iter().map(|s| Value::Text(s.as_str().into())));
        }
        if !self.ref_types.is_empty() {
            wh.push(in_list("items.ref_type", self.ref_types.len()));
            p.extend(
                self.ref_types
                    .iter()
                    .map(|s| Value::Text(s.as_str().into())),
            );
        }
        if !self.formats.is_empty() {
            wh.push(in_list("items.format", self.formats.len()));
            p.extend(self.formats.iter().map(|s| Value::Text(s.as_str().into())));
        }
        if let Some(b) = self.has_box {
            wh.push("items.has_box = ?".into());
            p.push(Value::Integer(b as i64));
        }
        for ((_, col), range) in METRIC_COLUMNS.iter().zip(self.ranges()) {
            let Some(r) = range else {
                continue;
            };
            if let Some(min) = r.min {
                wh.push(format!("items.{col} >= ?"));
                p.push(Value::Real(min));
            }
            if let Some(max) = r.max {
                wh.push(format!(
                    "items.{col} {} ?",
                    if max >= 1.0 { "<=" } else { "<" }
                ));
                p.push(Value::Real(max));
            }
            if r.min.is_none() && r.max.is_none() {
                wh.push(format!("items.{col} IS NOT NULL"));
            }
        }
        if let Some(stage) = self.dropped_at {
            wh.push("items.dropped_stage = ?".into());
            p.push(Value::Integer(stage));
        }
        match self.kept {
            Some(true) => {
                wh.push("items.dropped_stage IS NULL AND items.phase1_removed = 0".into())
            }
            Some(false) => {
                wh.push("(items.dropped_stage IS NOT NULL OR items.phase1_removed != 0)".into())
            }
            None => {}
        }
        if !self.ids.is_empty() {
            // One JSON parameter whatever the selection's size: no limit on bound variables,
            // and one cached statement.
            wh.push("items.id IN (SELECT value FROM json_each(?))".into());
            p.push(Value::Text(
                serde_json::to_string(&self.ids).unwrap_or_else(|_| "[]".into()),
            ));
        }
        if text_in_temp {
            wh.push("items.id IN (SELECT id FROM temp.facet_ids)".into());
        } else if let Some(t) = &self.text {
            text_clause(t, &mut wh, &mut p);
        }
        if wh.is_empty() {
            (String::new(), p)
        } else {
            (format!(" WHERE {}", wh.join(" AND ")), p)
        }
    }
}

const ROW_COLUMNS: &str = "id, dataset_id, ext_id, seq, rev, format, category, op, tags, status, \
    ref_type, has_box, image_count, thumb_hash, question, answer, size_ratio, center_distance, saliency";

/// The ids matching a text search, as SQL with its positional parameters: the trigram index
/// for three or more characters; the CJK index for one or two kana, ideographs or Hangul (each
/// is a token there); for other short strings a scan of the items' question and answer columns
/// and of the rest of their text (`item_search`, lower-cased, only for items that have more).
fn text_select(text: &str) -> (&'static str, Vec<String>) {
    let t = text.trim();
    if t.chars().count() >= 3 {
        return (
            "SELECT rowid FROM items_fts WHERE items_fts MATCH ?",
            vec![format!("\"{}\"", t.replace('"', "\"\""))],
        );
    }
    match crate::store::items::search::cjk_match(t) {
        Some(m) => (
            "SELECT rowid FROM items_cjk WHERE items_cjk MATCH ?",
            vec![m],
        ),
        // Positional parameters, as the clauses around it use: the needle three times.
        None => (
            "SELECT id FROM items WHERE folded_contains(question, ?) OR folded_contains(answer, ?)
             UNION SELECT id FROM item_search WHERE instr(body, ?) > 0",
            vec![t.to_lowercase(); 3],
        ),
    }
}

fn row_to_item(r: &rusqlite::Row<'_>) -> rusqlite::Result<ItemRow> {
    let format: String = r.get(5)?;
    let op: Option<String> = r.get(7)?;
    let status: String = r.get(9)?;
    let ref_type: Option<String> = r.get(10)?;
    Ok(ItemRow {
        id: r.get(0)?,
        dataset_id: r.get(1)?,
        ext_id: r.get(2)?,
        seq: r.get(3)?,
        rev: r.get(4)?,
        format: AnswerFormat::parse(&format).unwrap_or_default(),
        category: r.get(6)?,
        op: op.as_deref().and_then(RefinementOp::parse),
        tags: IssueTag::from_bits(r.get(8)?),
        status: ItemStatus::parse(&status).unwrap_or_default(),
        ref_type: ref_type.as_deref().and_then(RefType::parse),
        has_box: r.get(11)?,
        image_count: r.get(12)?,
        thumb_hash: crate::store::items::read_thumb_hash(r, 13)?,
        question: r.get(14)?,
        answer: r.get(15)?,
        size_ratio: r.get(16)?,
        center_distance: r.get(17)?,
        saliency: r.get(18)?,
    })
}

impl Project {
    /// One page of matching items in dataset order, with the total count.
    pub fn query(&self, filter: &Filter, page: Page) -> Result<QueryResult> {
        if filter.search().is_some() && filter.sort.is_none()
            || self.lists_from_facet_columns(filter)
        {
            return self.query_by_ids(filter, page);
        }
        if let Some(sort) = filter.sort.filter(|s| s.column.indexed()) {
            return self.query_sorted_by_index(filter, sort, page);
        }
        let (wh, params) = filter.where_clause(Skip::None);
        if wh.is_empty() && filter.sort.is_none() {
            if let Some(result) = self.whole_list_page(page)? {
                return Ok(result);
            }
        }
        let total: i64 = self
            .conn
            .prepare_cached(&format!("SELECT count(*) FROM items{wh}"))?
            .query_row(rusqlite::params_from_iter(params.iter()), |r| r.get(0))?;
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT {ROW_COLUMNS} FROM items{wh} ORDER BY {} LIMIT ? OFFSET ?",
            Sort::order_by(filter.sort)
        ))?;
        let mut all = params;
        all.push(Value::Integer(page.limit.clamp(0, 10_000)));
        all.push(Value::Integer(page.offset.max(0)));
        let rows = st
            .query_map(rusqlite::params_from_iter(all.iter()), row_to_item)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(QueryResult { total, rows })
    }

    /// A page of the whole list in its own order, found by id instead of by `OFFSET`, which
    /// walks every row before the page: ~0.2 s for a jump to the middle of a million items.
    /// Items are never deleted and ids are handed out in order, so the ids are 1..=count and
    /// the item at offset k has id k + 1; the three figures come from one statement (one
    /// snapshot). `None` if the ids have gaps after all: the caller pages by `OFFSET`.
    fn whole_list_page(&self, page: Page) -> Result<Option<QueryResult>> {
        let (total, first, last): (i64, Option<i64>, Option<i64>) = self
            .conn
            .prepare_cached(
                "SELECT (SELECT count(*) FROM items), (SELECT min(id) FROM items),
                        (SELECT max(id) FROM items)",
            )?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        let dense = total == 0 || (first == Some(1) && last == Some(total));
        if !dense {
            return Ok(None);
        }
        let rows = self
            .conn
            .prepare_cached(&format!(
                "SELECT {ROW_COLUMNS} FROM items WHERE id > ?1 AND id <= ?2 ORDER BY id"
            ))?
            .query_map(
                rusqlite::params![
                    page.offset.max(0),
                    page.offset
                        .max(0)
                        .saturating_add(page.limit.clamp(0, 10_000))
                        .min(total)
                ],
                row_to_item,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(QueryResult { total, rows }))
    }

    /// A page sorted by an indexed column. `ORDER BY col NULLS LAST, id` cannot walk an index
    /// (it keeps empty values first), so SQLite sorted every match: 280-300 ms for a first page
    /// at 1,000,000 items. The page is taken in two parts instead, the items with a value
    /// (walking the column's index) and then those without (in id order), and as ids only, so
    /// even a sort under a filter orders narrow index entries rather than whole rows; the
    /// page's rows are read last, by id. Descending, the index gives each value's items in
    /// reverse id order, so SQLite still sorts the items of each value by id: cheap for the
    /// box metrics (few ties), not for a status most items share. The statements run in one
    /// read transaction, so a write in between cannot move an item across the two parts.
    fn query_sorted_by_index(
        &self,
        filter: &Filter,
        sort: Sort,
        page: Page,
    ) -> Result<QueryResult> {
        ReadSnapshot::run(&self.conn, "sorted_page", || {
            self.sorted_page(filter, sort, page)
        })
    }

    fn sorted_page(&self, filter: &Filter, sort: Sort, page: Page) -> Result<QueryResult> {
        let (wh, params) = filter.where_clause(Skip::None);
        let col = sort.column.sql();
        let and = |cond: &str| {
            if wh.is_empty() {
                format!(" WHERE {cond}")
            } else {
                format!("{wh} AND {cond}")
            }
        };
        let total: i64 = self
            .conn
            .prepare_cached(&format!("SELECT count(*) FROM items{wh}"))?
            .query_row(rusqlite::params_from_iter(params.iter()), |r| r.get(0))?;
        let limit = page.limit.clamp(0, 10_000);
        let offset = page.offset.max(0);
        let ids_of = |sql: String, limit: i64, offset: i64| -> Result<Vec<i64>> {
            let mut all = params.clone();
            all.push(Value::Integer(limit));
            all.push(Value::Integer(offset));
            let mut st = self.conn.prepare_cached(&sql)?;
            let ids = st
                .query_map(rusqlite::params_from_iter(all.iter()), |r| r.get(0))?
                .collect::<Result<Vec<i64>, _>>()?;
            Ok(ids)
        };
        let by_value = if sort.desc && sort.column.few_values() {
            self.value_by_value_desc(&and, &params, col, limit, offset)?
        } else {
            None
        };
        let mut ids = match by_value {
            Some(ids) => ids,
            None => ids_of(with_value_sql(&and, sort, wh.is_empty()), limit, offset)?,
        };
        if (ids.len() as i64) < limit {
            // Where the items without a value start: right after the last one with a value
            // when this page holds some; otherwise count them.
            let with_value = if ids.is_empty() {
                self.conn
                    .prepare_cached(&format!(
                        "SELECT count(*) FROM items{}",
                        and(&format!("{col} IS NOT NULL"))
                    ))?
                    .query_row(rusqlite::params_from_iter(params.iter()), |r| r.get(0))?
            } else {
                offset + ids.len() as i64
            };
            if total > with_value {
                ids.extend(ids_of(
                    format!(
                        "SELECT items.id FROM items{} ORDER BY items.id LIMIT ? OFFSET ?",
                        and(&format!("{col} IS NULL"))
                    ),
                    limit - ids.len() as i64,
                    (offset - with_value).max(0),
                )?);
            }
        }
        Ok(QueryResult {
            total,
            rows: self.rows_in_order(&ids)?,
        })
    }

    /// A page of the items with a value, descending by a column of few values, each value's
    /// items in id order. Walked backwards, the column's index gives each value's items in
    /// reverse id order, so SQLite sorted the whole of the first value's items for a page: at
    /// a million items with one status, 110-150 ms. Here each value, from the largest down, is
    /// one seek for the value and one range of the index read in id order; a value wholly
    /// before the page is counted, not read. None when a value is not text (only a file made
    /// elsewhere holds one: these columns are written as text): SQLite compares such a value
    /// with a bound parameter as text, so `= ?` may miss it and `< ?` find it again; the
    /// caller sorts instead.
    fn value_by_value_desc(
        &self,
        and: &dyn Fn(&str) -> String,
        params: &[Value],
        col: &str,
        limit: i64,
        offset: i64,
    ) -> Result<Option<Vec<i64>>> {
        let mut ids: Vec<i64> = Vec::new();
        let mut skip = offset;
        let mut below: Option<Value> = None;
        while (ids.len() as i64) < limit {
            let mut args = params.to_vec();
            let next = match below.take() {
                None => format!(
                    "SELECT max({col}) FROM items{}",
                    and(&format!("{col} IS NOT NULL"))
                ),
                Some(v) => {
                    args.push(v);
                    format!("SELECT max({col}) FROM items{}", and(&format!("{col} < ?")))
                }
            };
            let value: Value = self
                .conn
                .prepare_cached(&next)?
                .query_row(rusqlite::params_from_iter(args.iter()), |r| r.get(0))?;
            match value {
                Value::Null => break,
                Value::Text(_) => {}
                _ => return Ok(None),
            }
            let mut args = params.to_vec();
            args.push(value.clone());
            let mut page_args = args.clone();
            page_args.push(Value::Integer(limit - ids.len() as i64));
            page_args.push(Value::Integer(skip));
            let got: Vec<i64> = self
                .conn
                .prepare_cached(&format!(
                    "SELECT items.id FROM items{} ORDER BY items.id LIMIT ? OFFSET ?",
                    and(&format!("{col} = ?"))
                ))?
                .query_map(rusqlite::params_from_iter(page_args.iter()), |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            if got.is_empty() && skip > 0 {
                // The page starts past this value's items.
                let n: i64 = self
                    .conn
                    .prepare_cached(&format!(
                        "SELECT count(*) FROM items{}",
                        and(&format!("{col} = ?"))
                    ))?
                    .query_row(rusqlite::params_from_iter(args.iter()), |r| r.get(0))?;
                skip -= n.min(skip);
            } else {
                skip = 0;
            }
            ids.extend(got);
            below = Some(value);
        }
        Ok(Some(ids))
    }

    /// The list rows of `ids`, in that order.
    fn rows_in_order(&self, ids: &[i64]) -> Result<Vec<ItemRow>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let marks = vec!["?"; ids.len()].join(",");
        let mut st = self.conn.prepare(&format!(
            "SELECT {ROW_COLUMNS} FROM items WHERE id IN ({marks})"
        ))?;
        let mut rows = st
            .query_map(rusqlite::params_from_iter(ids.iter()), row_to_item)?
            .collect::<Result<Vec<_>, _>>()?;
        let place: std::collections::HashMap<i64, usize> =
            ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
        rows.sort_by_key(|r| place.get(&r.id).copied().unwrap_or(usize::MAX));
        Ok(rows)
    }

    /// Text searches evaluate the full-text match once: all matching ids (cheap integers) give
    /// the count, and only the requested page's rows are read.
    fn query_by_ids(&self, filter: &Filter, page: Page) -> Result<QueryResult> {
        let ids = self.query_ids(filter)?;
        let start = (page.offset.max(0) as usize).min(ids.len());
        let end = (start + page.limit.clamp(0, 10_000) as usize).min(ids.len());
        Ok(QueryResult {
            total: ids.len() as i64,
            rows: self.rows_in_order(&ids[start..end])?,
        })
    }

    /// Ids of all matching items in list order: what J/K walk through.
    pub fn query_ids(&self, filter: &Filter) -> Result<Vec<i64>> {
        let text_only = Filter {
            text: filter.text.clone(),
            ..Default::default()
        };
        let searched = filter.search().is_some();
        if searched && *filter == text_only {
            return self.text_ids(filter.text.as_deref().unwrap_or_default());
        }
        // A search with other filters: the search's ids, then the rest of the filter on the
        // facet columns (SQL checked each id against the filter's index: 57 ms for a
        // category, an op and a search matching 18 % of a million items). Only when this
        // connection holds them already: reading them first would cost a one-shot caller
        // (the CLI, an export) ~0.5 s at a million items.
        if self.lists_from_facet_columns(filter) {
            let ids = self.with_facet_columns(|columns| {
                let only = self.allowed_ids(filter)?;
                Ok(columns.matching(filter, only.as_deref()))
            })?;
            if let Some(ids) = ids {
                return Ok(ids);
            }
        }
        let (wh, params) = filter.where_clause(Skip::None);
        let mut st = self.conn.prepare_cached(&format!(
            "SELECT id FROM items{wh} ORDER BY {}",
            Sort::order_by(filter.sort)
        ))?;
        let ids = st
            .query_map(rusqlite::params_from_iter(params.iter()), |r| r.get(0))?
            .collect::<Result<Vec<i64>, _>>()?;
        Ok(ids)
    }

    /// Whether `filter`'s list comes from the facet columns this connection holds: a search
    /// with other filters, or two or more columns filtered together. One column has an index
    /// of its own; two together were SQL walking one index and reading the row of each of
    /// its entries for the other (a tag and a status, ~49,000 entries each at a million
    /// items: 67 ms, against a pass over the columns of a few).
    fn lists_from_facet_columns(&self, filter: &Filter) -> bool {
        let searched = filter.search().is_some();
        (searched || filter.columns_filtered() >= 2)
            && filter.sort.is_none()
            && crate::store::facet_columns::supports(filter)
            && self.holds_facet_columns()
    }

    /// A text search alone reads only the search tables, already in id order.
    fn text_ids(&self, text: &str) -> Result<Vec<i64>> {
        let (select, ps) = text_select(text);
        let mut st = self.conn.prepare_cached(&format!("{select} ORDER BY 1"))?;
        let ids = st
            .query_map(rusqlite::params_from_iter(ps.iter()), |r| r.get(0))?
            .collect::<Result<Vec<i64>, _>>()?;
        Ok(ids)
    }

    /// Histograms of the metric columns `which` (indexes into METRIC_COLUMNS) under `filter`,
    /// in one pass: one sum per bin. `skip` drops a column's own range when it is drawn alone.
    fn histograms(
        &self,
        filter: &Filter,
        which: &[usize],
        skip: Skip,
        text_in_temp: bool,
    ) -> Result<Vec<Vec<Bin>>> {
        let (wh, params) = filter.where_clause_with(skip, text_in_temp);
        // Only items with a value count (NULL is in no bar anyway); this lets the scan skip
        // the items without a box.
        let cond = format!(
            "({})",
            which
                .iter()
                .map(|&m| format!("items.{} IS NOT NULL", METRIC_COLUMNS[m].1))
                .collect::<Vec<_>>()
                .join(" OR ")
        );
        // Over every boxed item, the facet index holds all three metrics: reading it alone is
        // ~10x faster than the planner's choice (the size-ratio index, then each row: 5.7 s at
        // 2,000,000 items against 0.4 s). Under a filter, the filter's own index decides.
        let (from, wh) = if wh.is_empty() {
            ("items INDEXED BY items_facets", format!(" WHERE {cond}"))
        } else {
            ("items", format!("{wh} AND {cond}"))
        };
        let (sums, shapes) = bin_sums(which);
        let mut st = self
            .conn
            .prepare_cached(&format!("SELECT {} FROM {from}{wh}", sums.join(", ")))?;
        let counts: Vec<i64> = st.query_row(rusqlite::params_from_iter(params.iter()), |r| {
            (0..sums.len())
                .map(|i| Ok(r.get::<_, Option<i64>>(i)?.unwrap_or(0)))
                .collect()
        })?;
        Ok(bins_from(&shapes, &counts))
    }

    /// How many items under `filter` (without its own tag filter) carry each tag.
    fn tag_counts(&self, filter: &Filter, with_text: bool) -> Result<Vec<i64>> {
        let (wh, params) = filter.where_clause_with(Skip::Tags, with_text);
        // Only tagged items can count; the partial index finds them without a full scan.
        let wh = if wh.is_empty() {
            " WHERE items.tags != 0".to_string()
        } else {
            format!("{wh} AND items.tags != 0")
        };
        let sums = tag_sums().join(", ");
        let mut st = self
            .conn
            .prepare_cached(&format!("SELECT {sums} FROM items{wh}"))?;
        let counts = st.query_row(rusqlite::params_from_iter(params.iter()), |r| {
            (0..IssueTag::ALL.len())
                .map(|i| r.get::<_, Option<i64>>(i).map(|v| v.unwrap_or(0)))
                .collect()
        })?;
        Ok(counts)
    }

    /// The facet counts under `filter`; a facet is counted without its own filter, so its other
    /// values stay visible. With no filter (the list as it opens) they are read from the
    /// counts the store keeps as items change ([`crate::store::facet_counts`]). Under a filter they
    /// are counted from the facet columns this connection holds in memory
    /// ([`crate::store::facet_columns`]), brought up to date in the same read transaction. Inside a
    /// caller's transaction, or for the parts those columns lack, they are counted in SQL
    /// (`counted_facets`), where a facet whose own filter is the only one reads the kept
    /// counts instead of a GROUP BY over every item.
    pub fn facets(&self, filter: &Filter) -> Result<Facets> {
        if !filter.is_everything() && crate::store::facet_columns::supports(filter) {
            let counted = self.with_facet_columns(|columns| {
                let only = self.allowed_ids(filter)?;
                Ok(columns.count(filter, only.as_deref()))
            })?;
            if let Some(c) = counted {
                let edges: Vec<&'static [f64]> =
                    (0..METRIC_COLUMNS.len()).map(metric_edges).collect();
                let hists = bins_from(&edges, &c.bins.concat());
                return Ok(facets_from(c.values, c.tags, hists));
            }
        }
        let kept = crate::store::facet_counts::read(&self.conn)?;
        if filter.is_everything() {
            return Ok(kept);
        }
        self.counted_facets(filter, Some(&kept))
    }

    /// `f` over this connection's facet columns brought up to date, in one read snapshot with
    /// whatever `f` reads. None inside a caller's transaction (its uncommitted writes must never
    /// reach the columns) or when the columns decline the file.
    pub(in crate::store) fn with_facet_columns<T>(
        &self,
        f: impl FnOnce(&crate::store::facet_columns::FacetColumns) -> Result<T>,
    ) -> Result<Option<T>> {
        if !self.conn.is_autocommit() {
            return Ok(None);
        }
        ReadSnapshot::run(&self.conn, "facet_columns", || {
            let items = crate::store::facet_counts::items(&self.conn)?;
            let mut held = self.facet_columns.borrow_mut();
            match held.refresh(&self.conn, items)? {
                Some(columns) => f(columns).map(Some),
                None => Ok(None),
            }
        })
    }

    /// How many items this connection's facet columns hold; None before the first count
    /// under a filter or once they declined the file (tests check which way facets went).
    #[cfg(feature = "test-support")]
    pub fn facet_columns_held(&self) -> Option<usize> {
        self.facet_columns.borrow().held()
    }

    /// The ids a text search and a selection by hand allow, ascending; None when neither is
    /// set.
    fn allowed_ids(&self, filter: &Filter) -> Result<Option<Vec<i64>>> {
        let text = filter.search();
        let mut selected = (!filter.ids.is_empty()).then(|| {
            let mut ids = filter.ids.clone();
            ids.sort_unstable();
            ids.dedup();
            ids
        });
        let Some(text) = text else {
            return Ok(selected);
        };
        let mut found = self.text_ids(text)?;
        if let Some(sel) = selected.take() {
            found.retain(|id| sel.binary_search(id).is_ok());
        }
        Ok(Some(found))
    }

    /// The facet counts under `filter`, counted over the items whatever the filter: what the
    /// kept counts must equal.
    pub fn count_facets(&self, filter: &Filter) -> Result<Facets> {
        self.counted_facets(filter, None)
    }

    /// `kept`: the counts over every item, for the facets whose own filter is all of `filter`.
    fn counted_facets(&self, filter: &Filter, kept: Option<&Facets>) -> Result<Facets> {
        let kept_for = |skip: Skip| kept.filter(|_| filter.without(skip).is_everything());
        let with_text = filter.search().is_some();
        if with_text {
            self.conn.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS facet_ids (id INTEGER PRIMARY KEY);
                 DELETE FROM temp.facet_ids;",
            )?;
            let (select, ps) = text_select(filter.text.as_deref().unwrap_or_default());
            self.conn
                .prepare_cached(&format!("INSERT INTO temp.facet_ids (id) {select}"))?
                .execute(rusqlite::params_from_iter(ps.iter()))?;
        }
        let group = |skip: Skip, col: &str| -> Result<Vec<(Value, i64)>> {
            let (wh, params) = filter.where_clause_with(skip, with_text);
            let mut st = self.conn.prepare_cached(&format!(
                "SELECT {col}, count(*) FROM items{wh} GROUP BY {col}
                 ORDER BY count(*) DESC, {col} IS NULL, {col}"
            ))?;
            let rows = st
                .query_map(rusqlite::params_from_iter(params.iter()), |r| {
                    Ok((r.get::<_, Value>(0)?, r.get::<_, i64>(1)?))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        };
        // With no filter, one index-only GROUP BY per facet is fastest. With a filter, the
        // matching rows are fetched once and every facet whose own filter is unset is counted
        // from that one pass (measured: 13 ms instead of 43 ms for a category filter at 100K).
        let dims: [(Skip, &str, bool); 6] = [
            (Skip::Datasets, "dataset_id", !filter.datasets.is_empty()),
            (Skip::Categories, "category", !filter.categories.is_empty()),
            (Skip::Ops, "op", !filter.ops.is_empty()),
            (Skip::Statuses, "status", !filter.statuses.is_empty()),
            (Skip::RefTypes, "ref_type", !filter.ref_types.is_empty()),
            (Skip::HasBox, "has_box", filter.has_box.is_some()),
        ];
        let mut counts: Vec<Vec<(Value, i64)>> = vec![Vec::new(); dims.len()];
        let shared: Vec<usize> = if *filter == Filter::default() {
            Vec::new()
        } else {
            (0..dims.len()).filter(|&i| !dims[i].2).collect()
        };
        // Metrics without a range of their own are counted under the whole filter, and so are
        // the tags when no tag is filtered: with a filter, both ride on the shared pass (one
        // read of the matching rows instead of three; at 1,000,000 items each read is ~0.1-0.3 s).
        let ranges = filter.ranges();
        let free: Vec<usize> = (0..METRIC_COLUMNS.len())
            .filter(|&m| ranges[m].is_none())
            .collect();
        let mut hists: Vec<Vec<Bin>> = vec![Vec::new(); METRIC_COLUMNS.len()];
        let mut hists_done = false;
        let mut tag_counts: Option<Vec<i64>> = None;
        if !shared.is_empty() {
            let cols = shared
                .iter()
                .map(|&i| dims[i].1)
                .collect::<Vec<_>>()
                .join(", ");
            let (bins, shapes) = bin_sums(&free);
            let with_tags = filter.tags.is_empty();
            let mut extra = bins.clone();
            if with_tags {
                extra.extend(tag_sums());
            }
            let (wh, params) = filter.where_clause_with(Skip::None, with_text);
            let mut st = self.conn.prepare_cached(&format!(
                "SELECT {cols}, count(*){}{} FROM items{wh} GROUP BY {cols}",
                if extra.is_empty() { "" } else { ", " },
                extra.join(", ")
            ))?;
            let mut totals = vec![0i64; extra.len()];
            let mut rows = st.query(rusqlite::params_from_iter(params.iter()))?;
            while let Some(r) = rows.next()? {
                let n: i64 = r.get(shared.len())?;
                for (k, &i) in shared.iter().enumerate() {
                    let v: Value = r.get(k)?;
                    match counts[i].iter_mut().find(|(x, _)| *x == v) {
                        Some(e) => e.1 += n,
                        None => counts[i].push((v, n)),
                    }
                }
                for (j, t) in totals.iter_mut().enumerate() {
                    *t += r.get::<_, Option<i64>>(shared.len() + 1 + j)?.unwrap_or(0);
                }
            }
            for &i in &shared {
                counts[i].sort_by(|a, b| b.1.cmp(&a.1).then_with(|| value_order(&a.0, &b.0)));
            }
            for (m, h) in free.iter().zip(bins_from(&shapes, &totals[..bins.len()])) {
                hists[*m] = h;
            }
            hists_done = true;
            if with_tags {
                tag_counts = Some(totals[bins.len()..].to_vec());
            }
        }
        for (i, (skip, col, _)) in dims.iter().enumerate() {
            if !shared.contains(&i) {
                counts[i] = match kept_for(*skip) {
                    Some(k) => kept_values(k, i),
                    None => group(*skip, col)?,
                };
            }
        }
        // Metrics without a range of their own share one pass; one with a range is counted
        // without it, so its other bins stay visible.
        if !free.is_empty() && !hists_done {
            for (m, h) in free
                .iter()
                .zip(self.histograms(filter, &free, Skip::None, with_text)?)
            {
                hists[*m] = h;
            }
        }
        for m in (0..METRIC_COLUMNS.len()).filter(|m| ranges[*m].is_some()) {
            hists[m] = match kept_for(METRIC_COLUMNS[m].0) {
                Some(k) => [
                    &k.boxes.size_ratio,
                    &k.boxes.center_distance,
                    &k.boxes.saliency,
                ][m]
                    .clone(),
                None => {
                    let mut h = self.histograms(filter, &[m], METRIC_COLUMNS[m].0, with_text)?;
                    h.pop().unwrap_or_default()
                }
            };
        }
        let tags = match (tag_counts, kept_for(Skip::Tags)) {
            (Some(c), _) => c,
            (None, Some(k)) => IssueTag::ALL
                .iter()
                .map(|t| {
                    k.tags
                        .iter()
                        .find(|(name, _)| name == t.as_str())
                        .map_or(0, |(_, n)| *n)
                })
                .collect(),
            (None, None) => self.tag_counts(filter, with_text)?,
        };
        Ok(facets_from(counts, tags, hists))
    }
}

/// The facets from their counts: `values` in the order of `Facets`' value fields (datasets,
/// categories, ops, statuses, ref types, has box), `tags` in the order of `IssueTag::ALL`,
/// `hists` in the order of `METRIC_COLUMNS`.
pub(in crate::store) fn facets_from(
    values: Vec<Vec<(Value, i64)>>,
    tags: Vec<i64>,
    hists: Vec<Vec<Bin>>,
) -> Facets {
    let text = |v: Value| match v {
        Value::Text(s) => Some(s),
        _ => None,
    };
    let int = |v: Value| match v {
        Value::Integer(i) => i,
        _ => 0,
    };
    let mut it = values.into_iter();
    let mut next = || it.next().unwrap_or_default();
    let mut hists = hists.into_iter();
    Facets {
        datasets: next().into_iter().map(|(v, n)| (int(v), n)).collect(),
        categories: next().into_iter().map(|(v, n)| (text(v), n)).collect(),
        ops: next().into_iter().map(|(v, n)| (text(v), n)).collect(),
        statuses: next()
            .into_iter()
            .map(|(v, n)| (text(v).unwrap_or_default(), n))
            .collect(),
        ref_types: next().into_iter().map(|(v, n)| (text(v), n)).collect(),
        has_box: next().into_iter().map(|(v, n)| (int(v) != 0, n)).collect(),
        tags: IssueTag::ALL
            .iter()
            .zip(tags)
            .map(|(t, n)| (t.as_str().to_string(), n))
            .collect(),
        boxes: BoxHistograms {
            size_ratio: hists.next().unwrap_or_default(),
            center_distance: hists.next().unwrap_or_default(),
            saliency: hists.next().unwrap_or_default(),
        },
    }
}

/// A savepoint taken as a read snapshot; released when dropped, so a panic in between does not
/// leave the connection inside a transaction.
pub(crate) struct ReadSnapshot<'c> {
    conn: &'c rusqlite::Connection,
    name: &'static str,
    open: bool,
}

impl<'c> ReadSnapshot<'c> {
    /// `f` inside the snapshot, released afterwards whatever `f` returned (its error first).
    pub(crate) fn run<T>(
        conn: &'c rusqlite::Connection,
        name: &'static str,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let snapshot = Self::begin(conn, name)?;
        let result = f();
        let released = snapshot.release();
        let result = result?;
        released?;
        Ok(result)
    }

    fn begin(conn: &'c rusqlite::Connection, name: &'static str) -> Result<Self> {
        conn.execute_batch(&format!("SAVEPOINT {name}"))?;
        Ok(Self {
            conn,
            name,
            open: true,
        })
    }

    fn release(mut self) -> Result<()> {
        self.open = false;
        self.conn.execute_batch(&format!("RELEASE {}", self.name))?;
        Ok(())
    }
}

impl Drop for ReadSnapshot<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch(&format!("RELEASE {}", self.name));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RefType;

    /// Referring-expression types with a box-metric range (the diagnostics' cross-tabulation)
    /// are counted from `items_ref_type_metrics` alone, never by reading each item: at a million
    /// items that is 10 ms instead of 150 (BENCHMARKS.md).
    #[test]
    fn a_ref_type_with_a_metric_range_is_counted_from_one_index() {
        let dir = tempfile::tempdir().unwrap();
        let p = Project::create(dir.path().join("p.assay")).unwrap();
        let below = |max| {
            Some(Range {
                min: None,
                max: Some(max),
            })
        };
        let band = Some(Range {
            min: Some(0.4),
            max: Some(0.5),
        });
        let filters = [
            Filter {
                ref_types: vec![RefType::Ambiguous],
                size_ratio: below(0.05),
                ..Default::default()
            },
            Filter {
                ref_types: vec![RefType::Salient, RefType::InImageCue],
                saliency: band,
                ..Default::default()
            },
            Filter {
                ref_types: vec![RefType::KnowledgeCue],
                center_distance: below(0.3),
                size_ratio: band,
                ..Default::default()
            },
        ];
        for f in filters {
            let (wh, params) = f.where_clause(Skip::None);
            let plan: Vec<String> = p
                .conn
                .prepare(&format!(
                    "EXPLAIN QUERY PLAN SELECT count(*) FROM items{wh}"
                ))
                .unwrap()
                .query_map(rusqlite::params_from_iter(params.iter()), |r| r.get(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let plan = plan.join("; ");
            assert!(
                plan.contains("COVERING INDEX items_ref_type_metrics"),
                "{wh}: {plan}"
            );
        }
    }

    /// Descending value by value stops at a value that is not text (a file made elsewhere):
    /// SQLite compares it with a parameter as text, so it was found again below itself and the
    /// walk never ended. The caller sorts instead.
    #[test]
    fn a_value_that_is_not_text_ends_the_walk_value_by_value() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = Project::create(dir.path().join("p.assay")).unwrap();
        let sample = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/sample/jgraph-mini/jgraph-mini.jsonl");
        crate::import::import_path(
            &mut p,
            &sample,
            &Default::default(),
            &mut |_| {},
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap();
        let and = |c: &str| format!(" WHERE {c}");
        let walk = |p: &Project| p.value_by_value_desc(&and, &[], "items.category", 3, 2);
        let ids = walk(&p).unwrap().expect("text values are walked");
        assert_eq!(ids.len(), 3);
        // A BLOB: the only storage class besides text SQL can put in a TEXT column.
        for crafted in ["x'ff'", "x'41'"] {
            p.conn
                .execute_batch(&format!(
                    "UPDATE items SET category = {crafted} WHERE id = 1"
                ))
                .unwrap();
            let kind: String = p
                .conn
                .query_row("SELECT typeof(category) FROM items WHERE id = 1", [], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(kind, "blob");
            assert_eq!(walk(&p).unwrap(), None, "{crafted}");
        }
    }

    /// A page sorted by an indexed column walks its index, ascending, and sorts at most the
    /// items that share a text's prefix (at a million items the question's sort of every item
    /// took ~245 ms a page).
    #[test]
    fn a_page_sorted_by_an_indexed_column_walks_its_index() {
        let dir = tempfile::tempdir().unwrap();
        let p = Project::create(dir.path().join("p.assay")).unwrap();
        for column in SortColumn::ALL.into_iter().filter(|c| c.indexed()) {
            let and = |cond: &str| format!(" WHERE {cond}");
            let sql = with_value_sql(
                &and,
                Sort {
                    column,
                    desc: false,
                },
                true,
            );
            let plan: Vec<String> = p
                .conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap()
                .query_map([50, 0], |r| r.get(3))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap();
            let plan = plan.join("; ");
            assert!(plan.contains("INDEX"), "{column:?}: {plan}");
            // The texts' prefixes leave the items sharing one to sort, and nothing else.
            assert!(
                !plan.contains("TEMP B-TREE FOR ORDER BY"),
                "{column:?}: {plan}"
            );
        }
    }
}
