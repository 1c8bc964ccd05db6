//! A team database published by an older Assay (schema 3: the cluster-wide member group, text
//! content, client positions) is brought up to the trust rules by its owner: its members keep
//! their access through the team's own group, their history stays readable, and the rules hold.

mod common;

use assay_sync::cluster::Cluster;
use common::*;
use postgres::{Client, NoTls};

#[test]
fn an_old_team_database_is_upgraded_to_the_trust_rules() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let admin = create_db(&cluster, "old");
    let content = |q: &str| {
        serde_json::to_string(&assay_core::ItemContent {
            question: q.into(),
            ..Default::default()
        })
        .unwrap()
    };
    let mut owner = Client::connect(&admin, NoTls).unwrap();
    let mut tx = owner.transaction().unwrap();
    for step in [
        include_str!("../../../migrations/postgres/0001_team.sql"),
        include_str!("../../../migrations/postgres/0002_runs.sql"),
        include_str!("../../../migrations/postgres/0003_comments_rounds.sql"),
    ] {
        tx.batch_execute(step).unwrap();
    }
    tx.batch_execute(
        "INSERT INTO members VALUES ('aiko', 'annotator', 'aiko');
         CREATE ROLE aiko LOGIN PASSWORD 'pw-aiko'; GRANT assay_member TO aiko;
         INSERT INTO datasets VALUES ('jgraph-mini', 'qa');
         INSERT INTO items VALUES ('jgraph-mini', 'jg-001', 1);",
    )
    .unwrap();
    tx.execute(
        "INSERT INTO revisions (uid, dataset, ext_id, created_at, tags, status, content)
         VALUES ('o1', 'jgraph-mini', 'jg-001', '', 0, 'todo', $1)",
        &[&content("q")],
    )
    .unwrap();
    tx.commit().unwrap();
    // aiko's work under schema 3, with the position her client chose.
    let mut aiko = Client::connect(&url(&cluster, "aiko", "old"), NoTls).unwrap();
    aiko.execute(
        "INSERT INTO revisions (seq, uid, dataset, ext_id, base_uid, author, created_at, tags,
                                status, content)
         VALUES (50, 'a1', 'jgraph-mini', 'jg-001', 'o1', 'aiko', 'then', 0, 'edited', $1)",
        &[&content("q?")],
    )
    .unwrap();
    drop(aiko);

    // A replica of this build does not work against the older schema: it says what to do.
    let early = tempfile::tempdir().unwrap();
    let refused = assay_sync::join(&url(&cluster, "aiko", "old"), &early.path().join("r.assay"))
        .err()
        .expect("refused")
        .to_string();
    assert!(refused.contains("assay team upgrade"), "{refused}");
    assert!(!early.path().join("r.assay").exists(), "nothing created");

    // Schema 3 to 14: the trust rules, scorer versions, blind rounds and judge ratings, saved
    // views, positions at commit, who wrote the work (not its tags), the team service's members,
    // sizes and the quota, runs' protocols, policies that ask who the member is once, the
    // service's positions at insert.
    assert_eq!(assay_sync::upgrade(&admin).unwrap(), 11);
    assert_eq!(assay_sync::upgrade(&admin).unwrap(), 0, "already current");

    let mut aiko = Client::connect(&url(&cluster, "aiko", "old"), NoTls).expect("still a member");
    let e = aiko
        .execute(
            "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags,
                                    status, content)
             SELECT 'a2', dataset, ext_id, uid, 'aiko', 'now', 0, 'approved', content
             FROM revisions WHERE uid = 'a1'",
            &[],
        )
        .expect_err("approving her own revision");
    assert_eq!(
        e.code(),
        Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
        "{e}"
    );
    aiko.execute(
        "INSERT INTO revisions (uid, dataset, ext_id, base_uid, author, created_at, tags, status,
                                content)
         SELECT 'a3', dataset, ext_id, uid, 'aiko', 'now', 0, 'edited', content
         FROM revisions WHERE uid = 'a1'",
        &[],
    )
    .unwrap();
    let seq: i64 = aiko
        .query_one("SELECT seq FROM revisions WHERE uid = 'a3'", &[])
        .unwrap()
        .get(0);
    assert!(seq > 50, "new positions come after every old one: {seq}");
    // A replica joins the upgraded team and sees the whole history.
    let dir = tempfile::tempdir().unwrap();
    let (p, _) =
        assay_sync::join(&url(&cluster, "aiko", "old"), &dir.path().join("a.assay")).unwrap();
    assert_eq!(answer(&p, "jg-001"), None);
    let id = p.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    assert_eq!(p.item(id).unwrap().content.question, "q?");
    assert_eq!(p.revisions(id).unwrap().len(), 3);
    cluster.stop();
}

