use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BinaryArray, ListArray, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowWriter;
use serde_json::{json, Value};

use super::{each_item, image_file_name, ExportReport};
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

/// Rows a Parquet batch (a row group) holds at most, and the image bytes: one batch of a
/// million items overflowed Arrow's 32-bit offsets (a panic), and held them all.
const BATCH_ROWS: usize = 1024;
const BATCH_IMAGE_BYTES: usize = 64 << 20;

/// A Hugging Face style Parquet file (images as a list of `{bytes, path}`, features in the
/// schema metadata), written a batch of rows at a time into a `.partial` file beside it that
/// `finish` renames: an export that fails halfway leaves no broken file, and an earlier
/// export where it was.
pub(crate) struct HfParquetWriter {
    path: std::path::PathBuf,
    partial: std::path::PathBuf,
    finished: bool,
    schema: Arc<Schema>,
    writer: ArrowWriter<std::fs::File>,
    id: StringBuilder,
    question: StringBuilder,
    answer: StringBuilder,
    options: ListBuilder<StringBuilder>,
    answer_index: Int64Builder,
    checklist: ListBuilder<StringBuilder>,
    category: StringBuilder,
    operation: Int64Builder,
    ref_type: Int64Builder,
    item_json: StringBuilder,
    img_bytes: Vec<Vec<u8>>,
    img_paths: Vec<String>,
    img_lengths: Vec<usize>,
    batch_image_bytes: usize,
    /// Rows written, and images (one per reference, as the file holds them).
    pub rows: usize,
    pub images: usize,
}

fn image_item_field() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::Struct(image_fields()), true))
}

fn schema() -> Arc<Schema> {
    let list_of = |name: &str| {
        Field::new(
            name,
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            true,
        )
    };
    let metadata = HashMap::from([("huggingface".to_string(), hf_metadata())]);
    Arc::new(Schema::new_with_metadata(
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
            Field::new("images", DataType::List(image_item_field()), true),
            Field::new(ITEM_COLUMN, DataType::Utf8, false),
        ],
        metadata,
    ))
}

impl HfParquetWriter {
    pub(crate) fn create(path: &Path) -> Result<Self> {
        let schema = schema();
        let mut partial = path.as_os_str().to_owned();
        partial.push(".partial");
        let partial = std::path::PathBuf::from(partial);
        let file = std::fs::File::create(&partial).map_err(|e| Error::io(&partial, e))?;
        let writer = ArrowWriter::try_new(file, schema.clone(), None)
            .map_err(|e| Error::Invalid(format!("Parquet writer: {e}")))?;
        Ok(Self {
            path: path.to_path_buf(),
            partial,
            finished: false,
            schema,
            writer,
            id: StringBuilder::new(),
            question: StringBuilder::new(),
            answer: StringBuilder::new(),
            options: ListBuilder::new(StringBuilder::new()),
            answer_index: Int64Builder::new(),
            checklist: ListBuilder::new(StringBuilder::new()),
            category: StringBuilder::new(),
            operation: Int64Builder::new(),
            ref_type: Int64Builder::new(),
            item_json: StringBuilder::new(),
            img_bytes: Vec::new(),
            img_paths: Vec::new(),
            img_lengths: Vec::new(),
            batch_image_bytes: 0,
            rows: 0,
            images: 0,
        })
    }

