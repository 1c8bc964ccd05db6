//! A real PostgreSQL (a private cluster this test starts from the system's packages): a project
//! published, three replicas editing, reviewing and signing off through it, concurrent edits
//! becoming a conflict, syncs repeated after simulated kills, and every forbidden write refused
//! by PostgreSQL itself.

mod common;

use std::path::Path;

use assay_core::store::ReviewDecision;
use assay_core::{ItemStatus, Project, Role};
use assay_sync::cluster::Cluster;
use common::*;
use postgres::{Client, NoTls};

#[test]
fn a_team_works_through_one_postgresql_database() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let admin = create_db(&cluster, "team");
    let mut lead = published_project(dir.path());
    let report = assay_sync::init(&admin, &mut lead).unwrap();
    assert_eq!(report.pushed, 1, "the one edit made before publishing");
    assert_eq!(lead.sync_status().unwrap().pending, 0);
    assert!(
        !lead
            .sync_get("team")
            .unwrap()
            .unwrap()
            .contains("assay-test"),
        "no password stored"
    );
    for (name, role) in [
        ("aiko", Role::Annotator),
        ("minjun", Role::Annotator),
        ("seo", Role::Auditor),
    ] {
        assay_sync::add_member(&admin, name, role, &format!("pw-{name}")).unwrap();
    }
    // Publishing twice into the same database is refused.
    assert!(assay_sync::init(&admin, &mut lead).is_err());

    allowed_writes_go_through(&cluster);
    three_replicas_edit_review_and_sign_off(&cluster, dir.path());
    cluster.stop();
}

/// What a member may write goes through (every forbidden write is attacked in adversary.rs),
/// and not even the owner rewrites history.
fn allowed_writes_go_through(cluster: &Cluster) {
    let mut aiko = Client::connect(&url(cluster, "aiko", "team"), NoTls).unwrap();
    let mut seo = Client::connect(&url(cluster, "seo", "team"), NoTls).unwrap();
    let base: String = aiko
        .query_one(
            "SELECT uid FROM revisions WHERE author = 'aiko' ORDER BY seq DESC LIMIT 1",
            &[],
        )
        .unwrap()
        .get(0);
    let insert = |db: &mut Client, uid: &str, author: &str, status: &str| {
        db.execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             VALUES ($1, 'jgraph-mini', 'jg-001', $2, $3, 'now', 0, $4,
                     (SELECT content FROM revisions WHERE uid = $2))",
            &[&uid, &base, &author, &status],
        )
    };
    // What is allowed goes through: an edit of one's own, an auditor's sign-off.
    insert(&mut aiko, "ok1", "aiko", "edited").unwrap();
    seo.execute(
        "INSERT INTO signoffs (uid, revision_uid, signed, author, created_at)
         VALUES ('s2', $1, false, 'seo', 'now')",
        &[&base],
    )
    .unwrap();
    // Even the owner cannot rewrite history.
    let mut owner = Client::connect(&cluster.admin_url("team"), NoTls).unwrap();
    let e = owner
        .execute("DELETE FROM revisions WHERE uid = 'ok1'", &[])
        .expect_err("the owner deleting");
    assert_eq!(
        e.code(),
        Some(&postgres::error::SqlState::RAISE_EXCEPTION),
        "{e}"
    );
}