/// Step 11 gives every revision its content's size. On a team with many revisions that must
/// not rewrite the table under an exclusive lock (every member's push would wait for it): the
/// column is added empty and filled in batches, to the same numbers a generated column holds,
/// and the filled rows stay append-only.
#[test]
fn content_sizes_arrive_without_rewriting_the_revisions() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let (admin, mut owner) = at_step_ten(
        &cluster,
        "ten",
        "INSERT INTO datasets VALUES ('big', 'qa');
         INSERT INTO items SELECT 'big', 'e' || g, g FROM generate_series(1, 25000) g;
         INSERT INTO revisions (uid, dataset, ext_id, created_at, tags, status, content)
         SELECT 'o' || g, 'big', 'e' || g, '', 0, 'todo',
                jsonb_build_object('question', repeat('q', g % 97), 'answer', 'あ' || g)
         FROM generate_series(1, 25000) g;",
    );
    let file = |db: &mut Client| -> u32 {
        db.query_one("SELECT pg_relation_filenode('revisions')::oid", &[])
            .unwrap()
            .get(0)
    };
    let before = file(&mut owner);

    // Step 11 alone leaves the sizes empty: an empty size may be filled with its true value
    // and nothing else, and no other column changes with it.
    owner.batch_execute(assay_sync::TEAM_SCHEMA[10]).unwrap();
    for change in [
        "UPDATE revisions SET content_bytes = 1 WHERE uid = 'o9'",
        "UPDATE revisions SET content_bytes = octet_length(content::text), note = 'x' WHERE uid = 'o9'",
        "UPDATE revisions SET content_bytes = octet_length(content::text), seq = seq + 100000
         WHERE uid = 'o9'",
        "UPDATE revisions SET content_bytes = octet_length(content::text),
                              content = '{\"question\": \"other\"}' WHERE uid = 'o9'",
    ] {
        let e = owner.batch_execute(change).expect_err(change);
        assert!(format!("{e:?}").contains("append-only"), "{change}: {e:?}");
    }
    let n = owner
        .execute(
            "UPDATE revisions SET content_bytes = octet_length(content::text) WHERE uid = 'o9'",
            &[],
        )
        .unwrap();
    assert_eq!(n, 1, "the true size fills an empty one");

    // Steps 12 to 14 (runs' protocols, policies that ask who the member is once, the
    // service's positions at insert).
    assert_eq!(assay_sync::upgrade(&admin).unwrap(), 3);
    assert_eq!(file(&mut owner), before, "the revisions were not rewritten");
    let wrong: i64 = owner
        .query_one(
            "SELECT count(*) FROM revisions
             WHERE content_bytes IS DISTINCT FROM octet_length(content::text)",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(wrong, 0, "every size filled, with the content's own");
    assert_eq!(
        assay_sync::fill_content_bytes(&mut owner).unwrap(),
        0,
        "nothing left"
    );

    // New rows get theirs on insert; a size once set, or any other column, cannot be changed.
    owner
        .batch_execute(
            "INSERT INTO items VALUES ('big', 'new', 0);
             INSERT INTO revisions (uid, dataset, ext_id, created_at, tags, status, content)
             VALUES ('o-new', 'big', 'new', '', 0, 'todo', '{\"question\": \"где?\"}')",
        )
        .unwrap();
    let size: Option<i32> = owner
        .query_one(
            "SELECT content_bytes FROM revisions WHERE uid = 'o-new'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(size, Some(r#"{"question": "где?"}"#.len() as i32));
    for change in [
        "UPDATE revisions SET content_bytes = 1 WHERE uid = 'o7'",
        "UPDATE revisions SET content_bytes = NULL WHERE uid = 'o7'",
        "UPDATE revisions SET note = 'x', content_bytes = content_bytes WHERE uid = 'o7'",
    ] {
        let e = owner.batch_execute(change).expect_err(change);
        assert!(
            e.to_string().contains("append-only") || format!("{e:?}").contains("append-only"),
            "{change}: {e:?}"
        );
    }
    cluster.stop();
}

/// A team that took step 11 in an earlier build has a generated size column: the upgrade goes
/// on past it (nothing to fill, nothing refused) and its pulls read the same sizes.
#[test]
fn a_team_with_generated_sizes_upgrades_on() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let (admin, mut owner) = at_step_ten(
        &cluster,
        "eleven",
        concat!(
            include_str!("0011_generated_sizes.sql"),
            ";\n",
            "INSERT INTO datasets VALUES ('d', 'qa'); INSERT INTO items VALUES ('d', 'e1', 1);
             INSERT INTO revisions (uid, dataset, ext_id, created_at, tags, status, content)
             VALUES ('o1', 'd', 'e1', '', 0, 'todo', '{\"question\": \"q\"}')"
        ),
    );
    assert_eq!(assay_sync::upgrade(&admin).unwrap(), 3, "steps 12 to 14");
    assert_eq!(assay_sync::fill_content_bytes(&mut owner).unwrap(), 0);
    let size: i32 = owner
        .query_one("SELECT content_bytes FROM revisions WHERE uid = 'o1'", &[])
        .unwrap()
        .get(0);
    assert_eq!(size, r#"{"question": "q"}"#.len() as i32);
    cluster.stop();
}

/// An upgrade stopped while it filled the sizes leaves the schema current and some sizes empty:
/// finishing the fill (what the service does as it starts) fills exactly those, with the
/// content's own size, and then finds nothing to do.
#[test]
fn a_size_fill_that_was_stopped_is_finished() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let (_admin, mut owner) = at_step_ten(&cluster, "stopped", "INSERT INTO datasets VALUES ('d', 'qa');
         INSERT INTO items SELECT 'd', 'e' || g, g FROM generate_series(1, 40) g;
         INSERT INTO revisions (uid, dataset, ext_id, created_at, tags, status, content)
         SELECT 'o' || g, 'd', 'e' || g, '', 0, 'todo', jsonb_build_object('question', repeat('q', g))
         FROM generate_series(1, 40) g;");
    for step in &assay_sync::TEAM_SCHEMA[10..] {
        owner.batch_execute(step).unwrap();
    }
    // The fill got as far as the first 15 before it was stopped.
    owner
        .batch_execute(
            "UPDATE revisions SET content_bytes = octet_length(content::text)
         WHERE uid IN (SELECT 'o' || g FROM generate_series(1, 15) g)",
        )
        .unwrap();
    assay_sync::require_current_schema(&mut owner).expect("the schema says current");
    assert_eq!(assay_sync::finish_size_fill(&mut owner).unwrap(), 25);
    let wrong: i64 = owner
        .query_one(
            "SELECT count(*) FROM revisions
             WHERE content_bytes IS DISTINCT FROM octet_length(content::text)",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(wrong, 0);
    assert_eq!(assay_sync::finish_size_fill(&mut owner).unwrap(), 0);
    let marked: bool = owner
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM assay_meta WHERE key = 'sizes_filled')",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(
        marked,
        "a start after this one looks no further than the mark"
    );
    cluster.stop();
}

/// A new database `name` at schema step 10 holding what `rows` (SQL run in the same
/// transaction) puts there: a team made before the sizes existed. Its URL and an owner's
/// connection.
fn at_step_ten(cluster: &Cluster, name: &str, rows: &str) -> (String, Client) {
    let admin = create_db(cluster, name);
    let mut owner = Client::connect(&admin, NoTls).unwrap();
    let mut tx = owner.transaction().unwrap();
    for step in &assay_sync::TEAM_SCHEMA[..10] {
        tx.batch_execute(step).unwrap();
    }
    tx.batch_execute(rows).unwrap();
    tx.commit().unwrap();
    (admin, owner)
}
