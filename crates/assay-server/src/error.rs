//! Every refusal the service makes, with the HTTP status it is sent as and a sentence that says
//! why (the client shows it as is).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// No credential, an unknown one, or a revoked one.
    #[error("{0}")]
    Unauthorized(String),
    /// A member asking for what their role does not allow.
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    TooMany(String),
    /// The service or its database is too busy to answer now; nothing of the request was
    /// written, and the same request can be sent again.
    #[error("{0}")]
    Unavailable(String),
    /// A lock of the team was held by another session for longer than the service waits: a
    /// session of the earlier design (a member's own login) in a team not yet migrated.
    /// Nothing was written.
    #[error("{0}")]
    Locked(String),
    /// The team database or the service's replica failed: nothing was written.
    #[error("the team service failed: {0}")]
    Internal(String),
}

impl From<postgres::Error> for ServiceError {
    fn from(e: postgres::Error) -> Self {
        use postgres::error::SqlState;
        // The service's own statement and lock timeouts: the request took too long, not a
        // failure of the team.
        if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) {
            return ServiceError::Locked(
                "another session holds a lock of the team and did not free it in time, so \
                 nothing of this request was written (nor counted against the day's quota): try \
                 again in a moment"
                    .into(),
            );
        }
        let timed_out = [
            SqlState::QUERY_CANCELED,
            SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
            SqlState::TOO_MANY_CONNECTIONS,
            SqlState::CANNOT_CONNECT_NOW,
        ];
        if e.code().is_some_and(|c| timed_out.contains(c)) {
            return ServiceError::Unavailable(
                "the team database did not answer in time or took no more connections, so nothing \
                 of this request was written (nor counted against the day's quota): try again in \
                 a moment"
                    .into(),
            );
        }
        // The database's own message ("db error" alone says nothing).
        match e.as_db_error() {
            Some(d) => ServiceError::Internal(format!("team database: {}", d.message())),
            None => ServiceError::Internal(format!("team database: {e}")),
        }
    }
}

impl From<assay_sync::SyncError> for ServiceError {
    fn from(e: assay_sync::SyncError) -> Self {
        match e {
            assay_sync::SyncError::Invalid(why) => ServiceError::BadRequest(why),
            assay_sync::SyncError::Db(e) => e.into(),
            other => ServiceError::Internal(other.to_string()),
        }
    }
}

impl From<assay_core::Error> for ServiceError {
    fn from(e: assay_core::Error) -> Self {
        ServiceError::Internal(e.to_string())
    }
}

impl ServiceError {
    pub fn status(&self) -> StatusCode {
        match self {
            ServiceError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ServiceError::Forbidden(_) => StatusCode::FORBIDDEN,
            ServiceError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ServiceError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ServiceError::TooMany(_) => StatusCode::TOO_MANY_REQUESTS,
            ServiceError::Unavailable(_) | ServiceError::Locked(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ServiceError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "error": self.to_string() });
        (self.status(), axum::Json(body)).into_response()
    }
}

pub type Result<T> = std::result::Result<T, ServiceError>;
