//! Recorded predictions of another tool, imported as a run from the window.

use serde::{Deserialize, Serialize};

use crate::error::{ApiError, ApiResult};
use assay_core::{Project, Version};
use assay_eval::scorers::grounding::BoxConvention;
use assay_eval::{CancelToken, Variant};

use super::eval_err;

/// Recorded predictions to import as a run, as the window's form fills it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PredictionsForm {
    pub file: String,
    pub model: String,
    pub dataset: String,
    pub version: String,
    pub variant: String,
    pub run_index: u32,
    /// None: the format's usual scorer.
    pub scorer: Option<String>,
    /// None: detected from the file.
    pub format: Option<String>,
    /// The judge model for judge scorers, and identification's near misses.
    pub judge: Option<String>,
}

/// What an import of recorded predictions did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PredictionsReport {
    pub run_id: i64,
    pub format: String,
    pub matched: u64,
    pub scored: u64,
    pub unparsed: u64,
    pub missing: u64,
    pub unknown_ids: Vec<String>,
    /// Judge requests answered (from the cache among them), unparsed and failed.
    pub judged: u64,
    pub judged_from_cache: u64,
    pub judge_unparsed: u64,
    pub judge_errors: u64,
}

/// Imports a file of another tool's predictions as a run and, with a judge, has the judge score
/// what it decides: the CLI's `assay predictions import`, off the window's thread.
/// A choice made in a form; empty means "the default".
fn given(v: &Option<String>) -> Option<&str> {
    v.as_deref().filter(|s| !s.is_empty())
}

pub fn import_predictions_blocking(
    path: &std::path::Path,
    form: &PredictionsForm,
) -> ApiResult<PredictionsReport> {
    use assay_eval::predictions::{import_and_judge, PredictionFormat, PredictionImport};
    use assay_eval::ScorerKind;
    let scorer = match given(&form.scorer) {
        Some(s) => Some(
            ScorerKind::parse(s)
                .ok_or_else(|| ApiError::new("invalid", format!("unknown scorer {s:?}")))?,
        ),
        None => None,
    };
    let format = match given(&form.format) {
        Some(s) => Some(
            PredictionFormat::parse(s)
                .ok_or_else(|| ApiError::new("invalid", format!("unknown format {s:?}")))?,
        ),
        None => None,
    };
    let version = Version::parse(&form.version)
        .ok_or_else(|| ApiError::new("invalid", format!("unknown version {:?}", form.version)))?;
    let variant = Variant::parse(&form.variant)
        .ok_or_else(|| ApiError::new("invalid", format!("unknown variant {:?}", form.variant)))?;
    let judge = form
        .judge
        .as_deref()
        .map(str::trim)
        .filter(|j| !j.is_empty());
    let mut project = Project::open(path)?;
    let opts = PredictionImport {
        model: form.model.trim().to_string(),
        dataset: form.dataset.clone(),
        version,
        variant,
        run_index: form.run_index,
        scorer,
        format,
        box_convention: BoxConvention::Auto,
        max_side: None,
        id_field: "id".into(),
        text_field: "prediction".into(),
        filter: None,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ApiError::new("internal", e.to_string()))?;
    let (r, judged) = rt
        .block_on(import_and_judge(
            &mut project,
            std::path::Path::new(form.file.trim()),
            &opts,
            judge,
            CancelToken::new(),
        ))
        .map_err(eval_err)?;
    let judged = judged.unwrap_or_default();
    Ok(PredictionsReport {
        run_id: r.run_id,
        format: r.format.as_str().into(),
        matched: r.matched as u64,
        scored: r.scored as u64,
        unparsed: r.unparsed as u64,
        missing: r.missing as u64,
        unknown_ids: r.unknown_ids.into_iter().take(20).collect(),
        judged: judged.judged as u64,
        judged_from_cache: judged.from_cache as u64,
        judge_unparsed: judged.unparsed as u64,
        judge_errors: judged.errors as u64,
    })
}
