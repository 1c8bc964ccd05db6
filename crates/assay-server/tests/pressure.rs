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
use support::{heads, pull_from_start, wait_until, Team};

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
        let held: Vec<_> = (0..3)
            .map(|_| pulls.spawn(|| pull_from_start(&t, &token).0))
            .collect();
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
            let crowd: Vec<_> = (0..40)
                .map(|_| s.spawn(|| pull_from_start(&t, &token)))
                .collect();
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
    while pull_from_start(&t, &busy_member).0 != 429 {
        spent += 1;
        assert!(spent <= 30, "the member's rate never stopped her");
    }
    let guess = format!("{}.{}", "0123456789abcdef", "ab".repeat(24));
    // The guesser's attempts under that ID, while the team is idle: each one is checked and
    // refused, until the ID's rate is spent.
    let mut refused = 0;
    loop {
        let (status, body) = pull_from_start(&t, &guess);
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
        let held: Vec<_> = (0..2)
            .map(|_| s.spawn(|| pull_from_start(&t, &token).0))
            .collect();
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
            let (status, body) = pull_from_start(&t, given);
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
    assert_eq!(pull_from_start(&t, &token).0, 200);
}

/// Pushes that wait for the replica together are checked one after another and written in one
/// transaction of the team. When the team refuses a row the service's check took (here a rule
/// the owner adds to the database only, so the two disagree), the pushes of the group up to that
/// one stand and the ones after it are checked again and written on their own: nobody's honest
/// row is lost, and every replica, the service's among them, goes on agreeing with the team.
#[test]
fn pushes_waiting_together_are_written_in_one_transaction_and_a_refusal_costs_only_its_row() {
    let t = Team::start(Limits::default());
    let mut owner = t.db();
    owner
        .batch_execute(
            "CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF NEW.content::text LIKE '%refused by the team%' THEN
                     RAISE EXCEPTION USING ERRCODE = 'check_violation',
                         MESSAGE = 'refused by the team''s own rule';
                 END IF;
                 RETURN NEW;
             END $$;
             CREATE TRIGGER zz_refuse_marked BEFORE INSERT ON revisions
                 FOR EACH ROW EXECUTE FUNCTION refuse_marked();",
        )
        .unwrap();
    let names = ["xavier", "aiko", "bora", "chen"];
    let mut p: Vec<_> = names.iter().map(|n| t.join(n, Role::Annotator)).collect();
    let authors: Vec<_> = names.iter().zip(&p).map(|(n, q)| author(q, n)).collect();

    // One round: xavier's push is held at the team's commit lock while the others queue for
    // the replica behind it, aiko first; then the lock is let go and the queue goes as a group.
    let round = |p: &mut Vec<assay_core::Project>, edits: &[(&str, &str)]| {
        let mut owner = t.db();
        owner
            .batch_execute("SELECT pg_advisory_lock(7414)")
            .unwrap();
        let reports = std::thread::scope(|s| {
            let mut handles = Vec::new();
            for (i, (q, (item, text))) in p.iter_mut().zip(edits).enumerate() {
                edit_answer(q, item, text, &authors[i]);
                let name = names[i];
                let t = &t;
                handles.push(s.spawn(move || t.sync(name, q)));
                let ready = || {
                    if i == 0 {
                        service_sessions(&mut t.db()).1 == 1
                    } else {
                        t.service().pushes_waiting() == i
                    }
                };
                assert!(wait_until(Duration::from_secs(30), ready), "push {i} waits");
            }
            owner
                .batch_execute("SELECT pg_advisory_unlock(7414)")
                .unwrap();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .map(|r| (r.pushed, r.refused))
                .collect::<Vec<_>>()
        });
        reports
    };
    let grouped = || t.service().pushes_grouped();

    // Nothing refused: the three queued pushes are one transaction, xavier's another. bora
    // and chen both change jg-003 from the same head, so in the team chen's, written after
    // bora's, is the item's head; so it is on every replica, theirs too.
    let reports = round(
        &mut p,
        &[
            ("jg-001", "x one"),
            ("jg-002", "a one"),
            ("jg-003", "b one"),
            ("jg-003", "c one"),
        ],
    );
    assert_eq!(reports, vec![(1, 0); 4]);
    assert_eq!(
        grouped(),
        3,
        "aiko's, bora's and chen's went together, xavier's alone"
    );
    for (i, q) in p.iter_mut().enumerate() {
        t.sync(names[i], q);
    }
    let fresh = t.join("erin", Role::Annotator);
    assert_eq!(answer(&fresh, "jg-003").as_deref(), Some("c one"));
    for (i, q) in p.iter().enumerate() {
        assert_eq!(heads(q), heads(&fresh), "{}", names[i]);
    }

    // bora's row is refused by the team, in the middle of the group: aiko's, before it, is
    // written; chen's, after it, is checked again against what the team really took and
    // written on its own.
    let before = grouped();
    let reports = round(
        &mut p,
        &[
            ("jg-001", "x two"),
            ("jg-002", "a two"),
            ("jg-003", "refused by the team"),
            ("jg-004", "c two"),
        ],
    );
    assert_eq!(reports, vec![(1, 0), (1, 0), (0, 1), (1, 0)]);
    let count = |sql: &str| -> i64 { t.db().query_one(sql, &[]).unwrap().get(0) };
    assert_eq!(
        count("SELECT count(*) FROM revisions WHERE content::text LIKE '%refused by the team%'"),
        0
    );
    assert_eq!(
        grouped() - before,
        2,
        "aiko's and bora's together, chen's alone"
    );

    // The service's replica holds exactly what the team took (it set the group aside and
    // pulled it again): the next edits on top of each member's head are all taken (bora's on
    // another item: her refused edit stays hers to resolve), and the replicas that hold no
    // refused edit and a fresh join agree.
    let reports = round(
        &mut p,
        &[
            ("jg-001", "x three"),
            ("jg-002", "a three"),
            ("jg-006", "b three"),
            ("jg-004", "c three"),
        ],
    );
    assert_eq!(reports, vec![(1, 0); 4]);
    for (i, q) in p.iter_mut().enumerate() {
        t.sync(names[i], q);
    }
    let fresh = t.join("dana", Role::Annotator);
    for (i, q) in p.iter().enumerate().filter(|(i, _)| *i != 2) {
        assert_eq!(heads(q), heads(&fresh), "{}", names[i]);
    }
    assert_eq!(answer(&fresh, "jg-002").as_deref(), Some("a three"));
    assert_eq!(answer(&fresh, "jg-003").as_deref(), Some("c one"));
    assert_eq!(answer(&fresh, "jg-006").as_deref(), Some("b three"));
}

