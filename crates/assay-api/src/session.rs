//! One window's session: preferences, the open project and who is working.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::error::{ApiError, ApiResult};
use crate::prefs::Prefs;
use crate::types::{user_view, AppInfo, ImportRequest, ProjectInfo, SessionUser};
use assay_core::import::preview::{self, ImportPreview};
use assay_core::import::{import_path, mapping::Mapping, ImportOptions, ImportReport, Progress};
use assay_core::store::{Author, Filter, User};
use assay_core::{Project, Role};

pub struct Session {
    pub(crate) prefs_path: PathBuf,
    pub(crate) prefs: Prefs,
    pub(crate) project: Option<Project>,
    pub(crate) user: Option<User>,
    /// The refinement round recorded on revisions.
    pub round: i64,
    /// The team database password as typed: memory only, never written anywhere.
    pub team_password: Option<String>,
    /// How many projects this session has opened: facet columns read beside it are handed
    /// over only to the opening they were read for, never to a later one of the same path.
    pub(crate) opened: u64,
}

impl Session {
    pub fn new(prefs_path: PathBuf) -> Self {
        let prefs = Prefs::load(&prefs_path);
        Self {
            prefs_path,
            prefs,
            project: None,
            user: None,
            round: 1,
            team_password: None,
            opened: 0,
        }
    }

    pub(crate) fn save_prefs(&self) {
        // Preferences are a convenience; failing to write them must not fail the action.
        let _ = self.prefs.save(&self.prefs_path);
    }

    pub(crate) fn project(&self) -> ApiResult<&Project> {
        self.project.as_ref().ok_or_else(ApiError::no_project)
    }

    pub(crate) fn project_mut(&mut self) -> ApiResult<&mut Project> {
        self.project.as_mut().ok_or_else(ApiError::no_project)
    }

    pub fn project_path(&self) -> ApiResult<PathBuf> {
        Ok(self.project()?.path().to_path_buf())
    }

    pub fn app_info(&self) -> ApiResult<AppInfo> {
        Ok(AppInfo {
            version: env!("CARGO_PKG_VERSION").into(),
            recent: self.prefs.recent.clone(),
            user: self.prefs.user.clone(),
            project: self.project_info().ok(),
        })
    }

    pub fn project_info(&self) -> ApiResult<ProjectInfo> {
        let p = self.project()?;
        let datasets = p.datasets()?;
        Ok(ProjectInfo {
            path: p.path().display().to_string(),
            name: p
                .path()
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            items: datasets.iter().map(|d| d.item_count).sum(),
            datasets,
        })
    }

    fn attach(&mut self, project: Project) -> ApiResult<ProjectInfo> {
        let path = project.path().display().to_string();
        self.user = match &self.prefs.user {
            // A remembered person new to this project, as an auditor, must be made one by its
            // owner first: they choose again on the start screen.
            Some(u) => match project.sign_in(&u.name, u.role) {
                Ok(u) => Some(u),
                Err(assay_core::Error::Forbidden(_)) => None,
                Err(e) => return Err(e.into()),
            },
            None => None,
        };
        self.project = Some(project);
        self.opened += 1;
        self.prefs.touch_recent(&path);
        self.save_prefs();
        self.project_info()
    }

    pub fn open_project(&mut self, path: &Path) -> ApiResult<ProjectInfo> {
        let p = Project::open(path)?;
        self.attach(p)
    }

    /// Which opening of a project this is (see [`Session::adopt_facet_columns`]).
    pub fn opened(&self) -> u64 {
        self.opened
    }

    /// Whether facet columns read beside the session for `opened` would still be taken: that
    /// opening is the current one and holds none of its own.
    pub fn wants_facet_columns(&self, opened: u64) -> bool {
        self.opened == opened
            && self
                .project
                .as_ref()
                .is_some_and(|p| !p.holds_facet_columns())
    }

    /// Takes facet columns read beside the session ([`read_facet_columns`]) for opening
    /// `opened`, if that is still the project open now and it holds none of its own yet.
    pub fn adopt_facet_columns(
        &self,
        opened: u64,
        read: assay_core::store::ReadFacetColumns,
    ) -> bool {
        self.opened == opened
            && self
                .project
                .as_ref()
                .is_some_and(|p| p.adopt_facet_columns(read))
    }

