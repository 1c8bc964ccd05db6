//! Importers: data files (JSONL, JSON, CSV/TSV, Parquet) and image folders become a dataset.
//! An import is all or nothing: problems are collected with their file and line, and nothing is
//! written unless there are none; the write itself is one transaction.

pub mod images;
mod json_array;
pub mod layouts;
pub mod mapping;
pub mod preview;
mod problem_list;
pub mod records;
pub mod refined;
mod seen_ids;
pub mod values;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rusqlite::TransactionBehavior;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Problem, Result};
use crate::model::{ItemContent, ItemImage, LabeledBox};
use crate::store::items::images::StoredImage;
use crate::store::items::{pack_rows, ItemRow, ItemWriter};
use crate::store::packed::{ImportPacking, NewDict};

/// What the reading thread hands the writer: a batch's new images, its prepared rows, how far
/// the file has been read, and the content dictionary when this batch taught it.
type ReadBatch = (Vec<StoredImage>, Vec<ItemRow>, usize, Option<NewDict>);
use crate::store::{NewItem, Project};
use images::ImageLoader;
use mapping::{Draft, ImageSource, ImageSpec, Mapping};

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Dataset name; defaults to the file (or folder) name without extension.
    pub name: Option<String>,
    /// An explicit mapping; otherwise `layout` or detection decides.
    pub mapping: Option<Mapping>,
    pub layout: Option<String>,
    /// Keep images where they are (path + hash) instead of copying them into the project.
    pub link_images: bool,
    /// Folder image paths resolve against; defaults to the data file's folder.
    pub image_root: Option<PathBuf>,
    pub dry_run: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ImportReport {
    pub dataset: String,
    pub dataset_id: Option<i64>,
    pub layout: String,
    pub items: usize,
    pub images: usize,
    pub new_images: usize,
    /// Fields no mapping entry names; kept in each item's metadata.
    pub unmapped_fields: Vec<String>,
    pub problems: Vec<Problem>,
    pub dry_run: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Progress {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub stage: &'static str,
    pub done: usize,
    pub total: usize,
}

const IMAGE_EXTS: &[&str] = &["png", "jpg", "jpeg", "webp", "gif"];

/// A file read and checked, not yet written: its items with their images decoded.
pub(crate) struct Prepared {
    pub layout: String,
    pub items: Vec<NewItem>,
    /// The images the items refer to that were new to this read, in first-seen order.
    pub images: Vec<StoredImage>,
    pub report: ImportReport,
}

/// What a read hands on as it goes: the images first seen in it, then items (in file order)
/// that may refer to them.
pub(crate) struct Batch {
    pub images: Vec<StoredImage>,
    pub items: Vec<NewItem>,
    /// Records read so far (for progress; a batch may carry no items, only this).
    pub read: usize,
}

/// Which items a read hands on.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Handing {
    /// Items to write: none once a problem is found (nothing will be written).
    UntilAProblem,
    /// Every good item, problems or not (the refined import matches them all first).
    EveryGoodItem,
    /// None: a dry run.
    Nothing,
}

impl Handing {
    fn keeps_items(self, problem_found: bool) -> bool {
        match self {
            Handing::UntilAProblem => !problem_found,
            Handing::EveryGoodItem => true,
            Handing::Nothing => false,
        }
    }
}

/// How many items a [`Batch`] holds at most.
const BATCH: usize = 1000;

/// How many bytes of new images a [`Batch`] holds at most (4 MB: at 16, importing a 1 GB Parquet
/// file of 97 KB images peaked at 340 MB, at 4 at 238). With an image of its own per item
/// (a Hugging Face image dataset, a folder of photos), a thousand items could be hundreds of
/// MB, and a few batches are in flight between the reading and the writing thread.
const BATCH_IMAGE_BYTES: usize = 4 << 20;

