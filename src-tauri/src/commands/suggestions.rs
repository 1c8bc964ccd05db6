//! Suggestions: the run in the background, and accepting or rejecting in the editor.

use assay_api::suggestions::{SuggestEstimateView, SuggestForm, SuggestStatus};
use assay_api::types::ItemDetail;
use assay_api::ApiError;
use assay_core::store::{Suggestion, SuggestionReport};
use assay_core::SuggestionValue;
use tauri::State;

use crate::state::AppState;

pub async fn estimate_suggest(
    state: State<'_, AppState>,
    form: SuggestForm,
) -> Result<SuggestEstimateView, ApiError> {
    state.session()?.estimate_suggest(&form)
}

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

pub async fn item_suggestions(
    state: State<'_, AppState>,
    id: i64,
) -> Result<Vec<Suggestion>, ApiError> {
    state.session()?.item_suggestions(id)
}

pub async fn accept_suggestion(
    state: State<'_, AppState>,
    id: i64,
    suggestion: i64,
    base_rev: i64,
    value: SuggestionValue,
    stage_id: Option<i64>,
    reason: Option<String>,
) -> Result<ItemDetail, ApiError> {
    state.session()?.accept_suggestion(
        id,
        suggestion,
        base_rev,
        &value,
        stage_id,
        reason.as_deref(),
    )
}

pub async fn reject_suggestion(
    state: State<'_, AppState>,
    id: i64,
    suggestion: i64,
    reason: String,
) -> Result<Vec<Suggestion>, ApiError> {
    state.session()?.reject_suggestion(id, suggestion, &reason)
}

pub async fn suggestion_report(state: State<'_, AppState>) -> Result<SuggestionReport, ApiError> {
    state.session()?.suggestion_report()
}
