//! Readers for prediction files written by other tools. Each returns (key, response text)
//! pairs; how a key finds its item is decided by the importer.
//!
//! - llm-jp-eval-mm `prediction.jsonl`: `question_id` (always a string; 0-based row index for
//!   id-less tasks) and `text`.
//! - lmms-eval `<ts>_samples_<task>.jsonl` (v0.3-v0.7): the dataset's own id when the record
//!   carries one (`doc.id`, or an `id` inside a metric dict such as JMMMU's `jmmmu_acc`),
//!   otherwise `doc_id`, the 0-based position in the task's split. With several filters each
//!   doc is logged once per filter; one must be chosen.
//! - VLMEvalKit `<model>_<dataset>.xlsx` (the default), `.tsv` (QUOTE_ALL) or `.json`:
//!   `index` and `prediction`.
//! - VAGUE `src/inference.py` results: a JSON object keyed by `<image_name>_annot.jpg` with
//!   `model_output`.
//! - CRAG-MM-Diagnostics `prediction_result.json`: `session_id` and `agent_response` (the box
//!   the official parser read, in the 960 x 1280 frame).
//! - HAERAE-Vision `main.py` CSV: `question_idx` and `response`.
//! - Plain JSONL with named id and text fields.

use std::path::Path;

use calamine::{Data, Reader};
use serde_json::Value;

use crate::error::{EvalError, Result};

assay_core::named_enum! {
    pub enum PredictionFormat {
        LlmJpEvalMm = "llm-jp-eval-mm",
        LmmsEval = "lmms-eval",
        Vlmevalkit = "vlmevalkit",
        Vague = "vague",
        CragMm = "crag-mm",
        HaeraeVision = "haerae-vision",
        Jsonl = "jsonl",
    }
}

/// How a prediction names its item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// The item's id in its source file.
    Id(String),
    /// 0-based position in the dataset as published (the original set, in file order).
    Position(usize),
}

impl Key {
    pub fn label(&self) -> String {
        match self {
            Key::Id(s) => s.clone(),
            Key::Position(i) => format!("#{i}"),
        }
    }
}

/// One prediction and where it was read.
#[derive(Debug, Clone)]
pub struct Prediction {
    pub key: Key,
    pub text: String,
    pub line: usize,
    /// The prompt the other tool sent, when its file keeps it (llm-jp-eval-mm `input_text`,
    /// lmms-eval `input`).
    pub prompt: Option<String>,
}

/// Reader options.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    pub format: Option<PredictionFormat>,
    pub id_field: String,
    pub text_field: String,
    /// lmms-eval: which filter's responses, by name (from the results file) or 0-based index.
    pub filter: Option<String>,
}

pub fn err(path: &Path, line: usize, message: impl Into<String>) -> EvalError {
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

pub fn read(path: &Path, opts: &ReadOptions) -> Result<(PredictionFormat, Vec<Prediction>)> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let format = match opts.format {
        Some(f) => f,
        None => detect(path, &ext)?,
    };
    let preds = match format {
        PredictionFormat::Vlmevalkit => match ext.as_str() {
            "xlsx" | "xls" => read_xlsx(path)?,
            "json" => read_vlmevalkit_json(path)?,
            _ => read_table(path, b'\t', "index", "prediction")?,
        },
        PredictionFormat::HaeraeVision => {
            let text = if opts.text_field == "prediction" {
                "response"
            } else {
                opts.text_field.as_str()
            };
            read_table(path, b',', "question_idx", text)?
        }
        PredictionFormat::Vague => read_vague(path)?,
        PredictionFormat::CragMm => read_crag(path)?,
        PredictionFormat::LmmsEval => read_lmms(path, opts)?,
        PredictionFormat::LlmJpEvalMm | PredictionFormat::Jsonl => read_jsonl(path, format, opts)?,
    };
    Ok((format, preds))
}

