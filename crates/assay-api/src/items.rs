//! Items in the app: the table (a page, facets, ids), one item and its edits, and the work on
//! many items at once: bulk actions (undone as one step), saved views, exporting a selection.

use crate::types::ItemDetail;
use assay_core::export::ExportReport;
use assay_core::store::{BulkAction, BulkChange, BulkReport, Filter, ItemExtras, SavedView};
use assay_core::store::{Edit, Facets, Page, QueryResult};

use crate::error::ApiResult;
use crate::session::Session;

impl Session {
    pub fn bulk_edit(&mut self, target: Filter, change: BulkChange) -> ApiResult<BulkReport> {
        let author = self.author()?;
        Ok(self.project_mut()?.bulk_edit(&target, &change, &author)?)
    }

    pub fn undo_bulk(&mut self, action: i64) -> ApiResult<BulkReport> {
        let author = self.author()?;
        Ok(self.project_mut()?.undo_bulk(action, &author)?)
    }

    pub fn bulk_actions(&self) -> ApiResult<Vec<BulkAction>> {
        Ok(self.project()?.bulk_actions(20)?)
    }

    pub fn saved_views(&self) -> ApiResult<Vec<SavedView>> {
        let author = self.author()?;
        Ok(self.project()?.saved_views(author.user_id)?)
    }

    pub fn save_view(
        &mut self,
        name: String,
        filter: Filter,
        columns: Vec<String>,
        shared: bool,
    ) -> ApiResult<Vec<SavedView>> {
        let author = self.author()?;
        self.project_mut()?
            .save_view(&name, &filter, &columns, shared, &author)?;
        self.saved_views()
    }

    pub fn delete_view(&mut self, name: String) -> ApiResult<Vec<SavedView>> {
        let author = self.author()?;
        self.project_mut()?.delete_view(&name, &author)?;
        self.saved_views()
    }

    pub fn export_selection(&self, target: Filter, dir: String) -> ApiResult<ExportReport> {
        let dir = std::path::Path::new(&dir);
        Ok(assay_core::export::export_selection(
            self.project()?,
            &target,
            dir,
        )?)
    }

    /// Gives the file's free pages back to the file system (`assay compact`): items,
    /// revisions and ids unchanged; refused while something else writes the project.
    pub fn compact_project(&self) -> ApiResult<assay_core::store::compact::CompactReport> {
        Ok(self.project()?.compact()?)
    }

    /// A dataset's boxes in another tool's format (`assay boxes export`), written into `dir`
    /// as `<dataset>.boxes.<format>.json[l]` (Label Studio's labelling config beside it).
    pub fn export_boxes(
        &self,
        dataset: String,
        format: String,
        dir: String,
    ) -> ApiResult<assay_core::grounding::formats::files::BoxExport> {
        use assay_core::grounding::formats::files;
        if dir.trim().is_empty() {
            return Err(crate::ApiError::new(
                "invalid",
                "choose the folder to export into",
            ));
        }
        let f = box_format(&format)?;
        let out = files::file_in(std::path::Path::new(dir.trim()), &dataset, f);
        Ok(files::export_boxes(self.project()?, &dataset, f, &out)?)
    }

    /// Boxes read from a file in another tool's format, saved to the dataset's matching
    /// items as the current user's revisions, all or nothing (`assay boxes import`).
    pub fn import_boxes(
        &mut self,
        dataset: String,
        format: String,
        path: String,
    ) -> ApiResult<assay_core::store::BoxApplyReport> {
        let f = box_format(&format)?;
        let author = self.author()?;
        Ok(assay_core::grounding::formats::files::import_boxes(
            self.project_mut()?,
            &dataset,
            f,
            std::path::Path::new(path.trim()),
            &author,
        )?)
    }

    /// Boxes a model wrote (`{"id", "<field>"}` lines), read in its convention for an image
    /// sent at `sent_size` (WxH; default its original size) and saved to the dataset's items as
    /// the current user's revisions, all or nothing (`assay boxes import --format model-output`).
    pub fn import_model_boxes(
        &mut self,
        dataset: String,
        path: String,
        field: String,
        convention: String,
        sent_size: Option<String>,
    ) -> ApiResult<assay_core::store::BoxApplyReport> {
        use assay_eval::model_boxes::{model_output_sets, parse_size, ModelOutput};
        use assay_eval::scorers::grounding::BoxConvention;
        let convention = BoxConvention::parse(&convention).ok_or_else(|| {
            crate::ApiError::new(
                "invalid",
                format!(
                    "{convention:?} is not a box convention: {}",
                    BoxConvention::NAMES.join(", ")
                ),
            )
        })?;
        let how = ModelOutput {
            field: Some(field.trim())
                .filter(|f| !f.is_empty())
                .unwrap_or("response")
                .to_string(),
            convention,
            sent_size: sent_size
                .as_deref()
                .filter(|s| !s.trim().is_empty())
                .map(parse_size)
                .transpose()?,
        };
        let author = self.author()?;
        let file = std::path::Path::new(path.trim());
        let p = self.project_mut()?;
        let ds = p.dataset_by_name(&dataset)?;
        let sets = model_output_sets(p, ds.id, file, &how)?;
        Ok(assay_core::grounding::formats::files::apply(
            p,
            ds.id,
            &sets,
            &author,
            "model-output",
            file,
        )?)
    }