/// A data file opened for reading: its layout known (from its first record when not given),
/// nothing read past that record yet.
pub(crate) struct Opened {
    pub name: String,
    pub layout: String,
    /// About how many records, for progress.
    pub total: usize,
    mapping: Option<Mapping>,
    records: records::RecordIter,
    loader: ImageLoader,
    /// Problems found while opening (inline image references resolved over all records).
    problems: Vec<Problem>,
}

impl Opened {
    pub(crate) fn open(path: &Path, opts: &ImportOptions) -> Result<Self> {
        let (stream, data_dir) = open_stream(path)?;
        Self::from_stream(path, stream, &data_dir, opts)
    }

    /// The import of `stream`, records read from `path` (whose folder is `data_dir`).
    pub(crate) fn from_stream(
        path: &Path,
        stream: records::Stream,
        data_dir: &Path,
        opts: &ImportOptions,
    ) -> Result<Self> {
        let name = opts.name.clone().unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "dataset".into())
        });
        let total = stream.total;
        let mut rest = stream.records;
        // The layout comes from the first record that reads; problems before it are reported
        // first, as they come in the file.
        let mut problems = Vec::new();
        let mut first = None;
        for r in rest.by_ref() {
            match r {
                Ok(rec) => {
                    first = Some(rec);
                    break;
                }
                Err(p) => problems.push(p),
            }
        }
        let (layout, mapping) = choose_mapping(first.as_ref(), opts)?;
        let mut records: records::RecordIter = Box::new(first.map(Ok).into_iter().chain(rest));
        let root = opts
            .image_root
            .clone()
            .unwrap_or_else(|| default_image_root(data_dir, &layout));
        let loader = ImageLoader::new(&root, opts.link_images).map_err(Error::Invalid)?;
        // Images given inline by reference to another record need every record at hand: such
        // files are read whole (they are the small published sets that use this).
        if let Some(m) = mapping.as_ref().filter(|m| m.inline_images) {
            let mut all = Vec::with_capacity(total);
            for r in records.by_ref() {
                match r {
                    Ok(rec) => all.push(rec),
                    Err(p) => problems.push(p),
                }
            }
            let id = m.id.clone().unwrap_or_default();
            let img = m.images.clone().unwrap_or_default();
            for (loc, e) in mapping::resolve_image_refs(&mut all, &id, &img) {
                problems.push(Problem::new(&loc, e));
            }
            records = Box::new(all.into_iter().map(Ok));
        }
        Ok(Self {
            name,
            layout,
            total,
            mapping,
            records,
            loader,
            problems,
        })
    }

    /// Reads, maps and checks every record and decodes every image, handing each [`BATCH`] of
    /// the items `handing` keeps to `sink` (false from it stops the read), or only the progress
    /// when it keeps none. The read goes on past problems, so the report names them (the first
    /// [`problem_list::KEPT`], and how many more).
    /// Writes nothing itself.
    pub(crate) fn read(
        mut self,
        path: &Path,
        handing: Handing,
        cancel: &AtomicBool,
        sink: &mut dyn FnMut(Batch) -> Result<bool>,
    ) -> Result<ImportReport> {
        let mut problems = problem_list::ProblemList::new(
            &path.display().to_string(),
            std::mem::take(&mut self.problems),
        );
        let mut unmapped = BTreeSet::new();
        // An id's first location, to name both ends of a duplicate.
        let mut seen = seen_ids::SeenIds::new(&path.display().to_string());
        let mut image_refs = 0usize;
        let mut new_images = 0usize;
        let mut items = 0usize;
        let mut batch: Vec<NewItem> = Vec::with_capacity(BATCH);
        let mut stopped = false;
        let mapped = self
            .mapping
            .as_ref()
            .map(Mapping::mapped_keys)
            .unwrap_or_default();
        let mut hand_on = |batch: &mut Vec<NewItem>,
                           loader: &mut ImageLoader,
                           problems: &[Problem],
                           stopped: &mut bool,
                           read: usize|
         -> Result<()> {
            let mut images = loader.take_new();
            // A full-sized one left behind: grown from empty, each batch was copied ten times.
            let mut items = std::mem::replace(batch, Vec::with_capacity(BATCH));
            if *stopped {
                return Ok(());
            }
            if !handing.keeps_items(!problems.is_empty()) {
                images.clear();
                items.clear();
            }
            if !sink(Batch {
                images,
                items,
                read,
            })? {
                *stopped = true;
            }
            Ok(())
        };
        // Records in what the task reads: filters and nested lists (keep_if, explode) act before
        // ids are given, so an id-less record's id is its 0-based position here (`str(idx)` in
        // llm-jp-eval-mm, `doc_id` in lmms-eval).
        let mut n = 0usize;
        let mut read = 0usize;
        for (k, r) in self.records.by_ref().enumerate() {
            if k % 1000 == 0 && cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            // Progress goes on while no items are handed on.
            if k > 0 && k % BATCH == 0 && !handing.keeps_items(!problems.is_empty()) {
                hand_on(&mut batch, &mut self.loader, &problems, &mut stopped, k)?;
            }
            read = k + 1;
            // The writer gave up (its error is the one reported): the rest is not worth reading.
            if stopped {
                break;
            }
            let rec = match r {
                Ok(rec) => rec,
                Err(p) => {
                    problems.push(p);
                    continue;
                }
            };
            let rows = match expand(self.mapping.as_ref(), rec) {
                Ok(rows) => rows,
                Err(p) => {
                    problems.push(p);
                    continue;
                }
            };
            for rec in rows {
                let position = n;
                n += 1;
                let draft = match draft(self.mapping.as_ref(), &rec.value, &mapped, &mut unmapped) {
                    Ok(d) => d,
                    Err(errs) => {
                        problems.extend(errs.into_iter().map(|e| Problem::new(&rec.location, e)));
                        continue;
                    }
                };
                let ext_id = draft.ext_id.clone().unwrap_or_else(|| position.to_string());
                if let Some(prev) = seen.first_location_or_insert(&ext_id, &rec.location) {
                    problems.push(Problem::new(
                        &rec.location,
                        format!("duplicate id {ext_id:?} (first at {prev})"),
                    ));
                    continue;
                }
                let before = self.loader.new.len();
                match resolve_images(draft, &mut self.loader, &rec.blobs) {
                    Ok(content) => {
                        image_refs += content.images.len();
                        new_images += self.loader.new.len() - before;
                        items += 1;
                        if handing.keeps_items(!problems.is_empty()) {
                            batch.push(NewItem { ext_id, content });
                        }
                    }
                    Err(errs) => {
                        problems.extend(errs.into_iter().map(|e| Problem::new(&rec.location, e)))
                    }
                }
                if batch.len() >= BATCH || self.loader.new_bytes() >= BATCH_IMAGE_BYTES {
                    hand_on(&mut batch, &mut self.loader, &problems, &mut stopped, read)?;
                }
            }
            if !handing.keeps_items(!problems.is_empty()) {
                // Nothing will be written: keep no image bytes.
                self.loader.take_new();
                batch.clear();
            }
        }
        hand_on(&mut batch, &mut self.loader, &problems, &mut stopped, read)?;
        if items == 0 && problems.is_empty() {
            problems.push(Problem::new(path.display().to_string(), "no items found"));
        }
        Ok(ImportReport {
            dataset: self.name,
            dataset_id: None,
            layout: self.layout,
            items,
            images: image_refs,
            new_images,
            unmapped_fields: unmapped.into_iter().collect(),
            problems: problems.into_vec(),
            dry_run: handing == Handing::Nothing,
        })
    }
}

