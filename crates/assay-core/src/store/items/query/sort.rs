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
        /// The first, by name, of the people the item's latest round dealt it to.
        Assignee = "assignee",
        /// Whether those people agree: agree, differ, pending (none for one person).
        Agreement = "agreement",
        /// The item's score in one run (`Sort::run`): errors 0, no result last.
        RunScore = "run_score",
    }
}

/// The item's latest round (SQL over `items`).
/// The people the item's latest round dealt it to, one name per line (SQL over `items`): the
/// table's "Assigned to" column.
pub(in crate::store) fn assignees_sql() -> String {
    "(SELECT group_concat(u.name, char(10))
      FROM round_items d INDEXED BY round_items_item JOIN users u ON u.id = d.user_id
      WHERE d.item_id = items.id
        AND d.round_id = (SELECT s.round_id FROM round_standing s WHERE s.item_id = items.id))"
        .into()
}

/// The column of `round_standing` (migration 0041) a sort by a round's standing walks, and its
/// index: the first person the item's latest round dealt it to, or whether they agree.
pub(in crate::store) fn standing_column(
    column: SortColumn,
) -> Option<(&'static str, &'static str)> {
    match column {
        SortColumn::Assignee => Some(("assignee", "round_standing_assignee")),
        SortColumn::Agreement => Some(("agreement", "round_standing_agreement")),
        _ => None,
    }
}

/// The item's agreement (SQL over `items`), as `round_standing` keeps it.
pub(in crate::store) fn agreement_sql() -> &'static str {
    "(SELECT s.agreement FROM round_standing s WHERE s.item_id = items.id)"
}

/// A run's result as the table shows it (over `run_items` as `s`): an error counts 0, an
/// unparsed reply 0.
pub(in crate::store) const EFFECTIVE_SCORE: &str =
    "CASE WHEN s.outcome = 'error' THEN 0 ELSE coalesce(s.score, 0) END";

/// The item's score in run `run` (SQL over `items`); NULL without a result.
fn run_score_sql(run: i64) -> String {
    format!(
        "(SELECT {EFFECTIVE_SCORE} FROM run_items s
          WHERE s.run_id = {run} AND s.item_id = items.id AND s.outcome != 'skipped')"
    )
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
            // Not on the item: `Sort::expr` reads them.
            Self::Assignee | Self::Agreement | Self::RunScore => "NULL",
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
    /// The run whose scores `RunScore` sorts by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub run: Option<i64>,
}

impl Sort {
    /// The value the list is ordered by, in SQL over `items`: every piece is this module's,
    /// the run a number.
    pub(in crate::store) fn expr(&self) -> String {
        match self.column {
            SortColumn::Assignee => {
                "(SELECT s.assignee FROM round_standing s WHERE s.item_id = items.id)".into()
            }
            SortColumn::Agreement => agreement_sql().into(),
            SortColumn::RunScore => run_score_sql(self.run.unwrap_or(0)),
            c => c.sql().to_string(),
        }
    }

    /// A sort the list can take: a run's score names its run.
    pub(in crate::store) fn check(&self) -> Result<()> {
        if self.column == SortColumn::RunScore && self.run.is_none() {
            return Err(crate::Error::Invalid(
                "sorting by a run's score needs the run".into(),
            ));
        }
        Ok(())
    }

    pub(in crate::store) fn order_by(sort: Option<Sort>) -> String {
        match sort {
            None => "items.id".into(),
            Some(s) => format!(
                "{} {} NULLS LAST, items.id",
                s.expr(),
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