    pub fn create_project(&mut self, path: PathBuf) -> ApiResult<ProjectInfo> {
        let path = path.as_path();
        let p = Project::create(path)?;
        self.attach(p)
    }

    /// Chooses who is working; recorded on every revision from now on.
    pub fn set_user(&mut self, name: String, role: Role) -> ApiResult<SessionUser> {
        if name.trim().is_empty() {
            return Err(ApiError::new("invalid", "a name is needed"));
        }
        // The stored role, whatever was asked: nobody raises their own.
        let mut role = role;
        if let Some(p) = &self.project {
            let u = p.sign_in(name.trim(), role)?;
            role = u.role;
            self.user = Some(u);
        }
        let view = SessionUser {
            name: name.trim().to_string(),
            role,
        };
        self.prefs.user = Some(view.clone());
        self.save_prefs();
        Ok(view)
    }

    pub(crate) fn author(&self) -> ApiResult<Author> {
        let u = self.user.as_ref().ok_or_else(ApiError::no_user)?;
        Ok(Author {
            user_id: u.id,
            role: u.role,
            round: self.round,
        })
    }

    pub fn current_user(&self) -> Option<SessionUser> {
        self.user.as_ref().map(user_view)
    }

    pub fn saved_filter(&self) -> ApiResult<Filter> {
        Ok(self
            .project
            .as_ref()
            .and_then(|p| {
                self.prefs
                    .filters
                    .get(&p.path().display().to_string())
                    .cloned()
            })
            .unwrap_or_default())
    }

    pub fn save_filter(&mut self, filter: Filter) -> ApiResult<()> {
        let key = self.project()?.path().display().to_string();
        self.prefs.filters.insert(key, filter);
        self.save_prefs();
        Ok(())
    }

    pub fn preview(&self, hash: &str, max_side: u32) -> ApiResult<Vec<u8>> {
        Ok(self
            .project()?
            .image_preview(hash, max_side.clamp(32, 4096))?)
    }

    pub fn image(&self, hash: &str) -> ApiResult<Vec<u8>> {
        Ok(self.project()?.image_bytes(hash)?.0)
    }
}

/// Writes a chart the UI rendered to a file the person chose in the save dialog. Only chart
/// files (`.svg`, `.png`) are written this way, so the command cannot be used to overwrite
/// anything else.
pub fn save_chart(path: &Path, base64_data: &str) -> ApiResult<()> {
    use base64::Engine;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("svg" | "png")) {
        return Err(ApiError::new(
            "invalid",
            format!("{}: charts are saved as .svg or .png", path.display()),
        ));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(base64_data)
        .map_err(|e| ApiError::new("invalid", format!("chart data: {e}")))?;
    std::fs::write(path, bytes)
        .map_err(|e| ApiError::new("io", format!("{}: {e}", path.display())))?;
    Ok(())
}

/// Reads the facet columns of the project at `path` on a connection of its own, so the session
/// is not held meanwhile; hand them over with [`Session::adopt_facet_columns`].
pub fn read_facet_columns(path: &Path) -> ApiResult<assay_core::store::ReadFacetColumns> {
    Ok(Project::open_reader(path, 50)?.read_facet_columns()?)
}

/// Pages of one index a tidying step may rewrite: 20-80 ms of work at a million items, so a
/// save that comes meanwhile waits at most that long for the write lock.
const TIDY_PAGES: u32 = 200;

/// Merges a project's full-text indexes beside the session (`Project::tidy_search_step`):
/// edits leave them in pieces that slow every search. It works on a connection of its own with
/// a small page cache: reads go on beside it, and a write waits at most one step.
pub struct SearchTidier {
    project: Project,
}

impl SearchTidier {
    pub fn open(path: &Path) -> ApiResult<Self> {
        // A step that finds the write lock taken gives up soon and is tried again later.
        Ok(Self {
            project: Project::open_reader(path, 200)?,
        })
    }

