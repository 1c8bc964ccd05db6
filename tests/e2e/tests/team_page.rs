//! The team service's page for a lead without the app, in a real headless Chromium driven
//! through chromedriver: sign in with a team credential, read the team's progress, and no
//! serious or critical accessibility violation (axe-core, as for the app's views).

// The app scenarios' helpers: `poll` for waiting on state, `window::accessible` for axe-core.
#[path = "app/common/mod.rs"]
#[allow(dead_code)]
mod common;

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use assay_core::Role;
use common::window::accessible;
use common::{poll, root};
use fantoccini::{ClientBuilder, Locator};

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_lead_reads_the_team_page_in_a_browser() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempfile::tempdir().unwrap();
    let cluster = assay_sync::cluster::Cluster::start().expect("PostgreSQL");
    let mut admin =
        postgres::Client::connect(&cluster.admin_url("postgres"), postgres::NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE page").unwrap();
    let admin_url = cluster.admin_url("page");
    let mut lead = assay_core::Project::create(dir.path().join("lead.assay")).unwrap();
    assay_core::import::import_path(
        &mut lead,
        &root().join("assets/sample/jgraph-mini/jgraph-mini.jsonl"),
        &Default::default(),
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    )
    .unwrap();
    assay_sync::init(&admin_url, &mut lead).unwrap();
    let service = assay_server::start(assay_server::Config {
        admin_url: admin_url.clone(),
        listen: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().join("service"),
        cert: None,
        public_url: None,
        limits: Default::default(),
    })
    .unwrap();
    let code = assay_server::members::invite_as(
        &mut postgres::Client::connect(&admin_url, postgres::NoTls).unwrap(),
        "seo",
        Role::Auditor,
        Duration::from_secs(600),
        true,
    )
    .unwrap();
    let link = assay_sync::service::JoinLink {
        url: service.url.clone(),
        invitation: code,
        pin: service.pin.clone(),
    };
    let ring = dir.path().join("seo-keyring.json");
    let (mut seo, _) =
        assay_sync::service::join_service(&link.format(), &dir.path().join("seo.assay"), &ring)
            .unwrap();
    let u = seo.user_by_name("seo").unwrap().unwrap();
    let who = assay_core::store::Author {
        user_id: u.id,
        role: u.role,
        round: 0,
    };
    let id = seo.item_id_by_ext("jgraph-mini", "jg-003").unwrap();
    let edit = assay_core::store::Edit::answer_fix(&seo.item(id).unwrap(), "from the page test");
    seo.save_edit(id, &edit, &who).unwrap();
    assay_sync::service::sync_service(&mut seo, &ring).unwrap();
    let credential = assay_sync::service::Keyring::load(&ring).unwrap().teams[0]
        .credential
        .clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(browse(&service.url, &credential));
    service.stop();
}

async fn browse(url: &str, credential: &str) {
    let port = free_port();
    let _driver = Driver(
        Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver (Debian package chromium-driver)"),
    );
    assert!(
        poll(Duration::from_secs(20), || TcpStream::connect((
            "127.0.0.1",
            port
        ))
        .is_ok()),
        "chromedriver listens"
    );
    let mut caps = serde_json::Map::new();
    caps.insert("acceptInsecureCerts".into(), serde_json::json!(true));
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                                    "--disable-dev-shm-usage", "--window-size=1280,1000"]}),
    );
    let mut builder = ClientBuilder::rustls().expect("tls");
    builder.capabilities(caps);
    let c = builder
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a Chromium session");

    c.goto(&format!("{url}/team")).await.unwrap();
    let field = c
        .wait()
        .for_element(Locator::Id("credential"))
        .await
        .unwrap();
    accessible(&c, "team page: sign-in").await;
    field.send_keys(credential).await.unwrap();
    c.find(Locator::Css("button[type=submit]"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let heading = c
        .wait()
        .for_element(Locator::XPath("//p[contains(., 'Signed in as seo')]"))
        .await
        .expect("the team page after signing in");
    assert!(heading.text().await.unwrap().contains("Read-only"));
    let body = c
        .find(Locator::Css("main"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for expected in [
        "Where items stand",
        "People",
        "Rounds",
        "Agreement",
        "Before and after",
    ] {
        assert!(body.contains(expected), "{expected} in {body}");
    }
    let seo_row = c
        .find(Locator::XPath("//tr[td[1][normalize-space()='seo']]"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(seo_row.starts_with("seo auditor 1 1"), "{seo_row}");
    accessible(&c, "team page").await;
    if let Some(out) = std::env::var_os("ASSAY_SCREENSHOT_DIR") {
        let png = c.screenshot().await.unwrap();
        std::fs::write(Path::new(&out).join("team-page.png"), png).unwrap();
    }
    c.close().await.unwrap();
}
