use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BinaryArray, ListArray, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowWriter;
use serde_json::{json, Value};

use super::{current_items, image_file_name, ExportReport};
use crate::error::{Error, Result};
use crate::model::{ItemContent, RefType, RefinementOp};
use crate::store::{CurrentItem, Project, Version};

/// Column holding the full item (without image bytes) so a re-import loses nothing the flat
/// columns cannot express (distractor kinds, boxes, variants, metadata).
pub const ITEM_COLUMN: &str = "assay_item";

fn image_fields() -> Fields {
    Fields::from(vec![
        Field::new("bytes", DataType::Binary, true),
        Field::new("path", DataType::Utf8, true),
    ])
}

/// One row of a Parquet export: an item's id, the content written, and its operation.
pub(crate) struct Row<'a> {
    pub ext_id: &'a str,
    pub content: &'a ItemContent,
    pub op: Option<RefinementOp>,
}

impl<'a> Row<'a> {
    /// The item as it was published.
    pub fn original(i: &'a CurrentItem) -> Self {
        Self {
            ext_id: &i.ext_id,
            content: &i.original,
            op: i.op,
        }
    }
    /// The item's current state, when the after set has it.
    pub fn refined(i: &'a CurrentItem) -> Option<Self> {
        Version::After.includes(i.op, i.kept).then_some(Self {
            ext_id: &i.ext_id,
            content: &i.content,
            op: i.op,
        })
    }
}

/// A ClassLabel feature over a named enum's names, in declaration order (its stored ints).
fn class_label(names: &[&str]) -> Value {
    json!({ "names": names, "_type": "ClassLabel" })
}

fn value(dtype: &str) -> Value {
    json!({ "dtype": dtype, "_type": "Value" })
}

/// `Sequence` rather than datasets 4+'s `List`: every datasets release reads it.
fn sequence(feature: Value) -> Value {
    json!({ "feature": feature, "_type": "Sequence" })
}

/// The features of the export's columns, as `datasets` writes them into the `huggingface`
/// schema metadata: images decode to PIL images, operation and referring-expression type to
/// class labels.
/// In column order, which `datasets` keeps (a JSON object here would sort them).
pub(crate) fn features() -> Vec<(&'static str, Value)> {
    vec![
        ("id", value("string")),
        ("question", value("string")),
        ("answer", value("string")),
        ("options", sequence(value("string"))),
        ("answer_index", value("int64")),
        ("checklist", sequence(value("string"))),
        ("category", value("string")),
        ("operation", class_label(&RefinementOp::NAMES)),
        ("ref_type", class_label(&RefType::NAMES)),
        ("images", sequence(json!({ "_type": "Image" }))),
        (ITEM_COLUMN, value("string")),
    ]
}

/// The `huggingface` schema metadata: `{"info": {"features": {...}}}` with the features in
/// column order.
fn hf_metadata() -> String {
    let fields: Vec<String> = features()
        .iter()
        .map(|(name, f)| format!("{}: {f}", Value::String((*name).to_string())))
        .collect();
    format!("{{\"info\": {{\"features\": {{{}}}}}}}", fields.join(", "))
}

fn index_of(names: &[&str], name: &str) -> Option<i64> {
    names.iter().position(|n| *n == name).map(|i| i as i64)
}

/// Writes `rows` as one Parquet file in the Hugging Face datasets layout (images as a list of
/// `{bytes, path}`, features in the schema metadata); returns the number of images written.
pub(crate) fn write_rows(project: &Project, rows: &[Row], path: &Path) -> Result<usize> {
    let mut id = StringBuilder::new();
    let mut question = StringBuilder::new();
    let mut answer = StringBuilder::new();
    let mut options = ListBuilder::new(StringBuilder::new());
    let mut answer_index = Int64Builder::new();
    let mut checklist = ListBuilder::new(StringBuilder::new());
    let mut category = StringBuilder::new();
    let mut operation = Int64Builder::new();
    let mut ref_type = Int64Builder::new();
    let mut item_json = StringBuilder::new();
    let mut img_bytes: Vec<Vec<u8>> = Vec::new();
    let mut img_paths: Vec<String> = Vec::new();
    let mut img_lengths: Vec<usize> = Vec::new();

    for row in rows {
        let c = row.content;
        id.append_value(row.ext_id);
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
        operation.append_option(
            row.op
                .and_then(|o| index_of(&RefinementOp::NAMES, o.as_str())),
        );
        ref_type.append_option(
            c.ref_type
                .and_then(|r| index_of(&RefType::NAMES, r.as_str())),
        );
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
    let metadata = HashMap::from([("huggingface".to_string(), hf_metadata())]);
    let schema = Arc::new(Schema::new_with_metadata(
        vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("question", DataType::Utf8, false),
            Field::new("answer", DataType::Utf8, true),
            list_of("options"),
            Field::new("answer_index", DataType::Int64, true),
            list_of("checklist"),
            Field::new("category", DataType::Utf8, true),
            Field::new("operation", DataType::Int64, true),
            Field::new("ref_type", DataType::Int64, true),
            Field::new("images", DataType::List(item_field), true),
            Field::new(ITEM_COLUMN, DataType::Utf8, false),
        ],
        metadata,
    ));
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
            Arc::new(operation.finish()),
            Arc::new(ref_type.finish()),
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
    Ok(img_paths.len())
}

/// A Parquet file in the Hugging Face datasets layout of the after set (removed items left
/// out), readable by `datasets.load_dataset("parquet", ...)` with PIL images.
pub fn export_parquet(
    project: &Project,
    dataset: &str,
    path: &Path,
    scope: super::Scope,
) -> Result<ExportReport> {
    let ds = project.dataset_by_name(dataset)?;
    let items: Vec<_> = current_items(project, ds.id, scope)?;
    let rows: Vec<Row> = items.iter().filter_map(Row::refined).collect();
    let removed = items.len() - rows.len();
    let images = write_rows(project, &rows, path)?;
    Ok(ExportReport {
        dataset: ds.name,
        items: rows.len(),
        removed_left_out: removed,
        images,
        path: path.display().to_string(),
    })
}