/// Reads, maps and checks every record and decodes every image into memory; writes nothing.
/// For the refined-set import, which matches every record before writing; a new dataset is
/// written as it is read (`import_path`).
pub(crate) fn prepare(
    path: &Path,
    opts: &ImportOptions,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> Result<Prepared> {
    let opened = Opened::open(path, opts)?;
    let (layout, total) = (opened.layout.clone(), opened.total);
    let mut items = Vec::new();
    let mut images = Vec::new();
    // Every good item, problems or not: the refined import aligns each with its seed and
    // reports every alignment problem together with the file's own.
    let report = opened.read(path, Handing::EveryGoodItem, cancel, &mut |b| {
        images.extend(b.images);
        items.extend(b.items);
        progress(Progress {
            stage: "read",
            done: b.read,
            total: total.max(b.read),
        });
        Ok(true)
    })?;
    Ok(Prepared {
        layout,
        items,
        images,
        report,
    })
}

/// Imports a data file or an image folder as a new dataset, in one transaction: nothing is
/// written unless every record is good. A JSONL file is read as it is written, on a thread of
/// its own (parsing, mapping, images and each item's derived columns), while this thread runs
/// the SQL, so neither the file nor its items are ever held whole.
pub fn import_path(
    project: &mut Project,
    path: &Path,
    opts: &ImportOptions,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> Result<ImportReport> {
    let opened = Opened::open(path, opts)?;
    if opts.dry_run {
        let total = opened.total;
        return opened.read(path, Handing::Nothing, cancel, &mut |b| {
            progress(Progress {
                stage: "read",
                done: b.read,
                total: total.max(b.read),
            });
            Ok(true)
        });
    }
    // Only into a project with no items: while a rollback journal is written, another process
    // opening the file waits for the import to end, which costs nothing when there is nothing
    // to read yet. An import into a project with items keeps the log, so the app or `assay
    // list` can read it meanwhile.
    use crate::store::{connection, facet_counts};
    let mut rollback_journal = facet_counts::items(&project.conn)? == 0
        && connection::rollback_journal_if_alone(&project.conn)?;
    // Another process may have imported between the count and the switch: counted again.
    if rollback_journal && facet_counts::items(&project.conn)? != 0 {
        connection::back_to_wal(&project.conn);
        rollback_journal = false;
    }
    // A large write builds its value-ordered indexes at its end (`ItemWriter::finish`): each a
    // sort of every item, which SQLite's sorter keeps where temporary files go, memory on a
    // project's connection (~100 MB more at two million items, the import's peak). Files while
    // importing instead; the system's file cache keeps them as fast.
    let temp_store = connection::temp_files_on_disk(&project.conn);
    let written = write_dataset(project, path, opened, progress, cancel);
    connection::restore_temp_store(&project.conn, temp_store);
    if rollback_journal {
        connection::back_to_wal(&project.conn);
    }
    written
}

/// `import_path`'s write: one transaction.
fn write_dataset(
    project: &mut Project,
    path: &Path,
    opened: Opened,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> Result<ImportReport> {
    let total = opened.total;
    let tx = project
        .conn
        .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let source = path.display().to_string();
    let dataset_id =
        crate::store::items::datasets::insert(&tx, &opened.name, &opened.layout, Some(&source))?;
    let mut fresh = 0;
    let mut writer = ItemWriter::new(&tx)?;
    let mut packing = ImportPacking::new(crate::store::packed::next_dict_id(&tx)?);
    let (report, written) = std::thread::scope(|scope| -> Result<(ImportReport, usize)> {
        // A few batches in flight: enough to keep both threads busy, little memory.
        let (send, receive) = std::sync::mpsc::sync_channel::<ReadBatch>(4);
        let reader = scope.spawn(move || {
            opened.read(path, Handing::UntilAProblem, cancel, &mut |b| {
                let mut rows = b
                    .items
                    .into_iter()
                    .map(ItemRow::new)
                    .collect::<Result<Vec<_>>>()?;
                let dict = pack_rows(&mut packing, &mut rows)?;
                Ok(send.send((b.images, rows, b.read, dict)).is_ok())
            })
        });
        let mut written = 0usize;
        let mut failed = None;
        let mut write = |images: Vec<StoredImage>,
                         rows: Vec<ItemRow>,
                         read: usize,
                         dict: Option<NewDict>|
         -> Result<()> {
            if cancel.load(Ordering::Relaxed) {
                return Err(Error::Cancelled);
            }
            if let Some(dict) = dict {
                crate::store::packed::save_dict(&tx, &dict)?;
            }
            for img in &images {
                fresh += crate::store::items::images::put(&tx, img)? as usize;
            }
            let stage = if rows.is_empty() { "read" } else { "write" };
            for row in rows {
                writer.insert_row(dataset_id, written as i64, row, None)?;
                written += 1;
            }
            progress(Progress {
                stage,
                done: read,
                total: total.max(read),
            });
            Ok(())
        };
        for (images, rows, read, dict) in receive.iter() {
            if let Err(e) = write(images, rows, read, dict) {
                failed = Some(e);
                break;
            }
        }
        // Closing the channel stops the reader at its next batch.
        drop(receive);
        let read = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match failed {
            Some(e) => Err(e),
            None => Ok((read?, written)),
        }
    })?;
    if !report.problems.is_empty() {
        return Err(Error::Import(report.problems));
    }
    writer.finish()?;
    tx.commit()?;
    progress(Progress {
        stage: "done",
        done: written,
        total: written,
    });
    Ok(ImportReport {
        dataset_id: Some(dataset_id),
        new_images: fresh,
        ..report
    })
}

/// The records one input record makes under the mapping: itself, none when `keep_if`
/// drops it, or one per entry of the `explode` list, each located.
fn expand(
    mapping: Option<&Mapping>,
    rec: records::Record,
) -> std::result::Result<Vec<records::Record>, Problem> {
    let Some(m) = mapping.filter(|m| m.explode.is_some() || m.keep_if.is_some()) else {
        return Ok(vec![rec]);
    };
    let vs = m
        .expand(&rec.value)
        .map_err(|e| Problem::new(&rec.location, e))?;
    let many = vs.len() > 1 || m.explode.is_some();
    Ok(vs
        .into_iter()
        .enumerate()
        .map(|(i, value)| records::Record {
            location: if many {
                format!("{} (entry {})", rec.location, i + 1)
            } else {
                rec.location.clone()
            },
            value,
            blobs: rec.blobs.clone(),
        })
        .collect())
}

/// One record as an item draft, by the mapping or as Assay's own layout.
fn draft(
    mapping: Option<&Mapping>,
    value: &Value,
    mapped: &BTreeSet<String>,
    unmapped: &mut BTreeSet<String>,
) -> std::result::Result<Draft, Vec<String>> {
    match mapping {
        Some(m) => m.apply(value, mapped, unmapped),
        None => native_draft(value),
    }
}

/// The records of a data file or an image folder, and the folder image paths resolve against.
fn open_stream(path: &Path) -> Result<(records::Stream, PathBuf)> {
    if path.is_dir() {
        return Ok((read_folder(path)?, path.to_path_buf()));
    }
    let dir = path
        .parent()
        .map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((records::Stream::open(path)?, dir))
}

/// Where image paths resolve when `--image-root` is not given: the data file's folder, except
/// for VAGUE, whose code reads images from a separate `--img_dir` (the published layout keeps
/// `data/` and `images/` side by side).
fn default_image_root(data_dir: &Path, layout: &str) -> PathBuf {
    if layout == "vague" {
        for candidate in [data_dir.join("images"), data_dir.join("../images")] {
            if candidate.is_dir() {
                return candidate;
            }
        }
    }
    data_dir.to_path_buf()
}

fn choose_mapping(
    first: Option<&records::Record>,
    opts: &ImportOptions,
) -> Result<(String, Option<Mapping>)> {
    if let Some(m) = &opts.mapping {
        let name = m.layout.clone().unwrap_or_else(|| "custom".into());
        return Ok((name, Some(m.clone())));
    }
    let layout = match &opts.layout {
        Some(l) => l.clone(),
        None => {
            let location = first.map(|r| r.location.clone()).unwrap_or_default();
            let first = first.map(|r| &r.value);
            match first.and_then(layouts::detect) {
                Some(l) => l.to_string(),
                None if first.is_none() => "jammeval".into(),
                None => {
                    let keys = first
                        .and_then(Value::as_object)
                        .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
                        .unwrap_or_default();
                    return Err(Error::Invalid(format!(
                        "{}: cannot tell the layout from the fields ({keys}); give a mapping file (--mapping) or --layout ({})",
                        location,
                        layouts::NAMES.join(", ")
                    )));
                }
            }
        }
    };
    if layout == layouts::NATIVE {
        return Ok((layout, None));
    }
    let m = layouts::by_name(&layout).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown layout {layout:?}; known: {}",
            layouts::NAMES.join(", ")
        ))
    })?;
    Ok((layout, Some(m)))
}

