use std::path::PathBuf;

use assay_api::types::{AppInfo, ProjectInfo, SessionUser};
use assay_api::ApiError;
use assay_core::Role;
use tauri::State;

use crate::state::AppState;

pub async fn app_info(state: State<'_, AppState>) -> Result<AppInfo, ApiError> {
    Ok(state.session()?.app_info())
}

pub async fn open_project(
    state: State<'_, AppState>,
    path: PathBuf,
) -> Result<ProjectInfo, ApiError> {
    state.open_project(&path)
}

pub async fn create_project(
    state: State<'_, AppState>,
    path: PathBuf,
) -> Result<ProjectInfo, ApiError> {
    state.session()?.create_project(&path)
}

pub async fn set_user(
    state: State<'_, AppState>,
    name: String,
    role: Role,
) -> Result<SessionUser, ApiError> {
    state.session()?.set_user(&name, role)
}

pub async fn project_info(state: State<'_, AppState>) -> Result<ProjectInfo, ApiError> {
    state.session()?.project_info()
}
