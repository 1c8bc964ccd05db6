//! Pushes written in groups. A push waits for the service's replica; whoever gets it next takes
//! every push waiting by then (its own among them) and does for all of them what a lone push
//! does: one catch-up with the team, one check after another on the replica (each sees the
//! batches before it, as it will in the team), and one transaction of the team database in
//! which each batch is written as its member, in the order checked. With many members pushing
//! at once the catch-up, the transaction and the replica's settling are paid once per group
//! rather than once per push (measured in docs/benchmarks/HISTORY.md, "Pushes written in
//! groups": 1.3-1.5x the revisions per second of lone pushes with 8 to 50 members).
//!
//! A group decides nothing a lone push would not: when the team refuses a row a check took (its
//! rules and the replica's disagree), the group is committed up to that batch and the batches
//! after it, checked on a state the team does not hold, are pushed one at a time; when the
//! group's write fails, every batch is pushed one at a time, with the lone push's retries and
//! errors (a write that failed after its commit is pushed again, which the team takes as
//! already there).
//!
//! A push whose group is decided returns at once, woken by the group's end: it never waits for
//! the replica again behind later pushes.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use assay_sync::push::{Pending, Pushed};

use crate::api::{is_deadlock, retrying, AppState};
use crate::checks::Replica;
use crate::error::{Result, ServiceError};
use crate::members::Member;
use crate::pool::as_member;

/// A group stops growing at this many rows or bytes of request bodies (a batch bigger than that
/// goes alone), so one member's push waits for at most this much of the others' work, and one
/// transaction holds at most this much.
const GROUP_ROWS: usize = 5_000;
const GROUP_BYTES: usize = 64 << 20;

/// A push's result, and whether its write committed (its charge is given back otherwise).
pub struct Outcome {
    pub pushed: Result<Pushed>,
    pub committed: bool,
}

struct Ticket {
    member: Member,
    pending: Pending,
    bytes: usize,
    /// Taken into a group: it leaves the queue, and its group decides it.
    taken: AtomicBool,
    outcome: Mutex<Option<Outcome>>,
}

impl Ticket {
    fn decide(&self, outcome: Outcome) {
        *lock(&self.outcome) = Some(outcome);
    }
    fn take(&self) -> Option<Outcome> {
        lock(&self.outcome).take()
    }
}

#[derive(Default)]
struct Queue {
    waiting: VecDeque<Arc<Ticket>>,
    /// Some push is writing a group now.
    writing: bool,
}

/// The pushes waiting for the replica, oldest first, and whether a group is being written.
#[derive(Default)]
pub struct PushQueue {
    queue: Mutex<Queue>,
    /// Signalled at the end of every group.
    ended: Condvar,
    /// Pushes decided by a transaction they shared with others, since the service started.
    grouped: std::sync::atomic::AtomicUsize,
}

impl PushQueue {
    /// How many pushes wait for the replica.
    pub fn waiting(&self) -> usize {
        lock(&self.queue).waiting.len()
    }

    /// How many pushes were written in a transaction shared with others.
    pub fn grouped(&self) -> usize {
        self.grouped.load(Ordering::SeqCst)
    }

    /// The oldest waiting pushes, up to `GROUP_ROWS` rows and `GROUP_BYTES` (at least one).
    fn next_group(&self) -> Vec<Arc<Ticket>> {
        let mut q = lock(&self.queue);
        let mut group = Vec::new();
        let (mut rows, mut bytes) = (0, 0);
        while let Some(t) = q.waiting.front() {
            let (n, b) = (t.pending.len(), t.bytes);
            if !group.is_empty() && (rows + n > GROUP_ROWS || bytes + b > GROUP_BYTES) {
                break;
            }
            rows += n;
            bytes += b;
            t.taken.store(true, Ordering::SeqCst);
            group.extend(q.waiting.pop_front());
        }
        group
    }
}

/// Ends the writer's turn, also when its thread unwinds, and wakes every waiting push. A writer
/// that unwinds takes its own push out of the queue if no group took it: its request fails, so
/// nothing of it may be written later.
struct Turn<'a>(&'a PushQueue, &'a Arc<Ticket>);

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut q = lock(&self.0.queue);
        if std::thread::panicking() {
            q.waiting.retain(|t| !Arc::ptr_eq(t, self.1));
        }
        q.writing = false;
        drop(q);
        self.0.ended.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Pushes `pending` (a request body of `bytes`) as `member`, in a group with whatever else
/// waits for the replica.
pub fn push(state: &AppState, member: &Member, pending: Pending, bytes: usize) -> Outcome {
    let ticket = Arc::new(Ticket {
        member: member.clone(),
        pending,
        bytes,
        taken: AtomicBool::new(false),
        outcome: Mutex::new(None),
    });
    let pushes = &state.pushes;
    let mut q = lock(&pushes.queue);
    q.waiting.push_back(ticket.clone());
    loop {
        if let Some(outcome) = ticket.take() {
            return outcome;
        }
        if q.writing {
            q = pushes.ended.wait(q).unwrap_or_else(|p| p.into_inner());
            continue;
        }
        if ticket.taken.load(Ordering::SeqCst) {
            // Taken by a group that ended without deciding it (its thread panicked): written
            // or not, the member's next sync finds out, as after a lost connection.
            return Outcome {
                pushed: Err(ServiceError::Internal(
                    "the push was lost with the group it was checked in; sync again".into(),
                )),
                committed: true,
            };
        }
        q.writing = true;
        drop(q);
        {
            let _turn = Turn(pushes, &ticket);
            let mut replica = lock(&state.replica);
            let group = pushes.next_group();
            write_group(state, &mut replica, &group);
        }
        q = lock(&pushes.queue);
    }
}

