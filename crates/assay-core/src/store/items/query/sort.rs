//! The list's order: the columns it can be sorted by and the walk of a column's index.

use serde::{Deserialize, Serialize};

use crate::error::Result;

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
    pub(in crate::store) fn indexed(self) -> bool {
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
    pub(in crate::store) fn sql(self) -> &'static str {
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
    pub(in crate::store) fn order_terms(self, dir: &str) -> String {
        let col = self.sql();
        match self {
            Self::Question | Self::Answer => format!("substr({col}, 1, 24) {dir}, {col} {dir}"),
            _ => format!("{col} {dir}"),
        }
    }

    /// The condition that an item has a value in the column, in a form its index answers
    /// (a text is NULL exactly when its prefix is, and the prefix index holds its NULLs first:
    /// with `answer IS NOT NULL` an ascending page read the row of every item without one).
    pub(in crate::store) fn has_value(self) -> String {
        let col = self.sql();
        match self {
            Self::Question | Self::Answer => format!("substr({col}, 1, 24) IS NOT NULL"),
            _ => format!("{col} IS NOT NULL"),
        }
    }

    /// Columns with a handful of values, each shared by many items.
    pub(in crate::store) fn few_values(self) -> bool {
        matches!(
            self,
            Self::Category | Self::Op | Self::Status | Self::RefType
        )
    }

    /// The index to name for an unfiltered page: without statistics, SQLite's planner may
    /// prefer sorting a small table to walking an index on an expression, and the choice
    /// must not depend on the table's size.
    pub(in crate::store) fn order_index(self) -> Option<&'static str> {
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
    pub(in crate::store) fn order_by(sort: Option<Sort>) -> String {
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
pub(in crate::store) fn with_value_sql(
    and: &dyn Fn(&str) -> String,
    sort: Sort,
    unfiltered: bool,
) -> String {
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
