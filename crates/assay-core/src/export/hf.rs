//! `export --format hf`: a folder that `datasets.load_dataset(DIR)` opens as a `DatasetDict`
//! with an `original` and a `refined` split, a dataset card whose YAML header the Hub reads
//! (configs, features, splits, license and language), and the changelog.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::changelog::write_changelog_metered;
use super::parquet_hf::{features, HfParquetWriter, Row};
use super::Scope;
use crate::error::{Error, Result};
use crate::model::{ItemContent, RefinementOp};
use crate::store::Project;

/// The splits and where they live, relative to the folder.
pub const SPLITS: [(&str, &str); 2] = [
    ("original", "data/original-00000-of-00001.parquet"),
    ("refined", "data/refined-00000-of-00001.parquet"),
];

/// Removed items listed by id in the card; the rest are counted and left to the changelog.
const LISTED_REMOVALS: usize = 50;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HfReport {
    pub dataset: String,
    pub original: usize,
    pub refined: usize,
    pub removed: usize,
    pub changed: usize,
    pub images: usize,
    pub path: String,
}

/// Writes the folder: both splits, README.md (the card) and changelog.csv.
pub fn export_hf(project: &Project, dataset: &str, dir: &Path, scope: Scope) -> Result<HfReport> {
    export_hf_metered(project, dataset, dir, scope, &mut super::Meter::silent())
}

pub(crate) fn export_hf_metered(
    project: &Project,
    dataset: &str,
    dir: &Path,
    scope: Scope,
    meter: &mut super::Meter,
) -> Result<HfReport> {
    let ds = project.dataset_by_name(dataset)?;
    std::fs::create_dir_all(dir.join("data")).map_err(|e| Error::io(dir, e))?;

    // One pass over the items, each written to both splits as it is read. The original split
    // is the whole published set; the scope limits the refined one only.
    let paths = SPLITS.map(|(_, file)| dir.join(file));
    let mut original = HfParquetWriter::create(&paths[0])?;
    let mut refined = HfParquetWriter::create(&paths[1])?;
    let mut removed: Vec<String> = Vec::new();
    let mut filtered_out = 0;
    let mut ops: BTreeMap<Option<RefinementOp>, usize> = BTreeMap::new();
    let mut languages = Languages::default();
    project.each_current_item(ds.id, &mut |i| {
        meter.tick();
        original.push(project, &Row::original(&i))?;
        if let Some(row) = Row::refined(&i).filter(|_| scope.includes(&i)) {
            refined.push(project, &row)?;
        }
        if i.op == Some(RefinementOp::Remove) {
            removed.push(i.ext_id.clone());
        } else if !i.kept {
            filtered_out += 1;
        }
        *ops.entry(i.op).or_default() += 1;
        languages.see(&i.content);
        Ok(())
    })?;
    let rows = [original.rows, refined.rows];
    let images = original.finish()? + refined.finish()?;
    let mut splits = [(0, 0); 2];
    for ((split, path), rows) in splits.iter_mut().zip(&paths).zip(rows) {
        let bytes = std::fs::metadata(path)
            .map_err(|e| Error::io(path, e))?
            .len();
        *split = (rows, bytes);
    }
    meter.stage("changelog");
    let changed = write_changelog_metered(project, dataset, &dir.join("changelog.csv"), meter)?;
    let removed: Vec<&str> = removed.iter().map(String::as_str).collect();
    let summary = Summary {
        name: super::refined_name(&ds.name),
        dataset: ds.name.clone(),
        original: rows[0],
        refined: rows[1],
        removed: &removed,
        filtered_out,
        ops,
        changed,
        signed_off: project.sign_off_counts(ds.id)?,
        signed_only: scope == Scope::SignedOff,
        languages: languages.list(),
        splits,
    };
    let card = dir.join("README.md");
    std::fs::write(&card, dataset_card(&summary)).map_err(|e| Error::io(&card, e))?;
    Ok(HfReport {
        dataset: ds.name,
        original: rows[0],
        refined: rows[1],
        removed: removed.len(),
        changed,
        images,
        path: dir.display().to_string(),
    })
}

/// What the card says about the refinement.
struct Summary<'a> {
    name: String,
    dataset: String,
    original: usize,
    refined: usize,
    removed: &'a [&'a str],
    filtered_out: usize,
    ops: BTreeMap<Option<RefinementOp>, usize>,
    changed: usize,
    signed_off: Vec<(String, i64)>,
    signed_only: bool,
    languages: Vec<&'static str>,
    /// Rows and bytes on disk of each split, as the Hub's `splits` field wants them.
    splits: [(usize, u64); 2],
}

/// The languages the questions are written in, by script: kana for Japanese, Hangul for
/// Korean, Latin letters for English. A guess for the card's `language` field to check.
#[derive(Default)]
struct Languages {
    ja: bool,
    ko: bool,
    en: bool,
}

impl Languages {
    fn see(&mut self, c: &ItemContent) {
        if self.ja && self.ko && self.en {
            return;
        }
        for ch in c.question.chars() {
            match ch {
                '\u{3040}'..='\u{30ff}' => self.ja = true,
                '\u{ac00}'..='\u{d7a3}' | '\u{1100}'..='\u{11ff}' => self.ko = true,
                'a'..='z' | 'A'..='Z' => self.en = true,
                _ => {}
            }
        }
    }

