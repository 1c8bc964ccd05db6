//! A hostile member of a published team, with psql-like access under their own login: every
//! attempt to forge what Assay certifies (authorship, approval, a signed-off item, another's
//! results, a model endpoint, a cached response, an image, the team's order, the push lock, the
//! replicas' ability to sync, another team's database) is refused by PostgreSQL, and every
//! replica is unchanged. Rows a compromised server serves anyway are set aside by the replicas.

mod common;

use std::time::Duration;

use assay_core::store::ReviewDecision;
use assay_core::{ItemStatus, Project, Role};
use assay_sync::cluster::Cluster;
use assay_sync::SyncError;
use common::*;
use postgres::error::SqlState;
use postgres::{Client, NoTls};

/// Refused by a policy, a privilege or the team's rules (42501), a check (23514), malformed
/// input (class 22), or the append-only trigger (P0001).
#[track_caller]
fn refused(r: Result<u64, postgres::Error>, what: &str) {
    let e = match r {
        Ok(n) => panic!("{what}: accepted ({n} rows)"),
        Err(e) => e,
    };
    let code = e.code().map(|c| c.code().to_string()).unwrap_or_default();
    assert!(
        ["42501", "23514", "P0001"].contains(&code.as_str()) || code.starts_with("22"),
        "{what}: {code} {e:?}"
    );
}

fn one(db: &mut Client, sql: &str) -> String {
    db.query_one(sql, &[]).unwrap().get(0)
}

/// What a replica shows of the sample's items: (ext_id, status, signed off, answer).
fn shown(p: &Project) -> Vec<(String, ItemStatus, bool, Option<String>)> {
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    p.item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|(id, ext)| {
            let it = p.item(id).unwrap();
            (ext, it.status, it.signed_off, it.content.answer)
        })
        .collect()
}

fn head(db: &mut Client, ext: &str) -> String {
    db.query_one(
        "SELECT uid FROM revisions WHERE ext_id = $1 ORDER BY seq DESC LIMIT 1",
        &[&ext],
    )
    .unwrap()
    .get(0)
}

/// A revision written by hand: `base` and `status` as given, content copied from `content_of`
/// (or `content` when given).
fn forge(
    db: &mut Client,
    uid: &str,
    ext: &str,
    base: Option<&str>,
    status: &str,
    content: Option<&str>,
    content_of: &str,
) -> Result<u64, postgres::Error> {
    db.execute(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags, status,
                                content)
         VALUES ($1, 'jgraph-mini', $2, $3, 'minjun', 'now', 0, $4,
                 coalesce($5::text::jsonb, (SELECT content FROM revisions WHERE uid = $6)))",
        &[&uid, &ext, &base, &status, &content, &content_of],
    )
}

