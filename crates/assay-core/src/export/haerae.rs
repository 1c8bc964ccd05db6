//! HAERAE-Vision's published layout: `<dir>/train.jsonl` with `question_idx`,
//! `question_original`, `question_explicit`, `category`, `source`, `images` (paths into
//! `images/`), `checklist` (a list) and `answer`, the columns its `main.py` reads, so the
//! benchmark's own scripts run on the refined set and Assay imports it back to the same items.
//! The filtering record (each item's decision per stage and its phase-1 flags) goes beside it
//! in `filtering.csv`, one row per decision or flag, since the published layout has no column
//! for it. Only the kept set is written.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use super::ExportReport;
use crate::error::{Error, Result};
use crate::store::{Project, Version};

pub fn export_haerae(
    project: &Project,
    dataset: &str,
    dir: &Path,
    scope: super::Scope,
) -> Result<ExportReport> {
    export_haerae_metered(project, dataset, dir, scope, &mut super::Meter::silent())
}

pub(crate) fn export_haerae_metered(
    project: &Project,
    dataset: &str,
    dir: &Path,
    scope: super::Scope,
    meter: &mut super::Meter,
) -> Result<ExportReport> {
    let ds = project.dataset_by_name(dataset)?;
    let img_dir = dir.join("images");
    std::fs::create_dir_all(&img_dir).map_err(|e| Error::io(&img_dir, e))?;
    let data_path = dir.join("train.jsonl");
    let file = std::fs::File::create(&data_path).map_err(|e| Error::io(&data_path, e))?;
    let mut out = std::io::BufWriter::new(file);
    let filtering_path = dir.join("filtering.csv");
    let mut filtering = csv::Writer::from_path(&filtering_path)
        .map_err(|e| Error::Invalid(format!("{}: {e}", filtering_path.display())))?;
    filtering
        .write_record(["question_idx", "stage", "decision", "reason", "by", "at"])
        .map_err(|e| Error::Invalid(e.to_string()))?;
    let mut written = HashMap::new();
    let (mut count, mut left_out) = (0, 0);
    super::each_item(project, ds.id, scope, meter, &mut |it| {
        // The kept set also records why the others left: their decisions are written too.
        let f = project.filtering(it.id)?;
        for d in &f.decisions {
            let by =
                d.by.clone()
                    .or_else(|| d.run_id.map(|r| format!("run {r}")))
                    .unwrap_or_default();
            filtering
                .write_record([
                    it.ext_id.as_str(),
                    &format!("{}. {}", d.position, d.stage),
                    if d.keep { "keep" } else { "drop" },
                    d.reason.as_deref().unwrap_or(""),
                    &by,
                    &d.created_at,
                ])
                .map_err(|e| Error::Invalid(e.to_string()))?;
        }
        for fl in &f.flags {
            filtering
                .write_record([
                    it.ext_id.as_str(),
                    &format!("phase 1: {}", fl.dimension),
                    "flag",
                    fl.note.as_deref().unwrap_or(""),
                    &fl.by,
                    &fl.created_at,
                ])
                .map_err(|e| Error::Invalid(e.to_string()))?;
        }
        if !Version::After.includes(it.op, it.kept) {
            left_out += 1;
            return Ok(());
        }
        let c = &it.content;
        let mut images = Vec::new();
        for img in &c.images {
            let name = super::write_image_once(project, &img.hash, &img_dir, &mut written)?;
            images.push(Value::String(format!("images/{name}")));
        }
        // question_idx is an integer in the published set; other ids stay strings.
        let idx = it
            .ext_id
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::String(it.ext_id.clone()));
        let rec = json!({
            "question_idx": idx,
            "question_original": c.question,
            "question_explicit": c.explicit_question,
            "category": c.category,
            "source": c.source,
            "images": images,
            "checklist": c.checklist,
            "answer": c.answer.clone().unwrap_or_default(),
        });
        serde_json::to_writer(&mut out, &rec).map_err(|e| Error::Invalid(e.to_string()))?;
        out.write_all(b"\n").map_err(|e| Error::io(&data_path, e))?;
        count += 1;
        Ok(())
    })?;
    out.flush().map_err(|e| Error::io(&data_path, e))?;
    filtering
        .flush()
        .map_err(|e| Error::io(&filtering_path, e))?;
    Ok(ExportReport {
        dataset: ds.name,
        items: count,
        removed_left_out: left_out,
        images: written.len(),
        path: data_path.display().to_string(),
    })
}
