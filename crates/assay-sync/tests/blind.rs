//! Blind double annotation through the team's PostgreSQL: each assignee's judgement is
//! unreadable to the other (and to everyone else) until both are in, whatever a member does with
//! psql and their own login; nobody writes a judgement for someone else, for an item they were
//! not dealt, in a round that is not blind, or after every judgement is in; an assignee does not
//! revise the item meanwhile. Then the judgements reach every replica and an auditor adjudicates.
//! And people's ratings of a judge's decisions travel like other judgements: under their
//! author's name only, 1 to 5, of a judged result the team holds.

mod common;

use assay_core::store::{AgreementField, BlindJudgement, NewRound, RoundPurpose};
use assay_core::{Project, RefinementOp, Role};
use assay_sync::cluster::Cluster;
use common::*;
use postgres::{Client, NoTls};

/// A published sample project with aiko, minjun (annotators), seo (auditor) and `more` as
/// members: (cluster, folder, the owner's URL).
fn team(more: &[(&str, Role)]) -> (Cluster, tempfile::TempDir, String) {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let admin = create_db(&cluster, "team");
    let mut lead = published_project(dir.path());
    assay_sync::init(&admin, &mut lead).unwrap();
    let people = [
        ("aiko", Role::Annotator),
        ("minjun", Role::Annotator),
        ("seo", Role::Auditor),
    ];
    for (name, role) in people.iter().chain(more) {
        assay_sync::add_member(&admin, name, *role, &format!("pw-{name}")).unwrap();
    }
    (cluster, dir, admin)
}

fn judged(op: RefinementOp) -> BlindJudgement {
    BlindJudgement {
        op: Some(op),
        ..Default::default()
    }
}

fn id(p: &Project, ext: &str) -> i64 {
    p.item_id_by_ext("jgraph-mini", ext).unwrap()
}

fn count(db: &mut Client, sql: &str) -> i64 {
    db.query_one(sql, &[]).unwrap().get(0)
}

/// The revision uid jg-`ext` was dealt at in the blind round, and the round's uid.
fn dealt(db: &mut Client, ext: &str) -> (String, String) {
    let row = db
        .query_one(
            "SELECT r.uid, a->>1 FROM rounds r
             CROSS JOIN LATERAL jsonb_array_elements(r.assignments) a
             JOIN revisions v ON v.uid = a->>1
             WHERE r.blind AND v.ext_id = $1 LIMIT 1",
            &[&ext],
        )
        .unwrap();
    (row.get(0), row.get(1))
}