#[test]
fn a_hostile_member_cannot_forge_what_the_team_certifies() {
    // Pushes wait at most this long for the team's lock (a member may hold it).
    std::env::set_var("ASSAY_TEAM_LOCK_TIMEOUT_MS", "1500");
    // A member's transaction idle this long while holding it loses its session.
    std::env::set_var("ASSAY_TEAM_STALE_LOCK_SECS", "3");
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    // This machine's accepted endpoints start empty (nothing set up here yet).
    std::env::set_var("ASSAY_TRUST_FILE", dir.path().join("accepted-endpoints"));
    let admin = published_team(&cluster, dir.path());
    let ua = url(&cluster, "aiko", "team");
    let us = url(&cluster, "seo", "team");
    let (mut a, _) = assay_sync::join(&ua, &dir.path().join("a.assay")).unwrap();
    let (mut s, _) = assay_sync::join(&us, &dir.path().join("s.assay")).unwrap();
    let aiko = author(&a, "aiko");
    let seo = author(&s, "seo");
    // Honest work to attack: aiko's edits, seo's sign-off of one of them, aiko's run.
    edit_answer(&mut a, "jg-002", "aiko's answer", &aiko);
    edit_answer(&mut a, "jg-003", "aiko's signed answer", &aiko);
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    let id3 = s.item_id_by_ext("jgraph-mini", "jg-003").unwrap();
    s.sign_off(id3, true, Some("checked"), &seo).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    recorded_run(&mut a, "gpt", "exact", &[("jg-001", 1.0)]);
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    let before = (shown(&a), shown(&s));
    let scores_before = scores(&s);
    assert_eq!(scores_before, vec![("jg-001".into(), Some(1.0))]);

    let mut eve = Client::connect(&url(&cluster, "minjun", "team"), NoTls).unwrap();
    let aiko2 = head(&mut eve, "jg-002");
    let aiko3 = head(&mut eve, "jg-003");
    let orig4: String = one(
        &mut eve,
        "SELECT uid FROM revisions WHERE ext_id = 'jg-004' AND base_uid IS NULL",
    );

    // 1. "Approved" without a review by someone else.
    refused(
        forge(
            &mut eve,
            "f1",
            "jg-004",
            Some(&orig4),
            "approved",
            None,
            &orig4,
        ),
        "approved on the original",
    );
    refused(
        forge(
            &mut eve,
            "f2",
            "jg-004",
            Some(&aiko2),
            "approved",
            None,
            &aiko2,
        ),
        "approved on a revision of another item",
    );
    refused(
        forge(
            &mut eve,
            "f3",
            "jg-002",
            Some(&aiko2),
            "approved",
            Some(r#"{"question":"q","answer":"eve's"}"#),
            &aiko2,
        ),
        "approved with content of one's own",
    );
    refused(
        forge(
            &mut eve,
            "f4",
            "jg-002",
            Some(&aiko2),
            "approved",
            None,
            &aiko2,
        ),
        "approved without the review decision it records",
    );
    // Eve's own edit, then an "approval" of it resting on a decision about aiko's revision.
    eve.execute(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags, status,
                                content)
         SELECT 'e1', dataset, ext_id, uid, 'minjun', 'now', 0, 'edited',
                jsonb_set(content, '{answer}', '\"eve''s edit\"')
         FROM revisions WHERE uid = $1",
        &[&aiko2],
    )
    .unwrap();
    refused(
        eve.execute(
            "INSERT INTO review_decisions (uid, revision_uid, made_uid, decision, author, created_at)
             VALUES ('d-own', 'e1', 'f5', 'approve', 'minjun', 'now')",
            &[],
        ),
        "reviewing one's own revision",
    );
    refused(
        forge(&mut eve, "f5", "jg-002", Some("e1"), "approved", None, "e1"),
        "approving one's own revision",
    );
    // Approving one's own work once someone else has flagged it (the flag repeats the content).
    assay_sync::sync(&ua, &mut a).unwrap();
    let id2 = a.item_id_by_ext("jgraph-mini", "jg-002").unwrap();
    a.review(
        id2,
        ReviewDecision::RequestChanges,
        Some("check the unit"),
        &aiko,
    )
    .unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    let flagged = head(&mut eve, "jg-002");
    refused(
        eve.execute(
            "INSERT INTO review_decisions (uid, revision_uid, made_uid, decision, author, created_at)
             VALUES ('d-flag', $1, 'f6', 'approve', 'minjun', 'now')",
            &[&flagged],
        ),
        "approving one's own work after another member flagged it",
    );
    refused(
        forge(
            &mut eve,
            "f6",
            "jg-002",
            Some(&flagged),
            "approved",
            None,
            &flagged,
        ),
        "an approval record of one's own work after a flag",
    );
    // Nor after another member touched only its status outside a review (a bulk "to do").
    let todo = assay_core::store::BulkChange {
        status: Some(ItemStatus::Todo),
        ..Default::default()
    };
    let only = assay_core::store::Filter {
        ids: vec![id2],
        ..Default::default()
    };
    assert_eq!(a.bulk_edit(&only, &todo, &aiko).unwrap().changed, 1);
    assay_sync::sync(&ua, &mut a).unwrap();
    let touched = head(&mut eve, "jg-002");
    assert_ne!(touched, flagged);
    refused(
        eve.execute(
            "INSERT INTO review_decisions (uid, revision_uid, made_uid, decision, author, created_at)
             VALUES ('d-todo', $1, 'f7', 'approve', 'minjun', 'now')",
            &[&touched],
        ),
        "approving one's own work after another member set its status",
    );
    // Nor after another member added a tag: a tag is a remark on the work, not the work.
    let tag = assay_core::store::BulkChange {
        add_tags: vec![assay_core::IssueTag::Ambiguous],
        ..Default::default()
    };
    assert_eq!(a.bulk_edit(&only, &tag, &aiko).unwrap().changed, 1);
    assay_sync::sync(&ua, &mut a).unwrap();
    let tagged = head(&mut eve, "jg-002");
    assert_ne!(tagged, touched);
    refused(
        eve.execute(
            "INSERT INTO review_decisions (uid, revision_uid, made_uid, decision, author, created_at)
             VALUES ('d-tag', $1, 'f8', 'approve', 'minjun', 'now')",
            &[&tagged],
        ),
        "approving one's own work after another member tagged it",
    );
    // aiko flags it again: what follows reads it as flagged.
    let again = assay_core::store::BulkChange {
        status: Some(ItemStatus::Flagged),
        ..Default::default()
    };
    a.bulk_edit(&only, &again, &aiko).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    // A snapshot taken before the auditor's sign-off, written after it.
    let mut old_view = eve
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .start()
        .unwrap();
    let head4 = {
        let r = old_view
            .query_one(
                "SELECT uid FROM revisions WHERE ext_id = 'jg-004' ORDER BY seq DESC LIMIT 1",
                &[],
            )
            .unwrap();
        r.get::<_, String>(0)
    };
    assay_sync::sync(&us, &mut s).unwrap();
    let id4 = s.item_id_by_ext("jgraph-mini", "jg-004").unwrap();
    s.sign_off(id4, true, None, &seo).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    refused(
        old_view.execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             SELECT 'rr1', dataset, ext_id, uid, 'minjun', 'now', 0, 'edited', content
             FROM revisions WHERE uid = $1",
            &[&head4],
        ),
        "an edit from a snapshot older than the sign-off",
    );
    drop(old_view);
    // 2. A revision without a base, on another item's base, or on a signed-off item.
    refused(
        forge(&mut eve, "b1", "jg-005", None, "edited", None, &orig4),
        "a revision without a base",
    );
    refused(
        forge(
            &mut eve,
            "b2",
            "jg-005",
            Some(&orig4),
            "edited",
            None,
            &orig4,
        ),
        "a base of another item",
    );
    refused(
        forge(
            &mut eve,
            "l1",
            "jg-003",
            Some(&aiko3),
            "edited",
            None,
            &aiko3,
        ),
        "an edit of a signed-off item",
    );
    let orig3 = one(
        &mut eve,
        "SELECT uid FROM revisions WHERE ext_id = 'jg-003' AND base_uid IS NULL",
    );
    refused(
        forge(
            &mut eve,
            "l2",
            "jg-003",
            Some(&orig3),
            "edited",
            None,
            &orig3,
        ),
        "an edit of a signed-off item on an older base",
    );
    refused(
        eve.execute(
            "INSERT INTO review_decisions (uid, revision_uid, decision, author, created_at)
             VALUES ('d-locked', $1, 'request_changes', 'minjun', 'now')",
            &[&aiko3],
        ),
        "a review of a signed-off item",
    );
    // 3. Authorship, roles and history.
    refused(
        eve.execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags, status,
                                    content)
             SELECT 'a1', dataset, ext_id, uid, 'aiko', 'now', 0, 'edited', content
             FROM revisions WHERE uid = $1",
            &[&aiko2],
        ),
        "writing as someone else",
    );
    refused(
        eve.execute("UPDATE revisions SET note = 'x' WHERE uid = $1", &[&aiko2]),
        "rewriting history",
    );
    refused(
        eve.execute("DELETE FROM signoffs", &[]),
        "deleting a sign-off",
    );
    refused(
        eve.execute(
            "INSERT INTO signoffs (uid, revision_uid, signed, author, created_at)
             VALUES ('s-eve', $1, false, 'minjun', 'now')",
            &[&aiko3],
        ),
        "an annotator reopening a signed-off item",
    );
    refused(
        eve.execute(
            "UPDATE members SET role = 'auditor' WHERE name = 'minjun'",
            &[],
        ),
        "raising one's own role",
    );
    refused(
        eve.execute(
            "INSERT INTO members (name, role, db_role) VALUES ('mallory', 'auditor', 'minjun')",
            &[],
        ),
        "adding oneself as an auditor",
    );
    refused(
        eve.execute("CREATE TABLE mine (x int)", &[]),
        "creating objects in the team's schema",
    );
    refused(
        eve.execute(
            "INSERT INTO signoffs (uid, revision_uid, signed, author, created_at)
             VALUES ('s-eve2', $1, true, 'minjun', 'now')",
            &[&aiko2],
        ),
        "an annotator signing off",
    );
    refused(
        eve.execute(
            "INSERT INTO rounds (uid, name, purpose, overlap, created_by, created_at, assignments)
             VALUES ('r1', 'mine', 'annotate', 0, 'minjun', 'now', '[]')",
            &[],
        ),
        "an annotator leading a round",
    );
    refused(
        eve.execute(
            "INSERT INTO comments (uid, revision_uid, body, mentions, author, created_at)
             VALUES ('c-seo', $1, 'as seo', '{}', 'seo', 'now')",
            &[&aiko2],
        ),
        "commenting as someone else",
    );
    refused(
        eve.execute(
            "INSERT INTO comments (uid, revision_uid, body, mentions, author, created_at)
             VALUES ('c-blank', $1, '  ', '{}', 'minjun', 'now')",
            &[&aiko2],
        ),
        "a blank comment (replicas cannot store one)",
    );
    refused(
        eve.execute(
            "INSERT INTO comments (uid, revision_uid, body, mentions, author, created_at)
             VALUES ('c-null', $1, 'hi', ARRAY[NULL]::text[], 'minjun', 'now')",
            &[&aiko2],
        ),
        "a mention that is no name",
    );
    // A comment under a revision's uid reaches the team (uids are per table there); replicas
    // keep the two apart and set the comment aside.
    eve.execute(
        "INSERT INTO comments (uid, revision_uid, body, mentions, author, created_at)
         VALUES ($1, $1, 'a comment under a revision''s uid', '{}', 'minjun', 'now')",
        &[&aiko2],
    )
    .unwrap();
    refused(
        eve.execute("SELECT nextval('assay_position')", &[]),
        "drawing the team's positions",
    );
    refused(
        eve.execute("SELECT pg_advisory_lock(7412)", &[]),
        "a session-level push lock",
    );
    // 4. Positions and times are the server's.
    forge(&mut eve, "e2", "jg-006", None, "edited", None, &orig4).ok();
    let orig6 = one(
        &mut eve,
        "SELECT uid FROM revisions WHERE ext_id = 'jg-006' AND base_uid IS NULL",
    );
    eve.execute(
        "INSERT INTO revisions (seq, uid, dataset, ext_id, base_uid, author, created_at, tags,
                                status, content)
         SELECT 900000000000, 'e3', dataset, ext_id, uid, 'minjun', '2999-01-01', 0, 'edited',
                content FROM revisions WHERE uid = $1",
        &[&orig6],
    )
    .unwrap();
    let (seq, at): (i64, String) = {
        let r = eve
            .query_one(
                "SELECT seq, created_at FROM revisions WHERE uid = 'e3'",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert!(seq < 1_000_000, "the server chose the position: {seq}");
    assert!(at.starts_with("20") && !at.starts_with("2999"), "{at}");
    // 5. Content the replicas cannot read.
    refused(
        forge(
            &mut eve,
            "j1",
            "jg-007",
            Some(&orig4),
            "edited",
            Some("not json"),
            &orig4,
        ),
        "content that is not JSON",
    );
    refused(
        forge(
            &mut eve,
            "j2",
            "jg-007",
            Some(&orig4),
            "edited",
            Some("[1, 2]"),
            &orig4,
        ),
        "content that is not an object",
    );
    refused(
        eve.execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             SELECT 'j3', dataset, ext_id, uid, 'minjun', 'now', 0, 'certified', content
             FROM revisions WHERE uid = $1",
            &[&orig6],
        ),
        "a status Assay does not have",
    );
    // Valid JSON that is not an item reaches the team; every replica sets it aside and syncs on.
    let orig8 = one(
        &mut eve,
        "SELECT uid FROM revisions WHERE ext_id = 'jg-008' AND base_uid IS NULL",
    );
    forge(
        &mut eve,
        "j4",
        "jg-008",
        Some(&orig8),
        "edited",
        Some(r#"{"images": 7}"#),
        &orig8,
    )
    .unwrap();

    // 6. Another member's run: their origin, their results, their responses.
    let origin: String = one(
        &mut eve,
        "SELECT origin FROM runs WHERE author = 'aiko' ORDER BY seq DESC LIMIT 1",
    );
    let snap: String = one(
        &mut eve,
        "SELECT snapshot FROM runs WHERE author = 'aiko' ORDER BY seq DESC LIMIT 1",
    );
    eve.execute(
        "INSERT INTO models (name, config) VALUES ('gpt', $1::text::jsonb)",
        &[&r#"{"name":"gpt","endpoints":["http://127.0.0.1:9/v1"],"model":"gpt","api_key_env":"ASSAY_TEAM_PASSWORD"}"#],
    )
    .unwrap();
    let model_author = one(
        &mut eve,
        "SELECT author FROM models WHERE config->>'api_key_env' = 'ASSAY_TEAM_PASSWORD'",
    );
    assert_eq!(model_author, "minjun", "a model is its writer's");
    for (who, what) in [("minjun", "under aiko's origin"), ("aiko", "as aiko")] {
        refused(
            eve.execute(
                "INSERT INTO runs (snapshot, origin, model, dataset, version, variant, run_index,
                                   template, scorer, source, status, created_at, finished_at,
                                   author)
                 VALUES ($1 || '@2999', $1, 'gpt', 'jgraph-mini', 'before', 'original', 0,
                         'default', 'exact', 'recorded', 'complete', 'now', '2999', $2)",
                &[&origin, &who],
            ),
            &format!("a run snapshot {what}"),
        );
    }
    refused(
        eve.execute(
            "INSERT INTO run_items (snapshot, ext_id, revision_uid, outcome, from_cache, score)
             VALUES ($1, 'jg-002', $2, 'scored', false, 0)",
            &[&snap, &aiko2],
        ),
        "results in another member's run",
    );
    let key: String = one(
        &mut eve,
        "SELECT cache_key FROM run_items WHERE cache_key IS NOT NULL LIMIT 1",
    );
    // A planted response under the key of aiko's result: it is eve's, not aiko's run's.
    eve.execute(
        "INSERT INTO responses (cache_key, text, created_at) VALUES ($1, 'poison', 'now')",
        &[&key],
    )
    .unwrap();
    refused(
        eve.execute("DELETE FROM responses WHERE author = 'aiko'", &[]),
        "deleting another's responses",
    );
    refused(
        eve.execute("UPDATE models SET config = '{}'::jsonb", &[]),
        "rewriting a model",
    );
    // Eve's own run of her model "gpt" (the attacker's endpoint and a key variable naming the
    // team password) reaches the replicas as her run, never as a usable model.
    eve.execute(
        "INSERT INTO runs (snapshot, origin, model, dataset, version, variant, run_index,
                           template, scorer, source, status, created_at, finished_at)
         VALUES ('evil@1', 'evil', 'gpt', 'jgraph-mini', 'before', 'original', 0,
                 'default', 'exact', 'recorded', 'complete', 'now', '1')",
        &[],
    )
    .unwrap();
    refused(
        eve.execute(
            "INSERT INTO run_items (snapshot, ext_id, revision_uid, outcome, from_cache, score)
             VALUES ('evil@1', 'jg-001', $1, 'scored', false, 0)",
            &[&aiko2],
        ),
        "a result that scores another item's revision",
    );
    let orig1 = one(
        &mut eve,
        "SELECT uid FROM revisions WHERE ext_id = 'jg-001' AND base_uid IS NULL",
    );
    refused(
        eve.execute(
            "INSERT INTO run_items (snapshot, ext_id, revision_uid, outcome, from_cache, score)
             VALUES ('evil@1', 'jg-001', $1, 'scored', false, 0)",
            &[&orig1],
        ),
        "results added to a snapshot after it was published",
    );
    // Her own new snapshot, in its own transaction: an unknown outcome or a scorer version
    // that is not one are still refused.
    for (outcome, version) in [("bogus", 2), ("hedged", 0)] {
        let mut tx = eve.transaction().unwrap();
        tx.execute(
            "INSERT INTO runs (snapshot, origin, model, dataset, version, variant, run_index,
                               template, scorer, source, status, created_at, finished_at)
             VALUES ('evil@2', 'evil', 'gpt', 'jgraph-mini', 'before', 'original', 0,
                     'default', 'exact', 'recorded', 'complete', 'now', '2')",
            &[],
        )
        .unwrap();
        refused(
            tx.execute(
                "INSERT INTO run_items (snapshot, ext_id, revision_uid, outcome, from_cache, score, scorer_version)
                 VALUES ('evil@2', 'jg-001', $1, $2, false, 0, $3)",
                &[&orig1, &outcome, &version],
            ),
            &format!("a result with outcome {outcome} and scorer version {version}"),
        );
        tx.rollback().unwrap();
    }
    // 7. Images: bytes that do not hash to their key.
    refused(
        eve.execute(
            "INSERT INTO images (hash, width, height, format, bytes)
             VALUES (repeat('0', 64), 1, 1, 'png', '\\x00')",
            &[],
        ),
        "an image whose bytes do not match its hash",
    );
    refused(eve.execute("DELETE FROM images", &[]), "deleting images");

    // What every replica shows is unchanged by all of it (e1 and e3 are eve's own honest-looking
    // edits: they arrive as hers, edited, not approved).
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    for (p, was) in [(&a, &before.0), (&s, &before.1)] {
        let now = shown(p);
        for (row, old) in now.iter().zip(was.iter()) {
            match row.0.as_str() {
                "jg-002" => assert_eq!(
                    (row.1, row.3.as_deref()),
                    (ItemStatus::Flagged, Some("eve's edit"))
                ),
                "jg-004" => assert!(row.2, "signed off by seo"),
                "jg-006" => assert_eq!(row.1, ItemStatus::Edited),
                _ => assert_eq!(row, old, "{}", row.0),
            }
            assert!(row.1 != ItemStatus::Approved, "{row:?}");
        }
        assert!(
            now.iter().any(|r| r.0 == "jg-003" && r.2),
            "still signed off"
        );
    }
    assert_eq!(scores(&s), scores_before, "aiko's scores as aiko made them");
    let set_aside = s.refused_rows().unwrap();
    assert!(
        set_aside
            .iter()
            .any(|r| r.0 == "pulled revisions" && r.1 == "j4"),
        "{set_aside:?}"
    );
    assert!(
        set_aside
            .iter()
            .any(|r| r.0 == "pulled comments" && r.1 == aiko2),
        "{set_aside:?}"
    );
    // The planted response is not the trace of aiko's result, and pulled responses are never
    // cache hits here.
    let traced = s
        .item_results(s.item_id_by_ext("jgraph-mini", "jg-001").unwrap())
        .unwrap();
    assert!(traced
        .iter()
        .all(|t| t.response.as_deref() != Some("poison")));
    assert!(
        s.response(&key).unwrap().is_none(),
        "a pulled response served as a cache hit"
    );
    // The pulled model configs are not used until someone here accepts them, and a key variable
    // naming the team password is refused even then.
    // aiko's "gpt" is still aiko's configuration on every replica; eve's is kept apart under
    // her name and is never used to send a request (nor is its key variable ever read).
    // On seo's replica aiko's model carries her name: a model is its publisher's.
    for (p, name) in [(&a, "gpt"), (&s, "gpt (aiko)")] {
        let gpt = assay_eval::model::model_by_name(p, name).unwrap().config;
        assert_eq!(gpt.api_key_env, None, "aiko's configuration kept");
    }
    let evil = assay_eval::model::model_by_name(&s, "gpt (minjun)")
        .unwrap()
        .config;
    assert_eq!(evil.api_key_env.as_deref(), Some("ASSAY_TEAM_PASSWORD"));
    assert!(assay_eval::trust::model_for_requests(&s, "gpt (minjun)").is_err());
    assert!(
        evil.api_key().is_none(),
        "a key variable naming Assay's secret is never read"
    );
    assert!(assay_eval::trust::model_for_requests(&s, "gpt (aiko)").is_err());
    // A fresh replica joins past all of it.
    let (mut late, _) = assay_sync::join(&ua, &dir.path().join("late.assay")).unwrap();
    assert_eq!(shown(&late), shown(&a));

    // 8. The team's locks. A comment left in an open transaction holds nobody up: pushes wait
    // only for writers of the same item, and for commits.
    let mut tx = eve.transaction().unwrap();
    tx.execute(
        "INSERT INTO comments (uid, revision_uid, body, mentions, author, created_at)
         VALUES ('c-held', $1, 'holding a transaction open', '{}', 'minjun', 'now')",
        &[&aiko2],
    )
    .unwrap();
    edit_answer(&mut a, "jg-009", "while eve holds a comment open", &aiko);
    assay_sync::sync(&ua, &mut a).expect("a comment's transaction blocks nobody");
    // An insert of the item itself, left open, holds that item's lock: a push of the item waits
    // a bounded time and names her.
    tx.execute(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags, status,
                                content)
         SELECT 'e-held', dataset, ext_id, uid, 'minjun', 'now', 0, 'edited', content
         FROM revisions WHERE ext_id = 'jg-009' ORDER BY seq DESC LIMIT 1",
        &[],
    )
    .unwrap();
    edit_answer(&mut a, "jg-009", "while eve holds the item", &aiko);
    // The push gives up (its lock timeout) and names who holds the item, rather than waiting on.
    match assay_sync::sync(&ua, &mut a) {
        Err(SyncError::Blocked(who)) => assert!(who.contains("minjun"), "{who}"),
        other => panic!("expected a bounded wait naming the holder, got {other:?}"),
    }
    assert_eq!(a.sync_status().unwrap().pending, 1, "kept, to push later");
    // Left idle past the stale limit, eve's transaction loses its session and the push goes on.
    std::thread::sleep(Duration::from_secs(2));
    assay_sync::sync(&ua, &mut a).unwrap();
    assert!(tx.rollback().is_err(), "eve's session was ended");
    let mut eve = Client::connect(&url(&cluster, "minjun", "team"), NoTls).unwrap();
    assert_eq!(one(&mut eve, "SELECT assay_me()"), "minjun");
    assay_sync::sync(&ua, &mut late).unwrap();
    assert_eq!(
        answer(&late, "jg-009").as_deref(),
        Some("while eve holds the item")
    );
    // The commit lock, taken mid-transaction by making the placement immediate and then left
    // open: every commit waits a bounded time, names her, and she loses the session.
    let mut tx = eve.transaction().unwrap();
    tx.batch_execute("SET CONSTRAINTS ALL IMMEDIATE").unwrap();
    tx.execute(
        "INSERT INTO comments (uid, revision_uid, body, mentions, author, created_at)
         VALUES ('c-held-2', $1, 'holding the commit lock', '{}', 'minjun', 'now')",
        &[&aiko2],
    )
    .unwrap();
    edit_answer(&mut a, "jg-009", "while eve holds the commit lock", &aiko);
    match assay_sync::sync(&ua, &mut a) {
        Err(SyncError::Blocked(who)) => assert!(who.contains("minjun"), "{who}"),
        other => panic!("expected a bounded wait naming the holder, got {other:?}"),
    }
    assert_eq!(a.sync_status().unwrap().pending, 1, "kept, to push later");
    std::thread::sleep(Duration::from_secs(2));
    assay_sync::sync(&ua, &mut a).unwrap();
    assert!(tx.rollback().is_err(), "eve's session was ended");
    let mut eve = Client::connect(&url(&cluster, "minjun", "team"), NoTls).unwrap();
    assert_eq!(one(&mut eve, "SELECT assay_me()"), "minjun");
    // Positions stay the server's: a row cannot be moved by hand, not even to "place" it.
    refused(
        eve.execute(
            "UPDATE revisions SET seq = seq + 1000000 WHERE author = 'minjun'",
            &[],
        ),
        "moving one's own row",
    );
    {
        let mut tx = eve.transaction().unwrap();
        tx.batch_execute("SELECT set_config('assay.placing', pg_current_xact_id()::text, true)")
            .unwrap();
        refused(
            tx.execute(
                "UPDATE revisions SET seq = seq + 1000000 WHERE uid = 'e3'",
                &[],
            ),
            "an update in the placement's name",
        );
    }
    assay_sync::sync(&ua, &mut late).unwrap();
    assert_eq!(
        answer(&late, "jg-009").as_deref(),
        Some("while eve holds the commit lock")
    );
    // A review decision on one item naming, as its record, a revision eve writes of another
    // item at the same time: under two items' locks neither insert sees the other, and the
    // pair is caught where placements run one at a time.
    assert_ne!(
        item_bucket(&mut eve, "jg-002"),
        item_bucket(&mut eve, "jg-009")
    );
    let mut eve2 = Client::connect(&url(&cluster, "minjun", "team"), NoTls).unwrap();
    let mut t1 = eve.transaction().unwrap();
    t1.execute(
        "INSERT INTO review_decisions (uid, revision_uid, made_uid, decision, author, created_at)
         VALUES ('d-cross', $1, 'x-cross', 'request_changes', 'minjun', 'now')",
        &[&aiko2],
    )
    .unwrap();
    let mut t2 = eve2.transaction().unwrap();
    t2.execute(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags, status,
                                content)
         SELECT 'x-cross', dataset, ext_id, uid, 'minjun', 'now', 0, 'edited', content
         FROM revisions WHERE ext_id = 'jg-009' ORDER BY seq DESC LIMIT 1",
        &[],
    )
    .unwrap();
    t2.commit().unwrap();
    let e = t1
        .commit()
        .expect_err("a decision recorded by another item's revision");
    assert!(format!("{e:?}").contains("records a revision"), "{e:?}");
    assert_eq!(
        one(
            &mut eve2,
            "SELECT count(*)::text FROM review_decisions WHERE uid = 'd-cross'"
        ),
        "0"
    );

    // 9. A compromised server (rows written by the owner, past every member rule): replicas set
    // aside what breaks a rule and keep syncing.
    let mut owner = Client::connect(&admin, NoTls).unwrap();
    let orig10 = one(
        &mut owner,
        "SELECT uid FROM revisions WHERE ext_id = 'jg-010' AND base_uid IS NULL",
    );
    owner
        .execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             SELECT 'o1', 'jgraph-mini', 'jg-011', $1, 'minjun', 'now', 0, 'approved', content
             FROM revisions WHERE uid = $1",
            &[&orig10],
        )
        .unwrap();
    let head5 = head(&mut owner, "jg-005");
    owner
        .execute(
            "INSERT INTO signoffs (uid, revision_uid, signed, author, created_at)
             VALUES ('o2', $1, true, 'minjun', 'now')",
            &[&head5],
        )
        .unwrap();
    owner
        .execute(
            "INSERT INTO review_decisions (uid, revision_uid, decision, author, created_at)
             VALUES ('o3', $1, 'approve', 'aiko', 'now')",
            &[&aiko2.clone()],
        )
        .ok();
    // A decision on one item naming another item's revision as its record.
    let head4 = head(&mut owner, "jg-004");
    owner
        .execute(
            "INSERT INTO review_decisions (uid, revision_uid, made_uid, decision, author, created_at)
             VALUES ('o4', $1, $2, 'request_changes', 'minjun', 'now')",
            &[&aiko2, &head4],
        )
        .unwrap();
    let before_s = shown(&s);
    assay_sync::sync(&us, &mut s).unwrap();
    let after_s = shown(&s);
    for (x, y) in after_s.iter().zip(before_s.iter()) {
        if x.0 != "jg-009" {
            assert_eq!(x, y, "{}", x.0);
        }
    }
    let aside: Vec<String> = s.refused_rows().unwrap().into_iter().map(|r| r.1).collect();
    assert!(aside.contains(&"o1".to_string()), "{aside:?}");
    assert!(aside.contains(&"o2".to_string()), "{aside:?}");
    assert!(aside.contains(&"o4".to_string()), "{aside:?}");

    // Honest work still flows: seo reopens, aiko edits, seo approves, everyone sees it.
    s.sign_off(id3, false, Some("one more fix"), &seo).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    edit_answer(&mut a, "jg-003", "fixed after reopening", &aiko);
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    s.review(id3, ReviewDecision::Approve, None, &seo).unwrap();
    let r = assay_sync::sync(&us, &mut s).unwrap();
    assert_eq!(r.refused, 0);
    assay_sync::sync(&ua, &mut a).unwrap();
    let it = a
        .item(a.item_id_by_ext("jgraph-mini", "jg-003").unwrap())
        .unwrap();
    assert_eq!(it.status, ItemStatus::Approved);
    assert_eq!(it.content.answer.as_deref(), Some("fixed after reopening"));
    // A replica that saw the sign-off and none of what followed takes the reopening, the edit
    // and the approval in the order they were made.
    assay_sync::sync(&ua, &mut late).unwrap();
    let it = late
        .item(late.item_id_by_ext("jgraph-mini", "jg-003").unwrap())
        .unwrap();
    assert_eq!(
        (it.status, it.signed_off, it.content.answer.as_deref()),
        (ItemStatus::Approved, false, Some("fixed after reopening"))
    );

    one_team_one_database(&cluster, dir.path());
    cluster.stop();
}

