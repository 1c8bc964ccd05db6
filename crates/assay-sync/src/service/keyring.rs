//! The person's own file of team credentials (`~/.config/assay/teams.json`, or
//! `ASSAY_KEYRING`), readable by them alone: one entry per team service they joined, with the
//! certificate pinned at join. Project files hold no credential.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{Result, SyncError};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyringEntry {
    pub url: String,
    pub pin: String,
    pub member: String,
    pub credential: String,
    /// The replicas made on this machine by joining with this credential: a project file
    /// someone else made (with rows written as this person, waiting to be pushed) is not one.
    #[serde(default)]
    pub replicas: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Keyring {
    pub teams: Vec<KeyringEntry>,
}

impl Keyring {
    /// `ASSAY_KEYRING`, else `$XDG_CONFIG_HOME/assay/teams.json`, else
    /// `$HOME/.config/assay/teams.json`.
    pub fn default_path() -> Result<PathBuf> {
        if let Ok(p) = std::env::var("ASSAY_KEYRING") {
            return Ok(PathBuf::from(p));
        }
        let base = std::env::var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|_| std::env::var("HOME").map(|h| PathBuf::from(h).join(".config")))
            .map_err(|_| {
                SyncError::Invalid("no home folder for the team keyring: set ASSAY_KEYRING".into())
            })?;
        Ok(base.join("assay").join("teams.json"))
    }

    pub fn load(path: &Path) -> Result<Keyring> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map_err(|e| SyncError::Invalid(format!("{}: {e}", path.display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Keyring::default()),
            Err(e) => Err(SyncError::Invalid(format!("{}: {e}", path.display()))),
        }
    }

    /// Writes the keyring (owner-only permissions), replacing the file whole.
    pub fn save(&self, path: &Path) -> Result<()> {
        use std::io::Write;
        let io = |e: std::io::Error| SyncError::Invalid(format!("{}: {e}", path.display()));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let tmp = path.with_extension("json.tmp");
        let _ = std::fs::remove_file(&tmp);
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(0o600);
        }
        let mut f = opts.open(&tmp).map_err(io)?;
        f.write_all(&serde_json::to_vec_pretty(self).unwrap_or_default())
            .map_err(io)?;
        f.sync_all().map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// The entry for the service at `url`.
    pub fn find(&self, url: &str) -> Option<&KeyringEntry> {
        self.teams.iter().find(|e| e.url == url)
    }

    /// Keeps `entry` for its service; the replicas made with the same member's earlier
    /// credential there stay theirs.
    pub fn put(&mut self, mut entry: KeyringEntry) {
        if let Some(old) = self.find(&entry.url) {
            if old.member == entry.member {
                let kept: Vec<String> = old
                    .replicas
                    .iter()
                    .filter(|r| !entry.replicas.contains(r))
                    .cloned()
                    .collect();
                entry.replicas.extend(kept);
            }
        }
        self.teams.retain(|e| e.url != entry.url);
        self.teams.push(entry);
    }
}
