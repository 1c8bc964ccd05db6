//! One error type for the core; each variant has a stable code the UI and scripts can match on.

use std::fmt;

/// A problem in an input file, located by file and line (or row).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Problem {
    pub location: String,
    pub message: String,
}

impl Problem {
    pub fn new(location: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            location: location.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} was written by a newer Assay (schema version {found}; this build knows up to {known}). \
         Upgrade Assay to open it."
    )]
    NewerSchema {
        path: String,
        found: i64,
        known: i64,
    },
    #[error("{}", format_problems(.0))]
    Import(Vec<Problem>),
    #[error("{0}")]
    Invalid(String),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("image {hash}: {message}")]
    Image { hash: String, message: String },
    #[error(
        "item {item_id} changed since you started editing: you edited revision {base_rev}, it is now \
         at revision {current_rev} ({by}); nothing was saved"
    )]
    Conflict {
        item_id: i64,
        base_rev: i64,
        current_rev: i64,
        /// Who made the current revision.
        by: String,
    },
    #[error("cancelled")]
    Cancelled,
    /// The person's role does not allow this (enforced in the store, not only in the UI).
    #[error("not allowed: {0}")]
    Forbidden(String),
}

fn format_problems(problems: &[Problem]) -> String {
    let mut s = format!("import failed with {} problem(s):", problems.len());
    for p in problems.iter().take(50) {
        s.push_str("\n  ");
        s.push_str(&p.to_string());
    }
    if problems.len() > 50 {
        // The last is shown too: a long list ends with how many were not even kept.
        s.push_str(&format!(
            "\n  ... and {} more, the last:",
            problems.len() - 50
        ));
        s.push_str(&format!("\n  {}", problems[problems.len() - 1]));
    }
    s
}

impl Error {
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.as_ref().display().to_string(),
            source,
        }
    }
    /// Stable machine-readable code; never change an existing one.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "database",
            Self::Io { .. } => "io",
            Self::NewerSchema { .. } => "newer_schema",
            Self::Import(_) => "import_failed",
            Self::Invalid(_) => "invalid",
            Self::NotFound(_) => "not_found",
            Self::Image { .. } => "image",
            Self::Conflict { .. } => "conflict",
            Self::Cancelled => "cancelled",
            Self::Forbidden(_) => "forbidden",
        }
    }

    /// The same refusal with what it concerns in front ("revision X: ..."), keeping its code.
    pub fn context(self, what: &str) -> Self {
        match self {
            Self::Invalid(m) => Self::Invalid(format!("{what}: {m}")),
            Self::Forbidden(m) => Self::Forbidden(format!("{what}: {m}")),
            Self::NotFound(m) => Self::NotFound(format!("{what}: {m}")),
            e => e,
        }
    }

    /// Another connection held the lock this one waited for past its timeout.
    pub fn is_busy(&self) -> bool {
        matches!(
            self,
            Self::Sqlite(rusqlite::Error::SqliteFailure(f, _))
                if matches!(
                    f.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                )
        )
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