/// A member of one team cannot open another team's database on the same server, and a second
/// team's owner cannot take over the first team's logins.
fn one_team_one_database(cluster: &Cluster, dir: &std::path::Path) {
    let admin2 = create_db(cluster, "team2");
    let mut p2 = Project::create(dir.join("other.assay")).unwrap();
    p2.ensure_user("rin", Role::Auditor).unwrap();
    assay_sync::init(&admin2, &mut p2).unwrap();
    assay_sync::add_member(&admin2, "rin", Role::Auditor, "pw-rin").unwrap();
    let e = Client::connect(&url(cluster, "minjun", "team2"), NoTls)
        .err()
        .expect("another team's member is refused");
    assert_eq!(e.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE), "{e}");
    let e = Client::connect(&url(cluster, "rin", "team"), NoTls)
        .err()
        .expect("another team's member is refused");
    assert_eq!(e.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE), "{e}");
    // "minjun" is team one's login: team two's owner cannot reset it.
    assert!(assay_sync::add_member(&admin2, "minjun", Role::Auditor, "taken").is_err());
    Client::connect(&url(cluster, "minjun", "team"), NoTls).expect("minjun's password unchanged");
    // Passwords reach the server as SCRAM verifiers.
    let mut root = Client::connect(&cluster.admin_url("postgres"), NoTls).unwrap();
    let stored: String = root
        .query_one(
            "SELECT rolpassword FROM pg_authid WHERE rolname = 'rin'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(stored.starts_with("SCRAM-SHA-256$"), "{stored}");
    // A password given as a URL parameter works and is not kept in the project file.
    let with_param = format!(
        "postgres://rin@127.0.0.1:{}/team2?password=pw-rin",
        cluster.port
    );
    let (joined, _) = assay_sync::join(&with_param, &dir.join("rin.assay")).unwrap();
    let kept = joined.sync_get("team").unwrap().unwrap();
    assert!(!kept.contains("pw-rin"), "{kept}");
    // A database dropped and made again under the same name keeps none of its old team.
    drop(joined);
    let mut root = Client::connect(&cluster.admin_url("postgres"), NoTls).unwrap();
    root.batch_execute("DROP DATABASE team2 WITH (FORCE)")
        .unwrap();
    root.batch_execute("CREATE DATABASE team2").unwrap();
    let mut p3 = Project::create(dir.join("third.assay")).unwrap();
    p3.ensure_user("kai", Role::Auditor).unwrap();
    assay_sync::init(&admin2, &mut p3).unwrap();
    let e = Client::connect(&url(cluster, "rin", "team2"), NoTls)
        .err()
        .expect("the old team's member is refused");
    assert_eq!(e.code(), Some(&SqlState::INSUFFICIENT_PRIVILEGE), "{e}");
}

