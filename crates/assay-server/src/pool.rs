//! Connections of the service's one login, kept for reuse. Each member request is one
//! transaction that says who it is for (`member_transaction`), so nothing of one member's
//! request outlives it on a connection handed to another.

use std::sync::Mutex;
use std::time::Duration;

use postgres::Client;

use crate::error::Result;
use crate::members::{quote_ident, Member};

/// What the service's sessions are called in `pg_stat_activity`, so the owner can tell them
/// from their own.
pub const APPLICATION_NAME: &str = "assay-serve";

pub struct Pool {
    url: String,
    idle: Mutex<Vec<Client>>,
    /// How long a request waits for a connection before it is told to come back.
    wait: Duration,
    /// How long one statement may run (the service's setting, never a client's).
    statement_timeout: Duration,
    /// Connections out at once, at most `keep`: a crowd of requests waits for one (up to
    /// `wait`) instead of using up the database server's connections, first come first served.
    gate: Gate,
}

/// At most `keep` holders at once; the others wait in the order they came, each up to its
/// own deadline. A condition variable alone wakes whichever thread the scheduler picks, so
/// under a crowd one request could wait out its whole time while later ones were served.
pub struct Gate {
    keep: usize,
    state: Mutex<GateState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct GateState {
    out: usize,
    next_ticket: u64,
    waiting: std::collections::VecDeque<u64>,
}

impl Gate {
    pub fn new(keep: usize) -> Self {
        Self {
            keep: keep.max(1),
            state: Mutex::new(GateState::default()),
            changed: std::sync::Condvar::new(),
        }
    }

