//! From stored run results to the before/after table (JAMMEval Table 2) and variant
//! comparisons (HAERAE Table 3), rendered as text, Markdown, CSV, LaTeX or JSON.

use std::collections::BTreeMap;

use rusqlite::params;
use serde::{Deserialize, Serialize};

use crate::engine::Version;
use crate::error::{EvalError, Result};
use crate::prompt::Variant;
use assay_core::stats::{before_after, bootstrap_mean_ci, BeforeAfterRow, ModelRuns};
use assay_core::Project;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    #[serde(flatten)]
    pub row: BeforeAfterRow,
    /// 95 % percentile-bootstrap interval of the accuracy, resampling items.
    pub ci_before: Option<(f64, f64)>,
    pub ci_after: Option<(f64, f64)>,
    /// Responses no answer could be read from (scored 0, shown here so they are not hidden).
    pub unparsed_before: i64,
    pub unparsed_after: i64,
}

/// Effective per-item scores of one run: a person's latest overrule wins; unparsed counts 0.
pub fn run_item_scores(conn: &rusqlite::Connection, run_id: i64) -> Result<Vec<(i64, f64, bool)>> {
    let mut st = conn.prepare_cached(
        "SELECT ri.item_id,
                COALESCE((SELECT o.score FROM overrules o WHERE o.run_id = ri.run_id AND o.item_id = ri.item_id
                          ORDER BY o.id DESC LIMIT 1), ri.score, 0.0),
                ri.outcome = 'unparsed'
         FROM run_items ri WHERE ri.run_id = ?1 AND ri.outcome IN ('scored', 'unparsed') ORDER BY ri.item_id",
    )?;
    let rows = st.query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Records a person's judgement over the scorer's; the scorer's result stays stored.
pub fn overrule(
    project: &Project,
    run_id: i64,
    item_id: i64,
    score: f64,
    author_id: Option<i64>,
    note: Option<&str>,
) -> Result<()> {
    if !(0.0..=1.0).contains(&score) {
        return Err(EvalError::Config(format!("score {score} is outside 0..1")));
    }
    project.connection().execute(
        "INSERT INTO overrules (run_id, item_id, score, author_id, note, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![run_id, item_id, score, author_id, note, assay_core::store::now()],
    )?;
    Ok(())
}

struct Side {
    models: Vec<ModelRuns>,
    item_means: Vec<f64>,
    unparsed: i64,
}

fn side(
    conn: &rusqlite::Connection,
    dataset_id: i64,
    version: Version,
    variant: Variant,
) -> Result<Side> {
    let mut st = conn.prepare(
        "SELECT r.id, m.name FROM runs r JOIN models m ON m.id = r.model_id
         WHERE r.dataset_id = ?1 AND r.version = ?2 AND r.variant = ?3 ORDER BY m.id, r.run_index",
    )?;
    let runs: Vec<(i64, String)> = st
        .query_map(
            params![dataset_id, version.as_str(), variant.as_str()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?
        .collect::<Result<_, _>>()?;
    let mut per_model: Vec<ModelRuns> = Vec::new();
    let mut per_item: BTreeMap<i64, (f64, usize)> = BTreeMap::new();
    let mut unparsed = 0;
    for (run_id, model) in runs {
        let scores = run_item_scores(conn, run_id)?;
        if scores.is_empty() {
            continue;
        }
        let acc = scores.iter().map(|s| s.1).sum::<f64>() / scores.len() as f64;
        unparsed += scores.iter().filter(|s| s.2).count() as i64;
        for (item, score, _) in &scores {
            let e = per_item.entry(*item).or_insert((0.0, 0));
            e.0 += score;
            e.1 += 1;
        }
        match per_model.iter_mut().find(|m| m.model == model) {
            Some(m) => m.runs.push(acc),
            None => per_model.push(ModelRuns {
                model,
                runs: vec![acc],
            }),
        }
    }
    Ok(Side {
        models: per_model,
        item_means: per_item.values().map(|(s, n)| s / *n as f64).collect(),
        unparsed,
    })
}

fn dataset_id(project: &Project, name: &str) -> Result<i64> {
    Ok(project.dataset_by_name(name)?.id)
}

fn row_from(label: &str, a: Side, b: Side) -> Option<TableRow> {
    let row = before_after(label, &a.models, &b.models)?;
    Some(TableRow {
        row,
        ci_before: bootstrap_mean_ci(&a.item_means, 2000, 0.95, 42),
        ci_after: bootstrap_mean_ci(&b.item_means, 2000, 0.95, 42),
        unparsed_before: a.unparsed,
        unparsed_after: b.unparsed,
    })
}

/// One row per dataset with runs on both versions.
pub fn before_after_table(
    project: &Project,
    datasets: &[String],
    variant: Variant,
) -> Result<Vec<TableRow>> {
    let mut rows = Vec::new();
    for ds in datasets {
        let id = dataset_id(project, ds)?;
        let a = side(project.connection(), id, Version::Before, variant)?;
        let b = side(project.connection(), id, Version::After, variant)?;
        if let Some(r) = row_from(ds, a, b) {
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Two variants on one version (e.g. original vs explicit).
pub fn variant_table(
    project: &Project,
    dataset: &str,
    version: Version,
    first: Variant,
    second: Variant,
) -> Result<Option<TableRow>> {
    let id = dataset_id(project, dataset)?;
    let a = side(project.connection(), id, version, first)?;
    let b = side(project.connection(), id, version, second)?;
    Ok(row_from(
        &format!("{dataset} ({} -> {})", first.as_str(), second.as_str()),
        a,
        b,
    ))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Text,
    Markdown,
    Csv,
    Latex,
    Json,
}

impl TableFormat {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "text" => Some(Self::Text),
            "markdown" | "md" => Some(Self::Markdown),
            "csv" => Some(Self::Csv),
            "latex" | "tex" => Some(Self::Latex),
            "json" => Some(Self::Json),
            _ => None,
        }
    }
}

const HEADERS: [&str; 11] = [
    "Dataset",
    "Models",
    "Acc before",
    "Acc after",
    "Δ Acc",
    "Std before",
    "Std after",
    "Gap before",
    "Gap after",
    "ρ",
    "Unparsed b/a",
];

fn cells(r: &TableRow) -> Vec<String> {
    let p = |x: f64| format!("{:.1}", x * 100.0);
    let d = |x: f64| format!("{:+.1}", x * 100.0);
    let ci = |c: Option<(f64, f64)>| {
        c.map_or(String::new(), |(lo, hi)| {
            format!(" [{:.1}, {:.1}]", lo * 100.0, hi * 100.0)
        })
    };
    vec![
        r.row.dataset.clone(),
        r.row.models.to_string(),
        format!("{}{}", p(r.row.before.accuracy), ci(r.ci_before)),
        format!("{}{}", p(r.row.after.accuracy), ci(r.ci_after)),
        d(r.row.delta_accuracy),
        p(r.row.before.run_std),
        p(r.row.after.run_std),
        p(r.row.before.gap),
        p(r.row.after.gap),
        r.row
            .rank_correlation
            .map_or("n/a".into(), |x| format!("{x:.2}")),
        format!("{}/{}", r.unparsed_before, r.unparsed_after),
    ]
}

pub fn render(rows: &[TableRow], fmt: TableFormat) -> Result<String> {
    let body: Vec<Vec<String>> = rows.iter().map(cells).collect();
    Ok(match fmt {
        TableFormat::Json => serde_json::to_string_pretty(rows)?,
        TableFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(HEADERS)
                .map_err(|e| EvalError::Config(e.to_string()))?;
            for r in &body {
                w.write_record(r)
                    .map_err(|e| EvalError::Config(e.to_string()))?;
            }
            String::from_utf8(
                w.into_inner()
                    .map_err(|e| EvalError::Config(e.to_string()))?,
            )
            .unwrap_or_default()
        }
        TableFormat::Markdown => {
            let mut s = format!(
                "| {} |\n|{}\n",
                HEADERS.join(" | "),
                "---|".repeat(HEADERS.len())
            );
            for r in &body {
                s.push_str(&format!("| {} |\n", r.join(" | ")));
            }
            s
        }
        TableFormat::Latex => {
            let esc = |x: &str| {
                x.replace('\\', "\\textbackslash{}")
                    .replace('&', "\\&")
                    .replace('%', "\\%")
                    .replace('_', "\\_")
                    .replace('#', "\\#")
                    .replace('$', "\\$")
                    .replace('Δ', "$\\Delta$")
                    .replace('ρ', "$\\rho$")
            };
            let mut s = format!(
                "\\begin{{tabular}}{{l{}}}\n\\toprule\n",
                "r".repeat(HEADERS.len() - 1)
            );
            s.push_str(
                &HEADERS
                    .iter()
                    .map(|h| esc(h))
                    .collect::<Vec<_>>()
                    .join(" & "),
            );
            s.push_str(" \\\\\n\\midrule\n");
            for r in &body {
                s.push_str(&r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" & "));
                s.push_str(" \\\\\n");
            }
            s.push_str("\\bottomrule\n\\end{tabular}\n");
            s
        }
        TableFormat::Text => {
            let mut widths: Vec<usize> = HEADERS.iter().map(|h| h.chars().count()).collect();
            for r in &body {
                for (i, c) in r.iter().enumerate() {
                    widths[i] = widths[i].max(c.chars().count());
                }
            }
            let line = |cols: Vec<String>| {
                cols.iter()
                    .enumerate()
                    .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
                    .collect::<Vec<_>>()
                    .join("  ")
                    .trim_end()
                    .to_string()
                    + "\n"
            };
            let mut s = line(HEADERS.iter().map(|h| h.to_string()).collect());
            for r in body {
                s.push_str(&line(r));
            }
            s
        }
    })
}