/// Assay's own export layout: the item content as stored, plus `id` and image `path`s.
fn native_draft(v: &Value) -> Result<Draft, Vec<String>> {
    let mut obj = v.as_object().cloned().unwrap_or_default();
    let ext_id = obj.remove("id").and_then(|x| values::as_text(&x));
    let mut imgs = obj.remove("images").unwrap_or(Value::Null);
    // A Parquet export: the full item is in one column, image bytes in the `images` column.
    if let Some(Value::String(item)) = obj.remove(crate::export::ITEM_COLUMN) {
        let mut full: serde_json::Map<String, Value> = serde_json::from_str(&item)
            .map_err(|e| vec![format!("{}: {e}", crate::export::ITEM_COLUMN)])?;
        if let (Some(Value::Array(meta)), Value::Array(cells)) = (full.remove("images"), &mut imgs)
        {
            for (cell, m) in cells.iter_mut().zip(meta) {
                if let (Value::Object(c), Value::Object(m)) = (cell, m) {
                    for k in ["target_boxes", "person_boxes"] {
                        if let Some(b) = m.get(k) {
                            c.insert(k.into(), b.clone());
                        }
                    }
                }
            }
        }
        obj = full;
    }
    let content: ItemContent =
        serde_json::from_value(Value::Object(obj)).map_err(|e| vec![e.to_string()])?;
    content.validate().map_err(|e| vec![e])?;
    let mut images = Vec::new();
    if let Value::Array(list) = imgs {
        for entry in list {
            let source = mapping::image_sources(&entry).into_iter().next();
            let Some(source) = source else {
                return Err(vec![format!("image entry {entry} has no path")]);
            };
            let boxes = |k: &str| entry.get(k).cloned().unwrap_or(Value::Null);
            images.push(ImageSpec {
                source,
                target_boxes: serde_json::from_value(boxes("target_boxes")).unwrap_or_default(),
                person_boxes: serde_json::from_value(boxes("person_boxes")).unwrap_or_default(),
                declared_size: None,
            });
        }
    }
    Ok(Draft {
        ext_id,
        content,
        images,
    })
}

