//! A team for the service's tests: a private PostgreSQL with the sample published, the service
//! in front of it, members joining with invitations, and a hand-written HTTP client.
#![allow(dead_code)]

#[path = "../../../assay-sync/tests/common/mod.rs"]
pub mod common;

use std::path::PathBuf;
use std::time::Duration;

use assay_core::{ItemStatus, Project, Role};
use assay_server::{Config, Running};
use assay_sync::cluster::Cluster;
use assay_sync::service::{join_service, sync_service, JoinLink};
use common::{create_db, published_project};
use postgres::{Client, NoTls};

pub struct Team {
    pub cluster: Cluster,
    pub admin: String,
    pub service: Option<Running>,
    pub dir: tempfile::TempDir,
}

impl Team {
    /// The sample published to a new database, and the service started in front of it.
    pub fn start(limits: assay_server::limits::Limits) -> Team {
        let cluster = Cluster::start().expect("PostgreSQL");
        let dir = tempfile::tempdir().unwrap();
        let admin = create_db(&cluster, "team");
        let mut lead = published_project(dir.path());
        assay_sync::init(&admin, &mut lead).unwrap();
        let service = assay_server::start(Config {
            admin_url: admin.clone(),
            listen: "127.0.0.1:0".parse().unwrap(),
            data_dir: dir.path().join("service"),
            cert: None,
            public_url: None,
            limits,
        })
        .unwrap();
        Team {
            cluster,
            admin,
            service: Some(service),
            dir,
        }
    }

    pub fn service(&self) -> &Running {
        self.service.as_ref().unwrap()
    }

    pub fn db(&self) -> Client {
        Client::connect(&self.admin, NoTls).unwrap()
    }

    /// A join link for `name` with `role`, as the owner makes it (a lead's when `lead`).
    pub fn link_as(&self, name: &str, role: Role, lead: bool) -> String {
        let code = assay_server::members::invite_as(
            &mut self.db(),
            name,
            role,
            Duration::from_secs(3600),
            lead,
        )
        .unwrap();
        JoinLink {
            url: self.service().url.clone(),
            invitation: code,
            pin: self.service().pin.clone(),
        }
        .format()
    }

    pub fn keyring(&self, name: &str) -> PathBuf {
        self.dir.path().join(format!("{name}-keyring.json"))
    }

    pub fn link(&self, name: &str, role: Role) -> String {
        self.link_as(name, role, false)
    }

    /// `name` joins with an invitation into a new replica.
    pub fn join(&self, name: &str, role: Role) -> Project {
        self.join_with(&self.link(name, role), name)
    }

    /// `name` joins as a lead of the team.
    pub fn join_lead(&self, name: &str, role: Role) -> Project {
        self.join_with(&self.link_as(name, role, true), name)
    }

    pub fn join_with(&self, link: &str, name: &str) -> Project {
        let (p, _) = join_service(
            link,
            &self.dir.path().join(format!("{name}.assay")),
            &self.keyring(name),
        )
        .unwrap();
        p
    }

    pub fn sync(&self, name: &str, p: &mut Project) -> assay_sync::SyncReport {
        sync_service(p, &self.keyring(name)).unwrap()
    }

    pub fn credential(&self, name: &str) -> String {
        assay_sync::service::Keyring::load(&self.keyring(name))
            .unwrap()
            .teams[0]
            .credential
            .clone()
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        if let Some(s) = self.service.take() {
            s.stop();
        }
    }
}

/// A hand-written client: any body, any header, certificate not checked.
pub fn raw() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap()
}

pub fn post(t: &Team, path: &str, token: Option<&str>, body: Vec<u8>) -> (u16, serde_json::Value) {
    let mut r = raw()
        .post(format!("{}{path}", t.service().url))
        .header("content-type", "application/json")
        .body(body);
    if let Some(tok) = token {
        r = r.bearer_auth(tok);
    }
    let res = r.send().unwrap();
    let status = res.status().as_u16();
    let text = res.text().unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
    )
}

/// A pull from the start, as a member's hand-written client sends it.
pub fn pull_from_start(t: &Team, token: &str) -> (u16, serde_json::Value) {
    post(t, "/v1/pull", Some(token), br#"{"positions":{}}"#.to_vec())
}

/// Every item's current revision uid and answer, by ext id: two replicas that agree on this
/// show the same team.
pub fn heads(p: &Project) -> Vec<(String, Option<String>, ItemStatus)> {
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let mut v: Vec<_> = p
        .item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|(id, ext)| {
            let it = p.item(id).unwrap();
            (ext, it.content.answer, it.status)
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Looks at `ready` until it holds or `limit` passes (a short pause between looks): whether it
/// held.
pub fn wait_until(limit: Duration, mut ready: impl FnMut() -> bool) -> bool {
    let until = std::time::Instant::now() + limit;
    loop {
        if ready() {
            return true;
        }
        if std::time::Instant::now() > until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn has_login(db: &mut Client, member: &str) -> bool {
    db.query_one(
        "SELECT coalesce(bool_or(r.rolcanlogin), false) FROM members m
         JOIN pg_roles r ON r.rolname = m.db_role WHERE m.name = $1",
        &[&member],
    )
    .unwrap()
    .get(0)
}
