//! Errors as the UI receives them: `{code, message}` with stable codes.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ApiError {
    /// Stable: the UI may branch on it. One of the `assay_core::Error::code` values, or
    /// `no_project`, `no_user`.
    pub code: String,
    pub message: String,
}

impl ApiError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            message: message.into(),
        }
    }
    pub fn no_project() -> Self {
        Self::new("no_project", "no project is open")
    }
    pub fn no_user() -> Self {
        Self::new("no_user", "choose who is working before editing")
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

impl From<assay_core::Error> for ApiError {
    fn from(e: assay_core::Error) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
