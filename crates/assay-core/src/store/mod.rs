//! The project store: one SQLite file per project.

// Domains: one folder each, a module per table or job inside.
pub mod evaluation;
pub mod filtering;
pub mod grounding;
pub mod items;
pub mod review;
pub mod suggestions;
pub mod team;

// Machinery the domains share.
pub mod compact;
pub(crate) mod connection;
pub use connection::configure_sqlite;
mod facet_columns;
pub use facet_columns::ReadFacetColumns;
pub(crate) mod facet_counts;
mod full_text_builder;
pub mod migrate;
mod original_uids;
pub(crate) mod packed;
pub(crate) mod write_path;
/// The team's bound on one row's content, which a replica also holds every pulled row to.
pub use write_path::rules::MAX_CONTENT_BYTES;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::Result;

pub use evaluation::judge_ratings::{JudgeRatingReport, JudgeReviewEntry, RaterAgreement};
pub use evaluation::models::{
    why_not_template_name, ModelRow, TemplateRow, TemplateVersion, BUILTIN_TEMPLATE_PREFIXES,
};
pub use evaluation::panels::{PanelJudgement, PanelRow, PanelTodo};
pub use evaluation::run_detail::{RunDetail, RunItemLine};
pub use evaluation::runs::{
    CriterionOverrule, CurrentResult, ItemRunResult, NewCriterionOverrule, Outcome,
    PendingJudgement, RecordedResult, ReplicaRecord, ResultRow, RunItemResult, RunKey, RunRow,
    RunSummary, RunWrite, StoredResponse, TraceRow,
};
pub use filtering::stages::{DecidedBy, Filtering, FunnelStep, Phase1Flag, Stage, StageDecision};
pub use grounding::boxes::BoxApplyReport;
pub use items::bulk::{BulkAction, BulkChange, BulkReport};
pub use items::datasets::Dataset;
pub use items::query::{
    Bin, BoxHistograms, Facets, Filter, ItemRow, Page, QueryResult, Range, Sort, SortColumn,
};
pub use items::revisions::RevisionInfo;
pub use items::saved_views::SavedView;
pub use items::table_extras::ItemExtras;
pub use items::versions::{Version, VersionItem};
pub use items::{Author, CurrentItem, Edit, ItemView, NewItem};
pub use review::agreement::{Agreement, AgreementField, PairAgreement};
pub use review::blind::{BlindEntry, BlindItem, BlindJudgement};
pub use review::comments::{Comment, OpenMention};
pub use review::majority_check::{MajorityCheck, MajorityCheckSpec};
pub use review::rounds::{
    AssigneeProgress, NewRound, PersonStats, QueueEntry, RoundPurpose, RoundSummary,
};
pub use review::users::{RoleChoice, User};
pub use review::ReviewDecision;
pub use suggestions::{
    Accepted, NewSuggestion, Suggestion, SuggestionFate, SuggestionReport, SuggestionStats,
};

/// An open project. Cheap to open more than one per file (readers in other threads).
pub struct Project {
    pub(crate) conn: Connection,
    path: PathBuf,
    /// The facet columns in memory, read at the first filtered facet count.
    facet_columns: std::cell::RefCell<facet_columns::Held>,
}

impl Project {
    /// Creates a new, empty project file. Fails if the file exists.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if path.exists() {
            return Err(crate::Error::Invalid(format!(
                "{} already exists; open it instead",
                path.display()
            )));
        }
        Self::open_or_create(path)
    }

    /// Opens an existing project, migrating it (after a backup) when it is older than this build.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(crate::Error::NotFound(format!(
                "project file {}",
                path.display()
            )));
        }
        Self::open_or_create(path)
    }

    /// A second connection for reading beside the one that opened (and migrated) the file:
    /// it never migrates and waits at most `busy_ms` for a lock, so a reader serving the UI
    /// is never held up for long by a writer on another connection. Its page cache is small
    /// (4 MB).
    pub fn open_reader(path: impl AsRef<Path>, busy_ms: u64) -> Result<Self> {
        let path = path.as_ref();
        if !path.exists() {
            return Err(crate::Error::NotFound(format!(
                "project file {}",
                path.display()
            )));
        }
        let conn = connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_millis(busy_ms))?;
        // Readers serve images and one-pass reads, which a page cache does not speed up (the
        // system's file cache holds the file); at the main connection's 64 MB each, the app's
        // four image readers could keep 256 MB of image pages.
        conn.pragma_update(None, "cache_size", -4_000)?;
        let found = migrate::schema_version(&conn)?;
        if found != migrate::latest_version() {
            return Err(crate::Error::Invalid(format!(
                "{} is at schema version {found}; open it normally first",
                path.display()
            )));
        }
        Ok(Self {
            conn,
            path: path.to_path_buf(),
            facet_columns: Default::default(),
        })
    }

    fn open_or_create(path: &Path) -> Result<Self> {
        let mut conn = connection::open(path)?;
        migrate::migrate(&mut conn, path)?;
        Ok(Self {
            conn,
            path: path.to_path_buf(),
            facet_columns: Default::default(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Raw access for tests that check what was stored (feature `test-support`).
    #[cfg(feature = "test-support")]
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    #[cfg(feature = "test-support")]
    pub fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

pub fn now() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// `now` to the millisecond: the time an import writes into each of its items and originals.
/// The formatter's nanoseconds were six more bytes in each, 12 MB at a million items, and one
/// writer's rows share one time anyway. People's actions keep `now`: the time spent per item
/// orders a person's actions by their times, and within a millisecond they would tie.
pub fn now_millis() -> String {
    const MILLIS: &[time::format_description::FormatItem<'_>] = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::now_utc()
        .format(MILLIS)
        .unwrap_or_default()
}

#[cfg(test)]
mod now_tests {
    #[test]
    fn now_millis_is_rfc3339_to_the_millisecond() {
        let t = super::now_millis();
        assert_eq!(t.len(), "2026-12-04T12:13:40.953Z".len(), "{t}");
        let parsed =
            time::OffsetDateTime::parse(&t, &time::format_description::well_known::Rfc3339)
                .unwrap();
        assert_eq!(parsed.offset(), time::UtcOffset::UTC);
        assert_eq!(parsed.nanosecond() % 1_000_000, 0);
    }
}
