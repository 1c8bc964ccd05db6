#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    #[error(transparent)]
    Core(#[from] assay_core::Error),
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Config(String),
    #[error("{path}: {message}")]
    Input { path: String, message: String },
    #[error("cancelled")]
    Cancelled,
}

impl EvalError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Core(e) => e.code(),
            Self::Json(_) => "invalid",
            Self::Config(_) => "config",
            Self::Input { .. } => "invalid_input",
            Self::Cancelled => "cancelled",
        }
    }
}

pub type Result<T, E = EvalError> = std::result::Result<T, E>;