    /// The table's round and run columns for the rows on screen.
    pub fn table_extras(&self, ids: Vec<i64>, runs: Vec<i64>) -> ApiResult<Vec<ItemExtras>> {
        Ok(self.project()?.table_extras(&ids, &runs)?)
    }
}

impl Session {
    pub fn query_items(&self, filter: Filter, page: Page) -> ApiResult<QueryResult> {
        Ok(self.project()?.query(&filter, page)?)
    }

    pub fn facets(&self, filter: Filter) -> ApiResult<Facets> {
        Ok(self.project()?.facets(&filter)?)
    }

    pub fn item_ids(&self, filter: Filter) -> ApiResult<Vec<i64>> {
        Ok(self.project()?.query_ids(&filter)?)
    }

    pub fn item_detail(&self, id: i64) -> ApiResult<ItemDetail> {
        let p = self.project()?;
        Ok(ItemDetail {
            item: p.item(id)?,
            history: p.revisions(id)?,
        })
    }

    /// Saves an edit as a new revision; core skips no-ops (autosave calls this often) and
    /// refuses an edit made on a superseded revision with the `conflict` code.
    pub fn save_item(&mut self, id: i64, edit: Edit) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?.save_edit(id, &edit, &author)?;
        self.item_detail(id)
    }

    pub fn restore_revision(&mut self, id: i64, rev: i64) -> ApiResult<ItemDetail> {
        let author = self.author()?;
        self.project_mut()?.restore_revision(id, rev, &author)?;
        self.item_detail(id)
    }
}

fn box_format(name: &str) -> ApiResult<assay_core::grounding::formats::BoxFormat> {
    use assay_core::grounding::formats::BoxFormat;
    BoxFormat::parse(name).ok_or_else(|| {
        crate::ApiError::new(
            "invalid",
            format!(
                "{name:?} is not a box format: {}",
                BoxFormat::NAMES.join(", ")
            ),
        )
    })
}

/// One export at a time per window: two writing the same folder would interleave their files.
#[derive(Default)]
pub struct Exports {
    running: std::sync::atomic::AtomicBool,
}

impl Exports {
    /// `f`, unless an export is running: then a refusal that says so.
    pub fn one<T>(&self, f: impl FnOnce() -> ApiResult<T>) -> ApiResult<T> {
        use std::sync::atomic::Ordering;
        if self.running.swap(true, Ordering::SeqCst) {
            return Err(crate::ApiError::new(
                "busy",
                "an export is running: wait for it to end",
            ));
        }
        struct Done<'a>(&'a std::sync::atomic::AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(false, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let _done = Done(&self.running);
        f()
    }
}

/// A whole dataset in one of the export formats, with its changelog, into the folder `dir`
/// (made if missing): what `assay export` writes. It reads the project on a connection of its
/// own, so the window stays usable while a large set is written, and tells `progress` how far
/// it is.
pub fn export_from(
    project_path: &std::path::Path,
    dataset: &str,
    format: assay_core::export::ExportFormat,
    dir: &str,
    signed_off_only: bool,
    progress: &mut dyn FnMut(assay_core::import::Progress),
) -> ApiResult<assay_core::export::DatasetExport> {
    if dir.trim().is_empty() {
        return Err(crate::ApiError::new(
            "invalid",
            "choose the folder to export into",
        ));
    }
    let scope = if signed_off_only {
        assay_core::export::Scope::SignedOff
    } else {
        assay_core::export::Scope::All
    };
    let project = assay_core::Project::open_reader(project_path, 5_000)?;
    Ok(assay_core::export::export_dataset_metered(
        &project,
        dataset,
        std::path::Path::new(dir.trim()),
        format,
        scope,
        None,
        progress,
    )?)
}

#[cfg(test)]
mod tests {
    use super::Exports;

    #[test]
    fn a_second_export_is_refused_while_one_runs_and_taken_after() {
        let exports = Exports::default();
        let inner = exports.one(|| exports.one(|| Ok(())));
        assert_eq!(inner.unwrap_err().code, "busy");
        assert!(exports.one(|| Ok(())).is_ok(), "the first one ended");
        let failed: crate::error::ApiResult<()> =
            exports.one(|| Err(crate::ApiError::new("invalid", "no")));
        assert!(failed.is_err());
        assert!(exports.one(|| Ok(())).is_ok(), "a failed export ends too");
    }
}