fn three_replicas_edit_review_and_sign_off(cluster: &Cluster, dir: &Path) {
    let (mut a, r) = assay_sync::join(&url(cluster, "aiko", "team"), &dir.join("a.assay")).unwrap();
    assert!(r.pulled >= 1);
    let (mut m, _) =
        assay_sync::join(&url(cluster, "minjun", "team"), &dir.join("m.assay")).unwrap();
    let (mut s, _) = assay_sync::join(&url(cluster, "seo", "team"), &dir.join("s.assay")).unwrap();
    for p in [&a, &m, &s] {
        // aiko's direct insert above ("ok1", the same content as before publishing) is current.
        assert_eq!(answer(p, "jg-001").as_deref(), Some("before publishing"));
        assert_eq!(p.datasets().unwrap()[0].name, "jgraph-mini");
    }
    // Images come on first view: none yet, then one by its hash, checked against it.
    let hashes: Vec<String> = {
        let ds = a.dataset_by_name("jgraph-mini").unwrap().id;
        a.item_ext_ids(ds)
            .unwrap()
            .into_iter()
            .flat_map(|(id, _)| a.item(id).unwrap().content.images)
            .map(|i| i.hash)
            .collect()
    };
    assert!(!hashes.is_empty());
    assert_eq!(a.image_bytes(&hashes[0]).unwrap_err().code(), "not_found");
    assert!(assay_sync::fetch_image(&mut a, &hashes[0], Some("pw-aiko")).unwrap());
    let (bytes, _) = a.image_bytes(&hashes[0]).unwrap();
    assert_eq!(assay_core::imaging::sha256_hex(&bytes), hashes[0]);
    assert!(!assay_sync::fetch_image(&mut a, "0000", Some("pw-aiko")).unwrap());
    // Or all at once, to work offline.
    let n = assay_sync::fetch_images(&mut s, Some("pw-seo")).unwrap();
    assert!(n.fetched >= 1 && n.bad.is_empty());
    assert_eq!(
        assay_sync::fetch_images(&mut s, Some("pw-seo"))
            .unwrap()
            .fetched,
        0
    );
    let ua = url(cluster, "aiko", "team");
    let um = url(cluster, "minjun", "team");
    let us = url(cluster, "seo", "team");

    // aiko edits offline twice, then syncs; minjun sees the latest.
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-006", "117", &aiko);
    edit_answer(&mut a, "jg-006", "117mm", &aiko);
    assert_eq!(a.sync_status().unwrap().pending, 2);
    assert_eq!(assay_sync::sync(&ua, &mut a).unwrap().pushed, 2);
    assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!(answer(&m, "jg-006").as_deref(), Some("117mm"));

    // minjun approves it; seo signs it off; aiko sees it locked.
    let mj = author(&m, "minjun");
    let id_m = m.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    m.review(id_m, ReviewDecision::Approve, Some("ok"), &mj)
        .unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    let id_s = s.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    assert_eq!(s.item(id_s).unwrap().status, ItemStatus::Approved);
    // The approval's decision arrives with the revision recording it, though the team holds it
    // first: nothing is set aside.
    assert_eq!(s.refused_rows().unwrap(), vec![]);
    let decisions: i64 = s
        .connection()
        .query_row(
            "SELECT count(*) FROM review_decisions WHERE item_id = ?1 AND made_rev IS NOT NULL",
            [id_s],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(decisions, 1);
    let seo = author(&s, "seo");
    s.sign_off(id_s, true, None, &seo).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    let id_a = a.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    assert!(a.item(id_a).unwrap().signed_off);
    assert_eq!(a.item(id_a).unwrap().status, ItemStatus::Approved);

    // An accepted suggestion travels like any revision: its note names the suggestion, which a
    // note typed by hand may not, and the other replicas take it all the same.
    let id_m5 = m.item_id_by_ext("jgraph-mini", "jg-005").unwrap();
    let rev_m5 = m.item(id_m5).unwrap().rev;
    let draft = assay_core::SuggestionValue::Checklist {
        criteria: vec!["Reads the value off the chart".into()],
    };
    let srun = m
        .start_suggestion_run(assay_core::SuggestionKind::Checklist, "m", "t", 1)
        .unwrap();
    let sid = m
        .write_suggestions(
            &[assay_core::store::NewSuggestion {
                run_id: srun,
                item_id: id_m5,
                item_rev: rev_m5,
                kind: assay_core::SuggestionKind::Checklist,
                model: "m".into(),
                template: "t".into(),
                value: Some(draft.clone()),
                raw: Some("- Reads the value off the chart".into()),
                problem: None,
                error: false,
                cache_key: None,
                from_cache: false,
            }],
            &[],
        )
        .unwrap()[0];
    m.accept_suggestion(sid, rev_m5, &draft, None, None, &mj)
        .unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    let id_s5 = s.item_id_by_ext("jgraph-mini", "jg-005").unwrap();
    assert_eq!(
        s.item(id_s5).unwrap().content.checklist,
        vec!["Reads the value off the chart".to_string()]
    );
    assert_eq!(s.refused_rows().unwrap(), vec![]);

    // seo (the lead) deals a round on her machine; minjun comments with a mention on his. Both
    // reach aiko: her queue in the round, and the mention waiting for her.
    let ids: Vec<i64> = ["jg-007", "jg-008", "jg-009"]
        .iter()
        .map(|e| s.item_id_by_ext("jgraph-mini", e).unwrap())
        .collect();
    let round = assay_core::store::NewRound {
        name: "round 2".into(),
        purpose: assay_core::store::RoundPurpose::Annotate,
        assignees: vec!["aiko".into(), "minjun".into()],
        overlap: 1.0,
        sample: None,
        seed: 1,
        blind: false,
    };
    s.create_round(&round, &ids, &seo).unwrap();
    let id_m8 = m.item_id_by_ext("jgraph-mini", "jg-008").unwrap();
    m.add_comment(id_m8, "@aiko is the unit right here?", &mj)
        .unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    let r2 = a
        .rounds()
        .unwrap()
        .into_iter()
        .find(|r| r.name == "round 2")
        .unwrap();
    assert_eq!((r2.items, r2.overlapping), (3, 3));
    assert_eq!(a.round_queue(r2.id, aiko.user_id).unwrap().len(), 3);
    let mentions = a.open_mentions(aiko.user_id).unwrap();
    assert_eq!(mentions.len(), 1);
    assert_eq!(mentions[0].ext_id, "jg-008");
    assert_eq!(mentions[0].comment.author, "minjun");

    // A local write the team refuses: on minjun's machine someone saved as "aiko"; pushing as
    // minjun, PostgreSQL refuses that row. The push goes on without it, the row stays here with
    // the reason, and minjun's own work still reaches the team.
    let as_aiko = author(&m, "aiko");
    edit_answer(&mut m, "jg-010", "typed under aiko's name", &as_aiko);
    edit_answer(&mut m, "jg-011", "minjun's own", &mj);
    let r = assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!((r.pushed, r.refused), (1, 1));
    let st = m.sync_status().unwrap();
    assert_eq!(
        (st.pending, st.refused),
        (0, 1),
        "{:?}",
        m.refused_rows().unwrap()
    );
    let refused = m.refused_rows().unwrap();
    assert!(refused[0].2.contains("row-level security"), "{refused:?}");
    assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(answer(&a, "jg-011").as_deref(), Some("minjun's own"));
    assert_ne!(
        answer(&a, "jg-010").as_deref(),
        Some("typed under aiko's name")
    );

    // Both edit jg-002 on the same base: both kept, a conflict on both replicas, the same
    // current revision everywhere; a person resolves it with a new revision.
    let mj = author(&m, "minjun");
    edit_answer(&mut a, "jg-002", "aiko's", &aiko);
    edit_answer(&mut m, "jg-002", "minjun's", &mj);
    assay_sync::sync(&ua, &mut a).unwrap();
    let r = assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!(r.conflicts, 1);
    let r = assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(r.conflicts, 1);
    assert_eq!(
        answer(&a, "jg-002"),
        answer(&m, "jg-002"),
        "one current revision everywhere"
    );
    assert_eq!(
        answer(&a, "jg-002").as_deref(),
        Some("minjun's"),
        "the later in the team's order"
    );
    let conflict = a.sync_conflicts().unwrap().pop().unwrap();
    let id = conflict.item_id;
    let history = a.revisions(id).unwrap();
    assert!(history.len() >= 3, "both edits kept");
    a.resolve_conflict(id, &conflict.other_uid, &aiko).unwrap();
    assert!(a.sync_conflicts().unwrap().is_empty());
    assert_eq!(answer(&a, "jg-002").as_deref(), Some("aiko's"));
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!(answer(&m, "jg-002").as_deref(), Some("aiko's"));

    // A recorded run travels with its results and responses; recording it again replaces the
    // results on the other replicas instead of adding a run.
    let record = |p: &mut Project, scores: [f64; 2], hedged: bool| {
        let model = p.ensure_model_config("gpt", r#"{"name":"gpt"}"#).unwrap();
        let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
        let key = assay_core::store::evaluation::runs::RunKey {
            model_id: model,
            dataset_id: ds,
            version: assay_core::Version::Before,
            variant: "original".into(),
            run_index: 0,
            template: "default".into(),
            scorer: "exact".into(),
            source: "recorded".into(),
            protocol: None,
        };
        let results: Vec<assay_core::store::evaluation::runs::RecordedResult> =
            ["jg-001", "jg-004"]
                .iter()
                .zip(scores)
                .map(|(ext, score)| {
                    let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
                    assay_core::store::evaluation::runs::RecordedResult {
                        result: assay_core::store::evaluation::runs::RunItemResult {
                            item_id: id,
                            item_rev: p.item(id).unwrap().rev,
                            cache_key: None,
                            outcome: if hedged { "hedged" } else { "scored" }.into(),
                            from_cache: false,
                            score: Some(score),
                            parsed: Some(format!("answer {score}")),
                            evidence: None,
                            error: None,
                            scorer: Some("exact".into()),
                            scorer_version: hedged.then_some(2),
                        },
                        response: format!("the model said {score}"),
                        prompt: None,
                    }
                })
                .collect();
        p.record_run(&key, &results, "complete").unwrap()
    };
    record(&mut a, [1.0, 0.0], false);
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!(scores(&m), scores(&a));
    assert_eq!(scores(&m).len(), 2);
    let traced = m
        .item_results(m.item_id_by_ext("jgraph-mini", "jg-001").unwrap())
        .unwrap();
    assert_eq!(
        traced[0].response.as_deref(),
        Some("the model said 1"),
        "the response came too"
    );
    record(&mut a, [0.0, 0.0], false);
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!(
        m.run_summaries().unwrap()[0].scorer_versions,
        vec![1],
        "no version: version 1"
    );
    assert_eq!(
        scores(&m),
        vec![("jg-001".into(), Some(0.0)), ("jg-004".into(), Some(0.0))]
    );
    assert_eq!(m.run_summaries().unwrap().len(), 1, "replaced, not added");
    // A hedged outcome and the scorer version travel with the results.
    record(&mut a, [0.0, 0.0], true);
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    let summary = &m.run_summaries().unwrap()[0];
    assert_eq!(
        (summary.hedged, summary.scorer_versions.clone()),
        (2, vec![2])
    );
    // minjun cannot publish results into aiko's run.
    let mut mdb = Client::connect(&um, NoTls).unwrap();
    let snap: String = mdb
        .query_one("SELECT snapshot FROM runs ORDER BY seq DESC LIMIT 1", &[])
        .unwrap()
        .get(0);
    let e = mdb
        .execute(
            "INSERT INTO run_items (snapshot, ext_id, revision_uid, outcome, from_cache)
             SELECT $1, 'jg-002', uid, 'scored', false FROM revisions LIMIT 1",
            &[&snap],
        )
        .unwrap_err();
    assert_eq!(
        e.code(),
        Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
        "{e}"
    );

    // Killed syncs, simulated at the worst points: after the team committed a push but before
    // the replica recorded it, and after a pull applied rows but before its position was saved.
    // Running again loses nothing and doubles nothing.
    let mut owner = Client::connect(&cluster.admin_url("team"), NoTls).unwrap();
    edit_answer(&mut a, "jg-003", "pushed twice?", &aiko);
    assay_sync::sync(&ua, &mut a).unwrap();
    let revisions_there = count(&mut owner, "revisions");
    a.connection()
        .execute(
            "UPDATE sync_uids SET pushed = 0 WHERE tbl = 'revisions' AND local_id IN
               (SELECT id FROM revisions WHERE author_id = ?1)",
            [aiko.user_id],
        )
        .unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(
        count(&mut owner, "revisions"),
        revisions_there,
        "no doubles in the team"
    );
    assert_eq!(a.sync_status().unwrap().pending, 0);
    let local = |p: &Project| -> i64 {
        p.connection()
            .query_row("SELECT count(*) FROM revisions", [], |r| r.get(0))
            .unwrap()
    };
    assay_sync::sync(&us, &mut s).unwrap();
    let before = local(&s);
    s.sync_set("pulled.revisions", "0").unwrap();
    s.sync_set("pulled.review_decisions", "0").unwrap();
    s.sync_set("pulled.signoffs", "0").unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    assert_eq!(local(&s), before, "no doubles in the replica");
    assert_eq!(answer(&s, "jg-003").as_deref(), Some("pushed twice?"));
}

/// Members wait for each other only on the items they both write: a push of one item goes
/// through while another member's transaction holds a different item open, and a row that took
/// its place earlier but committed later still reaches every replica (positions are drawn at
/// commit, so a pull that has read up to N has seen everything below N).
#[test]
fn pushes_of_different_items_do_not_wait_and_arrive_in_commit_order() {
    std::env::set_var("ASSAY_TEAM_LOCK_TIMEOUT_MS", "1500");
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    published_team(&cluster, dir.path());
    let um = url(&cluster, "minjun", "team");
    let us = url(&cluster, "seo", "team");
    let (mut m, _) = assay_sync::join(&um, &dir.path().join("m.assay")).unwrap();
    let (mut s, _) = assay_sync::join(&us, &dir.path().join("s.assay")).unwrap();
    let minjun = author(&m, "minjun");

    // aiko's client opens a transaction and writes jg-004 (its row takes a place now).
    let mut aiko = Client::connect(&url(&cluster, "aiko", "team"), NoTls).unwrap();
    let mut tx = aiko.transaction().unwrap();
    let early: i64 = tx
        .query_one(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             SELECT 'slow-1', dataset, ext_id, uid, 'aiko', 'now', 0, 'edited',
                    jsonb_set(content, '{answer}', '\"aiko, committed late\"')
             FROM revisions WHERE ext_id = 'jg-004' ORDER BY seq DESC LIMIT 1
             RETURNING seq",
            &[],
        )
        .unwrap()
        .get(0);

    // Meanwhile minjun pushes another item: nothing waits for aiko's open transaction.
    edit_answer(&mut m, "jg-005", "minjun, committed first", &minjun);
    // Waiting on aiko's lock would end in a "blocked" error naming her, not in a push.
    let r = assay_sync::sync(&um, &mut m).expect("not blocked by another item's writer");
    assert_eq!(r.pushed, 1);
    // seo's replica reads past minjun's row...
    assay_sync::sync(&us, &mut s).unwrap();
    assert_eq!(
        answer(&s, "jg-005").as_deref(),
        Some("minjun, committed first")
    );
    let pulled: i64 = s
        .sync_get("pulled.revisions")
        .unwrap()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        pulled > early,
        "minjun's row is placed after aiko's open one"
    );
    // ...and still receives aiko's, committed after it: it moved to a place past minjun's.
    tx.commit().unwrap();
    let placed: i64 = aiko
        .query_one("SELECT seq FROM revisions WHERE uid = 'slow-1'", &[])
        .unwrap()
        .get(0);
    assert!(placed > pulled, "placed at commit: {placed} after {pulled}");
    assay_sync::sync(&us, &mut s).unwrap();
    assert_eq!(
        answer(&s, "jg-004").as_deref(),
        Some("aiko, committed late")
    );

    // Writers of the same item still take turns: minjun's push of jg-006 waits for aiko's open
    // transaction on jg-006, bounded, and names her.
    let mut tx = aiko.transaction().unwrap();
    tx.execute(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags, status,
                                content)
         SELECT 'slow-2', dataset, ext_id, uid, 'aiko', 'now', 0, 'edited', content
         FROM revisions WHERE ext_id = 'jg-006' ORDER BY seq DESC LIMIT 1",
        &[],
    )
    .unwrap();
    edit_answer(&mut m, "jg-006", "minjun, after aiko", &minjun);
    match assay_sync::sync(&um, &mut m) {
        Err(assay_sync::SyncError::Blocked(who)) => assert!(who.contains("aiko"), "{who}"),
        other => panic!("expected to wait for the item's writer, got {other:?}"),
    }
    tx.commit().unwrap();
    // Once aiko's revision is in, minjun's (made on the older head) is a conflict to resolve,
    // as with any two people editing one item: nothing is lost.
    assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!(m.sync_status().unwrap().pending, 0);
    cluster.stop();
}

