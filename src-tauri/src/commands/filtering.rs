use assay_api::ApiError;
use assay_core::store::{Filtering, FunnelStep, Stage};
use assay_core::Phase1Dimension;
use tauri::State;

use crate::state::AppState;

pub async fn stages(state: State<'_, AppState>) -> Result<Vec<Stage>, ApiError> {
    state.session()?.stages()
}

pub async fn set_stages(
    state: State<'_, AppState>,
    stages: Vec<(String, String)>,
) -> Result<Vec<Stage>, ApiError> {
    state.session()?.set_stages(&stages)
}

pub async fn filtering(state: State<'_, AppState>, id: i64) -> Result<Filtering, ApiError> {
    state.session()?.filtering(id)
}

pub async fn decide_stage(
    state: State<'_, AppState>,
    id: i64,
    stage_id: i64,
    keep: bool,
    reason: Option<String>,
) -> Result<Filtering, ApiError> {
    state.session()?.decide_stage(id, stage_id, keep, reason)
}

pub async fn flag_phase1(
    state: State<'_, AppState>,
    id: i64,
    dimension: Phase1Dimension,
    flagged: bool,
    note: Option<String>,
) -> Result<Filtering, ApiError> {
    state.session()?.flag_phase1(id, dimension, flagged, note)
}

pub async fn override_phase1(
    state: State<'_, AppState>,
    id: i64,
    keep: bool,
    note: Option<String>,
) -> Result<Filtering, ApiError> {
    state.session()?.override_phase1(id, keep, note)
}

pub async fn funnel(
    state: State<'_, AppState>,
    datasets: Vec<i64>,
    group: String,
) -> Result<Vec<FunnelStep>, ApiError> {
    state.session()?.funnel(&datasets, &group)
}

pub async fn save_chart(
    _state: State<'_, AppState>,
    path: String,
    data: String,
) -> Result<(), ApiError> {
    assay_api::session::save_chart(std::path::Path::new(&path), &data)
}

pub async fn item_results(
    state: State<'_, AppState>,
    id: i64,
) -> Result<assay_api::types::ItemResults, ApiError> {
    state.session()?.item_results(id)
}

pub async fn overrule_criterion(
    state: State<'_, AppState>,
    run_id: i64,
    id: i64,
    criterion: usize,
    rating: f64,
) -> Result<assay_api::types::CriterionOverruled, ApiError> {
    state
        .session()?
        .overrule_criterion(run_id, id, criterion, rating)
}

pub async fn review(
    state: State<'_, AppState>,
    id: i64,
    decision: assay_core::store::ReviewDecision,
    comment: Option<String>,
) -> Result<assay_api::types::ItemDetail, ApiError> {
    state.session()?.review(id, decision, comment)
}

pub async fn review_queue(state: State<'_, AppState>) -> Result<Vec<i64>, ApiError> {
    state.session()?.review_queue()
}

pub async fn sign_off(
    state: State<'_, AppState>,
    id: i64,
    signed: bool,
    note: Option<String>,
) -> Result<assay_api::types::ItemDetail, ApiError> {
    state.session()?.sign_off(id, signed, note)
}

pub async fn agreement(
    state: State<'_, AppState>,
    field: assay_core::store::AgreementField,
    round: Option<i64>,
) -> Result<assay_core::store::Agreement, ApiError> {
    state.session()?.agreement(field, round)
}

pub async fn my_work(state: State<'_, AppState>) -> Result<assay_api::types::MyWork, ApiError> {
    state.session()?.my_work()
}

pub async fn rounds(
    state: State<'_, AppState>,
) -> Result<Vec<assay_core::store::RoundSummary>, ApiError> {
    state.session()?.rounds()
}

pub async fn create_round(
    state: State<'_, AppState>,
    round: assay_core::store::NewRound,
    filter: assay_core::store::Filter,
) -> Result<Vec<assay_core::store::RoundSummary>, ApiError> {
    state.session()?.create_round(&round, &filter)
}

pub async fn blind_items(
    state: State<'_, AppState>,
    id: i64,
) -> Result<Vec<assay_core::store::BlindItem>, ApiError> {
    state.session()?.blind_items(id)
}

pub async fn record_blind(
    state: State<'_, AppState>,
    round: i64,
    id: i64,
    judgement: assay_core::store::BlindJudgement,
) -> Result<Vec<assay_core::store::BlindItem>, ApiError> {
    state.session()?.record_blind(round, id, &judgement)
}

pub async fn adjudicate_blind(
    state: State<'_, AppState>,
    round: i64,
    id: i64,
    take: String,
) -> Result<assay_api::types::ItemDetail, ApiError> {
    state.session()?.adjudicate_blind(round, id, &take)
}

pub async fn judge_review(
    state: State<'_, AppState>,
    run: i64,
    size: usize,
    seed: u64,
) -> Result<Vec<assay_core::store::JudgeReviewEntry>, ApiError> {
    state.session()?.judge_review(run, size, seed)
}

pub async fn rate_judge(
    state: State<'_, AppState>,
    run: i64,
    id: i64,
    rating: u8,
) -> Result<assay_core::store::JudgeRatingReport, ApiError> {
    state.session()?.rate_judge(run, id, rating)
}

pub async fn judge_rating_report(
    state: State<'_, AppState>,
    run: i64,
) -> Result<assay_core::store::JudgeRatingReport, ApiError> {
    state.session()?.judge_rating_report(run)
}

pub async fn comments(
    state: State<'_, AppState>,
    id: i64,
) -> Result<Vec<assay_core::store::Comment>, ApiError> {
    state.session()?.comments(id)
}

pub async fn add_comment(
    state: State<'_, AppState>,
    id: i64,
    body: String,
) -> Result<Vec<assay_core::store::Comment>, ApiError> {
    state.session()?.add_comment(id, &body)
}

pub async fn people(
    state: State<'_, AppState>,
) -> Result<Vec<assay_core::store::PersonStats>, ApiError> {
    state.session()?.people()
}

pub async fn users(state: State<'_, AppState>) -> Result<Vec<assay_core::store::User>, ApiError> {
    state.session()?.users()
}