fn detect(path: &Path, ext: &str) -> Result<PredictionFormat> {
    match ext {
        "xlsx" | "xls" | "tsv" => return Ok(PredictionFormat::Vlmevalkit),
        "csv" => return Ok(PredictionFormat::HaeraeVision),
        _ => {}
    }
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, e.to_string()))?;
    if ext == "json" {
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| err(path, e.line(), format!("malformed JSON: {e}")))?;
        return Ok(match &v {
            Value::Object(m) if m.values().all(|x| x.get("model_output").is_some()) => {
                PredictionFormat::Vague
            }
            Value::Array(a) if a.first().is_some_and(|x| x.get("agent_response").is_some()) => {
                PredictionFormat::CragMm
            }
            _ => PredictionFormat::Vlmevalkit,
        });
    }
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let v: Value = serde_json::from_str(first).unwrap_or(Value::Null);
    Ok(if v.get("doc_id").is_some() {
        PredictionFormat::LmmsEval
    } else if v.get("question_id").is_some() && v.get("text").is_some() {
        PredictionFormat::LlmJpEvalMm
    } else {
        PredictionFormat::Jsonl
    })
}

fn read_jsonl(
    path: &Path,
    format: PredictionFormat,
    opts: &ReadOptions,
) -> Result<Vec<Prediction>> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, e.to_string()))?;
    let (idf, tf) = match format {
        PredictionFormat::LlmJpEvalMm => ("question_id", "text"),
        _ => (opts.id_field.as_str(), opts.text_field.as_str()),
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| err(path, i + 1, format!("malformed JSON: {e}")))?;
        let id = v.get(idf).and_then(id_text);
        let t = v.get(tf).and_then(first_text);
        match (id, t) {
            (Some(id), Some(text)) => out.push(Prediction {
                prompt: v.get("input_text").and_then(first_text),
                key: Key::Id(id),
                text,
                line: i + 1,
            }),
            _ => {
                return Err(err(
                    path,
                    i + 1,
                    format!("no {idf:?} or {tf:?} on this line"),
                ))
            }
        }
    }
    Ok(out)
}

/// The dataset's own id inside an lmms-eval sample: `doc.id` (v0.3 logs the doc) or an `id`
/// in a metric dict (v0.7 drops `doc`; JMMMU's `jmmmu_acc` still names the item).
fn lmms_own_id(v: &Value) -> Option<String> {
    if let Some(id) = v
        .get("doc")
        .and_then(|d| d.get("id").or_else(|| d.get("question_id")))
    {
        return id_text(id);
    }
    let Value::Object(m) = v else { return None };
    m.iter()
        .filter(|(k, _)| !matches!(k.as_str(), "doc" | "arguments" | "submission"))
        .find_map(|(_, x)| x.as_object().and_then(|o| o.get("id")).and_then(id_text))
}

