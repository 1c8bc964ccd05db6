//! Per-machine preferences: recent projects, the last user, and each project's filter, so the
//! filter survives a restart. A JSON file in the app's config folder, written atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::types::SessionUser;
use assay_core::store::Filter;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    pub recent: Vec<String>,
    pub user: Option<SessionUser>,
    pub filters: BTreeMap<String, Filter>,
    /// Each project's last evaluation request, so a run killed with the app is started again
    /// (and resumes from its stored responses) after a restart.
    pub evals: BTreeMap<String, crate::evaluation::EvalForm>,
}

const MAX_RECENT: usize = 10;

impl Prefs {
    /// A missing or unreadable file gives defaults: preferences are never worth failing over.
    pub fn load(path: &Path) -> Self {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default()
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp: PathBuf = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(self).unwrap_or_default())?;
        std::fs::rename(tmp, path)
    }

    pub fn touch_recent(&mut self, project: &str) {
        self.recent.retain(|p| p != project);
        self.recent.insert(0, project.to_string());
        self.recent.truncate(MAX_RECENT);
    }
}