#[test]
fn blind_judgements_stay_unreadable_until_both_are_in() {
    let (cluster, dir, admin) = team(&[("eve", Role::Annotator)]);
    let (ua, um, us) = (
        url(&cluster, "aiko", "team"),
        url(&cluster, "minjun", "team"),
        url(&cluster, "seo", "team"),
    );
    let (mut s, _) = assay_sync::join(&us, &dir.path().join("s.assay")).unwrap();
    let seo = author(&s, "seo");
    // seo deals jg-007..jg-009 to aiko and minjun, both on every item, blind; and jg-010 in an
    // ordinary round.
    let items: Vec<i64> = ["jg-007", "jg-008", "jg-009"]
        .iter()
        .map(|e| id(&s, e))
        .collect();
    let spec = NewRound {
        name: "blind".into(),
        purpose: RoundPurpose::Annotate,
        assignees: vec!["aiko".into(), "minjun".into()],
        overlap: 1.0,
        sample: None,
        seed: 2,
        blind: true,
    };
    s.create_round(&spec, &items, &seo).unwrap();
    let open_round = NewRound {
        name: "open".into(),
        blind: false,
        ..spec.clone()
    };
    s.create_round(&open_round, &[id(&s, "jg-010")], &seo)
        .unwrap();
    assay_sync::sync(&us, &mut s).unwrap();

    let (mut a, _) = assay_sync::join(&ua, &dir.path().join("a.assay")).unwrap();
    let (mut m, _) = assay_sync::join(&um, &dir.path().join("m.assay")).unwrap();
    let aiko = author(&a, "aiko");
    let minjun = author(&m, "minjun");
    let round_a = a.rounds().unwrap().into_iter().find(|r| r.blind).unwrap();
    assert_eq!(round_a.items, 3);
    let mut mine = judged(RefinementOp::AnswerCorrection);
    mine.note = Some("aiko's secret".into());
    a.record_blind(round_a.id, id(&a, "jg-007"), &mine, &aiko)
        .unwrap();
    a.record_blind(
        round_a.id,
        id(&a, "jg-008"),
        &judged(RefinementOp::Identical),
        &aiko,
    )
    .unwrap();
    let r = assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(r.refused, 0);

    // minjun, with psql and his own login, looks for aiko's judgements.
    let mut eve_m = Client::connect(&um, NoTls).unwrap();
    assert_eq!(
        count(&mut eve_m, "SELECT count(*) FROM blind_annotations"),
        0
    );
    assert_eq!(
        count(
            &mut eve_m,
            "SELECT count(*) FROM blind_annotations WHERE judgement::text LIKE '%secret%'"
        ),
        0
    );
    // The planner's statistics do not show them either.
    let mut owner = Client::connect(&admin, NoTls).unwrap();
    owner.batch_execute("ANALYZE blind_annotations").unwrap();
    assert_eq!(
        count(
            &mut eve_m,
            "SELECT count(*) FROM pg_stats WHERE tablename = 'blind_annotations'"
        ),
        0
    );
    refused(
        eve_m.query("SELECT * FROM blind_assignments", &[]),
        "reading the assignment index",
    );
    // Nor does his replica after a sync.
    assay_sync::sync(&um, &mut m).unwrap();
    let round_m = m.rounds().unwrap().into_iter().find(|r| r.blind).unwrap();
    let seen = m.blind_items(id(&m, "jg-007"), &minjun).unwrap();
    assert!(seen[0].judgements.is_empty() && !seen[0].open);
    // aiko sees her own.
    let seen = a.blind_items(id(&a, "jg-007"), &aiko).unwrap();
    assert_eq!(seen[0].judgements.len(), 1);

    let (round_uid, rev7) = dealt(&mut eve_m, "jg-007");
    let insert = |db: &mut Client, uid: &str, round: &str, rev: &str, who: &str| {
        db.execute(
            "INSERT INTO blind_annotations (uid, round_uid, revision_uid, author, judgement,
                                            created_at)
             VALUES ($1, $2, $3, $4, '{\"op\":\"remove\"}', 'now')",
            &[&uid, &round, &rev, &who],
        )
    };
    // Forgeries: under aiko's name; for an item he was not dealt; in a round that is not
    // blind; with the row made readable at once; changing or deleting aiko's.
    refused(
        insert(&mut eve_m, "x1", &round_uid, &rev7, "aiko"),
        "a judgement under another member's name",
    );
    let rev1: String = eve_m
        .query_one(
            "SELECT uid FROM revisions WHERE ext_id = 'jg-001' ORDER BY seq DESC LIMIT 1",
            &[],
        )
        .unwrap()
        .get(0);
    refused(
        insert(&mut eve_m, "x2", &round_uid, &rev1, "minjun"),
        "a judgement of an item not dealt to him",
    );
    let plain: String = eve_m
        .query_one("SELECT uid FROM rounds WHERE NOT blind", &[])
        .unwrap()
        .get(0);
    let rev10: String = eve_m
        .query_one(
            "SELECT a->>1 FROM rounds r, jsonb_array_elements(r.assignments) a
             WHERE r.uid = $1 AND a->>0 = 'minjun'",
            &[&plain],
        )
        .unwrap()
        .get(0);
    refused(
        insert(&mut eve_m, "x3", &plain, &rev10, "minjun"),
        "a judgement in a round that is not blind",
    );
    refused(
        eve_m.execute("UPDATE blind_annotations SET open_seq = 1", &[]),
        "opening judgements by hand",
    );
    refused(
        eve_m.execute("DELETE FROM blind_annotations", &[]),
        "deleting judgements",
    );
    // eve, who was not dealt the item, cannot write one under her own name either.
    let mut eve = Client::connect(&url(&cluster, "eve", "team"), NoTls).unwrap();
    refused(
        insert(&mut eve, "x4", &round_uid, &rev7, "eve"),
        "a judgement by someone outside the round",
    );
    assert_eq!(count(&mut eve, "SELECT count(*) FROM blind_annotations"), 0);
    // minjun revising the item itself (which would show aiko his judgement) is refused; so is
    // his replica's edit, by the store.
    refused(
        eve_m.execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             SELECT 'r-m', dataset, ext_id, uid, 'minjun', 'now', 0, 'edited',
                    jsonb_set(content, '{answer}', '\"minjun''s\"')
             FROM revisions WHERE uid = $1",
            &[&rev7],
        ),
        "an assignee revising the item before every judgement is in",
    );
    let mut e = assay_core::store::Edit::answer_fix(&m.item(id(&m, "jg-007")).unwrap(), "x");
    e.op = Some(RefinementOp::AnswerCorrection);
    assert_eq!(
        m.save_edit(id(&m, "jg-007"), &e, &minjun)
            .unwrap_err()
            .code(),
        "forbidden"
    );

    // The last judgement written by hand in a transaction rolled back: the others' judgements
    // it would open stay unreadable inside it (read, then roll back, then record otherwise).
    {
        let mut tx = eve_m.transaction().unwrap();
        tx.execute(
            "INSERT INTO blind_annotations (uid, round_uid, revision_uid, author, judgement,
                                            created_at)
             VALUES ('peek', $1, $2, 'minjun', '{\"op\":\"identical\"}', 'now')",
            &[&round_uid, &rev7],
        )
        .unwrap();
        let seen: i64 = tx
            .query_one(
                "SELECT count(*) FROM blind_annotations WHERE author = 'aiko'",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(
            seen, 0,
            "aiko's judgement read inside the transaction that opened it"
        );
        tx.rollback().unwrap();
    }
    assert_eq!(
        count(&mut eve_m, "SELECT count(*) FROM blind_annotations"),
        0
    );

    // minjun records his, honestly, through his replica: jg-007 opens, jg-008 stays closed
    // (minjun's judgement of it is not in), jg-009 has none.
    m.record_blind(
        round_m.id,
        id(&m, "jg-007"),
        &judged(RefinementOp::MinorEdit),
        &minjun,
    )
    .unwrap();
    let r = assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!(r.refused, 0);
    let seen = m.blind_items(id(&m, "jg-007"), &minjun).unwrap();
    assert!(seen[0].open);
    let people: Vec<&str> = seen[0]
        .judgements
        .iter()
        .map(|e| e.person.as_str())
        .collect();
    assert_eq!(people, vec!["aiko", "minjun"]);
    assert_eq!(
        seen[0].judgements[0].judgement.note.as_deref(),
        Some("aiko's secret")
    );
    // Now readable to him with psql too, but only jg-007's: aiko's jg-008 stays hidden.
    assert_eq!(
        count(&mut eve_m, "SELECT count(*) FROM blind_annotations"),
        2
    );
    assert_eq!(
        count(
            &mut eve_m,
            "SELECT count(*) FROM blind_annotations WHERE author = 'aiko'"
        ),
        1
    );
    // Having seen aiko's, nobody writes another for jg-007.
    refused(
        insert(&mut eve_m, "x5", &round_uid, &rev7, "minjun"),
        "a judgement after every judgement is in",
    );

    // Until an auditor adjudicates, neither assignee revises the item.
    refused(
        eve_m.execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             SELECT 'r-m2', dataset, ext_id, uid, 'minjun', 'now', 0, 'edited',
                    jsonb_set(content, '{answer}', '\"minjun''s\"')
             FROM revisions WHERE uid = $1",
            &[&rev7],
        ),
        "an assignee revising the item before the adjudication",
    );
    // aiko, offline, changes her mind after minjun's is in: the team refuses it, and her
    // replica keeps counting the judgement the team holds.
    a.record_blind(
        round_a.id,
        id(&a, "jg-007"),
        &judged(RefinementOp::Remove),
        &aiko,
    )
    .unwrap();
    let r = assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(r.refused, 1);
    // aiko's replica receives minjun's; the agreement is measured on the two judgements.
    assay_sync::sync(&ua, &mut a).unwrap();
    let mine_now = a.blind_items(id(&a, "jg-007"), &aiko).unwrap()[0]
        .judgements
        .iter()
        .find(|e| e.person == "aiko")
        .unwrap()
        .judgement
        .op;
    assert_eq!(mine_now, Some(RefinementOp::AnswerCorrection));
    let seen = a.blind_items(id(&a, "jg-007"), &aiko).unwrap();
    assert_eq!(seen[0].judgements.len(), 2);
    let ag = a
        .agreement(AgreementField::Op, None, Some(round_a.id))
        .unwrap();
    assert!(ag.blind);
    assert_eq!(ag.items, 1);
    assert_eq!(ag.pairs[0].confusion.iter().flatten().sum::<u64>(), 1);

    // seo adjudicates jg-007 taking minjun's; everyone receives the revision.
    assay_sync::sync(&us, &mut s).unwrap();
    let round_s = s.rounds().unwrap().into_iter().find(|r| r.blind).unwrap();
    let queue: Vec<String> = s
        .adjudication_queue()
        .unwrap()
        .into_iter()
        .map(|e| e.ext_id)
        .collect();
    assert_eq!(queue, vec!["jg-007"]);
    assert!(s.blind_items(id(&s, "jg-008"), &seo).unwrap()[0]
        .judgements
        .is_empty());
    s.adjudicate_blind(round_s.id, id(&s, "jg-007"), "minjun", &seo)
        .unwrap();
    let r = assay_sync::sync(&us, &mut s).unwrap();
    assert_eq!(r.refused, 0);
    assay_sync::sync(&ua, &mut a).unwrap();
    let it = a.item(id(&a, "jg-007")).unwrap();
    assert_eq!(it.op, Some(RefinementOp::MinorEdit));
    assert!(a.blind_items(id(&a, "jg-007"), &aiko).unwrap()[0].adjudicated);
    // With jg-007's judgements all in, aiko edits it again, and the team takes the edit.
    edit_answer(&mut a, "jg-007", "after adjudication", &aiko);
    let r = assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(r.refused, 0);

    // A twin uid from two sessions. minjun's is the last judgement missing on jg-008. His first
    // session writes a judgement of jg-009 under uid "x-twin" and holds it open; his second
    // writes "x-twin" for jg-008 with ON CONFLICT DO NOTHING. Had its rules run before the uid
    // was decided, it would open aiko's jg-008 judgement while nothing of his went in.
    let (_, rev8) = dealt(&mut eve_m, "jg-008");
    let (_, rev9) = dealt(&mut eve_m, "jg-009");
    assert_ne!(
        item_bucket(&mut eve_m, "jg-008"),
        item_bucket(&mut eve_m, "jg-009"),
        "the two items take different locks"
    );
    let mut first = Client::connect(&um, NoTls).unwrap();
    let mut tx = first.transaction().unwrap();
    tx.execute(
        "INSERT INTO blind_annotations (uid, round_uid, revision_uid, author, judgement,
                                        created_at)
         VALUES ('x-twin', $1, $2, 'minjun', '{\"op\":\"identical\"}', 'now')",
        &[&round_uid, &rev9],
    )
    .unwrap();
    let second = {
        let (um, round_uid, rev8) = (um.clone(), round_uid.clone(), rev8.clone());
        std::thread::spawn(move || {
            let mut db = Client::connect(&um, NoTls).unwrap();
            db.execute(
                "INSERT INTO blind_annotations (uid, round_uid, revision_uid, author, judgement,
                                                created_at)
                 VALUES ('x-twin', $1, $2, 'minjun', '{\"op\":\"remove\"}', 'now')
                 ON CONFLICT (uid) DO NOTHING",
                &[&round_uid, &rev8],
            )
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(500));
    tx.commit().unwrap();
    assert_eq!(second.join().unwrap().unwrap(), 0, "the twin went nowhere");
    let aikos_8 = format!(
        "SELECT count(*) FROM blind_annotations WHERE revision_uid = '{rev8}' AND author = 'aiko'"
    );
    assert_eq!(
        count(&mut eve_m, &aikos_8),
        0,
        "aiko's jg-008 stays unreadable"
    );
    // His real judgement of jg-008 still goes in, and opens the item.
    insert(&mut eve_m, "x-8", &round_uid, &rev8, "minjun").unwrap();
    assert_eq!(count(&mut eve_m, &aikos_8), 1);
    cluster.stop();
}

