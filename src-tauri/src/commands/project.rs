//! The project's own commands: opening it, importing into it (a job beside the session, with
//! progress and cancelling), saving a chart the window drew.

use crate::state::AppState;
use assay_api::types::ImportRequest;
use assay_api::types::ProjectInfo;
use assay_api::ApiError;
use assay_core::export::{DatasetExport, ExportFormat};
use assay_core::import::preview::ImportPreview;
use assay_core::import::{ImportReport, Progress};
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tauri::ipc::Channel;
use tauri::State;

pub async fn open_project(
    state: State<'_, AppState>,
    path: PathBuf,
) -> Result<ProjectInfo, ApiError> {
    state.open_project(&path)
}

/// Imports on a blocking thread with its own connection; progress is throttled to ~10 Hz.
pub async fn import_dataset(
    state: State<'_, AppState>,
    request: ImportRequest,
    on_progress: Channel<Progress>,
) -> Result<ImportReport, ApiError> {
    let path = state.session()?.project_path()?;
    let cancel = state.import_cancel.clone();
    cancel.store(false, Ordering::SeqCst);
    tauri::async_runtime::spawn_blocking(move || {
        let mut last = Instant::now() - Duration::from_secs(1);
        let mut progress = |p: Progress| {
            if p.stage == "done" || last.elapsed() >= Duration::from_millis(100) {
                last = Instant::now();
                let _ = on_progress.send(p);
            }
        };
        assay_api::session::import_into(&path, &request, &mut progress, &cancel)
    })
    .await
    .map_err(|e| ApiError::new("internal", e.to_string()))?
}

/// The file's first records as the import would make them, read off the session's lock.
pub async fn preview_import(
    _state: State<'_, AppState>,
    request: ImportRequest,
    records: usize,
) -> Result<ImportPreview, ApiError> {
    tauri::async_runtime::spawn_blocking(move || {
        assay_api::session::preview_import(&request, records)
    })
    .await
    .map_err(|e| ApiError::new("internal", e.to_string()))?
}

/// Exports on a blocking thread with its own connection; progress is throttled to ~10 Hz.
pub async fn export_dataset(
    state: State<'_, AppState>,
    dataset: String,
    format: ExportFormat,
    dir: String,
    signed_off_only: bool,
    on_progress: Channel<Progress>,
) -> Result<DatasetExport, ApiError> {
    let path = state.session()?.project_path()?;
    let exports = state.exports.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let mut last = Instant::now() - Duration::from_secs(1);
        let mut stage = "";
        // A new stage and the end always pass; counts within a stage at most ~10 a second.
        let mut progress = |p: Progress| {
            if p.stage != stage || last.elapsed() >= Duration::from_millis(100) {
                last = Instant::now();
                stage = p.stage;
                let _ = on_progress.send(p);
            }
        };
        exports.one(|| {
            assay_api::items::export_from(
                &path,
                &dataset,
                format,
                &dir,
                signed_off_only,
                &mut progress,
            )
        })
    })
    .await
    .map_err(|e| ApiError::new("internal", e.to_string()))?
}

pub async fn cancel_import(state: State<'_, AppState>) -> Result<(), ApiError> {
    state.import_cancel.store(true, Ordering::SeqCst);
    Ok(())
}

pub async fn save_chart(
    _state: State<'_, AppState>,
    path: String,
    data: String,
) -> Result<(), ApiError> {
    assay_api::session::save_chart(std::path::Path::new(&path), &data)
}
