//! Team commands: sync, publish and join run off the session's lock, on connections of their own.

use crate::state::AppState;
use assay_api::team::TeamStatus;
use assay_api::types::ProjectInfo;
use assay_api::ApiError;
use std::path::PathBuf;
use tauri::State;

fn path_and_password(state: &State<'_, AppState>) -> Result<(PathBuf, Option<String>), ApiError> {
    let s = state.session()?;
    Ok((s.project_path()?, s.team_password.clone()))
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::new("internal", e.to_string()))?
}

pub async fn team_status(state: State<'_, AppState>) -> Result<TeamStatus, ApiError> {
    let (path, _) = path_and_password(&state)?;
    blocking(move || assay_api::team::team_status(&path)).await
}

pub async fn team_sync(state: State<'_, AppState>) -> Result<TeamStatus, ApiError> {
    let (path, pw) = path_and_password(&state)?;
    blocking(move || assay_api::team::team_sync(&path, pw.as_deref())).await
}

pub async fn set_team_password(
    state: State<'_, AppState>,
    password: Option<String>,
) -> Result<(), ApiError> {
    state.session()?.team_password = password.filter(|p| !p.is_empty());
    Ok(())
}

pub async fn team_publish(
    state: State<'_, AppState>,
    url: String,
    password: Option<String>,
) -> Result<TeamStatus, ApiError> {
    let (path, _) = path_and_password(&state)?;
    blocking(move || assay_api::team::team_publish(&path, &url, password.as_deref())).await
}

/// Joins a team into a new file and opens it.
pub async fn team_join(
    state: State<'_, AppState>,
    url: String,
    password: Option<String>,
    file: String,
) -> Result<ProjectInfo, ApiError> {
    let target = PathBuf::from(&file);
    let pw = password.clone();
    blocking(move || assay_api::team::team_join(&url, pw.as_deref(), &target)).await?;
    state.session()?.team_password = password.filter(|p| !p.is_empty());
    state.open_project(std::path::Path::new(&file))
}

pub async fn team_members(
    state: State<'_, AppState>,
) -> Result<Vec<assay_api::team::TeamMember>, ApiError> {
    let (path, _) = path_and_password(&state)?;
    blocking(move || assay_api::team::team_members(&path)).await
}

pub async fn team_invite(
    state: State<'_, AppState>,
    name: String,
    role: assay_core::Role,
    days: Option<u32>,
) -> Result<String, ApiError> {
    let (path, _) = path_and_password(&state)?;
    blocking(move || assay_api::team::team_invite(&path, &name, role, days)).await
}

pub async fn team_set_role(
    state: State<'_, AppState>,
    name: String,
    role: assay_core::Role,
) -> Result<(), ApiError> {
    let (path, _) = path_and_password(&state)?;
    blocking(move || assay_api::team::team_set_role(&path, &name, role)).await
}

pub async fn team_revoke(state: State<'_, AppState>, name: String) -> Result<u32, ApiError> {
    let (path, _) = path_and_password(&state)?;
    blocking(move || assay_api::team::team_revoke(&path, &name)).await
}