/// Decides every push of `group`: together when it holds several, then each that the group did
/// not decide on its own (a group of one, with retries when the team database ends its write to
/// break a deadlock).
fn write_group(state: &AppState, replica: &mut Replica, group: &[Arc<Ticket>]) {
    let mut decided = 0;
    if group.len() > 1 {
        match write_checked(state, replica, group) {
            Ok(n) => decided = n,
            // Each push now goes alone and meets the error itself (one the team already took,
            // if the error came after the commit, is taken as already there).
            Err(failed) => eprintln!(
                "{}",
                serde_json::json!({"time": assay_core::store::now(), "event": "group failed",
                                   "pushes": group.len(), "error": failed.error.to_string()})
            ),
        }
    }
    for t in &group[decided..] {
        let alone = std::slice::from_ref(t);
        let mut written = retrying(
            || write_checked(state, replica, alone),
            |f| !f.committed && is_deadlock(&f.error),
        );
        // A login of the earlier design (a team not yet migrated) left idle holding a lock of
        // the team loses its session and the push is tried once more; a lock still held is
        // refused with who holds it.
        if matches!(&written, Err(f) if !f.committed && matches!(f.error, ServiceError::Locked(_)))
        {
            if let Ok(broken) = break_stale_locks(state, &t.member) {
                if !broken.is_empty() {
                    written = write_checked(state, replica, alone);
                }
            }
        }
        if let Err(Failed {
            error: ServiceError::Locked(_),
            committed: false,
        }) = &written
        {
            let who = state
                .pool
                .get()
                .map(|mut db| assay_sync::lock_holders(&mut db))
                .unwrap_or_else(|_| "another session".into());
            written = Err(Failed {
                error: ServiceError::Locked(format!(
                    "{who} holds a lock of the team and did not free it in time, so nothing of \
                     this push was written (nor counted against the day's quota): try again in a \
                     moment (a member's own login of the team's earlier design is ended by its \
                     owner's `assay team migrate`)"
                )),
                committed: false,
            });
        }
        if let Err(Failed { error, committed }) = written {
            t.decide(Outcome {
                pushed: Err(error),
                committed,
            });
        }
    }
}

/// Ends the sessions of the earlier design's logins that sat idle holding a lock of the team
/// for longer than the service's `stale_lock` (the team's `assay_break_stale_lock`, which
/// reaches member logins only, never the service's own sessions); says whose.
fn break_stale_locks(state: &AppState, member: &Member) -> Result<String> {
    let mut db = state.pool.get()?;
    let mut tx = db.transaction()?;
    as_member(&mut tx, member)?;
    let secs = i32::try_from(state.limits.stale_lock.as_secs().max(1)).unwrap_or(i32::MAX);
    let broken: String = tx
        .query_one("SELECT assay_break_stale_lock($1)", &[&secs])?
        .get(0);
    tx.commit()?;
    if !broken.is_empty() {
        eprintln!(
            "{}",
            serde_json::json!({"time": assay_core::store::now(), "event": "stale lock broken",
                               "sessions": broken})
        );
    }
    Ok(broken)
}

/// A write that decided nothing, and whether the team database had committed it.
struct Failed {
    error: ServiceError,
    committed: bool,
}

/// Catches up, checks and writes `group` in one transaction; decides the pushes it wrote (a
/// prefix of the group) and says how many. A failure decides nothing: the group was not
/// written, or (the positions' read failed after the commit) written and rolled back on the
/// replica, which the failure says.
fn write_checked(
    state: &AppState,
    replica: &mut Replica,
    group: &[Arc<Ticket>],
) -> std::result::Result<usize, Failed> {
    let mut committed = false;
    let failed = |error: ServiceError, committed: bool| Failed { error, committed };
    let mut db = state.pool.get().map_err(|e| failed(e, false))?;
    replica.catch_up(&mut db).map_err(|e| failed(e, false))?;
    let batches: Vec<(&Member, &Pending)> = group.iter().map(|t| (&t.member, &t.pending)).collect();
    let checked = replica.check_held(&batches).map_err(|e| failed(e, false))?;
    let written = (|| -> Result<Vec<Pushed>> {
        let mut tx = db.transaction()?;
        let mut written = Vec::with_capacity(group.len());
        for (t, (ok, _)) in group.iter().zip(&checked) {
            as_member(&mut tx, &t.member)?;
            let pushed = assay_sync::push::write_batch(&mut tx, ok)?;
            let refused = !pushed.refused.is_empty();
            written.push(pushed);
            if refused {
                break;
            }
        }
        tx.commit()?;
        committed = true;
        assay_sync::push::placed(&mut *db, &mut written)?;
        Ok(written)
    })();
    let written = match written {
        Ok(w) => w,
        Err(e) => {
            let settled = replica.settle(false, &[]);
            return Err(failed(settled.err().unwrap_or(e), committed));
        }
    };
    let whole = written.len() == group.len() && written.iter().all(|p| p.refused.is_empty());
    let taken: Vec<(String, i64)> = written.iter().flat_map(|p| p.done.clone()).collect();
    if let Err(e) = replica.settle(whole, &taken) {
        // The writes stand; the replica starts over from the team at its next catch-up.
        eprintln!(
            "{}",
            serde_json::json!({"time": assay_core::store::now(), "event": "settle failed",
                               "pushes": written.len(), "error": e.to_string()})
        );
    }
    let n = written.len();
    if group.len() > 1 {
        state.pushes.grouped.fetch_add(n, Ordering::SeqCst);
    }
    for ((t, (_, refused)), mut pushed) in group.iter().zip(checked).zip(written) {
        pushed.refused.extend(refused);
        t.decide(Outcome {
            pushed: Ok(pushed),
            committed: true,
        });
    }
    Ok(n)
}