    fn list(&self) -> Vec<&'static str> {
        [(self.en, "en"), (self.ja, "ja"), (self.ko, "ko")]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, l)| l)
            .collect()
    }
}

/// A YAML scalar for any text: JSON's double-quoted string is valid YAML.
fn yaml_str(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// The features in the card's YAML, the way `datasets` writes `dataset_info.features`.
fn yaml_features(out: &mut String) {
    for (name, f) in features() {
        let _ = writeln!(out, "  - name: {}", yaml_str(name));
        match f["_type"].as_str() {
            Some("Sequence") if f["feature"]["_type"] == "Image" => {
                out.push_str("    sequence: image\n");
            }
            Some("Sequence") => {
                let _ = writeln!(
                    out,
                    "    sequence: {}",
                    f["feature"]["dtype"].as_str().unwrap_or("string")
                );
            }
            Some("ClassLabel") => {
                out.push_str("    dtype:\n      class_label:\n        names:\n");
                for (i, n) in f["names"].as_array().into_iter().flatten().enumerate() {
                    let _ = writeln!(
                        out,
                        "          '{i}': {}",
                        yaml_str(n.as_str().unwrap_or_default())
                    );
                }
            }
            _ => {
                let _ = writeln!(
                    out,
                    "    dtype: {}",
                    f["dtype"].as_str().unwrap_or("string")
                );
            }
        }
    }
}

/// Text from a dataset inside inline code in Markdown: backticks cannot close it early.
fn code(s: &str) -> String {
    format!("`{}`", s.replace('`', "'").replace(['\n', '\r'], " "))
}

fn dataset_card(s: &Summary) -> String {
    let mut out = String::from("---\n");
    let _ = writeln!(out, "pretty_name: {}", yaml_str(&s.name));
    out.push_str(
        "# Fill in: the license of the dataset this one refines applies to it as well.\nlicense: unknown\n",
    );
    out.push_str("# Detected from the questions' scripts: check before publishing.\nlanguage:\n");
    for l in &s.languages {
        let _ = writeln!(out, "- {l}");
    }
    if s.languages.is_empty() {
        out.push_str("- en\n");
    }
    out.push_str("tags:\n- vision-language\n- benchmark\n- refined\n");
    out.push_str("configs:\n- config_name: default\n  data_files:\n");
    for (split, file) in SPLITS {
        let pattern = file.replace("-00000-of-00001", "-*");
        let _ = writeln!(out, "  - split: {split}\n    path: {pattern}");
    }
    out.push_str("dataset_info:\n  features:\n");
    yaml_features(&mut out);
    out.push_str("  splits:\n");
    for ((split, _), (n, bytes)) in SPLITS.iter().zip(s.splits) {
        let _ = writeln!(
            out,
            "  - name: {split}\n    num_bytes: {bytes}\n    num_examples: {n}"
        );
    }
    out.push_str("---\n\n");

    let _ = writeln!(out, "# {}\n", s.name.replace(['\n', '\r'], " "));
    let _ = writeln!(
        out,
        "A refined version of {}: each item was checked by people in Assay and given one \
         refinement operation (identical, minor edit, disambiguation, answer correction, \
         replacement, or removal). The `original` split holds the items as they were \
         published; the `refined` split the items after refinement, without the removed ones.\n",
        code(&s.dataset)
    );
    out.push_str("## Splits\n\n| split | items |\n|---|---:|\n");
    let _ = writeln!(out, "| original | {} |", s.original);
    let _ = writeln!(out, "| refined | {} |", s.refined);
    if s.signed_only {
        out.push_str("\nThe refined split holds only the items an auditor signed off.\n");
    }
    out.push_str("\n## Refinement operations\n\n| operation | items |\n|---|---:|\n");
    for (op, n) in &s.ops {
        let name = op.map_or("none recorded", |o| o.as_str());
        let _ = writeln!(out, "| {name} | {n} |");
    }
    let _ = writeln!(
        out,
        "\n{} items changed from their original (one row each in `changelog.csv`).",
        s.changed
    );
    out.push_str("\n## Removed items\n\n");
    if s.removed.is_empty() {
        out.push_str("No item was removed.\n");
    } else {
        let _ = writeln!(out, "{} items were removed:", s.removed.len());
        for id in s.removed.iter().take(LISTED_REMOVALS) {
            let _ = writeln!(out, "- {}", code(id));
        }
        if s.removed.len() > LISTED_REMOVALS {
            let _ = writeln!(
                out,
                "- and {} more (see `changelog.csv`)",
                s.removed.len() - LISTED_REMOVALS
            );
        }
    }
    if s.filtered_out > 0 {
        let _ = writeln!(
            out,
            "\n{} more items were left out by filtering (dropped at a stage).",
            s.filtered_out
        );
    }
    out.push_str("\n## Sign-off\n\n");
    let signed: i64 = s.signed_off.iter().map(|(_, n)| n).sum();
    if signed == 0 {
        out.push_str("No item has been signed off by an auditor.\n");
    } else {
        let _ = writeln!(out, "{signed} items are signed off by an auditor:\n");
        for (who, n) in &s.signed_off {
            let _ = writeln!(out, "- {}: {n}", code(who));
        }
    }
    out.push_str(
        "\n## Loading\n\n```python\nfrom datasets import load_dataset\n\nds = load_dataset(\"path/to/this/folder\")\nds[\"refined\"][0][\"images\"]  # PIL images\n```\n",
    );
    out
}
