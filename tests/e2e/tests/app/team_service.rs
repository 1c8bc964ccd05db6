//! A team through the team service (`assay serve`): a lead's replica opened in the window, the
//! Team view's members read from the service, a newcomer invited with a one-time link, a
//! member's role changed and her access revoked; each checked in the team database, and the
//! revoked member refused on her next sync.

use std::path::PathBuf;
use std::time::Duration;

use assay_core::Role;
use fantoccini::{Client, Locator};

use crate::common::fixtures::Scenario;
use crate::common::until;
use crate::common::window::{
    accessible, click, fill, screenshot, select, show, start_session, wait_for, wait_text,
};

/// The team the scenario runs against: its database, the service, and minjun's replica (a
/// colleague's machine, driven through the library).
struct Served {
    cluster: assay_sync::cluster::Cluster,
    service: assay_server::Running,
    admin: String,
    minjun: PathBuf,
    minjun_ring: PathBuf,
}

fn member_role(admin: &str, name: &str) -> String {
    let mut db = postgres::Client::connect(admin, postgres::NoTls).unwrap();
    db.query_one("SELECT role FROM members WHERE name = $1", &[&name])
        .unwrap()
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_manages_the_teams_members_in_the_window() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempfile::tempdir().unwrap();
    // The app's keyring: the lead's credential, kept where the window's app reads it.
    let ring = dir.path().join("lead-keyring.json");
    std::env::set_var("ASSAY_KEYRING", &ring);
    let s = Scenario::new("a lead manages members through the team service");
    let (project, d) = (s.project.clone(), dir.path().to_path_buf());
    let served = tokio::task::spawn_blocking(move || {
        let cluster = assay_sync::cluster::Cluster::start().expect("a private PostgreSQL cluster");
        let mut pg =
            postgres::Client::connect(&cluster.admin_url("postgres"), postgres::NoTls).unwrap();
        pg.batch_execute("CREATE DATABASE served").unwrap();
        let admin = cluster.admin_url("served");
        // The owner publishes the scenario's sample; the lead's replica takes its place.
        let mut owners = assay_core::Project::open(&project).unwrap();
        assay_sync::init(&admin, &mut owners).unwrap();
        drop(owners);
        for ext in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{ext}", project.display()));
        }
        let service = assay_server::start(assay_server::Config {
            admin_url: admin.clone(),
            listen: "127.0.0.1:0".parse().unwrap(),
            data_dir: d.join("service"),
            cert: None,
            public_url: None,
            limits: Default::default(),
        })
        .unwrap();
        let link = |name: &str, role: Role, lead: bool| {
            let mut db = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
            let code = assay_server::members::invite_as(
                &mut db,
                name,
                role,
                Duration::from_secs(3600),
                lead,
            )
            .unwrap();
            assay_sync::service::JoinLink {
                url: service.url.clone(),
                invitation: code,
                pin: service.pin.clone(),
            }
            .format()
        };
        let lead_ring = std::env::var("ASSAY_KEYRING").unwrap();
        assay_sync::service::join_service(
            &link("lead-e2e", Role::Auditor, true),
            &project,
            std::path::Path::new(&lead_ring),
        )
        .unwrap();
        let (minjun, minjun_ring) = (d.join("minjun.assay"), d.join("minjun-keyring.json"));
        assay_sync::service::join_service(
            &link("minjun", Role::Annotator, false),
            &minjun,
            &minjun_ring,
        )
        .unwrap();
        Served {
            cluster,
            service,
            admin,
            minjun,
            minjun_ring,
        }
    })
    .await
    .unwrap();

    let c = s.launch().await;
    start_session(&c, Some("lead-e2e")).await;
    // Joining pulled the whole team: the replica says when.
    wait_text(&c, "[data-testid=sync-pill]", |t| {
        t.starts_with("synced") && !t.contains("never")
    })
    .await;
    show(&c, "team").await;
    wait_for(&c, "[data-testid=team-members]").await;
    wait_text(&c, "[data-testid=team-members]", |t| {
        t.contains("minjun") && t.contains("lead-e2e")
    })
    .await;
    accessible(&c, "team members").await;

    // An invitation: the link is shown once, and the team holds it (a hash, the role asked).
    fill(&c, "[data-testid=invite-name]", "kenji").await;
    select(&c, "[data-testid=invite-role]", "researcher").await;
    click(&c, "[data-testid=invite]").await;
    let link = wait_value_starting(&c, "[data-testid=invite-link]", "assay-join:").await;
    let admin = served.admin.clone();
    let invited: (String, i64) = tokio::task::spawn_blocking(move || {
        let mut db = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
        let r = db
            .query_one(
                "SELECT role, count(*) FROM service_invitations WHERE member = 'kenji'
                 GROUP BY role",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    })
    .await
    .unwrap();
    assert_eq!(invited, ("researcher".to_string(), 1), "{link}");

    // minjun becomes an auditor: in the team's members table, which alone holds roles.
    let row = minjuns_row(&c).await;
    let role = row
        .find(Locator::Css("[data-testid=member-role]"))
        .await
        .unwrap();
    role.select_by_value("auditor").await.unwrap();
    let admin = served.admin.clone();
    until(
        &c,
        || "minjun's role never became auditor in the team".into(),
        || {
            let admin = admin.clone();
            async move {
                tokio::task::spawn_blocking(move || member_role(&admin, "minjun"))
                    .await
                    .unwrap()
                    == "auditor"
            }
        },
    )
    .await;

    // Revoking takes a second click on the same row; then minjun's next sync is refused. The
    // role change above reloads the list, its buttons disabled until it has: Revoke is clicked
    // once it can be, and looked up afresh each time (a reload draws new rows).
    let revoke = "[data-testid=member-revoke]";
    until(
        &c,
        || "the revoke button never asked to confirm".into(),
        || async {
            let row = minjuns_row(&c).await;
            let Ok(button) = row.find(Locator::Css(revoke)).await else {
                return false;
            };
            if button
                .text()
                .await
                .is_ok_and(|t| t.contains("End minjun's access"))
            {
                return true;
            }
            if button.is_enabled().await.unwrap_or(false) {
                let _ = button.click().await;
            }
            false
        },
    )
    .await;
    let confirm = minjuns_row(&c)
        .await
        .find(Locator::Css(revoke))
        .await
        .unwrap();
    confirm.click().await.unwrap();
    let (file, ring) = (served.minjun.clone(), served.minjun_ring.clone());
    until(
        &c,
        || "minjun's sync was never refused".into(),
        || {
            let (file, ring) = (file.clone(), ring.clone());
            async move {
                tokio::task::spawn_blocking(move || {
                    let mut p = assay_core::Project::open(&file).unwrap();
                    matches!(
                        assay_sync::service::sync_service(&mut p, &ring),
                        Err(assay_sync::SyncError::Service { status: 401, .. })
                    )
                })
                .await
                .unwrap()
            }
        },
    )
    .await;
    // Her row says so: no credential left, nothing to revoke.
    until(
        &c,
        || "minjun's row never showed her access ended".into(),
        || async {
            let b = minjuns_row(&c)
                .await
                .find(Locator::Css(revoke))
                .await
                .unwrap();
            !b.is_enabled().await.unwrap_or(true)
        },
    )
    .await;
    screenshot(&c, "team-members.png").await;
    c.close().await.unwrap();
    tokio::task::spawn_blocking(move || {
        served.service.stop();
        drop(served.cluster);
    })
    .await
    .unwrap();
    std::env::remove_var("ASSAY_KEYRING");
}

/// minjun's row of the members table, once it is there.
async fn minjuns_row(c: &Client) -> fantoccini::elements::Element {
    wait_text(c, "[data-testid=team-members]", |t| t.contains("minjun")).await;
    for row in c
        .find_all(Locator::Css("[data-testid=member-row]"))
        .await
        .unwrap()
    {
        if row.text().await.unwrap_or_default().contains("minjun") {
            return row;
        }
    }
    panic!("no row for minjun");
}

/// Waits until the input's value starts with `prefix`, and returns it.
async fn wait_value_starting(c: &Client, css: &str, prefix: &str) -> String {
    let value = || async {
        let e = wait_for(c, css).await;
        e.prop("value").await.ok().flatten().unwrap_or_default()
    };
    until(
        c,
        || format!("{css} never held a value starting {prefix:?}"),
        || async { value().await.starts_with(prefix) },
    )
    .await;
    value().await
}
