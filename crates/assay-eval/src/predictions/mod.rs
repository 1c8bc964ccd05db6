//! Predictions produced by other tools, imported as runs and scored exactly like live runs.
//! The file formats are read in `readers.rs`.

pub mod readers;

pub use readers::{Key, PredictionFormat};

use std::collections::HashMap;
use std::path::Path;

use rusqlite::params;
use serde::{Deserialize, Serialize};

use crate::engine::{ensure_run, version_items, Version};
use crate::error::Result;
use crate::model::ensure_recorded_model;
use crate::prompt::Variant;
use crate::scorers::ScorerKind;
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
    let conn = project.connection();
    let items = version_items(conn, ds.id, opts.version)?;
    // Every item of the dataset by id and by position in the published (original) order, so
    // removing items in the refined set never shifts which item a position names.
    let all: Vec<(i64, String, i64)> = {
        let mut st =
            conn.prepare("SELECT id, ext_id, seq FROM items WHERE dataset_id = ?1 ORDER BY seq")?;
        let rows = st.query_map([ds.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let by_ext: HashMap<&str, i64> = all.iter().map(|(id, ext, _)| (ext.as_str(), *id)).collect();
    let by_pos: HashMap<i64, i64> = all.iter().map(|(id, _, seq)| (*seq, *id)).collect();
    let in_version: HashMap<i64, usize> = items
        .iter()
        .enumerate()
        .map(|(i, (id, _, _))| (*id, i))
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
    let tx = project.connection_mut().transaction()?;
    let run_id = ensure_run(
        &tx,
        model_id,
        ds.id,
        opts.version,
        opts.variant,
        opts.run_index,
        "recorded",
        scorer_label,
        "recorded",
    )?;
    tx.execute("DELETE FROM run_items WHERE run_id = ?1", [run_id])?;
    let mut report = ImportedRun {
        run_id,
        format,
        matched: 0,
        scored: 0,
        unparsed: 0,
        unknown_ids: Vec::new(),
        not_in_version: 0,
        missing: 0,
    };
    let mut seen = vec![false; items.len()];
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
        let text = pred.text;
        let prompt = pred
            .prompt
            .map(|t| serde_json::json!({"system": null, "text": t, "images": []}).to_string());
        let (item_id, rev, content) = &items[i];
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
                scorer.score(content, &text, &ctx)
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
        let key = format!("recorded:{run_id}:{item_id}");
        tx.execute(
            "INSERT OR REPLACE INTO responses (cache_key, text, created_at, prompt) VALUES (?1, ?2, ?3, ?4)",
            params![key, text, assay_core::store::now(), prompt],
        )?;
        tx.execute(
            "INSERT OR REPLACE INTO run_items (run_id, item_id, item_rev, cache_key, outcome, from_cache, score, parsed, evidence, scorer)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7, ?8, ?9)",
            params![run_id, item_id, rev, key, outcome, s.score, s.parsed, s.evidence.to_string(), kind.as_str()],
        )?;
    }
    report.missing = seen.iter().filter(|s| !**s).count();
    let judged_later = opts.scorer.is_some_and(|s| s.needs_judge());
    tx.execute(
        "UPDATE runs SET status = ?3, finished_at = ?2 WHERE id = ?1",
        params![
            run_id,
            assay_core::store::now(),
            if judged_later { "pending" } else { "complete" }
        ],
    )?;
    tx.commit()?;
    Ok(report)
}
