//! A member who sends more than the team database can take at once, or whose request runs longer
//! than the service allows: the service holds no more connections than its pool, tells the rest
//! to come back, ends a statement that runs past its time limit, and writes nothing half. Through
//! the real service and a real PostgreSQL, with the owner holding a lock to make requests wait.

mod support;

use std::time::{Duration, Instant};

use assay_core::Role;
use assay_server::limits::Limits;
use assay_server::pool::APPLICATION_NAME;
use assay_sync::SyncError;
use postgres::Client;
use support::common::{answer, author, edit_answer};
use support::{heads, post, wait_until, Team};

/// The service's sessions in the team database: (all, those waiting for a lock).
fn service_sessions(db: &mut Client) -> (i64, i64) {
    let row = db
        .query_one(
            "SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock')
             FROM pg_stat_activity WHERE application_name = $1",
            &[&APPLICATION_NAME],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

/// A pull from the start, as a member's hand-written client sends it.
fn pull(t: &Team, token: &str) -> (u16, serde_json::Value) {
    post(t, "/v1/pull", Some(token), br#"{"positions":{}}"#.to_vec())
}

#[test]
fn a_crowd_of_requests_holds_no_more_connections_than_the_pool_and_is_told_to_come_back() {
    let t = Team::start(Limits {
        connections: 3,
        connection_wait: Duration::from_millis(300),
        requests_per_minute: 100_000,
        ..Default::default()
    });
    let mut a = t.join("aiko", Role::Annotator);
    let token = t.credential("aiko");
    let mut watch = t.db();

    // The owner holds the lock every pull's read waits for: the pulls that have a connection
    // keep it until the lock is let go.
    let mut owner = t.db();
    let mut lock = owner.transaction().unwrap();
    lock.batch_execute("LOCK TABLE revisions IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    std::thread::scope(|pulls| {
        let held: Vec<_> = (0..3).map(|_| pulls.spawn(|| pull(&t, &token).0)).collect();
        assert!(
            wait_until(Duration::from_secs(20), || service_sessions(&mut watch).1
                == 3),
            "three pulls waiting on the owner's lock: {:?}",
            service_sessions(&mut watch)
        );

        // A crowd of forty more: each is told the service is busy, none is served by a new
        // connection, and the team database never sees more than the pool's three.
        let most = std::sync::atomic::AtomicI64::new(0);
        let crowd_done = std::sync::atomic::AtomicBool::new(false);
        let answers: Vec<(u16, serde_json::Value)> = std::thread::scope(|s| {
            let watcher = s.spawn(|| {
                let mut db = t.db();
                while !crowd_done.load(std::sync::atomic::Ordering::SeqCst) {
                    let (all, _) = service_sessions(&mut db);
                    most.fetch_max(all, std::sync::atomic::Ordering::SeqCst);
                }
            });
            let crowd: Vec<_> = (0..40).map(|_| s.spawn(|| pull(&t, &token))).collect();
            let answers = crowd.into_iter().map(|h| h.join().unwrap()).collect();
            crowd_done.store(true, std::sync::atomic::Ordering::SeqCst);
            watcher.join().unwrap();
            answers
        });
        for (status, body) in &answers {
            assert_eq!(*status, 503, "{body}");
            let why = body["error"].as_str().unwrap_or_default();
            assert!(why.contains("busy") && why.contains("try again"), "{why}");
        }
        assert_eq!(
            most.load(std::sync::atomic::Ordering::SeqCst),
            3,
            "the service's sessions never went past its pool"
        );

        // The owner lets go: the three waiting pulls are answered, and the service is whole.
        lock.commit().unwrap();
        for h in held {
            assert_eq!(h.join().unwrap(), 200);
        }
    });
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-001", "after the crowd", &aiko);
    let r = t.sync("aiko", &mut a);
    assert_eq!((r.pushed, r.refused), (1, 0));
    let mut m = t.join("minjun", Role::Annotator);
    t.sync("minjun", &mut m);
    assert_eq!(answer(&m, "jg-001").as_deref(), Some("after the crowd"));
}

#[test]
fn a_push_that_runs_past_the_time_limit_is_ended_and_writes_nothing() {
    let t = Team::start(Limits {
        statement_timeout: Duration::from_millis(500),
        ..Default::default()
    });
    let mut a = t.join("aiko", Role::Annotator);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-001", "before the lock", &aiko);
    assert_eq!(t.sync("aiko", &mut a).pushed, 1);
    edit_answer(&mut a, "jg-002", "while the commit lock is held", &aiko);
    let count = |sql: &str| -> i64 { t.db().query_one(sql, &[]).unwrap().get(0) };
    let revisions = "SELECT count(*) FROM revisions";
    let used = "SELECT coalesce(sum(bytes), 0)::int8 FROM service_usage WHERE member = 'aiko'";
    let (before, used_before) = (count(revisions), count(used));

    // The owner holds the lock a push takes to write (the team's commit lock) for longer than
    // the service lets a statement wait: the push gets through its checks and stops at the
    // write, which the time limit ends.
    let mut owner = t.db();
    owner
        .batch_execute("SELECT pg_advisory_lock(7414)")
        .unwrap();
    let started = Instant::now();
    let err = assay_sync::service::sync_service(&mut a, &t.keyring("aiko"))
        .expect_err("the write waits past the time limit");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "ended by the service's limit, not the lock's: {:?}",
        started.elapsed()
    );
    match &err {
        SyncError::Service { status, message } => {
            assert_eq!(*status, 503, "{message}");
            assert!(
                message.contains("in time") && message.contains("nothing"),
                "{message}"
            );
        }
        other => panic!("a refusal of the service, not {other}"),
    }
    assert_eq!(count(revisions), before, "nothing of the push was written");
    assert_eq!(count(used), used_before, "nor counted against the quota");
    owner
        .batch_execute("SELECT pg_advisory_unlock(7414)")
        .unwrap();

    // The edit waited on the replica and goes through once the lock is free, written once;
    // the service's replica took nothing of the ended push, so a colleague's replica and a
    // fresh join agree with aiko's.
    assert_eq!(a.sync_status().unwrap().pending, 1);
    let r = t.sync("aiko", &mut a);
    assert_eq!((r.pushed, r.refused), (1, 0));
    assert_eq!(
        count("SELECT count(*) FROM revisions WHERE author = 'aiko' AND ext_id = 'jg-002'"),
        1,
        "written once"
    );
    let mut m = t.join("minjun", Role::Annotator);
    let minjun = author(&m, "minjun");
    edit_answer(&mut m, "jg-003", "after", &minjun);
    assert_eq!(t.sync("minjun", &mut m).pushed, 1);
    t.sync("aiko", &mut a);
    assert_eq!(heads(&a), heads(&m));
    assert_eq!(
        answer(&m, "jg-002").as_deref(),
        Some("while the commit lock is held")
    );
    let health = support::raw()
        .get(format!("{}/health", t.service().url))
        .send()
        .unwrap();
    assert_eq!(health.status().as_u16(), 200);
}

/// Guessing credentials while the team is busy: a guess takes no pool connection. One that is
/// not a credential's shape is refused at once, and one past its ID's sign-in rate (or past the
/// rate all unverified sign-ins share) is told to wait at once, as is a member past her own
/// rate, even while every connection is held; neither waits for a connection (which
/// would end in "busy" after the wait) nor crowds out a member's request.
#[test]
fn a_guessed_credential_takes_no_connection_from_the_pool() {
    let t = Team::start(Limits {
        connections: 2,
        connection_wait: Duration::from_secs(5),
        requests_per_minute: 30,
        ..Default::default()
    });
    let _a = t.join("aiko", Role::Annotator);
    let token = t.credential("aiko");
    // A member who spends her own rate: her requests are refused from then on.
    let _m = t.join("minjun", Role::Annotator);
    let busy_member = t.credential("minjun");
    let mut spent = 0;
    while pull(&t, &busy_member).0 != 429 {
        spent += 1;
        assert!(spent <= 30, "the member's rate never stopped her");
    }
    let guess = format!("{}.{}", "0123456789abcdef", "ab".repeat(24));
    // The guesser's attempts under that ID, while the team is idle: each one is checked and
    // refused, until the ID's rate is spent.
    let mut refused = 0;
    loop {
        let (status, body) = pull(&t, &guess);
        match status {
            401 => refused += 1,
            429 => break,
            other => panic!("{other}: {body}"),
        }
        assert!(refused <= 30, "the sign-in rate never stopped the guesser");
    }
    // Within the ID's 30 a minute; the shared rate already counted aiko's own first sign-in.
    assert!((25..=30).contains(&refused), "{refused}");

    let mut watch = t.db();
    let mut owner = t.db();
    let mut lock = owner.transaction().unwrap();
    lock.batch_execute("LOCK TABLE revisions IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    std::thread::scope(|s| {
        let held: Vec<_> = (0..2).map(|_| s.spawn(|| pull(&t, &token).0)).collect();
        assert!(
            wait_until(Duration::from_secs(20), || service_sessions(&mut watch).1
                == 2),
            "two pulls holding the pool: {:?}",
            service_sessions(&mut watch)
        );
        // Every connection is held: the guesses are answered without one, at once, a made-up
        // ID of its own included (all unverified sign-ins share a rate too).
        let fresh = format!("{}.{}", "fedcba9876543210", "cd".repeat(24));
        for (given, want) in [
            (guess.as_str(), 429),
            (fresh.as_str(), 429),
            ("not-a-credential", 401),
            (busy_member.as_str(), 429),
        ] {
            let started = Instant::now();
            let (status, body) = pull(&t, given);
            assert_eq!(status, want, "{given}: {body}");
            assert!(
                started.elapsed() < Duration::from_secs(3),
                "{given} waited {:?} for a connection",
                started.elapsed()
            );
        }
        lock.commit().unwrap();
        for h in held {
            assert_eq!(h.join().unwrap(), 200);
        }
    });
    // The member herself was never held up by the guesser's rate.
    assert_eq!(pull(&t, &token).0, 200);
}