fn resolve_images(
    draft: Draft,
    loader: &mut ImageLoader,
    blobs: &[std::sync::Arc<Vec<u8>>],
) -> Result<ItemContent, Vec<String>> {
    let mut content = draft.content;
    let mut errs = Vec::new();
    for spec in draft.images {
        match loader.load(&spec.source, blobs) {
            Ok(img) => {
                // Boxes drawn on a differently sized copy of the image are rescaled to this one.
                let (sx, sy) = match spec.declared_size {
                    Some((w, h)) => (img.width as f64 / w, img.height as f64 / h),
                    None => (1.0, 1.0),
                };
                let target_boxes: Vec<LabeledBox> = spec
                    .target_boxes
                    .iter()
                    .map(|b| LabeledBox::plain(b.scaled(sx, sy)))
                    .collect();
                for b in target_boxes.iter().map(|t| &t.bbox) {
                    if b.x_max > img.width as f64 + 1.0 || b.y_max > img.height as f64 + 1.0 {
                        errs.push(format!(
                            "box [{}, {}, {}, {}] lies outside the {}x{} image",
                            b.x_min, b.y_min, b.x_max, b.y_max, img.width, img.height
                        ));
                    }
                }
                let name = match &spec.source {
                    ImageSource::Path(p) => Some(p.clone()),
                    ImageSource::Blob(_, n) => n.clone().or(img.name.clone()),
                    ImageSource::Inline(_) => None,
                };
                content.images.push(ItemImage {
                    hash: img.hash,
                    width: img.width,
                    height: img.height,
                    name,
                    source_id: None,
                    target_boxes,
                    person_boxes: spec.person_boxes,
                });
            }
            Err(e) => errs.push(e),
        }
    }
    if errs.is_empty() {
        Ok(content)
    } else {
        Err(errs)
    }
}

