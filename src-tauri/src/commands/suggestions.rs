//! The background suggestion run.

use crate::state::AppState;
use assay_api::suggestions::{SuggestForm, SuggestStatus};
use assay_api::ApiError;
use tauri::State;

/// Starts the run in the background; progress is read with `suggest_status`.
pub async fn start_suggest(state: State<'_, AppState>, form: SuggestForm) -> Result<(), ApiError> {
    let (path, req) = {
        let session = state.session()?;
        (session.project_path()?, session.suggest_request(&form)?)
    };
    let work = state.suggestions.start(path, req)?;
    tauri::async_runtime::spawn(work);
    Ok(())
}

pub async fn suggest_status(state: State<'_, AppState>) -> Result<SuggestStatus, ApiError> {
    Ok(state.suggestions.status())
}

pub async fn cancel_suggest(state: State<'_, AppState>) -> Result<(), ApiError> {
    state.suggestions.cancel();
    Ok(())
}
