//! The item list: one page of rows under a filter, in an order, and the ids it holds. The
//! filter, the order, the facet counts and the read snapshot are modules of their own.

mod facets;
mod filter;
mod snapshot;
mod sort;

pub use facets::*;
pub use filter::*;
pub(crate) use snapshot::ReadSnapshot;
pub use sort::*;

use rusqlite::types::Value;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::{AnswerFormat, IssueTag, ItemStatus, RefType, RefinementOp};
use crate::store::Project;

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
const ROW_COLUMNS: &str = "id, dataset_id, ext_id, seq, rev, format, category, op, tags, status, \
    ref_type, has_box, image_count, thumb_hash, question, answer, size_ratio, center_distance, saliency";
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
        if let Some(sort) = &filter.sort {
            sort.check()?;
        }
        if filter.search().is_some() && filter.sort.is_none()
            || self.lists_from_facet_columns(filter)
        {
            return self.query_by_ids(filter, page);
        }
        if let Some(sort) = filter.sort.filter(|s| s.column.indexed()) {
            return self.query_sorted_by_index(filter, sort, page);
        }
        if let Some(sort) = filter
            .sort
            .filter(|s| sort::standing_column(s.column).is_some())
        {
            return ReadSnapshot::run(&self.conn, "standing_sorted_page", || {
                self.standing_sorted_page(filter, sort, page)
            });
        }
        if let Some(sort) = filter.sort.filter(|s| s.column == SortColumn::RunScore) {
            return ReadSnapshot::run(&self.conn, "run_sorted_page", || {
                self.run_sorted_page(filter, sort, page)
            });
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
        let (limit, offset) = (page.limit.clamp(0, 10_000), page.offset.max(0));
        let by_value = if sort.desc && sort.column.few_values() {
            self.value_by_value_desc(&and, &params, col, limit, offset)?
        } else {
            None
        };
        let with_value = match by_value {
            Some(ids) => ids,
            None => self.page_ids(
                &with_value_sql(&and, sort, wh.is_empty()),
                &params,
                limit,
                offset,
            )?,
        };
        self.two_part_page(
            &params,
            &wh,
            with_value,
            &format!(
                "SELECT count(*) FROM items{}",
                and(&format!("{col} IS NOT NULL"))
            ),
            &format!("{col} IS NULL"),
            page,
        )
    }

    /// A page sorted by a run's score, as `sorted_page` takes one: the items with a result
    /// walking the run's results in score order (`run_items_effective`, migration 0039), then
    /// those without one in id order. A correlated lookup of every item's score sorted all of
    /// them: ~230 ms a page at 100,000 items.
    fn run_sorted_page(&self, filter: &Filter, sort: Sort, page: Page) -> Result<QueryResult> {
        let run = sort.run.unwrap_or(0);
        let (wh, params) = filter.where_clause(Skip::None);
        let also = wh
            .strip_prefix(" WHERE ")
            .map_or(String::new(), |c| format!(" AND ({c})"));
        let dir = if sort.desc { "DESC" } else { "ASC" };
        let results = format!(
            "FROM run_items s INDEXED BY run_items_effective JOIN items ON items.id = s.item_id
             WHERE s.run_id = {run} AND s.outcome != 'skipped'{also}"
        );
        let with_value = self.page_ids(
            &format!(
                "SELECT s.item_id {results} ORDER BY {} {dir}, s.item_id LIMIT ? OFFSET ?",
                sort::EFFECTIVE_SCORE
            ),
            &params,
            page.limit.clamp(0, 10_000),
            page.offset.max(0),
        )?;
        self.two_part_page(
            &params,
            &wh,
            with_value,
            &format!("SELECT count(*) {results}"),
            &format!(
                "NOT EXISTS (SELECT 1 FROM run_items s WHERE s.run_id = {run}
                             AND s.item_id = items.id AND s.outcome != 'skipped')"
            ),
            page,
        )
    }

    /// A page sorted by where items stand in their latest round (first assignee, agreement),
    /// as `sorted_page` takes one: the items with a value, value by value in the sort's
    /// direction (a few: the people, three states), each value's items in id order walking
    /// `round_standing`'s index; then those without one in id order.
    fn standing_sorted_page(&self, filter: &Filter, sort: Sort, page: Page) -> Result<QueryResult> {
        let Some((col, index)) = sort::standing_column(sort.column) else {
            return Err(crate::Error::Invalid(format!(
                "{} is not a round's column",
                sort.column.as_str()
            )));
        };
        let (wh, params) = filter.where_clause(Skip::None);
        let also = wh
            .strip_prefix(" WHERE ")
            .map_or(String::new(), |c| format!(" AND ({c})"));
        let with = format!(
            "FROM round_standing s INDEXED BY {index} JOIN items ON items.id = s.item_id
             WHERE s.{col} IS NOT NULL{also}"
        );
        let (mut need, mut skip) = (page.limit.clamp(0, 10_000), page.offset.max(0));
        let next_value = if sort.desc {
            format!("SELECT max({col}) FROM round_standing WHERE {col} < ?1")
        } else {
            format!("SELECT min({col}) FROM round_standing WHERE {col} > ?1")
        };
        let mut ids: Vec<i64> = Vec::new();
        // Past every text ascending; below none descending (NULLs are not values).
        let mut at: Option<String> = None;
        while need > 0 {
            let value: Option<String> = match &at {
                None if sort.desc => self
                    .conn
                    .prepare_cached(&format!(
                        "SELECT max({col}) FROM round_standing WHERE {col} IS NOT NULL"
                    ))?
                    .query_row([], |r| r.get(0))?,
                None => self
                    .conn
                    .prepare_cached(&format!(
                        "SELECT min({col}) FROM round_standing WHERE {col} IS NOT NULL"
                    ))?
                    .query_row([], |r| r.get(0))?,
                Some(v) => self
                    .conn
                    .prepare_cached(&next_value)?
                    .query_row([v], |r| r.get(0))?,
            };
            let Some(value) = value else { break };
            let mut args = params.clone();
            args.push(Value::Text(value.clone()));
            let got = self.page_ids(
                &format!(
                    "SELECT s.item_id {with} AND s.{col} = ? ORDER BY s.item_id LIMIT ? OFFSET ?"
                ),
                &args,
                need,
                skip,
            )?;
            if got.is_empty() && skip > 0 {
                // The page starts past this value's items.
                let n: i64 = self
                    .conn
                    .prepare_cached(&format!("SELECT count(*) {with} AND s.{col} = ?"))?
                    .query_row(rusqlite::params_from_iter(args.iter()), |r| r.get(0))?;
                skip -= n.min(skip);
            } else {
                skip = 0;
            }
            need -= got.len() as i64;
            ids.extend(got);
            at = Some(value);
        }
        self.two_part_page(
            &params,
            &wh,
            ids,
            &format!("SELECT count(*) {with}"),
            &format!(
                "NOT EXISTS (SELECT 1 FROM round_standing s
                             WHERE s.item_id = items.id AND s.{col} IS NOT NULL)"
            ),
            page,
        )
    }

    /// Ids from `sql`, whose last two parameters are `LIMIT ? OFFSET ?`, after `params`.
    fn page_ids(&self, sql: &str, params: &[Value], limit: i64, offset: i64) -> Result<Vec<i64>> {
        let mut all = params.to_vec();
        all.push(Value::Integer(limit));
        all.push(Value::Integer(offset));
        let mut st = self.conn.prepare_cached(sql)?;
        let ids = st
            .query_map(rusqlite::params_from_iter(all.iter()), |r| r.get(0))?
            .collect::<Result<Vec<i64>, _>>()?;
        Ok(ids)
    }

    /// A sorted page in two parts: `with_value`, the page's items that have a value (in the
    /// sort's order), then, where they leave room, the items matching `without` in id order.
    /// `count_with` counts the items with a value under the filter `wh`, needed only when the
    /// page starts past all of them. The statements run in the caller's read snapshot, so a
    /// write in between cannot move an item across the two parts.
    fn two_part_page(
        &self,
        params: &[Value],
        wh: &str,
        mut ids: Vec<i64>,
        count_with: &str,
        without: &str,
        page: Page,
    ) -> Result<QueryResult> {
        let total: i64 = self
            .conn
            .prepare_cached(&format!("SELECT count(*) FROM items{wh}"))?
            .query_row(rusqlite::params_from_iter(params.iter()), |r| r.get(0))?;
        let (limit, offset) = (page.limit.clamp(0, 10_000), page.offset.max(0));
        if (ids.len() as i64) < limit {
            // Where the items without a value start: right after the last one with a value
            // when this page holds some; otherwise count them.
            let with_value = if ids.is_empty() {
                self.conn
                    .prepare_cached(count_with)?
                    .query_row(rusqlite::params_from_iter(params.iter()), |r| r.get(0))?
            } else {
                offset + ids.len() as i64
            };
            if total > with_value {
                let cond = if wh.is_empty() {
                    format!(" WHERE {without}")
                } else {
                    format!("{wh} AND {without}")
                };
                ids.extend(self.page_ids(
                    &format!("SELECT items.id FROM items{cond} ORDER BY items.id LIMIT ? OFFSET ?"),
                    params,
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
        if let Some(sort) = &filter.sort {
            sort.check()?;
        }
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
                    run: None,
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
