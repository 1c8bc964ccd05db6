use assay_api::types::ItemDetail;
use assay_api::ApiError;
use assay_core::store::{Edit, Facets, Filter, Page, QueryResult};
use tauri::State;

use crate::state::AppState;

pub async fn query_items(
    state: State<'_, AppState>,
    filter: Filter,
    page: Page,
) -> Result<QueryResult, ApiError> {
    state.session()?.query_items(&filter, page)
}

pub async fn facets(state: State<'_, AppState>, filter: Filter) -> Result<Facets, ApiError> {
    state.session()?.facets(&filter)
}

pub async fn item_ids(state: State<'_, AppState>, filter: Filter) -> Result<Vec<i64>, ApiError> {
    state.session()?.item_ids(&filter)
}

pub async fn item_detail(state: State<'_, AppState>, id: i64) -> Result<ItemDetail, ApiError> {
    state.session()?.item_detail(id)
}

pub async fn save_item(
    state: State<'_, AppState>,
    id: i64,
    edit: Edit,
) -> Result<ItemDetail, ApiError> {
    state.session()?.save_item(id, &edit)
}

pub async fn restore_revision(
    state: State<'_, AppState>,
    id: i64,
    rev: i64,
) -> Result<ItemDetail, ApiError> {
    state.session()?.restore_revision(id, rev)
}

pub async fn saved_filter(state: State<'_, AppState>) -> Result<Filter, ApiError> {
    Ok(state.session()?.saved_filter())
}

pub async fn save_filter(state: State<'_, AppState>, filter: Filter) -> Result<(), ApiError> {
    state.session()?.save_filter(filter)
}
