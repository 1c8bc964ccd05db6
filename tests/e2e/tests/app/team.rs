//! A team through PostgreSQL: the project published, two remote replicas editing one item at
//! once, the conflict resolved in the window and pushed, and a person joining from the start
//! screen.

use std::path::Path;

use fantoccini::Client;

use crate::common::fixtures::{stored, Scenario};
use crate::common::until;
use crate::common::window::{click, fill, screenshot, show, wait_for, wait_text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_through_postgresql_in_the_window() {
    let s = Scenario::new("a team through PostgreSQL");
    let c = s.start_as("e2e-auditor", Some("auditor")).await;
    a_team_through_postgresql(&c, &s.project).await;
    c.close().await.unwrap();
}

/// Two remote replicas (library calls: another person's machine) edit jg-005 on the same base.
async fn remote_edit(
    url: String,
    file: std::path::PathBuf,
    who: &'static str,
    answer: &'static str,
) {
    tokio::task::spawn_blocking(move || {
        let mut p = assay_core::Project::open(&file).unwrap();
        let u = p.user_by_name(who).unwrap().unwrap();
        let author = assay_core::store::Author {
            user_id: u.id,
            role: u.role,
            round: 1,
        };
        let id = p.item_id_by_ext("jgraph-mini", "jg-005").unwrap();
        let edit = assay_core::store::Edit::answer_fix(&p.item(id).unwrap(), answer);
        p.save_edit(id, &edit, &author).unwrap();
        assay_sync::sync(&url, &mut p).unwrap();
    })
    .await
    .unwrap();
}

fn stored_answer(project: &Path, ext: &str) -> Option<String> {
    stored(project, "jgraph-mini", ext).answer
}

/// The auditor publishes the project to a PostgreSQL database the test starts; two other people
/// join and edit one item at once; the app pulls both in the background, shows the conflict,
/// and the auditor keeps one side as a new revision.
async fn a_team_through_postgresql(c: &Client, project: &Path) {
    let cluster = tokio::task::spawn_blocking(|| {
        let cluster = assay_sync::cluster::Cluster::start().expect("a private PostgreSQL cluster");
        let mut admin =
            postgres::Client::connect(&cluster.admin_url("postgres"), postgres::NoTls).unwrap();
        admin.batch_execute("CREATE DATABASE e2e").unwrap();
        cluster
    })
    .await
    .unwrap();
    show(c, "team").await;
    fill(
        c,
        "[data-testid=publish-url]",
        &format!("postgres://postgres@127.0.0.1:{}/e2e", cluster.port),
    )
    .await;
    fill(
        c,
        "[data-testid=publish-password]",
        assay_sync::cluster::SUPERUSER_PASSWORD,
    )
    .await;
    click(c, "[data-testid=publish]").await;
    wait_text(c, "[data-testid=sync-state]", |t| t.starts_with("synced")).await;
    let stored_url = assay_core::Project::open(project)
        .unwrap()
        .sync_get("team")
        .unwrap()
        .unwrap();
    assert!(
        !stored_url.contains(assay_sync::cluster::SUPERUSER_PASSWORD),
        "{stored_url}"
    );
    show(c, "items").await;
    // The project's evaluation runs (the sample's recorded checklist judgement) were published
    // with it.
    let admin = cluster.admin_url("e2e");
    let (runs, results): (i64, i64) = tokio::task::spawn_blocking(move || {
        let mut db = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
        let r = db
            .query_one(
                "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM run_items)",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    })
    .await
    .unwrap();
    assert!(runs >= 1 && results >= 1, "runs {runs}, results {results}");

    let dir = tempfile::tempdir().unwrap();
    let admin_url = cluster.admin_url("e2e");
    let port = cluster.port;
    let (b, cc) = (dir.path().join("b.assay"), dir.path().join("c.assay"));
    let (b2, c2) = (b.clone(), cc.clone());
    tokio::task::spawn_blocking(move || {
        for who in ["remote-b", "remote-c"] {
            assay_sync::add_member(&admin_url, who, assay_core::Role::Annotator, "pw").unwrap();
        }
        assay_sync::join(&format!("postgres://remote-b:pw@127.0.0.1:{port}/e2e"), &b2).unwrap();
        assay_sync::join(&format!("postgres://remote-c:pw@127.0.0.1:{port}/e2e"), &c2).unwrap();
    })
    .await
    .unwrap();
    let url_b = format!("postgres://remote-b:pw@127.0.0.1:{port}/e2e");
    let url_c = format!("postgres://remote-c:pw@127.0.0.1:{port}/e2e");
    remote_edit(url_b.clone(), b.clone(), "remote-b", "answer from b").await;
    remote_edit(url_c, cc, "remote-c", "answer from c").await;

    // The app's background sync (every 5 s) pulls both: one conflict, the later one shown.
    wait_text(c, "[data-testid=sync-pill]", |t| t.contains("1 conflict")).await;
    assert_eq!(
        stored_answer(project, "jg-005").as_deref(),
        Some("answer from c")
    );
    show(c, "team").await;
    click(c, "[data-testid=conflict-item]").await;
    wait_for(c, "[data-testid=sync-conflict]").await;
    screenshot(c, "team-sync.png").await;
    click(c, "[data-testid=pick-answer-other]").await;
    click(c, "[data-testid=resolve-conflict]").await;
    until(
        c,
        || "never resolved".into(),
        move || async move { stored_answer(project, "jg-005").as_deref() == Some("answer from b") },
    )
    .await;
    // The resolution is pushed with the next sync and reaches the others.
    click(c, "[data-testid=sync-now]").await;
    wait_text(c, "[data-testid=sync-state]", |t| {
        t.starts_with("synced") && !t.contains("pending")
    })
    .await;
    let answer_b = tokio::task::spawn_blocking(move || {
        let mut p = assay_core::Project::open(&b).unwrap();
        assay_sync::sync(&url_b, &mut p).unwrap();
        let id = p.item_id_by_ext("jgraph-mini", "jg-005").unwrap();
        p.item(id).unwrap().content.answer
    })
    .await
    .unwrap();
    assert_eq!(answer_b.as_deref(), Some("answer from b"));
    show(c, "items").await;

    // Another person joins from the start screen: a new replica, opened, syncing.
    click(c, "[data-testid=switch]").await;
    fill(c, "[data-testid=user-name]", "remote-c").await;
    click(c, "[data-testid=role-annotator]").await;
    click(c, ".join-team summary").await;
    fill(
        c,
        "[data-testid=join-url]",
        &format!("postgres://remote-c@127.0.0.1:{port}/e2e"),
    )
    .await;
    fill(c, "[data-testid=join-password]", "pw").await;
    let joined = dir.path().join("joined.assay");
    fill(c, "[data-testid=join-file]", &joined.display().to_string()).await;
    click(c, "[data-testid=join]").await;
    wait_text(c, "[data-testid=chosen-project]", |t| t.contains("joined")).await;
    click(c, "[data-testid=start]").await;
    wait_text(c, "[data-testid=sync-pill]", |t| t.starts_with("synced")).await;
    assert_eq!(
        stored_answer(&joined, "jg-005").as_deref(),
        Some("answer from b")
    );
    tokio::task::spawn_blocking(move || drop(cluster))
        .await
        .unwrap();
}
