//! The Tauri commands, generated from assay-api's `for_each_command!`: for each declared command
//! a `#[tauri::command]` named and typed as declared (so the argument names Tauri reads are the
//! ones the generated TypeScript wrapper sends), calling this crate's body of that name with
//! the same arguments in order. A body whose types drift from the declaration fails the build;
//! the list Tauri registers is the same declaration (`register!` in lib.rs).

use std::path::PathBuf;

use assay_api::evaluation::{
    Dashboard, EvalEstimate, EvalForm, EvalStatus, ModelCheck, ModelForm, PanelView,
    PredictionsForm, PredictionsReport, SavedTemplate, StageView, TemplateForm, TemplateLibrary,
};
use assay_api::suggestions::{SuggestEstimateView, SuggestForm, SuggestStatus};
use assay_api::team::{TeamMember, TeamStatus};
use assay_api::types::{
    AppInfo, CriterionOverruled, HybridResult, ImportRequest, ItemDetail, ItemResults, MyWork,
    ProjectInfo, RescoreResult, RunListRow, SessionUser, TriageEntry,
};
use assay_api::ApiError;
use assay_core::export::{DatasetExport, ExportFormat, ExportReport};
use assay_core::grounding::formats::files::BoxExport;
use assay_core::import::mapping::Mapping;
use assay_core::import::preview::ImportPreview;
use assay_core::import::{ImportReport, Progress};
use assay_core::store::compact::CompactReport;
use assay_core::store::team::sync::{ConflictSides, SyncConflict};
use assay_core::store::BoxApplyReport;
use assay_core::store::{
    Agreement, AgreementField, BlindItem, BlindJudgement, BulkAction, BulkChange, BulkReport,
    Comment, Edit, Facets, Filter, Filtering, FunnelStep, ItemExtras, JudgeRatingReport,
    JudgeReviewEntry, MajorityCheck, NewRound, Page, PersonStats, QueryResult, ReviewDecision,
    RoleChoice, RoundSummary, RunDetail, SavedView, Stage, User,
};
use assay_core::store::{Suggestion, SuggestionReport};
use assay_core::SuggestionValue;
use assay_core::{Phase1Dimension, Role};
use tauri::ipc::Channel;
use tauri::State;

use crate::state::AppState;

macro_rules! tauri_commands {
    ($( $kind:ident $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty ; )*) => {
        $( tauri_command!($kind $name ( $( $arg : $ty ),* ) -> $ret); )*
    };
}

/// A `session` command is the session method of its name, called under the session's lock;
/// a `shell` command has a body in this crate (it works beside the session: a background
/// job, a blocking call off the session's lock, or the window's own state).
macro_rules! tauri_command {
    (session $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty) => {
        #[tauri::command]
        #[allow(clippy::too_many_arguments)]
        pub async fn $name(state: State<'_, AppState>, $( $arg: $ty ),*) -> Result<$ret, ApiError> {
            state.session()?.$name($( $arg ),*)
        }
    };
    (shell $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty) => {
        #[tauri::command]
        #[allow(clippy::too_many_arguments)]
        pub async fn $name(state: State<'_, AppState>, $( $arg: $ty ),*) -> Result<$ret, ApiError> {
            super::$name(state, $( $arg ),*).await
        }
    };
}
assay_api::for_each_command!(tauri_commands);
