//! Suggestions in the app: the run form and its estimate, the one suggestion run at a time in
//! the background, and what the editor shows and does with an item's suggestions.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use crate::session::Session;
use crate::types::ItemDetail;
use assay_core::store::{Filter, Suggestion, SuggestionReport};
use assay_core::{SuggestionKind, SuggestionValue};
use assay_eval::suggest::{self, SuggestProgress, SuggestRequest};

/// What to suggest and for which items (the list's filter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SuggestForm {
    pub kind: SuggestionKind,
    pub model: Option<String>,
    pub filter: Filter,
    pub template: Option<String>,
    pub strong_models: Vec<String>,
    pub threshold: f64,
    pub min_gap: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SuggestEstimateView {
    pub items: u64,
    pub todo: u64,
    pub requests: u64,
    pub cached: u64,
    pub cost: Option<f64>,
}

/// The suggestion run in progress (or the last one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SuggestStatus {
    pub running: bool,
    pub kind: Option<SuggestionKind>,
    pub total: u64,
    pub done: u64,
    pub sent: u64,
    pub cached: u64,
    pub parsed: u64,
    pub unparsed: u64,
    pub errors: u64,
    pub elapsed_secs: f64,
    pub cost: Option<f64>,
    pub cancelled: bool,
    pub run_id: Option<i64>,
    pub error: Option<String>,
}

fn request(session: &Session, form: &SuggestForm) -> ApiResult<SuggestRequest> {
    let items = session.project()?.query_ids(&form.filter)?;
    Ok(SuggestRequest {
        kind: form.kind,
        model: form.model.clone().filter(|m| !m.is_empty()),
        items,
        template: form.template.clone().filter(|t| !t.is_empty()),
        strong_models: form.strong_models.clone(),
        threshold: form.threshold,
        min_gap: form.min_gap,
    })
}

/// The app's one suggestion run at a time.
pub type SuggestJobs = crate::background::Background<SuggestStatus>;

impl SuggestJobs {
    /// Marks a run started and returns the work to spawn; refused while one runs. Started
    /// again after a kill, it asks only what has no answer yet.
    pub fn start(
        self: &Arc<Self>,
        project: PathBuf,
        req: SuggestRequest,
    ) -> ApiResult<impl std::future::Future<Output = ()> + Send + 'static> {
        let token = self.begin(
            SuggestStatus {
                running: true,
                kind: Some(req.kind),
                ..Default::default()
            },
            |s| s.running,
            "a suggestion run is already going; cancel it or wait",
        )?;
        let status = self.status.clone();
        Ok(async move {
            let started = Instant::now();
            let live = status.clone();
            let progress: suggest::SuggestProgressFn = Arc::new(move |p: &SuggestProgress| {
                if let Ok(mut s) = live.lock() {
                    apply(&mut s, p, started.elapsed().as_secs_f64());
                }
            });
            let result = suggest::run_suggestions(&project, &req, progress, token).await;
            if let Ok(mut s) = status.lock() {
                s.running = false;
                s.elapsed_secs = started.elapsed().as_secs_f64();
                match result {
                    Ok(summary) => {
                        apply(&mut s, &summary.progress, started.elapsed().as_secs_f64());
                        s.cost = summary.cost;
                        s.cancelled = summary.cancelled;
                        s.run_id = Some(summary.run_id);
                    }
                    Err(e) => s.error = Some(e.to_string()),
                }
            }
        })
    }
}

fn apply(s: &mut SuggestStatus, p: &SuggestProgress, elapsed: f64) {
    s.total = p.total as u64;
    s.done = p.done as u64;
    s.sent = p.sent as u64;
    s.cached = p.cached as u64;
    s.parsed = p.parsed as u64;
    s.unparsed = p.unparsed as u64;
    s.errors = p.errors as u64;
    s.elapsed_secs = elapsed;
}

impl Session {
    pub fn suggest_request(&self, form: &SuggestForm) -> ApiResult<SuggestRequest> {
        request(self, form)
    }

    pub fn estimate_suggest(&self, form: SuggestForm) -> ApiResult<SuggestEstimateView> {
        let req = request(self, &form)?;
        let e = suggest::estimate(self.project()?, &req).map_err(crate::evaluation::eval_err)?;
        Ok(SuggestEstimateView {
            items: e.items as u64,
            todo: e.todo as u64,
            requests: e.requests as u64,
            cached: e.cached as u64,
            cost: e.cost,
        })
    }

    /// What the current person may see: nothing while the item is in their blind round.
    pub fn item_suggestions(&self, id: i64) -> ApiResult<Vec<Suggestion>> {
        let p = self.project()?;
        Ok(match self.author() {
            Ok(a) => p.item_suggestions_for(id, a.user_id)?,
            Err(_) => p.item_suggestions(id)?,
        })
    }

    /// The current person accepts a suggestion (as given or edited) on the revision they saw
    /// (`base_rev`): if the item moved on meanwhile, it is a conflict.
    pub fn accept_suggestion(
        &mut self,
        id: i64,
        suggestion: i64,
        base_rev: i64,
        value: SuggestionValue,
        stage_id: Option<i64>,
        reason: Option<String>,
    ) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        let p = self.project_mut()?;
        let s = p.suggestion(suggestion)?;
        if s.item_id != id {
            return Err(ApiError::new(
                "invalid",
                format!("suggestion {suggestion} is not about item {id}"),
            ));
        }
        p.accept_suggestion(
            suggestion,
            base_rev,
            &value,
            stage_id,
            reason.as_deref(),
            &author,
        )?;
        self.item_detail(id)
    }

    pub fn reject_suggestion(
        &mut self,
        id: i64,
        suggestion: i64,
        reason: String,
    ) -> ApiResult<Vec<Suggestion>> {
        let author = self.author()?;
        let p = self.project_mut()?;
        if p.suggestion(suggestion)?.item_id != id {
            return Err(ApiError::new(
                "invalid",
                format!("suggestion {suggestion} is not about item {id}"),
            ));
        }
        p.reject_suggestion(suggestion, &reason, &author)?;
        Ok(p.item_suggestions_for(id, author.user_id)?)
    }

    pub fn suggestion_report(&self) -> ApiResult<SuggestionReport> {
        Ok(self.project()?.suggestion_report()?)
    }
}
