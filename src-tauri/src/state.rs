use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use assay_api::{ApiError, Session};

pub struct AppState {
    /// Shared with the thread that reads a project's facet columns beside it.
    session: Arc<Mutex<Session>>,
    pub import_cancel: Arc<AtomicBool>,
    /// The export running beside the session, one at a time.
    pub exports: Arc<assay_api::items::Exports>,
    /// Image requests read on their own connections, not under the session lock.
    pub images: assay_api::session::ImageReaders,
    /// The evaluation running in the background (one at a time), and its progress.
    pub evals: Arc<assay_api::evaluation::EvalJobs>,
    /// The suggestion run in the background (one at a time), and its progress.
    pub suggestions: Arc<assay_api::suggestions::SuggestJobs>,
    /// When a command last took the session, for work that waits until the user pauses.
    activity: Arc<Activity>,
}

/// Milliseconds since the app started at which a command last took the session.
struct Activity {
    start: Instant,
    last_ms: AtomicU64,
}

impl Activity {
    fn touch(&self) {
        self.last_ms
            .store(self.start.elapsed().as_millis() as u64, Ordering::Relaxed);
    }

    fn idle_for(&self, d: Duration) -> bool {
        let now = self.start.elapsed().as_millis() as u64;
        now.saturating_sub(self.last_ms.load(Ordering::Relaxed)) >= d.as_millis() as u64
    }
}

/// How long no command must take the session before the search indexes are tidied.
const TIDY_WHEN_IDLE_FOR: Duration = Duration::from_secs(3);
/// How often the tidying thread looks again once the indexes are whole (edits since may
/// have split them again; a look with nothing to do takes microseconds).
const TIDY_LOOK_EVERY: Duration = Duration::from_secs(30);

impl AppState {
    pub fn new(prefs: PathBuf) -> Self {
        Self {
            session: Arc::new(Mutex::new(Session::new(prefs))),
            import_cancel: Arc::new(AtomicBool::new(false)),
            exports: Default::default(),
            images: Default::default(),
            evals: Default::default(),
            suggestions: Default::default(),
            activity: Arc::new(Activity {
                start: Instant::now(),
                last_ms: AtomicU64::new(0),
            }),
        }
    }

    pub fn session(&self) -> Result<MutexGuard<'_, Session>, ApiError> {
        self.activity.touch();
        self.session
            .lock()
            .map_err(|_| ApiError::new("internal", "session state poisoned"))
    }

    /// Opens the project at `path` in the session, then reads its facet columns beside it
    /// (`read_facet_columns_soon`). Every way the app opens a project comes through here.
    pub fn open_project(&self, path: &Path) -> Result<assay_api::types::ProjectInfo, ApiError> {
        // The opening's number is read under the same lock as the opening: with two opens
        // racing, each thread must know its own (`Session::opened`).
        let (info, opened) = {
            let mut s = self.session()?;
            let info = s.open_project(path)?;
            (info, s.opened())
        };
        self.read_facet_columns_soon(path.to_path_buf(), opened);
        self.tidy_search_when_idle(path.to_path_buf(), opened);
        Ok(info)
    }

    /// While the project stays open, merges its search indexes whenever the user has paused
    /// for `TIDY_WHEN_IDLE_FOR` (`SearchTidier`): edits split them, and at a million items
    /// 50,000 edits made searches ~1.5x slower. A step is at most ~80 ms of writing, and a
    /// command that comes in stops the work after the current step.
    fn tidy_search_when_idle(&self, path: PathBuf, opened: u64) {
        let session = Arc::clone(&self.session);
        let activity = Arc::clone(&self.activity);
        std::thread::spawn(move || {
            let still_open = || session.lock().is_ok_and(|s| s.opened() == opened);
            let mut tidier = None;
            // Once the indexes are whole, the next look waits; the project being closed is
            // still noticed at every wake, so its connection is let go within seconds.
            let mut rest_until = Instant::now();
            loop {
                std::thread::sleep(TIDY_WHEN_IDLE_FOR);
                if !still_open() {
                    return;
                }
                if Instant::now() < rest_until || !activity.idle_for(TIDY_WHEN_IDLE_FOR) {
                    continue;
                }
                if tidier.is_none() {
                    match assay_api::session::SearchTidier::open(&path) {
                        Ok(t) => tidier = Some(t),
                        Err(_) => return,
                    }
                }
                let Some(t) = &tidier else { return };
                let go_on = || activity.idle_for(TIDY_WHEN_IDLE_FOR) && still_open();
                match t.run(&go_on) {
                    Ok(true) => rest_until = Instant::now() + TIDY_LOOK_EVERY,
                    // Stopped by a command or a busy lock: tried again at the next pause.
                    Ok(false) => {}
                    Err(e) => {
                        eprintln!("search indexes not merged: {}", e.message);
                        return;
                    }
                }
            }
        });
    }

    /// A moment after a project opens (its first page comes first), reads its facet columns
    /// on a connection of their own and hands them to the session, so that the first count
    /// under a filter does not wait for them (~0.5 s at a million items). Nothing happens if
    /// another project is open by then or the session already read its own.
    fn read_facet_columns_soon(&self, path: PathBuf, opened: u64) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_ends_the_pause_the_tidying_waits_for() {
        let a = Activity {
            start: Instant::now(),
            last_ms: AtomicU64::new(0),
        };
        std::thread::sleep(Duration::from_millis(30));
        assert!(a.idle_for(Duration::from_millis(20)), "no command yet");
        a.touch();
        assert!(
            !a.idle_for(Duration::from_millis(20)),
            "a command just came"
        );
        assert!(a.idle_for(Duration::ZERO));
        std::thread::sleep(Duration::from_millis(30));
        assert!(a.idle_for(Duration::from_millis(20)), "quiet again");
    }
}
