//! The filter: which items a list shows, as one WHERE clause with its parameters, and the
//! text search it may hold.

use rusqlite::types::Value;
use serde::{Deserialize, Serialize};

use crate::model::{AnswerFormat, IssueTag, ItemStatus, RefType, RefinementOp};

use super::*;

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
/// `min <= value < max`; a max of 1 or more includes 1 (the metrics' upper end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Range {
    pub min: Option<f64>,
    pub max: Option<f64>,
}
pub(in crate::store) fn in_list(col: &str, n: usize) -> String {
    let marks = vec!["?"; n].join(", ");
    format!("{col} IN ({marks})")
}

/// Text search: FTS5 trigram for 3+ characters, a scan (see `text_select`)
/// for shorter strings (trigrams cannot index them; one or two CJK characters are common).
pub(in crate::store) fn text_clause(text: &str, wh: &mut Vec<String>, params: &mut Vec<Value>) {
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
    pub(in crate::store) fn columns_filtered(&self) -> usize {
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
    pub(in crate::store) fn without(&self, skip: Skip) -> Filter {
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

    pub(in crate::store) fn ranges(&self) -> [Option<Range>; 3] {
        [self.size_ratio, self.center_distance, self.saliency]
    }

    pub(in crate::store) fn where_clause(&self, skip: Skip) -> (String, Vec<Value>) {
        self.where_clause_with(skip, false)
    }

    /// `text_in_temp`: the text match was already materialised into `temp.facet_ids`, so the
    /// seven facet queries do not each re-run the full-text search.
    /// `skip` leaves out the part [`Filter::without`] removes (a facet's own filter).
    pub(in crate::store) fn where_clause_with(
        &self,
        skip: Skip,
        text_in_temp: bool,
    ) -> (String, Vec<Value>) {
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
/// The ids matching a text search, as SQL with its positional parameters: the trigram index
/// for three or more characters; the CJK index for one or two kana, ideographs or Hangul (each
/// is a token there); for other short strings a scan of the items' question and answer columns
/// and of the rest of their text (`item_search`, lower-cased, only for items that have more).
pub(in crate::store) fn text_select(text: &str) -> (&'static str, Vec<String>) {
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
