//! Payloads that exist only at the app boundary.

use serde::{Deserialize, Serialize};

use assay_core::store::{Dataset, ItemView, RevisionInfo, User};
use assay_core::Role;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProjectInfo {
    pub path: String,
    pub name: String,
    pub datasets: Vec<Dataset>,
    pub items: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct AppInfo {
    pub version: String,
    pub recent: Vec<String>,
    pub user: Option<SessionUser>,
    pub project: Option<ProjectInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SessionUser {
    pub name: String,
    pub role: Role,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ItemDetail {
    pub item: ItemView,
    pub history: Vec<RevisionInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ImportRequest {
    pub path: String,
    pub name: Option<String>,
    pub layout: Option<String>,
    /// A mapping made or loaded in the Import view; it wins over `layout`.
    pub mapping: Option<assay_core::import::mapping::Mapping>,
    pub link_images: bool,
    pub dry_run: bool,
}

/// Who is working, as the UI shows it.
pub fn user_view(u: &User) -> SessionUser {
    SessionUser {
        name: u.name.clone(),
        role: u.role,
    }
}

/// A run's scores after a person rated one checklist criterion.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CriterionOverruled {
    /// The item's score in that run (S_i with the person's ratings).
    pub item_score: f64,
    /// The run's overall score (S_final), overrules applied.
    pub run_score: Option<f64>,
}

/// Every run's result for one item, with each run's overall score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ItemResults {
    pub results: Vec<assay_core::store::ItemRunResult>,
    /// (run id, S_final or accuracy with overrules applied)
    pub run_scores: Vec<(i64, Option<f64>)>,
}

/// An item in the triage queue with the evidence that it needs a person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TriageEntry {
    pub item_id: i64,
    pub ext_id: String,
    pub dataset: String,
    pub score: f64,
    /// (kind, evidence): "wrong_reference", "not_image_grounded" or "ambiguous".
    pub reasons: Vec<(String, String)>,
}

/// JAMMEval's error categories for a failed response; a project may use others.
pub const FAILURE_TAGS: [&str; 7] = [
    "perception",
    "ocr",
    "reasoning",
    "knowledge",
    "judge",
    "annotation",
    "refusal",
];

/// What waits for the current user: reviews, items sent back, mentions, and each round's queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct MyWork {
    /// Items waiting for review that someone else edited last.
    pub review: Vec<assay_core::store::QueueEntry>,
    pub sent_back: Vec<assay_core::store::QueueEntry>,
    pub mentions: Vec<assay_core::store::OpenMention>,
    /// For auditors: items of blind rounds whose judgements are all in, to adjudicate.
    pub adjudicate: Vec<assay_core::store::QueueEntry>,
    pub rounds: Vec<RoundQueue>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RoundQueue {
    pub id: i64,
    pub name: String,
    pub purpose: assay_core::store::RoundPurpose,
    /// Blind: the person records a judgement instead of editing the item.
    pub blind: bool,
    pub done: usize,
    pub entries: Vec<assay_core::store::QueueEntry>,
}

/// One evaluation run as the run list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RunListRow {
    pub run: assay_core::store::RunRow,
    /// The scorer with the versions of its rules that made the numbers ("choice v2").
    pub scorer_label: String,
    pub items: i64,
    pub unparsed: i64,
    pub hedged: i64,
    /// Verdicts the rules were not sure of (a judge or a person decides them).
    pub unsure: i64,
    pub errors: i64,
    pub accuracy: Option<f64>,
    /// Requests answered for this run (its results minus those reused from the cache).
    pub sent: i64,
    pub prompt_tokens: i64,
    pub completion_tokens: i64,
    /// At the model's prices (None without prices).
    pub cost: Option<f64>,
    pub duration_secs: Option<f64>,
    /// Why this replica may not rescore it (a run still going, or published by another
    /// member); None when it may.
    pub no_rescore: Option<String>,
    /// What each replica of the run's model did for it (requests, failures, mean latency).
    pub replicas: Vec<assay_core::store::ReplicaRecord>,
}

/// What the hybrid scorer's judge did with a run's unsure verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct HybridResult {
    pub run_id: i64,
    pub judge: String,
    pub replies: u64,
    pub unsure_before: u64,
    pub judged: u64,
    pub from_cache: u64,
    pub errors: u64,
    pub unsure_after: u64,
    /// The cost: judge calls per 1,000 replies.
    pub judge_calls_per_1000: f64,
}

/// What a rescore did to one run, or why it was not done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RescoreResult {
    pub run_id: i64,
    pub scorer: String,
    pub version: i64,
    pub rescored: u64,
    pub changed: u64,
    pub kept: u64,
    pub why_kept: Option<String>,
    pub error: Option<String>,
}