/// An image folder: Hugging Face `imagefolder` layout when it has `metadata.jsonl`/`.csv`
/// (rows name their image in `file_name`), otherwise one item per image file.
fn read_folder(dir: &Path) -> Result<records::Stream> {
    for meta in ["metadata.jsonl", "metadata.csv", "metadata.json"] {
        let p = dir.join(meta);
        if p.exists() {
            return records::Stream::open(&p);
        }
    }
    // A Hugging Face dataset folder: Parquet shards at any depth (`data/`, one folder per
    // config such as JMMMU's subjects), read in path order as one dataset, a shard at a time.
    let shards = parquet_shards(dir, 3)?;
    if !shards.is_empty() {
        let total = shards.iter().map(|s| records::ParquetRows::count(s)).sum();
        return Ok(records::Stream::chain(shards, total));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| IMAGE_EXTS.contains(&e.to_ascii_lowercase().as_str()))
        })
        .collect();
    files.sort();
    let total = files.len();
    let records = files.into_iter().map(|f| {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let stem = f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        Ok(records::Record::new(
            f.display().to_string(),
            serde_json::json!({"id": stem, "question": "", "image": name}),
        ))
    });
    Ok(records::Stream {
        records: Box::new(records),
        total,
    })
}

/// Parquet files under `dir` (up to `depth` folders down), sorted by path.
fn parquet_shards(dir: &Path, depth: usize) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() && depth > 0 {
            out.extend(parquet_shards(&p, depth - 1)?);
        } else if p
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
        {
            out.push(p);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PNG of noise, so that it does not compress: about `side * side * 3` bytes.
    fn noise_png(side: u32, seed: u32) -> Vec<u8> {
        let mut state = seed.wrapping_mul(2_654_435_761).max(1);
        let img = image::RgbImage::from_fn(side, side, |_, _| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let [a, b, c, _] = state.to_le_bytes();
            image::Rgb([a, b, c])
        });
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn a_batch_is_handed_on_once_its_new_images_reach_the_byte_cap() {
        let dir = tempfile::tempdir().unwrap();
        let mut largest = 0;
        for i in 0..5 {
            let png = noise_png(600, i + 1);
            largest = largest.max(png.len());
            std::fs::write(dir.path().join(format!("p{i}.png")), png).unwrap();
        }
        assert!(
            largest > BATCH_IMAGE_BYTES / 4,
            "each image is over a quarter of the cap"
        );
        let mut batches: Vec<(usize, usize)> = Vec::new();
        let opened = Opened::open(dir.path(), &ImportOptions::default()).unwrap();
        let report = opened
            .read(
                dir.path(),
                Handing::EveryGoodItem,
                &AtomicBool::new(false),
                &mut |b| {
                    let bytes = b
                        .images
                        .iter()
                        .filter_map(|i| i.data.as_ref())
                        .map(Vec::len);
                    batches.push((b.items.len(), bytes.sum()));
                    Ok(true)
                },
            )
            .unwrap();
        assert_eq!(report.items, 5);
        assert_eq!(batches.iter().map(|b| b.0).sum::<usize>(), 5);
        assert!(
            batches.iter().filter(|b| b.1 > 0).count() >= 2,
            "five images over a quarter of the cap each are more than one batch: {batches:?}"
        );
        for (items, bytes) in &batches {
            assert!(
                *bytes < BATCH_IMAGE_BYTES + largest,
                "a batch of {items} items holds {bytes} bytes of images"
            );
        }
    }
}