/// A member writes a run whose one result carries 20 MB of evidence (compressed by PostgreSQL,
/// so cheap to write): a colleague's sync reads none of it, sets the run aside with the
/// reason, and goes on taking the team's other rows.
#[test]
fn a_result_over_the_bound_is_set_aside_unread_and_the_pull_goes_on() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("ASSAY_TRUST_FILE", dir.path().join("accepted-endpoints"));
    published_team(&cluster, dir.path());
    let ua = url(&cluster, "aiko", "team");
    let um = url(&cluster, "minjun", "team");
    let us = url(&cluster, "seo", "team");
    let (mut a, _) = assay_sync::join(&ua, &dir.path().join("a.assay")).unwrap();
    let (mut m, _) = assay_sync::join(&um, &dir.path().join("m.assay")).unwrap();
    let (mut s, _) = assay_sync::join(&us, &dir.path().join("s.assay")).unwrap();

    let run = recorded_run(&mut m, "huge", "exact", &[("jg-001", 1.0)]);
    m.connection()
        .execute(
            "UPDATE run_items SET evidence = ?2 WHERE run_id = ?1",
            rusqlite::params![run, "x".repeat(20 << 20)],
        )
        .unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-002", "after the huge run", &aiko);
    assay_sync::sync(&ua, &mut a).unwrap();

    let report = assay_sync::sync(&us, &mut s).unwrap();
    assert!(report.pulled >= 1, "{report:?}");
    assert_eq!(answer(&s, "jg-002").as_deref(), Some("after the huge run"));
    assert!(
        scores(&s).is_empty(),
        "the huge run was taken: {:?}",
        scores(&s)
    );
    let aside = s.refused_rows().unwrap();
    assert!(
        aside
            .iter()
            .any(|(t, _, why)| t == "pulled runs" && why.contains("over the team's bound")),
        "{aside:?}"
    );
    cluster.stop();
}

