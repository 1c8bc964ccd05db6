use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BinaryArray, ListArray, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowWriter;

use super::{current_items, image_file_name, ExportReport};
use crate::error::{Error, Result};
use crate::store::{Project, Version};

/// Column holding the full item (without image bytes) so a re-import loses nothing the flat
/// columns cannot express (distractor kinds, boxes, variants, metadata).
pub const ITEM_COLUMN: &str = "assay_item";

fn image_fields() -> Fields {
    Fields::from(vec![
        Field::new("bytes", DataType::Binary, true),
        Field::new("path", DataType::Utf8, true),
    ])
}

/// A Parquet file in the Hugging Face datasets layout: images as a list of `{bytes, path}`.
pub fn export_parquet(
    project: &Project,
    dataset: &str,
    path: &Path,
    scope: super::Scope,
) -> Result<ExportReport> {
    let ds = project.dataset_by_name(dataset)?;
    let items: Vec<_> = current_items(project, ds.id, scope)?;
    let removed = items
        .iter()
        .filter(|i| !Version::After.includes(i.op, i.kept))
        .count();
    let items: Vec<_> = items
        .into_iter()
        .filter(|i| Version::After.includes(i.op, i.kept))
        .collect();

    let mut id = StringBuilder::new();
    let mut question = StringBuilder::new();
    let mut answer = StringBuilder::new();
    let mut options = ListBuilder::new(StringBuilder::new());
    let mut answer_index = Int64Builder::new();
    let mut checklist = ListBuilder::new(StringBuilder::new());
    let mut category = StringBuilder::new();
    let mut item_json = StringBuilder::new();
    let mut img_bytes: Vec<Vec<u8>> = Vec::new();
    let mut img_paths: Vec<String> = Vec::new();
    let mut img_lengths: Vec<usize> = Vec::new();

    for it in &items {
        let c = &it.content;
        id.append_value(&it.ext_id);
        question.append_value(&c.question);
        answer.append_option(c.reference_text());
        for o in &c.options {
            options.values().append_value(&o.text);
        }
        options.append(true);
        answer_index.append_option(c.correct_option.map(|i| i as i64));
        for k in &c.checklist {
            checklist.values().append_value(k);
        }
        checklist.append(true);
        category.append_option(c.category.as_deref());
        let mut stripped = c.clone();
        for img in &mut stripped.images {
            img.hash.clear();
        }
        item_json.append_value(
            serde_json::to_string(&stripped).map_err(|e| Error::Invalid(e.to_string()))?,
        );
        for img in &c.images {
            let (bytes, format) = project.image_bytes(&img.hash)?;
            img_paths.push(image_file_name(&img.hash, &format));
            img_bytes.push(bytes);
        }
        img_lengths.push(c.images.len());
    }

    let structs = StructArray::new(
        image_fields(),
        vec![
            Arc::new(BinaryArray::from_iter_values(img_bytes.iter())) as ArrayRef,
            Arc::new(StringArray::from_iter_values(img_paths.iter())) as ArrayRef,
        ],
        None,
    );
    let item_field = Arc::new(Field::new("item", DataType::Struct(image_fields()), true));
    let images = ListArray::new(
        item_field.clone(),
        arrow_buffer::OffsetBuffer::from_lengths(img_lengths.iter().copied()),
        Arc::new(structs),
        None,
    );
    let list_of = |name: &str| {
        Field::new(
            name,
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        )
    };
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("question", DataType::Utf8, false),
        Field::new("answer", DataType::Utf8, true),
        list_of("options"),
        Field::new("answer_index", DataType::Int64, true),
        list_of("checklist"),
        Field::new("category", DataType::Utf8, true),
        Field::new("images", DataType::List(item_field), true),
        Field::new(ITEM_COLUMN, DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(id.finish()),
            Arc::new(question.finish()),
            Arc::new(answer.finish()),
            Arc::new(options.finish()),
            Arc::new(answer_index.finish()),
            Arc::new(checklist.finish()),
            Arc::new(category.finish()),
            Arc::new(images),
            Arc::new(item_json.finish()),
        ],
    )
    .map_err(|e| Error::Invalid(format!("building Parquet batch: {e}")))?;
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut w = ArrowWriter::try_new(file, schema, None)
        .map_err(|e| Error::Invalid(format!("Parquet writer: {e}")))?;
    w.write(&batch)
        .and_then(|_| w.close().map(|_| ()))
        .map_err(|e| Error::Invalid(format!("writing {}: {e}", path.display())))?;
    Ok(ExportReport {
        dataset: ds.name,
        items: items.len(),
        removed_left_out: removed,
        images: img_paths.len(),
        path: path.display().to_string(),
    })
}