#[test]
fn ratings_of_a_judge_travel_under_their_authors_names() {
    let (cluster, dir, _) = team(&[]);
    let (ua, um, us) = (
        url(&cluster, "aiko", "team"),
        url(&cluster, "minjun", "team"),
        url(&cluster, "seo", "team"),
    );
    // seo's judged run, published; aiko and minjun rate its decisions on their replicas.
    let (mut s, _) = assay_sync::join(&us, &dir.path().join("s.assay")).unwrap();
    let run_s = recorded_run(
        &mut s,
        "judged",
        "judge",
        &[("jg-001", 1.0), ("jg-002", 0.0), ("jg-003", 1.0)],
    );
    assay_sync::sync(&us, &mut s).unwrap();
    let (mut a, _) = assay_sync::join(&ua, &dir.path().join("a.assay")).unwrap();
    let (mut m, _) = assay_sync::join(&um, &dir.path().join("m.assay")).unwrap();
    let aiko = author(&a, "aiko");
    let minjun = author(&m, "minjun");
    let run_a = a.run_summaries().unwrap()[0].run.id;
    let run_m = m.run_summaries().unwrap()[0].run.id;
    for (ext, r) in [("jg-001", 5), ("jg-002", 4), ("jg-003", 2)] {
        a.rate_judge(run_a, id(&a, ext), r, None, &aiko).unwrap();
    }
    for (ext, r) in [("jg-001", 4), ("jg-002", 2)] {
        m.rate_judge(run_m, id(&m, ext), r, None, &minjun).unwrap();
    }
    for (u, p) in [(&ua, &mut a), (&um, &mut m)] {
        let r = assay_sync::sync(u, p).unwrap();
        assert_eq!(r.refused, 0);
    }
    assay_sync::sync(&us, &mut s).unwrap();
    let report = s.judge_rating_report(run_s).unwrap();
    assert_eq!((report.items, report.ratings), (3, 5));
    let names: Vec<&str> = report.raters.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, vec!["aiko", "minjun"]);
    // The same numbers on every replica.
    assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(a.judge_rating_report(run_a).unwrap(), {
        let mut r = report.clone();
        r.run_id = run_a;
        r
    });

    // minjun with psql: a rating under aiko's name, out of range, of a result the run does not
    // have, of a judged score it never gave; none changes anything.
    let mut eve = Client::connect(&um, NoTls).unwrap();
    let row = eve
        .query_one(
            "SELECT snapshot, ext_id, revision_uid, cache_key, score FROM run_items
             WHERE ext_id = 'jg-001'",
            &[],
        )
        .unwrap();
    let (snap, ext, rev, key, score): (String, String, String, Option<String>, Option<f64>) =
        (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4));
    let rate =
        |db: &mut Client, uid: &str, who: &str, ext: &str, rating: i32, score: Option<f64>| {
            db.execute(
                "INSERT INTO judge_ratings (uid, snapshot, ext_id, revision_uid, response_key,
                                        judge_score, rating, author, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'now')",
                &[&uid, &snap, &ext, &rev, &key, &score, &rating, &who],
            )
        };
    refused(
        rate(&mut eve, "g1", "aiko", &ext, 1, score),
        "a rating under another's name",
    );
    refused(
        rate(&mut eve, "g2", "minjun", &ext, 6, score),
        "a rating of 6",
    );
    refused(
        rate(&mut eve, "g3", "minjun", "jg-009", 1, score),
        "a rating of a result the run lacks",
    );
    refused(
        rate(&mut eve, "g4", "minjun", &ext, 1, Some(0.5)),
        "a rating of a decision never made",
    );
    refused(
        eve.execute("UPDATE judge_ratings SET rating = 1", &[]),
        "changing ratings",
    );
    rate(&mut eve, "g5", "minjun", &ext, 3, score).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    let report = s.judge_rating_report(run_s).unwrap();
    assert_eq!(
        report.ratings, 5,
        "minjun's latest rating of jg-001 replaces his earlier one"
    );
    let minjun_mean = report
        .raters
        .iter()
        .find(|x| x.name == "minjun")
        .unwrap()
        .mean_rating;
    assert_eq!(minjun_mean, Some(2.5));
    cluster.stop();
}
