use assay_api::evaluation::{
    check_model as check, Dashboard, EvalEstimate, EvalForm, EvalStatus, ModelCheck, ModelForm,
};
use assay_api::ApiError;
use tauri::State;

use crate::state::AppState;

#[tauri::command]
pub async fn models(state: State<'_, AppState>) -> Result<Vec<ModelForm>, ApiError> {
    state.session()?.models()
}

#[tauri::command]
pub async fn save_model(
    state: State<'_, AppState>,
    form: ModelForm,
) -> Result<ModelForm, ApiError> {
    state.session()?.save_model(&form)
}

/// One request to the model, sent without holding the session.
#[tauri::command]
pub async fn check_model(state: State<'_, AppState>, name: String) -> Result<ModelCheck, ApiError> {
    let cfg = state.session()?.model_config(&name)?;
    Ok(check(cfg).await)
}

#[tauri::command]
pub async fn estimate_eval(
    state: State<'_, AppState>,
    form: EvalForm,
) -> Result<EvalEstimate, ApiError> {
    state.session()?.estimate_eval(&form)
}

/// Starts the run in the background; progress is read with `eval_status`.
#[tauri::command]
pub async fn start_eval(state: State<'_, AppState>, form: EvalForm) -> Result<(), ApiError> {
    let path = state.session()?.project_path()?;
    let work = state.evals.start(path, form)?;
    tauri::async_runtime::spawn(work);
    Ok(())
}

#[tauri::command]
pub async fn eval_status(state: State<'_, AppState>) -> Result<EvalStatus, ApiError> {
    Ok(state.evals.status())
}

#[tauri::command]
pub async fn cancel_eval(state: State<'_, AppState>) -> Result<(), ApiError> {
    state.evals.cancel();
    Ok(())
}

#[tauri::command]
pub async fn dashboard(state: State<'_, AppState>) -> Result<Dashboard, ApiError> {
    state.session()?.dashboard()
}