/// Filter names of an lmms-eval task, in the order the results file lists them (the order the
/// evaluator logged each doc's copies in). Read from the raw text: a parsed JSON object would
/// lose the key order.
fn lmms_filters(samples: &Path) -> Option<Vec<String>> {
    let name = samples.file_name()?.to_str()?;
    let (stamp, task) = name.strip_suffix(".jsonl")?.split_once("_samples_")?;
    let text =
        std::fs::read_to_string(samples.with_file_name(format!("{stamp}_results.json"))).ok()?;
    let results = text.find("\"results\"")?;
    let start = results + text[results..].find(&format!("\"{task}\""))?;
    let open = start + text[start..].find('{')?;
    let mut depth = 0usize;
    let mut end = text.len();
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    let re = regex::Regex::new(r#""([^"{},]+),([^"{},]+)"\s*:"#).ok()?;
    let mut out: Vec<String> = Vec::new();
    for c in re.captures_iter(&text[open..end]) {
        let (metric, filter) = (&c[1], &c[2]);
        if !metric.contains("_stderr") && !out.iter().any(|f| f == filter) {
            out.push(filter.to_string());
        }
    }
    Some(out)
}

fn read_lmms(path: &Path, opts: &ReadOptions) -> Result<Vec<Prediction>> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, e.to_string()))?;
    // (doc_id, occurrence) -> prediction; the evaluator logs a doc once per filter, in order.
    let mut rows: Vec<(u64, usize, Prediction)> = Vec::new();
    let mut seen: std::collections::HashMap<u64, usize> = Default::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .map_err(|e| err(path, i + 1, format!("malformed JSON: {e}")))?;
        let doc = v
            .get("doc_id")
            .and_then(Value::as_u64)
            .ok_or_else(|| err(path, i + 1, "no integer doc_id"))?;
        let t = v
            .get("filtered_resps")
            .and_then(first_text)
            .or_else(|| v.get("resps").and_then(first_text))
            .ok_or_else(|| err(path, i + 1, "no filtered_resps or resps"))?;
        let key = lmms_own_id(&v).map_or(Key::Position(doc as usize), Key::Id);
        let n = seen.entry(doc).or_insert(0);
        rows.push((
            doc,
            *n,
            Prediction {
                prompt: v.get("input").and_then(first_text),
                key,
                text: t,
                line: i + 1,
            },
        ));
        *n += 1;
    }
    let copies = seen.values().copied().max().unwrap_or(1);
    if copies <= 1 {
        return Ok(rows.into_iter().map(|r| r.2).collect());
    }
    let names = lmms_filters(path).unwrap_or_default();
    let Some(choice) = &opts.filter else {
        let named = if names.len() == copies {
            format!(" (filters in the results file: {})", names.join(", "))
        } else {
            String::new()
        };
        return Err(err(
            path,
            0,
            format!("each doc appears {copies} times, once per filter{named}; choose one with --filter <name or 0-based index>"),
        ));
    };
    let index = match choice.parse::<usize>() {
        Ok(i) => i,
        Err(_) => names.iter().position(|n| n == choice).ok_or_else(|| {
            err(
                path,
                0,
                format!(
                    "no filter {choice:?}; the results file lists: {}",
                    names.join(", ")
                ),
            )
        })?,
    };
    if index >= copies {
        return Err(err(
            path,
            0,
            format!("filter index {index} out of range (each doc appears {copies} times)"),
        ));
    }
    Ok(rows
        .into_iter()
        .filter(|r| r.1 == index)
        .map(|r| r.2)
        .collect())
}

fn read_table(path: &Path, delimiter: u8, id: &str, text: &str) -> Result<Vec<Prediction>> {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
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
    let (ic, pc) = (col(id)?, col(text)?);
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| {
            err(
                path,
                e.position().map_or(0, |p| p.line() as usize),
                e.to_string(),
            )
        })?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        out.push(Prediction {
            prompt: None,
            key: Key::Id(rec.get(ic).unwrap_or("").to_string()),
            text: rec.get(pc).unwrap_or("").to_string(),
            line,
        });
    }
    Ok(out)
}

fn cell_text(c: &Data) -> String {
    match c {
        Data::Empty => String::new(),
        Data::String(s) => s.clone(),
        // pandas writes integer ids as numbers: 3.0 must read back as "3".
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Int(i) => i.to_string(),
        Data::Bool(b) => if *b { "True" } else { "False" }.into(),
        other => other.to_string(),
    }
}

fn read_xlsx(path: &Path) -> Result<Vec<Prediction>> {
    let mut wb = calamine::open_workbook_auto(path).map_err(|e| err(path, 0, e.to_string()))?;
    let sheet = wb
        .sheet_names()
        .first()
        .cloned()
        .ok_or_else(|| err(path, 0, "the workbook has no sheet"))?;
    let range = wb
        .worksheet_range(&sheet)
        .map_err(|e| err(path, 0, e.to_string()))?;
    let mut rows = range.rows();
    let header: Vec<String> = rows
        .next()
        .ok_or_else(|| err(path, 1, "empty sheet"))?
        .iter()
        .map(cell_text)
        .collect();
    let col = |n: &str| {
        header
            .iter()
            .position(|x| x == n)
            .ok_or_else(|| err(path, 1, format!("no {n:?} column in sheet {sheet}")))
    };
    let (ic, pc) = (col("index")?, col("prediction")?);
    Ok(rows
        .enumerate()
        .map(|(i, r)| Prediction {
            prompt: None,
            key: Key::Id(r.get(ic).map(cell_text).unwrap_or_default()),
            text: r.get(pc).map(cell_text).unwrap_or_default(),
            line: i + 2,
        })
        .collect())
}

