//! One long job of a kind at a time in the background (an evaluation, a suggestion run): its
//! status as the UI polls it, and the token that cancels it.

use std::sync::{Arc, Mutex};

use crate::error::{ApiError, ApiResult};
use assay_eval::CancelToken;

pub struct Background<S> {
    pub(crate) status: Arc<Mutex<S>>,
    cancel: Mutex<Option<CancelToken>>,
}

impl<S: Default> Default for Background<S> {
    fn default() -> Self {
        Self {
            status: Arc::new(Mutex::new(S::default())),
            cancel: Mutex::new(None),
        }
    }
}

impl<S: Clone + Default> Background<S> {
    pub fn status(&self) -> S {
        self.status.lock().map(|s| s.clone()).unwrap_or_default()
    }

    pub fn cancel(&self) {
        if let Ok(c) = self.cancel.lock() {
            if let Some(c) = c.as_ref() {
                c.cancel();
            }
        }
    }

    /// Sets the status to `initial` and hands out a fresh cancel token, unless the current
    /// status is `running`: then the job is refused as `busy` with `message`.
    pub(crate) fn begin(
        &self,
        initial: S,
        running: impl Fn(&S) -> bool,
        message: &str,
    ) -> ApiResult<CancelToken> {
        let token = CancelToken::new();
        {
            let mut s = self
                .status
                .lock()
                .map_err(|_| ApiError::new("internal", "job state poisoned"))?;
            if running(&s) {
                return Err(ApiError::new("busy", message));
            }
            *s = initial;
        }
        if let Ok(mut c) = self.cancel.lock() {
            *c = Some(token.clone());
        }
        Ok(token)
    }
}
