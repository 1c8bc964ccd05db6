use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

use super::{current_items, image_file_name, ExportReport};
use crate::error::{Error, Result};
use crate::store::{Project, Version};

/// Writes `<dir>/data.jsonl` and `<dir>/images/`; the records are Assay's native layout, which
/// the importer reads back to the same items.
pub fn export_jsonl(
    project: &Project,
    dataset: &str,
    dir: &Path,
    scope: super::Scope,
) -> Result<ExportReport> {
    let ds = project.dataset_by_name(dataset)?;
    let items = current_items(project, ds.id, scope)?;
    write_jsonl(project, ds.name, items, dir)
}

/// Writes the items a filter matches (a hand selection is `Filter::ids`), from any datasets,
/// in the same layout: what "export the selection" in the item table writes.
pub fn export_selection(
    project: &Project,
    target: &crate::store::Filter,
    dir: &Path,
) -> Result<ExportReport> {
    let wanted: HashSet<i64> = project.query_ids(target)?.into_iter().collect();
    let mut items = Vec::new();
    for ds in project.datasets()? {
        items.extend(
            project
                .current_items(ds.id)?
                .into_iter()
                .filter(|i| wanted.contains(&i.id)),
        );
    }
    write_jsonl(project, "selection".into(), items, dir)
}

fn write_jsonl(
    project: &Project,
    name: String,
    items: Vec<crate::store::CurrentItem>,
    dir: &Path,
) -> Result<ExportReport> {
    let img_dir = dir.join("images");
    std::fs::create_dir_all(&img_dir).map_err(|e| Error::io(&img_dir, e))?;
    let data_path = dir.join("data.jsonl");
    let file = std::fs::File::create(&data_path).map_err(|e| Error::io(&data_path, e))?;
    let mut out = std::io::BufWriter::new(file);
    let mut written: HashSet<String> = HashSet::new();
    let mut count = 0;
    let mut removed = 0;
    for it in items {
        if !Version::After.includes(it.op, it.kept) {
            removed += 1;
            continue;
        }
        let mut v = serde_json::to_value(&it.content).map_err(|e| Error::Invalid(e.to_string()))?;
        let mut images = Vec::new();
        for img in &it.content.images {
            let (bytes, format) = project.image_bytes(&img.hash)?;
            let name = image_file_name(&img.hash, &format);
            if written.insert(img.hash.clone()) {
                let p = img_dir.join(&name);
                std::fs::write(&p, &bytes).map_err(|e| Error::io(&p, e))?;
            }
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
            m.insert("id".into(), Value::String(it.ext_id.clone()));
            m.insert("images".into(), Value::Array(images));
        }
        serde_json::to_writer(&mut out, &v).map_err(|e| Error::Invalid(e.to_string()))?;
        out.write_all(b"\n").map_err(|e| Error::io(&data_path, e))?;
        count += 1;
    }
    out.flush().map_err(|e| Error::io(&data_path, e))?;
    Ok(ExportReport {
        dataset: name,
        items: count,
        removed_left_out: removed,
        images: written.len(),
        path: data_path.display().to_string(),
    })
}