    /// Waits (up to `wait`) for a place, behind everyone who came before; false when the
    /// wait ran out.
    pub fn enter(&self, wait: Duration) -> bool {
        // A wait too long to add is as good as forever (a year).
        let now = std::time::Instant::now();
        let deadline = now
            .checked_add(wait)
            .unwrap_or_else(|| now + Duration::from_secs(365 * 86_400));
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let me = g.next_ticket;
        g.next_ticket += 1;
        g.waiting.push_back(me);
        loop {
            if g.out < self.keep && g.waiting.front() == Some(&me) {
                g.waiting.pop_front();
                g.out += 1;
                // A place may be left for the one behind.
                self.changed.notify_all();
                return true;
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                g.waiting.retain(|t| *t != me);
                // The one behind may now be first.
                self.changed.notify_all();
                return false;
            }
            g = self
                .changed
                .wait_timeout(g, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    pub fn leave(&self) {
        let mut g = self.state.lock().unwrap_or_else(|p| p.into_inner());
        g.out = g.out.saturating_sub(1);
        self.changed.notify_all();
    }

    /// Requests waiting for a place.
    pub fn waiting(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .waiting
            .len()
    }
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

    /// Closes the connection instead of giving it back (its session is in a state the next
    /// request must not inherit); its place in the pool is freed. Called off the async threads.
    pub fn discard(&mut self) {
        if let Some(c) = self.client.take() {
            drop(c);
            self.pool.release();
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
            wait,
            statement_timeout,
            gate: Gate::new(keep),
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn get(&self) -> Result<Conn<'_>> {
        if !self.gate.enter(self.wait) {
            return Err(crate::ServiceError::Unavailable(
                "the team service is busy: try again in a moment".into(),
            ));
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
            // A lock waited for is half a statement's time at most, so that a wait ends as a
            // lock's (which a push can break when an idle login of the earlier design holds
            // it) before it ends as a slow statement.
            (self.statement_timeout / 2)
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
        self.gate.leave();
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
/// One round trip: each request sets it, so two statements cost a busy team a round trip per
/// request (pulls and pushes of 50 members, each every few hundred milliseconds).
/// Only in a transaction: on a bare connection `SET LOCAL` would end with its own statement and
/// the next ones would run as the service.
pub fn as_member(tx: &mut postgres::Transaction<'_>, member: &Member) -> Result<()> {
    tx.batch_execute(&member_settings(member)?)?;
    Ok(())
}

/// Opens a read-only snapshot (repeatable read) that runs as `member` ([`as_member`]), in one
/// round trip. On an error the caller rolls back.
pub fn begin_read_as_member(db: &mut Client, member: &Member) -> Result<()> {
    db.batch_execute(&format!(
        "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; {}",
        member_settings(member)?
    ))?;
    Ok(())
}

/// The statements that make a transaction the member's. The role is written into the SQL, so
/// it must be the service's own kind of name (`service_role`: letters, digits, `_`), which
/// needs no quoting whatever the server's string settings; anything else is refused.
fn member_settings(member: &Member) -> Result<String> {
    let r = &member.db_role;
    let plain = !r.is_empty()
        && r.len() <= 63
        && r.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !plain {
        return Err(crate::error::ServiceError::Internal(format!(
            "member {} has a database role the service did not name; ask the owner to rejoin them",
            member.name
        )));
    }
    Ok(format!(
        "SET LOCAL ROLE {}; SELECT set_config('assay.member_role', '{r}', true)",
        quote_ident(r)
    ))
}

#[cfg(test)]
mod member_tests {
    use super::member_settings;
    use crate::members::Member;

    fn with_role(db_role: &str) -> Member {
        Member {
            name: "aiko".into(),
            role: assay_core::Role::Annotator,
            db_role: db_role.into(),
            lead: false,
        }
    }

    /// Only the service's own kind of role name is written into the batch.
    #[test]
    fn a_role_name_the_service_did_not_make_is_refused() {
        let ok = member_settings(&with_role("assay_team_0123abcd_4567ef890123")).unwrap();
        assert!(ok.starts_with("SET LOCAL ROLE \"assay_team_0123abcd_4567ef890123\";"));
        for bad in [
            "",
            "x'; DROP TABLE revisions; --",
            "Aiko",
            "a\\'b",
            "佐藤",
            &"a".repeat(64),
        ] {
            assert!(member_settings(&with_role(bad)).is_err(), "{bad:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Gate;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    /// Waits (polling the gate's own count, no fixed sleep) until `n` are queued.
    fn until_waiting(g: &Gate, n: usize) {
        let start = std::time::Instant::now();
        while g.waiting() != n {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "never {n} waiting"
            );
            std::thread::yield_now();
        }
    }

    #[test]
    fn a_crowd_is_served_in_the_order_it_came() {
        let gate = Arc::new(Gate::new(1));
        assert!(gate.enter(Duration::from_secs(1)));
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut waiters = Vec::new();
        for i in 0..6 {
            let (g, o) = (gate.clone(), order.clone());
            waiters.push(std::thread::spawn(move || {
                assert!(g.enter(Duration::from_secs(30)), "waiter {i} timed out");
                o.lock().unwrap().push(i);
                g.leave();
            }));
            until_waiting(&gate, i + 1);
        }
        gate.leave();
        for w in waiters {
            w.join().unwrap();
        }
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn one_that_gives_up_leaves_the_queue_to_those_behind_it() {
        let gate = Arc::new(Gate::new(1));
        assert!(gate.enter(Duration::from_secs(1)));
        // The first in line waits a moment only; the second is served after it gives up.
        let impatient = {
            let g = gate.clone();
            std::thread::spawn(move || g.enter(Duration::from_millis(50)))
        };
        until_waiting(&gate, 1);
        let patient = {
            let g = gate.clone();
            std::thread::spawn(move || g.enter(Duration::from_secs(30)))
        };
        assert!(!impatient.join().unwrap(), "the wait ran out");
        until_waiting(&gate, 1);
        gate.leave();
        assert!(patient.join().unwrap());
        assert_eq!(gate.waiting(), 0);
        // Two places: a second holder goes straight in.
        let two = Gate::new(2);
        assert!(two.enter(Duration::ZERO) && two.enter(Duration::ZERO));
        assert!(!two.enter(Duration::from_millis(10)));
    }
}