    pub(crate) fn push(&mut self, project: &Project, row: &Row) -> Result<()> {
        let c = row.content;
        self.id.append_value(row.ext_id);
        self.question.append_value(&c.question);
        self.answer.append_option(c.reference_text());
        for o in &c.options {
            self.options.values().append_value(&o.text);
        }
        self.options.append(true);
        self.answer_index
            .append_option(c.correct_option.map(|i| i as i64));
        for k in &c.checklist {
            self.checklist.values().append_value(k);
        }
        self.checklist.append(true);
        self.category.append_option(c.category.as_deref());
        self.operation.append_option(
            row.op
                .and_then(|o| index_of(&RefinementOp::NAMES, o.as_str())),
        );
        self.ref_type.append_option(
            c.ref_type
                .and_then(|r| index_of(&RefType::NAMES, r.as_str())),
        );
        let mut stripped = c.clone();
        for img in &mut stripped.images {
            img.hash.clear();
        }
        self.item_json.append_value(
            serde_json::to_string(&stripped).map_err(|e| Error::Invalid(e.to_string()))?,
        );
        for img in &c.images {
            let (bytes, format) = project.image_bytes(&img.hash)?;
            self.img_paths.push(image_file_name(&img.hash, &format));
            self.batch_image_bytes += bytes.len();
            self.img_bytes.push(bytes);
        }
        self.img_lengths.push(c.images.len());
        self.rows += 1;
        if self.img_lengths.len() >= BATCH_ROWS || self.batch_image_bytes >= BATCH_IMAGE_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the rows pushed since the last flush as one batch.
    fn flush(&mut self) -> Result<()> {
        if self.img_lengths.is_empty() {
            return Ok(());
        }
        let img_bytes = std::mem::take(&mut self.img_bytes);
        let img_paths = std::mem::take(&mut self.img_paths);
        let img_lengths = std::mem::take(&mut self.img_lengths);
        self.images += img_paths.len();
        self.batch_image_bytes = 0;
        let structs = StructArray::new(
            image_fields(),
            vec![
                Arc::new(BinaryArray::from_iter_values(img_bytes.iter())) as ArrayRef,
                Arc::new(StringArray::from_iter_values(img_paths.iter())) as ArrayRef,
            ],
            None,
        );
        let images = ListArray::new(
            image_item_field(),
            arrow_buffer::OffsetBuffer::from_lengths(img_lengths.iter().copied()),
            Arc::new(structs),
            None,
        );
        let batch = RecordBatch::try_new(
            self.schema.clone(),
            vec![
                Arc::new(self.id.finish()),
                Arc::new(self.question.finish()),
                Arc::new(self.answer.finish()),
                Arc::new(self.options.finish()),
                Arc::new(self.answer_index.finish()),
                Arc::new(self.checklist.finish()),
                Arc::new(self.category.finish()),
                Arc::new(self.operation.finish()),
                Arc::new(self.ref_type.finish()),
                Arc::new(images),
                Arc::new(self.item_json.finish()),
            ],
        )
        .map_err(|e| Error::Invalid(format!("building Parquet batch: {e}")))?;
        // Each batch is a row group of its own: the writer otherwise keeps encoding into one
        // until a million rows, in memory.
        self.writer
            .write(&batch)
            .and_then(|_| self.writer.flush())
            .map_err(|e| Error::Invalid(format!("writing {}: {e}", self.path.display())))
    }

    pub(crate) fn finish(mut self) -> Result<usize> {
        self.flush()?;
        self.writer
            .finish()
            .map_err(|e| Error::Invalid(format!("writing {}: {e}", self.path.display())))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| Error::io(&self.path, e))?;
        self.finished = true;
        Ok(self.images)
    }
}

impl Drop for HfParquetWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// A Parquet file in the Hugging Face datasets layout of the after set (removed items left
/// out), readable by `datasets.load_dataset("parquet", ...)` with PIL images.
pub fn export_parquet(
    project: &Project,
    dataset: &str,
    path: &Path,
    scope: super::Scope,
) -> Result<ExportReport> {
    export_parquet_metered(project, dataset, path, scope, &mut super::Meter::silent())
}

pub(crate) fn export_parquet_metered(
    project: &Project,
    dataset: &str,
    path: &Path,
    scope: super::Scope,
    meter: &mut super::Meter,
) -> Result<ExportReport> {
    let ds = project.dataset_by_name(dataset)?;
    let mut w = HfParquetWriter::create(path)?;
    let mut removed = 0;
    each_item(
        project,
        ds.id,
        scope,
        meter,
        &mut |it| match Row::refined(&it) {
            Some(row) => w.push(project, &row),
            None => {
                removed += 1;
                Ok(())
            }
        },
    )?;
    let rows = w.rows;
    let images = w.finish()?;
    Ok(ExportReport {
        dataset: ds.name,
        items: rows,
        removed_left_out: removed,
        images,
        path: path.display().to_string(),
    })
}
