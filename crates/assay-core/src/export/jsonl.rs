use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{each_item, write_image_once, ExportReport, Meter};
use crate::error::{Error, Result};
use crate::store::{CurrentItem, Project, Version};

/// Writes `<dir>/data.jsonl` and `<dir>/images/`; the records are Assay's native layout, which
/// the importer reads back to the same items.
pub fn export_jsonl(
    project: &Project,
    dataset: &str,
    dir: &Path,
    scope: super::Scope,
) -> Result<ExportReport> {
    export_jsonl_metered(project, dataset, dir, scope, &mut Meter::silent())
}

pub(crate) fn export_jsonl_metered(
    project: &Project,
    dataset: &str,
    dir: &Path,
    scope: super::Scope,
    meter: &mut Meter,
) -> Result<ExportReport> {
    let ds = project.dataset_by_name(dataset)?;
    let mut w = JsonlWriter::create(dir)?;
    each_item(project, ds.id, scope, meter, &mut |it| w.write(project, it))?;
    w.finish(ds.name)
}

/// Writes the items a filter matches (a hand selection is `Filter::ids`), from any datasets,
/// in the same layout: what "export the selection" in the item table writes.
pub fn export_selection(
    project: &Project,
    target: &crate::store::Filter,
    dir: &Path,
) -> Result<ExportReport> {
    let wanted: HashSet<i64> = project.query_ids(target)?.into_iter().collect();
    let mut w = JsonlWriter::create(dir)?;
    for ds in project.datasets()? {
        project.each_current_item(ds.id, &mut |it| {
            if wanted.contains(&it.id) {
                w.write(project, it)?;
            }
            Ok(())
        })?;
    }
    w.finish("selection".into())
}

/// The JSONL file and images folder an export writes into, an item at a time.
struct JsonlWriter {
    out: std::io::BufWriter<std::fs::File>,
    data_path: PathBuf,
    img_dir: PathBuf,
    /// Images written: hash to file name.
    written: HashMap<String, String>,
    count: usize,
    removed: usize,
}

impl JsonlWriter {
    fn create(dir: &Path) -> Result<Self> {
        let img_dir = dir.join("images");
        std::fs::create_dir_all(&img_dir).map_err(|e| Error::io(&img_dir, e))?;
        let data_path = dir.join("data.jsonl");
        let file = std::fs::File::create(&data_path).map_err(|e| Error::io(&data_path, e))?;
        Ok(Self {
            out: std::io::BufWriter::new(file),
            data_path,
            img_dir,
            written: HashMap::new(),
            count: 0,
            removed: 0,
        })
    }

    fn write(&mut self, project: &Project, it: CurrentItem) -> Result<()> {
        if !Version::After.includes(it.op, it.kept) {
            self.removed += 1;
            return Ok(());
        }
        let mut v = serde_json::to_value(&it.content).map_err(|e| Error::Invalid(e.to_string()))?;
        let mut images = Vec::new();
        for img in &it.content.images {
            let name = write_image_once(project, &img.hash, &self.img_dir, &mut self.written)?;
            let mut entry = serde_json::to_value(img).map_err(|e| Error::Invalid(e.to_string()))?;
            if let Value::Object(m) = &mut entry {
                m.insert("path".into(), Value::String(format!("images/{name}")));
                m.remove("hash");
                m.remove("width");
                m.remove("height");
            }
            images.push(entry);
        }
        if let Value::Object(m) = &mut v {
            m.insert("id".into(), Value::String(it.ext_id));
            m.insert("images".into(), Value::Array(images));
        }
        serde_json::to_writer(&mut self.out, &v).map_err(|e| Error::Invalid(e.to_string()))?;
        self.out
            .write_all(b"\n")
            .map_err(|e| Error::io(&self.data_path, e))?;
        self.count += 1;
        Ok(())
    }

    fn finish(mut self, name: String) -> Result<ExportReport> {
        self.out
            .flush()
            .map_err(|e| Error::io(&self.data_path, e))?;
        Ok(ExportReport {
            dataset: name,
            items: self.count,
            removed_left_out: self.removed,
            images: self.written.len(),
            path: self.data_path.display().to_string(),
        })
    }
}
