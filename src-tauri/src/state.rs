use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use assay_api::{ApiError, Session};

pub struct AppState {
    session: Mutex<Session>,
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
            session: Mutex::new(Session::new(prefs)),
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
}
