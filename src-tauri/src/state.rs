use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use assay_api::{ApiError, Session};

pub struct AppState {
    /// Shared with the thread that reads a project's facet columns beside it.
    session: Arc<Mutex<Session>>,
    pub import_cancel: Arc<AtomicBool>,
    /// Image requests read on their own connections, not under the session lock.
    pub images: assay_api::session::ImageReaders,
    /// The evaluation running in the background (one at a time), and its progress.
    pub evals: Arc<assay_api::evaluation::EvalJobs>,
    /// The suggestion run in the background (one at a time), and its progress.
    pub suggestions: Arc<assay_api::suggestions::SuggestJobs>,
}

impl AppState {
    pub fn new(prefs: PathBuf) -> Self {
        Self {
            session: Arc::new(Mutex::new(Session::new(prefs))),
            import_cancel: Arc::new(AtomicBool::new(false)),
            images: Default::default(),
            evals: Default::default(),
            suggestions: Default::default(),
        }
    }

    pub fn session(&self) -> Result<MutexGuard<'_, Session>, ApiError> {
        self.session
            .lock()
            .map_err(|_| ApiError::new("internal", "session state poisoned"))
    }

    /// Opens the project at `path` in the session, then reads its facet columns beside it
    /// (`read_facet_columns_soon`). Every way the app opens a project comes through here.
    pub fn open_project(&self, path: &Path) -> Result<assay_api::types::ProjectInfo, ApiError> {
        let info = self.session()?.open_project(path)?;
        self.read_facet_columns_soon(path.to_path_buf());
        Ok(info)
    }

    /// A moment after a project opens (its first page comes first), reads its facet columns
    /// on a connection of their own and hands them to the session, so that the first count
    /// under a filter does not wait for them (~0.5 s at a million items). Nothing happens if
    /// another project is open by then or the session already read its own.
    fn read_facet_columns_soon(&self, path: PathBuf) {
        let Ok(opened) = self.session().map(|s| s.opened()) else {
            return;
        };
        let session = Arc::clone(&self.session);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(1));
            let wanted = session.lock().is_ok_and(|s| s.wants_facet_columns(opened));
            if !wanted {
                return;
            }
            let Ok(read) = assay_api::session::read_facet_columns(&path) else {
                return;
            };
            if let Ok(session) = session.lock() {
                session.adopt_facet_columns(opened, read);
            }
        });
    }
}