/// A member of the earlier design (her own login, in a team not yet migrated) holds the team
/// lock shared while her push is open. A push through the service waits for her without
/// holding any item's lock, so when she goes on to lock an item the service's push writes too,
/// she gets it at once: the two never deadlock (PostgreSQL would end one of them after a
/// second; her half-second lock timeout would end her first).
#[test]
fn a_push_through_the_service_and_a_login_of_the_earlier_design_do_not_deadlock() {
    let t = Team::start(Limits::default());
    assay_sync::add_member(&t.admin, "hana", Role::Annotator, "pw-hana").unwrap();
    let mut hana = Client::connect(
        &support::common::url(&t.cluster, "hana", "team"),
        postgres::NoTls,
    )
    .unwrap();
    let mut a = t.join("aiko", Role::Annotator);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-002", "through the service", &aiko);

    let lock = "SELECT assay_lock_items(ARRAY['jgraph-mini'], ARRAY[$1::text], '{}', false)";
    let mut tx = hana.transaction().unwrap();
    tx.batch_execute("SET LOCAL lock_timeout = '500ms'")
        .unwrap();
    tx.execute(lock, &[&"jg-001"]).unwrap();
    let report = std::thread::scope(|s| {
        let pushing = s.spawn(|| t.sync("aiko", &mut a));
        assert!(
            wait_until(Duration::from_secs(30), || service_sessions(&mut t.db()).1
                == 1),
            "the service's push waits for hana"
        );
        tx.execute(lock, &[&"jg-002"])
            .expect("hana takes the item the service's push writes, without waiting");
        tx.commit().unwrap();
        pushing.join().unwrap()
    });
    assert_eq!((report.pushed, report.refused), (1, 0));
    assert_eq!(answer(&a, "jg-002").as_deref(), Some("through the service"));
}
