//! Evaluation commands that work beside the session: a model's test request, the background
//! run, a judge panel and recorded predictions (blocking work off the session's lock).

use crate::state::AppState;
use assay_api::evaluation::{check_model as check, EvalForm, EvalStatus, ModelCheck, PanelView};
use assay_api::ApiError;
use tauri::State;

/// One request to the model, sent without holding the session.
pub async fn check_model(state: State<'_, AppState>, name: String) -> Result<ModelCheck, ApiError> {
    let cfg = state.session()?.model_config(&name)?;
    Ok(check(cfg).await)
}

/// Judges a run's stored responses with each judge (off the UI's threads) and reports the panel.
pub async fn judge_panel(
    state: State<'_, AppState>,
    run: i64,
    scorer: String,
    judges: Vec<String>,
    top: usize,
) -> Result<PanelView, ApiError> {
    let path = state.session()?.project_path()?;
    tauri::async_runtime::spawn_blocking(move || {
        assay_api::evaluation::judge_panel_blocking(&path, run, &scorer, &judges, top)
    })
    .await
    .map_err(|e| ApiError::new("internal", e.to_string()))?
}

/// The hybrid scorer on a stored run (off the UI's threads): the judge decides the verdicts its
/// rules were unsure of.
pub async fn judge_unsure(
    state: State<'_, AppState>,
    run: i64,
    judge: String,
) -> Result<assay_api::types::HybridResult, ApiError> {
    let path = state.session()?.project_path()?;
    tauri::async_runtime::spawn_blocking(move || {
        assay_api::evaluation::judge_unsure_blocking(&path, run, &judge)
    })
    .await
    .map_err(|e| ApiError::new("internal", e.to_string()))?
}

pub async fn import_predictions(
    state: State<'_, AppState>,
    form: assay_api::evaluation::PredictionsForm,
) -> Result<assay_api::evaluation::PredictionsReport, ApiError> {
    let path = state.session()?.project_path()?;
    tauri::async_runtime::spawn_blocking(move || {
        assay_api::evaluation::import_predictions_blocking(&path, &form)
    })
    .await
    .map_err(|e| ApiError::new("internal", e.to_string()))?
}

/// Starts the run in the background; progress is read with `eval_status`.
pub async fn start_eval(state: State<'_, AppState>, form: EvalForm) -> Result<(), ApiError> {
    let path = {
        let mut session = state.session()?;
        session.remember_eval(&form)?;
        session.project_path()?
    };
    let work = state.evals.start(path, form)?;
    tauri::async_runtime::spawn(work);
    Ok(())
}

/// The run in progress, or the last one; after a restart, the last request this project ran.
pub async fn eval_status(state: State<'_, AppState>) -> Result<EvalStatus, ApiError> {
    let mut status = state.evals.status();
    if status.form.is_none() {
        status.form = state.session()?.last_eval();
    }
    Ok(status)
}

pub async fn cancel_eval(state: State<'_, AppState>) -> Result<(), ApiError> {
    state.evals.cancel();
    Ok(())
}
