//! Predictions produced by other tools, imported as runs and scored exactly like live runs:
//! llm-jp-eval-mm `prediction.jsonl` (`question_id`, `text`), lmms-eval sample logs (`doc_id`,
//! `filtered_resps` / `resps`), VLMEvalKit TSV (`index`, `prediction`), and plain JSONL with
//! named id and text fields.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{ensure_run, version_items, Version};
use crate::error::{EvalError, Result};
use crate::model::ensure_recorded_model;
use crate::prompt::Variant;
use crate::scorers::ScorerKind;
use assay_core::Project;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictionFormat {
    LlmJpEvalMm,
    LmmsEval,
    Vlmevalkit,
    Jsonl,
}

impl PredictionFormat {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "llm-jp-eval-mm" => Some(Self::LlmJpEvalMm),
            "lmms-eval" => Some(Self::LmmsEval),
            "vlmevalkit" => Some(Self::Vlmevalkit),
            "jsonl" => Some(Self::Jsonl),
            _ => None,
        }
    }
}

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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedRun {
    pub run_id: i64,
    pub format: PredictionFormat,
    pub matched: usize,
    pub scored: usize,
    pub unparsed: usize,
    /// Prediction ids with no item in the dataset version.
    pub unknown_ids: Vec<String>,
    /// Items of the version without a prediction.
    pub missing: usize,
}

enum Key {
    Id(String),
    Index(usize),
}

fn err(path: &Path, line: usize, message: impl Into<String>) -> EvalError {
    EvalError::Input {
        path: format!("{}:{line}", path.display()),
        message: message.into(),
    }
}

fn first_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => a.iter().find_map(first_text),
        _ => None,
    }
}

fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read(path: &Path, opts: &PredictionImport) -> Result<(PredictionFormat, Vec<(Key, String)>)> {
    let is_tsv = path.extension().is_some_and(|e| e == "tsv");
    if path.extension().is_some_and(|e| e == "xlsx") {
        return Err(err(
            path,
            0,
            "XLSX is not read; save the VLMEvalKit sheet as TSV",
        ));
    }
    if is_tsv || opts.format == Some(PredictionFormat::Vlmevalkit) {
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(b'\t')
            .from_path(path)
            .map_err(|e| err(path, 1, e.to_string()))?;
        let h = rdr
            .headers()
            .map_err(|e| err(path, 1, e.to_string()))?
            .clone();
        let col = |n: &str| {
            h.iter()
                .position(|x| x == n)
                .ok_or_else(|| err(path, 1, format!("no {n:?} column")))
        };
        let (ic, pc) = (col("index")?, col("prediction")?);
        let mut out = Vec::new();
        for rec in rdr.records() {
            let rec = rec.map_err(|e| {
                err(
                    path,
                    e.position().map_or(0, |p| p.line() as usize),
                    e.to_string(),
                )
            })?;
            out.push((
                Key::Id(rec.get(ic).unwrap_or("").to_string()),
                rec.get(pc).unwrap_or("").to_string(),
            ));
        }
        return Ok((PredictionFormat::Vlmevalkit, out));
    }
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, e.to_string()))?;
    let mut fmt = opts.format;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| err(path, i + 1, format!("malformed JSON: {e}")))?;
        let f = *fmt.get_or_insert(if v.get("doc_id").is_some() {
            PredictionFormat::LmmsEval
        } else if v.get("question_id").is_some() && v.get("text").is_some() {
            PredictionFormat::LlmJpEvalMm
        } else {
            PredictionFormat::Jsonl
        });
        let entry = match f {
            PredictionFormat::LlmJpEvalMm => (
                v.get("question_id").and_then(id_text).map(Key::Id),
                v.get("text").and_then(first_text),
            ),
            PredictionFormat::LmmsEval => (
                v.get("doc_id")
                    .and_then(Value::as_u64)
                    .map(|d| Key::Index(d as usize)),
                v.get("filtered_resps")
                    .and_then(first_text)
                    .or_else(|| v.get("resps").and_then(first_text)),
            ),
            _ => (
                v.get(&opts.id_field).and_then(id_text).map(Key::Id),
                v.get(&opts.text_field).and_then(first_text),
            ),
        };
        match entry {
            (Some(k), Some(t)) => out.push((k, t)),
            _ => return Err(err(path, i + 1, "no id or prediction text on this line")),
        }
    }
    Ok((fmt.unwrap_or(PredictionFormat::Jsonl), out))
}

/// Imports one file as one run (replacing that run's earlier results) and scores it.
pub fn import_predictions(
    project: &mut Project,
    path: &Path,
    opts: &PredictionImport,
) -> Result<ImportedRun> {
    if opts.scorer.is_some_and(|s| s.needs_judge()) {
        return Err(EvalError::Config("recorded predictions are scored with local scorers; judge them with `assay eval --judge` on a live model".into()));
    }
    let (format, preds) = read(path, opts)?;
    let ds = project.dataset_by_name(&opts.dataset)?;
    let conn = project.connection();
    let items = version_items(conn, ds.id, opts.version)?;
    let ext: HashMap<i64, String> = {
        let mut st = conn.prepare("SELECT id, ext_id FROM items WHERE dataset_id = ?1")?;
        let rows = st.query_map([ds.id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let by_ext: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, (id, _, _))| (ext[id].as_str(), i))
        .collect();
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
        missing: 0,
    };
    let mut seen = vec![false; items.len()];
    for (key, text) in preds {
        let idx = match &key {
            Key::Id(id) => by_ext.get(id.as_str()).copied(),
            Key::Index(i) => (*i < items.len()).then_some(*i),
        };
        let Some(i) = idx else {
            report.unknown_ids.push(match key {
                Key::Id(s) => s,
                Key::Index(i) => i.to_string(),
            });
            continue;
        };
        let (item_id, rev, content) = &items[i];
        seen[i] = true;
        report.matched += 1;
        let kind = opts
            .scorer
            .unwrap_or_else(|| ScorerKind::default_for(content.format));
        let scorer = kind
            .local()
            .ok_or_else(|| EvalError::Config(format!("{} needs a judge", kind.as_str())))?;
        let ctx = crate::scorers::ScoreContext {
            boxes: opts.box_convention,
            max_side: opts.max_side,
        };
        let s = scorer.score(content, &text, &ctx);
        if s.score.is_some() {
            report.scored += 1;
        } else {
            report.unparsed += 1;
        }
        let key = format!("recorded:{run_id}:{item_id}");
        tx.execute(
            "INSERT OR REPLACE INTO responses (cache_key, text, created_at) VALUES (?1, ?2, ?3)",
            params![key, text, assay_core::store::now()],
        )?;
        tx.execute(
            "INSERT OR REPLACE INTO run_items (run_id, item_id, item_rev, cache_key, outcome, from_cache, score, parsed, evidence)
             VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, ?7, ?8)",
            params![run_id, item_id, rev, key, s.outcome(), s.score, s.parsed, s.evidence.to_string()],
        )?;
    }
    report.missing = seen.iter().filter(|s| !**s).count();
    tx.execute(
        "UPDATE runs SET status = 'complete', finished_at = ?2 WHERE id = ?1",
        params![run_id, assay_core::store::now()],
    )?;
    tx.commit()?;
    Ok(report)
}