    /// When enough has been written since the last whole merge (`search_tidy_due`), runs
    /// steps while `go_on()` holds; returns whether nothing is left to do. A step that finds
    /// the write lock taken ends the run, to be tried again later; a run that never ends (the
    /// indexes of a crafted file) is an error.
    pub fn run(&self, go_on: &dyn Fn() -> bool) -> ApiResult<bool> {
        if !self.project.search_tidy_due()? {
            return Ok(true);
        }
        for _ in 0..MAX_TIDY_STEPS {
            if !go_on() {
                return Ok(false);
            }
            match self.project.tidy_search_step(TIDY_PAGES) {
                Ok(true) => {}
                Ok(false) => return Ok(true),
                Err(e) if e.is_busy() => return Ok(false),
                Err(e) => return Err(e.into()),
            }
        }
        Err(ApiError::new(
            "invalid",
            format!("the search indexes were still being merged after {MAX_TIDY_STEPS} steps"),
        ))
    }
}

/// Steps after which a run gives up: a million items took ~265.
const MAX_TIDY_STEPS: usize = 20_000;

/// Runs an import on its own connection, so the session stays free for reads meanwhile.
/// Readers for image requests, kept beside the session so that making a preview (decoding a
/// large photo) never holds the session's lock, and a write elsewhere never stalls a preview.
#[derive(Default)]
pub struct ImageReaders {
    pool: std::sync::Mutex<Vec<Project>>,
}

impl ImageReaders {
    fn with<T>(&self, path: &Path, f: impl FnOnce(&Project) -> ApiResult<T>) -> ApiResult<T> {
        let reader = {
            let mut pool = self
                .pool
                .lock()
                .map_err(|_| ApiError::new("internal", "image readers poisoned"))?;
            pool.retain(|p| p.path() == path);
            pool.pop()
        };
        let reader = match reader {
            Some(r) => r,
            None => Project::open_reader(path, 50)?,
        };
        let out = f(&reader);
        if let Ok(mut pool) = self.pool.lock() {
            if pool.len() < 4 {
                pool.push(reader);
            }
        }
        out
    }

    pub fn preview(&self, project: &Path, hash: &str, max_side: u32) -> ApiResult<Vec<u8>> {
        self.with(project, |p| Ok(p.image_preview(hash, max_side)?))
    }

    pub fn image(&self, project: &Path, hash: &str) -> ApiResult<Vec<u8>> {
        self.with(project, |p| Ok(p.image_bytes(hash)?.0))
    }
}

pub fn import_into(
    project_path: &Path,
    req: &ImportRequest,
    progress: &mut dyn FnMut(Progress),
    cancel: &AtomicBool,
) -> ApiResult<ImportReport> {
    let mut p = Project::open(project_path)?;
    Ok(import_path(
        &mut p,
        Path::new(req.path.trim()),
        &import_options(req),
        progress,
        cancel,
    )?)
}

/// What importing `req` would make of the file's first `records` records; writes nothing.
pub fn preview_import(req: &ImportRequest, records: usize) -> ApiResult<ImportPreview> {
    if req.path.trim().is_empty() {
        return Err(ApiError::new(
            "invalid",
            "choose a data file or an image folder",
        ));
    }
    Ok(preview::preview_import(
        Path::new(req.path.trim()),
        &import_options(req),
        records,
    )?)
}

/// One reading of a request, for the preview and the import alike.
fn import_options(req: &ImportRequest) -> ImportOptions {
    ImportOptions {
        name: req.name.clone().filter(|n| !n.trim().is_empty()),
        mapping: req.mapping.clone(),
        layout: req.layout.clone().filter(|l| !l.is_empty()),
        link_images: req.link_images,
        image_root: None,
        dry_run: req.dry_run,
    }
}

impl Session {
    /// A mapping file as `assay import --mapping` reads it (TOML, or JSON by its extension).
    pub fn read_mapping(&self, path: String) -> ApiResult<Mapping> {
        Ok(Mapping::from_file(Path::new(path.trim()))?)
    }

    /// Writes a mapping for `assay import --mapping`: JSON for a `.json` path, else TOML.
    pub fn save_mapping(&self, path: String, mapping: Mapping) -> ApiResult<()> {
        Ok(mapping.save(Path::new(path.trim()))?)
    }
}
