//! Predictions produced by other tools, imported as runs and scored exactly like live runs.
//! The file formats are read in `readers.rs`.

pub mod readers;

pub use readers::{Key, PredictionFormat};

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::engine::Version;
use crate::error::Result;
use crate::model::ensure_recorded_model;
use crate::prompt::Variant;
use crate::scorers::ScorerKind;
use assay_core::store::{RecordedResult, RunItemResult, RunKey};
use assay_core::Project;

#[derive(Debug, Clone)]
pub struct PredictionImport {
    pub model: String,
    pub dataset: String,
    pub version: Version,
    pub variant: Variant,
    pub run_index: u32,
    pub scorer: Option<ScorerKind>,
    /// None: detected from the file.
    pub format: Option<PredictionFormat>,
    /// How the recorded boxes are written (grounding).
    pub box_convention: crate::scorers::grounding::BoxConvention,
    /// Longest side of the images the other tool sent, when it downscaled them.
    pub max_side: Option<u32>,
    /// For plain JSONL.
    pub id_field: String,
    pub text_field: String,
    /// lmms-eval with several filters: which one (name or 0-based index).
    pub filter: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedRun {
    pub run_id: i64,
    pub format: PredictionFormat,
    pub matched: usize,
    pub scored: usize,
    pub unparsed: usize,
    /// Prediction ids with no item in the dataset.
    pub unknown_ids: Vec<String>,
    /// Predictions for items the version leaves out (removed in the refined set).
    pub not_in_version: usize,
    /// Items of the version without a prediction.
    pub missing: usize,
}

/// Imports one file as one run (replacing that run's earlier results) and scores it.
pub fn import_predictions(
    project: &mut Project,
    path: &Path,
    opts: &PredictionImport,
) -> Result<ImportedRun> {
    let (format, preds) = readers::read(
        path,
        &readers::ReadOptions {
            format: opts.format,
            id_field: opts.id_field.clone(),
            text_field: opts.text_field.clone(),
            filter: opts.filter.clone(),
        },
    )?;
    let ds = project.dataset_by_name(&opts.dataset)?;
    let items = project.version_items(ds.id, opts.version)?;
    // Every item of the dataset by id and by position in the published (original) order, so
    // removing items in the refined set never shifts which item a position names.
    let all = project.version_members(ds.id, Version::Before)?;
    let by_ext: HashMap<&str, i64> = all.iter().map(|m| (m.ext_id.as_str(), m.id)).collect();
    let by_pos: HashMap<i64, i64> = all.iter().map(|m| (m.seq, m.id)).collect();
    let in_version: HashMap<i64, usize> = items
        .iter()
        .enumerate()
        .map(|(i, (m, _))| (m.id, i))
        .collect();
    // CRAG-MM's recorded boxes are in its 960 x 1280 frame unless told otherwise.
    let boxes = match (format, opts.box_convention) {
        (PredictionFormat::CragMm, crate::scorers::grounding::BoxConvention::Auto) => {
            crate::scorers::grounding::BoxConvention::CragMm
        }
        (_, b) => b,
    };
    let model_id = ensure_recorded_model(project, &opts.model)?;
    let scorer_label = opts.scorer.map_or("auto", |s| s.as_str());
    let mut report = ImportedRun {
        run_id: 0,
        format,
        matched: 0,
        scored: 0,
        unparsed: 0,
        unknown_ids: Vec::new(),
        not_in_version: 0,
        missing: 0,
    };
    let mut seen = vec![false; items.len()];
    let mut results = Vec::new();
    for pred in preds {
        let item = match &pred.key {
            Key::Id(id) => by_ext.get(id.as_str()).copied(),
            Key::Position(i) => by_pos.get(&(*i as i64)).copied(),
        };
        let Some(item) = item else {
            report.unknown_ids.push(pred.key.label());
            continue;
        };
        let Some(&i) = in_version.get(&item) else {
            report.not_in_version += 1;
            continue;
        };
        if seen[i] {
            return Err(readers::err(
                path,
                pred.line,
                format!("a second prediction for item {}", pred.key.label()),
            ));
        }
        let prompt = pred.prompt.map(|t| crate::cache::text_record(None, &t));
        let (member, content) = &items[i];
        seen[i] = true;
        report.matched += 1;
        // A CRAG-MM prediction file holds boxes whatever the item's own answer format.
        let kind = opts.scorer.unwrap_or_else(|| match format {
            PredictionFormat::CragMm => ScorerKind::Grounding,
            _ => ScorerKind::default_for(content.format),
        });
        // Judge scorers are applied afterwards by `judging::judge_run`; until then the item
        // waits, counted as missing by the table.
        let s = match kind.local() {
            Some(scorer) => {
                let ctx = crate::scorers::ScoreContext {
                    boxes,
                    max_side: opts.max_side,
                };
                scorer.score(content, &pred.text, &ctx)
            }
            None => crate::scorers::Scored::unparsed(serde_json::json!({"rule": "awaiting judge"})),
        };
        let outcome = if kind.needs_judge() {
            "skipped"
        } else {
            s.outcome()
        };
        match (kind.needs_judge(), s.score) {
            (true, _) => {}
            (false, Some(_)) => report.scored += 1,
            (false, None) => report.unparsed += 1,
        }
        results.push(RecordedResult {
            result: RunItemResult {
                item_id: member.id,
                item_rev: member.rev,
                cache_key: None,
                outcome: outcome.into(),
                from_cache: false,
                score: s.score,
                parsed: s.parsed,
                evidence: Some(s.evidence.to_string()),
                error: None,
                scorer: Some(kind.as_str().into()),
                scorer_version: Some(kind.version()),
            },
            response: pred.text,
            prompt,
        });
    }
    report.missing = seen.iter().filter(|s| !**s).count();
    let judged_later = opts.scorer.is_some_and(|s| s.needs_judge());
    report.run_id = project.record_run(
        &RunKey {
            model_id,
            dataset_id: ds.id,
            version: opts.version,
            variant: opts.variant.as_str().into(),
            run_index: opts.run_index,
            template: "recorded".into(),
            scorer: scorer_label.into(),
            source: "recorded".into(),
            protocol: None,
        },
        &results,
        if judged_later { "pending" } else { "complete" },
    )?;
    Ok(report)
}

/// Imports a file of predictions as a run and, with `judge`, has the judge decide what the run's
/// scorer leaves to one (judge scorers: every answer; identification: the replies that are not
/// an exact name). A scorer that needs a judge is refused before anything is written when none
/// is given. The CLI and the app's import form both go through here.
pub async fn import_and_judge(
    project: &mut Project,
    path: &Path,
    opts: &PredictionImport,
    judge: Option<&str>,
    cancel: crate::CancelToken,
) -> Result<(ImportedRun, Option<crate::judging::JudgeSummary>)> {
    if let (Some(kind), None) = (opts.scorer.filter(|s| s.needs_judge()), judge) {
        return Err(crate::EvalError::Config(format!(
            "scorer {} needs a judge model (--judge, or the judge picker in the app)",
            kind.as_str()
        )));
    }
    let run = import_predictions(project, path, opts)?;
    // Without a scorer given, the run's scorer is the format's usual one.
    let kind = opts.scorer.or_else(|| {
        project
            .run(run.run_id)
            .ok()
            .and_then(|r| ScorerKind::parse(&r.scorer))
    });
    let judged = match (kind.filter(|k| k.uses_judge()), judge) {
        (Some(kind), Some(j)) => {
            Some(crate::judging::judge_run(project, run.run_id, kind, j, cancel).await?)
        }
        _ => None,
    };
    Ok((run, judged))
}