/// VLMEvalKit JSON: records (`[{index, prediction}]`), pandas' column form
/// (`{"index": {"0": ..}, "prediction": {"0": ..}}`) or an object keyed by index.
fn read_vlmevalkit_json(path: &Path) -> Result<Vec<Prediction>> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, e.to_string()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| err(path, e.line(), format!("malformed JSON: {e}")))?;
    let mut out = Vec::new();
    match &v {
        Value::Array(a) => {
            for (i, r) in a.iter().enumerate() {
                let id = r.get("index").and_then(id_text);
                let t = r
                    .get("prediction")
                    .map(|p| first_text(p).unwrap_or_else(|| p.to_string()));
                match (id, t) {
                    (Some(id), Some(text)) => out.push(Prediction {
                        prompt: None,
                        key: Key::Id(id),
                        text,
                        line: i + 1,
                    }),
                    _ => return Err(err(path, i + 1, "record has no index or prediction")),
                }
            }
        }
        Value::Object(m) if m.contains_key("index") && m.contains_key("prediction") => {
            let (Some(ix), Some(pr)) = (m["index"].as_object(), m["prediction"].as_object()) else {
                return Err(err(path, 1, "index and prediction must be column objects"));
            };
            for (row, id) in ix {
                let text = pr.get(row).and_then(first_text).unwrap_or_default();
                out.push(Prediction {
                    prompt: None,
                    key: Key::Id(id_text(id).unwrap_or_default()),
                    text,
                    line: 0,
                });
            }
        }
        Value::Object(m) => {
            for (id, p) in m {
                let text = p
                    .get("prediction")
                    .and_then(first_text)
                    .or_else(|| first_text(p))
                    .ok_or_else(|| err(path, 0, format!("no prediction for {id}")))?;
                out.push(Prediction {
                    prompt: None,
                    key: Key::Id(id.clone()),
                    text,
                    line: 0,
                });
            }
        }
        _ => return Err(err(path, 1, "expected a list or an object of predictions")),
    }
    Ok(out)
}

fn read_vague(path: &Path) -> Result<Vec<Prediction>> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, e.to_string()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| err(path, e.line(), format!("malformed JSON: {e}")))?;
    let Value::Object(m) = v else {
        return Err(err(
            path,
            1,
            "a VAGUE result file is an object keyed by image file",
        ));
    };
    m.into_iter()
        .map(|(file, r)| {
            let text = r
                .get("model_output")
                .and_then(first_text)
                .ok_or_else(|| err(path, 0, format!("{file}: no model_output")))?;
            let id = file.strip_suffix("_annot.jpg").unwrap_or(&file).to_string();
            Ok(Prediction {
                prompt: None,
                key: Key::Id(id),
                text,
                line: 0,
            })
        })
        .collect()
}

fn read_crag(path: &Path) -> Result<Vec<Prediction>> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, e.to_string()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| err(path, e.line(), format!("malformed JSON: {e}")))?;
    let Value::Array(a) = v else {
        return Err(err(path, 1, "prediction_result.json is a list"));
    };
    a.iter()
        .enumerate()
        .map(|(i, r)| {
            let id = r
                .get("session_id")
                .and_then(id_text)
                .ok_or_else(|| err(path, i + 1, "no session_id"))?;
            // The parsed box is a list of ints; text answers (other task types) are strings.
            let text = match r.get("agent_response") {
                Some(Value::Array(b)) => format!(
                    "[{}]",
                    b.iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Some(x) => first_text(x).unwrap_or_else(|| x.to_string()),
                None => return Err(err(path, i + 1, "no agent_response")),
            };
            Ok(Prediction {
                prompt: None,
                key: Key::Id(id),
                text,
                line: i + 1,
            })
        })
        .collect()
}
