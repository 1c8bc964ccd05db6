//! Connections of the service's one login, kept for reuse. Each member request is one
//! transaction that says who it is for (`member_transaction`), so nothing of one member's
//! request outlives it on a connection handed to another.

use std::sync::Mutex;
use std::time::Duration;

use postgres::{Client, GenericClient};

use crate::error::Result;
use crate::members::{quote_ident, Member};

/// What the service's sessions are called in `pg_stat_activity`, so the owner can tell them
/// from their own.
pub const APPLICATION_NAME: &str = "assay-serve";

pub struct Pool {
    url: String,
    idle: Mutex<Vec<Client>>,
    keep: usize,
    /// How long a request waits for a connection before it is told to come back.
    wait: Duration,
    /// How long one statement may run (the service's setting, never a client's).
    statement_timeout: Duration,
    /// Connections out at once, at most `keep`: a crowd of requests waits for one (up to
    /// `WAIT`) instead of using up the database server's connections.
    out: Mutex<usize>,
    freed: std::sync::Condvar,
}

/// A connection of the pool, given back when dropped.
pub struct Conn<'a> {
    pool: &'a Pool,
    client: Option<Client>,
}

impl std::ops::Deref for Conn<'_> {
    type Target = Client;
    fn deref(&self) -> &Client {
        self.client.as_ref().expect("a connection until dropped")
    }
}

impl std::ops::DerefMut for Conn<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        self.client.as_mut().expect("a connection until dropped")
    }
}

impl Conn<'_> {
    /// Hands the connection back before the caller is done (one waiting for a lock holds
    /// none); using it after is a bug.
    pub fn give_back(&mut self) {
        if let Some(c) = self.client.take() {
            self.pool.give_back(c);
        }
    }
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            self.pool.give_back(c);
        }
    }
}

impl Pool {
    /// At most `keep` connections, a request waiting up to `wait` for one, each statement ended
    /// after `statement_timeout`.
    pub fn new(url: &str, keep: usize, wait: Duration, statement_timeout: Duration) -> Self {
        Self {
            url: url.to_string(),
            idle: Mutex::new(Vec::new()),
            keep: keep.max(1),
            wait,
            statement_timeout,
            out: Mutex::new(0),
            freed: std::sync::Condvar::new(),
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn get(&self) -> Result<Conn<'_>> {
        {
            let out = self.out.lock().unwrap_or_else(|p| p.into_inner());
            let (mut out, timeout) = self
                .freed
                .wait_timeout_while(out, self.wait, |n| *n >= self.keep)
                .unwrap_or_else(|p| p.into_inner());
            if timeout.timed_out() && *out >= self.keep {
                return Err(crate::ServiceError::Unavailable(
                    "the team service is busy: try again in a moment".into(),
                ));
            }
            *out += 1;
        }
        let reused = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let client = match reused.filter(|c| !c.is_closed()) {
            Some(c) => Ok(c),
            None => self.connect(),
        };
        match client {
            Ok(c) => Ok(Conn {
                pool: self,
                client: Some(c),
            }),
            Err(e) => {
                self.release();
                Err(e)
            }
        }
    }

    fn connect(&self) -> Result<Client> {
        let mut c = assay_sync::connect_admin(&self.url)?;
        c.batch_execute(&format!(
            "SET statement_timeout = {}; SET idle_in_transaction_session_timeout = 60000;
             SET lock_timeout = {}; SET application_name = '{APPLICATION_NAME}'",
            self.statement_timeout.as_millis().max(1),
            // A lock waited for is one statement's time at most.
            self.statement_timeout
                .min(Duration::from_secs(20))
                .as_millis()
                .max(1)
        ))?;
        Ok(c)
    }

    fn give_back(&self, c: Client) {
        if !c.is_closed() {
            self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(c);
        }
        self.release();
    }

    fn release(&self) {
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        *out = out.saturating_sub(1);
        self.freed.notify_one();
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
/// (In a transaction: `SET LOCAL` ends with it.)
pub fn as_member(tx: &mut impl GenericClient, member: &Member) -> Result<()> {
    tx.batch_execute(&format!("SET LOCAL ROLE {}", quote_ident(&member.db_role)))?;
    tx.execute(
        "SELECT set_config('assay.member_role', $1, true)",
        &[&member.db_role],
    )?;
    Ok(())
}
