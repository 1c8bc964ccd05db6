use std::path::PathBuf;

use assay_api::ApiError;
use assay_core::export::ExportReport;
use assay_core::store::{
    BulkAction, BulkChange, BulkReport, Filter, ItemExtras, RunDetail, SavedView,
};
use tauri::State;

use crate::state::AppState;

pub async fn bulk_edit(
    state: State<'_, AppState>,
    target: Filter,
    change: BulkChange,
) -> Result<BulkReport, ApiError> {
    state.session()?.bulk_edit(&target, &change)
}

pub async fn undo_bulk(state: State<'_, AppState>, action: i64) -> Result<BulkReport, ApiError> {
    state.session()?.undo_bulk(action)
}

pub async fn bulk_actions(state: State<'_, AppState>) -> Result<Vec<BulkAction>, ApiError> {
    state.session()?.bulk_actions()
}

pub async fn saved_views(state: State<'_, AppState>) -> Result<Vec<SavedView>, ApiError> {
    state.session()?.saved_views()
}

pub async fn save_view(
    state: State<'_, AppState>,
    name: String,
    filter: Filter,
    columns: Vec<String>,
    shared: bool,
) -> Result<Vec<SavedView>, ApiError> {
    state.session()?.save_view(&name, &filter, &columns, shared)
}

pub async fn delete_view(
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<SavedView>, ApiError> {
    state.session()?.delete_view(&name)
}

pub async fn export_selection(
    state: State<'_, AppState>,
    target: Filter,
    dir: String,
) -> Result<ExportReport, ApiError> {
    state
        .session()?
        .export_selection(&target, &PathBuf::from(dir))
}

pub async fn run_detail(
    state: State<'_, AppState>,
    run: i64,
    only: Option<String>,
    offset: i64,
    limit: i64,
) -> Result<RunDetail, ApiError> {
    state
        .session()?
        .run_detail(run, only.as_deref(), offset, limit)
}

pub async fn delete_run(state: State<'_, AppState>, run: i64) -> Result<(), ApiError> {
    state.session()?.delete_run(run)
}

pub async fn table_extras(
    state: State<'_, AppState>,
    ids: Vec<i64>,
    runs: Vec<i64>,
) -> Result<Vec<ItemExtras>, ApiError> {
    state.session()?.table_extras(&ids, &runs)
}
