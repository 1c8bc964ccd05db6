//! Connections of the service's one login, kept for reuse. Each member request is one
//! transaction that says who it is for (`member_transaction`), so nothing of one member's
//! request outlives it on a connection handed to another.

use std::sync::Mutex;
use std::time::Duration;

use postgres::{Client, Transaction};

use crate::error::Result;
use crate::members::{quote_ident, Member};

/// How long one statement of a member's request may run: set by the service, never by a client.
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

pub struct Pool {
    url: String,
    idle: Mutex<Vec<Client>>,
    keep: usize,
}

impl Pool {
    pub fn new(url: &str, keep: usize) -> Self {
        Self {
            url: url.to_string(),
            idle: Mutex::new(Vec::new()),
            keep,
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn get(&self) -> Result<Client> {
        if let Some(c) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            if !c.is_closed() {
                return Ok(c);
            }
        }
        let mut c = assay_sync::connect_admin(&self.url)?;
        c.batch_execute(&format!(
            "SET statement_timeout = {}; SET idle_in_transaction_session_timeout = 60000;
             SET lock_timeout = 20000",
            STATEMENT_TIMEOUT.as_millis()
        ))?;
        Ok(c)
    }

    pub fn put(&self, c: Client) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if !c.is_closed() && idle.len() < self.keep {
            idle.push(c);
        }
    }
}

impl Drop for Pool {
    /// A synchronous client closes by blocking on its own runtime, which it may not do on one
    /// of the service's async threads (where the last holder of the pool may drop it).
    fn drop(&mut self) {
        let idle = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        if !idle.is_empty() {
            let _ = std::thread::spawn(move || drop(idle)).join();
        }
    }
}

/// Makes the transaction run as `member`: their database role (row-level security and
/// privileges apply) and the setting the team's rules read the member from.
pub fn as_member(tx: &mut Transaction<'_>, member: &Member) -> Result<()> {
    tx.batch_execute(&format!("SET LOCAL ROLE {}", quote_ident(&member.db_role)))?;
    tx.execute(
        "SELECT set_config('assay.member_role', $1, true)",
        &[&member.db_role],
    )?;
    Ok(())
}