/// A member publishes a model under the name and with the very configuration a colleague will
/// use, with a run of forged scores: the colleague's own model of that name stays his, with
/// his runs only, and the forged run is shown under the member's name.
#[test]
fn a_model_published_first_under_a_colleagues_name_stays_its_publishers() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("ASSAY_TRUST_FILE", dir.path().join("accepted-endpoints"));
    published_team(&cluster, dir.path());
    let um = url(&cluster, "minjun", "team");
    let us = url(&cluster, "seo", "team");
    let (mut m, _) = assay_sync::join(&um, &dir.path().join("m.assay")).unwrap();
    let (mut s, _) = assay_sync::join(&us, &dir.path().join("s.assay")).unwrap();

    // Eve (minjun) goes first: seo's model name and configuration, and a perfect score.
    recorded_run(&mut m, "claude", "exact", &[("jg-001", 1.0)]);
    assay_sync::sync(&um, &mut m).unwrap();
    assay_sync::sync(&us, &mut s).unwrap();
    // Seo then records his own run of his "claude", the same configuration.
    recorded_run(&mut s, "claude", "exact", &[("jg-001", 0.0)]);
    assay_sync::sync(&us, &mut s).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();

    let runs = |p: &Project| -> Vec<String> {
        let mut v: Vec<_> = p
            .run_summaries()
            .unwrap()
            .into_iter()
            .map(|r| r.run.model)
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        runs(&s),
        ["claude", "claude (minjun)"],
        "seo's model holds his run only"
    );
    assert_eq!(runs(&m), ["claude", "claude (seo)"]);
    cluster.stop();
}