/// A dataset large enough for its originals to be packed (store/packed.rs) travels to the team
/// and to a member's replica as the same JSON, and edits on top of it sync as usual.
#[test]
fn packed_originals_travel_whole() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let admin = create_db(&cluster, "team");
    let mut lead = published_project(dir.path());
    let seed = std::fs::read_to_string(sample().join("jgraph-mini/jgraph-mini.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = seed
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut big = String::new();
    for k in 0..600 {
        let mut v = lines[k % lines.len()].clone();
        v["question_id"] = format!("many-{k:04}").into();
        v["question"] = format!("{} ({k})", v["question"].as_str().unwrap()).into();
        big.push_str(&format!("{v}\n"));
    }
    let path = dir.path().join("many.jsonl");
    std::fs::write(&path, big).unwrap();
    assay_core::import::import_path(
        &mut lead,
        &path,
        &assay_core::import::ImportOptions {
            name: Some("many".into()),
            image_root: Some(sample().join("jgraph-mini")),
            ..Default::default()
        },
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )
    .unwrap();
    let packed = packed_originals(&lead);
    assert_eq!(packed, 600);
    assay_sync::init(&admin, &mut lead).unwrap();
    assay_sync::add_member(&admin, "aiko", Role::Annotator, "pw-aiko").unwrap();

    // The team holds each original as JSON.
    let mut db = Client::connect(&admin, NoTls).unwrap();
    let n: i64 = db
        .query_one(
            "SELECT count(*) FROM revisions WHERE dataset = 'many' AND content ? 'question'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 600);

    let ua = url(&cluster, "aiko", "team");
    let (mut a, _) = assay_sync::join(&ua, &dir.path().join("a.assay")).unwrap();
    let lead_ds = lead.dataset_by_name("many").unwrap().id;
    let a_ds = a.dataset_by_name("many").unwrap().id;
    let (lead_ids, a_ids) = (
        lead.item_ext_ids(lead_ds).unwrap(),
        a.item_ext_ids(a_ds).unwrap(),
    );
    assert_eq!(lead_ids.len(), 600);
    // The member's replica packs them too, against a dictionary of its own.
    let packed_here = packed_originals(&a);
    assert_eq!(packed_here, 600);
    for ((li, lext), (ai, aext)) in lead_ids.iter().zip(&a_ids) {
        assert_eq!(lext, aext);
        let (x, y) = (lead.item(*li).unwrap(), a.item(*ai).unwrap());
        assert_eq!((&x.content, &x.original), (&y.content, &y.original));
    }

    // An edit on a packed original syncs both ways; the original stays as imported.
    let aiko = author(&a, "aiko");
    let id = a.item_id_by_ext("many", "many-0042").unwrap();
    let original = a.item(id).unwrap().original;
    let mut edit = assay_core::store::Edit::answer_fix(&a.item(id).unwrap(), "checked");
    edit.op = Some(assay_core::RefinementOp::AnswerCorrection);
    a.save_edit(id, &edit, &aiko).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&admin, &mut lead).unwrap();
    let lid = lead.item_id_by_ext("many", "many-0042").unwrap();
    let it = lead.item(lid).unwrap();
    assert_eq!(it.content.answer.as_deref(), Some("checked"));
    assert_eq!(it.original, original);
    cluster.stop();
}

/// How many originals a project keeps packed (store/packed.rs).
fn packed_originals(p: &Project) -> i64 {
    p.connection()
        .query_row(
            "SELECT count(*) FROM revisions WHERE typeof(content) = 'blob'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

/// A push of several revisions goes in as one statement; when the team refuses one of them,
/// nothing of that statement stands and each row goes in alone, so the refusal costs only its
/// row and the others keep the batch's order.
#[test]
fn a_batch_the_team_refuses_one_row_of_writes_the_others_in_order() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let admin = published_team(&cluster, dir.path());
    let um = url(&cluster, "minjun", "team");
    let (mut m, _) = assay_sync::join(&um, &dir.path().join("m.assay")).unwrap();
    let minjun = author(&m, "minjun");
    let mut owner = Client::connect(&admin, NoTls).unwrap();
    owner
        .batch_execute(
            "CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF NEW.content->>'answer' = 'refuse me' THEN
                     RAISE EXCEPTION 'the owner refuses this answer';
                 END IF;
                 RETURN NEW;
             END $$;
             CREATE TRIGGER refuse_marked BEFORE INSERT ON revisions
                 FOR EACH ROW EXECUTE FUNCTION refuse_marked();",
        )
        .unwrap();

    // A clean batch of three: all taken, in the order they were made.
    for (ext, a) in [("jg-001", "one"), ("jg-002", "two"), ("jg-003", "three")] {
        edit_answer(&mut m, ext, a, &minjun);
    }
    let r = assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!((r.pushed, r.refused), (3, 0));
    // A batch with a refused row in the middle.
    for (ext, a) in [
        ("jg-004", "four"),
        ("jg-005", "refuse me"),
        ("jg-006", "six"),
    ] {
        edit_answer(&mut m, ext, a, &minjun);
    }
    let r = assay_sync::sync(&um, &mut m).unwrap();
    assert_eq!((r.pushed, r.refused), (2, 1), "{r:?}");
    let rows: Vec<(String, String)> = owner
        .query(
            "SELECT ext_id, content->>'answer' FROM revisions WHERE author = 'minjun'
             ORDER BY seq",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let want: Vec<(String, String)> = [
        ("jg-001", "one"),
        ("jg-002", "two"),
        ("jg-003", "three"),
        ("jg-004", "four"),
        ("jg-006", "six"),
    ]
    .iter()
    .map(|(e, a)| (e.to_string(), a.to_string()))
    .collect();
    assert_eq!(rows, want);
    assert_eq!(m.refused_rows().unwrap().len(), 1);
    cluster.stop();
}
