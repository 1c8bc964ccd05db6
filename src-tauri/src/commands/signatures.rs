//! Compile-time check that the shell registers what the UI's bindings call: for each command
//! declared in assay-api's `for_each_command!`, a handler of that name taking exactly those
//! arguments and returning that type. A drifted handler fails the build, not a click.

use std::path::PathBuf;

use assay_api::evaluation::{
    Dashboard, EvalEstimate, EvalForm, EvalStatus, ModelCheck, ModelForm, PanelView,
    PredictionsForm, PredictionsReport, StageView,
};
use assay_api::suggestions::{SuggestEstimateView, SuggestForm, SuggestStatus};
use assay_api::team::TeamStatus;
use assay_api::types::{
    AppInfo, CriterionOverruled, ImportRequest, ItemDetail, ItemResults, MyWork, ProjectInfo,
    RescoreResult, RunListRow, SessionUser, TriageEntry,
};
use assay_api::ApiError;
use assay_core::export::ExportReport;
use assay_core::import::{ImportReport, Progress};
use assay_core::store::sync::{ConflictSides, SyncConflict};
use assay_core::store::{
    Agreement, AgreementField, BlindItem, BlindJudgement, BulkAction, BulkChange, BulkReport,
    Comment, Edit, Facets, Filter, Filtering, FunnelStep, ItemExtras, JudgeRatingReport,
    JudgeReviewEntry, NewRound, Page, PersonStats, QueryResult, ReviewDecision, RoundSummary,
    RunDetail, SavedView, Stage, User,
};
use assay_core::store::{Suggestion, SuggestionReport};
use assay_core::SuggestionValue;
use assay_core::{Phase1Dimension, Role};
use tauri::ipc::Channel;
use tauri::State;

use crate::state::AppState;

type Pending<T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, ApiError>>>>;

macro_rules! check_handlers {
    ($( $name:ident ( $( $arg:ident : $ty:ty ),* ) -> $ret:ty ; )*) => {
        $(
            #[allow(dead_code, clippy::too_many_arguments)]
            fn $name(state: State<'static, AppState>, $( $arg: $ty ),*) -> Pending<$ret> {
                Box::pin(super::$name(state, $( $arg ),*))
            }
        )*
    };
}
assay_api::for_each_command!(check_handlers);
