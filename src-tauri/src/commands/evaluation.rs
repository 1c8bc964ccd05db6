use assay_api::evaluation::{
    check_model as check, Dashboard, EvalEstimate, EvalForm, EvalStatus, ModelCheck, ModelForm,
    PanelView, StageView,
};
use assay_api::ApiError;
use tauri::State;

use crate::state::AppState;

pub async fn models(state: State<'_, AppState>) -> Result<Vec<ModelForm>, ApiError> {
    state.session()?.models()
}

pub async fn save_model(
    state: State<'_, AppState>,
    form: ModelForm,
) -> Result<ModelForm, ApiError> {
    state.session()?.save_model(&form)
}

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
) -> Result<PanelView, ApiError> {
    let path = state.session()?.project_path()?;
    tauri::async_runtime::spawn_blocking(move || {
        assay_api::evaluation::judge_panel_blocking(&path, run, &scorer, &judges)
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

pub async fn stage_table(
    state: State<'_, AppState>,
    version: String,
) -> Result<StageView, ApiError> {
    state.session()?.stage_table(&version)
}

pub async fn estimate_eval(
    state: State<'_, AppState>,
    form: EvalForm,
) -> Result<EvalEstimate, ApiError> {
    state.session()?.estimate_eval(&form)
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

pub async fn dashboard(
    state: State<'_, AppState>,
    by: Option<String>,
    against: Option<String>,
) -> Result<Dashboard, ApiError> {
    state
        .session()?
        .dashboard_vs(by.as_deref(), against.as_deref())
}

pub async fn run_list(
    state: State<'_, AppState>,
) -> Result<Vec<assay_api::types::RunListRow>, ApiError> {
    state.session()?.run_list()
}

pub async fn rescore_runs(
    state: State<'_, AppState>,
    run: Option<i64>,
) -> Result<Vec<assay_api::types::RescoreResult>, ApiError> {
    state.session()?.rescore_runs(run)
}

pub async fn overrule_result(
    state: State<'_, AppState>,
    run_id: i64,
    id: i64,
    score: f64,
    note: Option<String>,
) -> Result<(), ApiError> {
    state.session()?.overrule_result(run_id, id, score, note)
}

pub async fn triage(
    state: State<'_, AppState>,
) -> Result<Vec<assay_api::types::TriageEntry>, ApiError> {
    state.session()?.triage()
}

pub async fn tag_failure(
    state: State<'_, AppState>,
    run_id: i64,
    id: i64,
    tag: String,
    tagged: bool,
) -> Result<(), ApiError> {
    state.session()?.tag_failure(run_id, id, &tag, tagged)
}

pub async fn remove_model(state: State<'_, AppState>, name: String) -> Result<(), ApiError> {
    state.session()?.remove_model(&name)
}
