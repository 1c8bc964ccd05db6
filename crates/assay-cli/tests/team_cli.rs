//! `assay team` and `assay sync` as real processes against a private PostgreSQL cluster, killed
//! in the middle of a push and of a pull and run again: nothing lost, nothing doubled.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use assay_core::store::{Author, Edit};
use assay_core::{Project, Role};
use assay_sync::cluster::Cluster;
use postgres::{Client, NoTls};

fn assay(project: &Path, args: &[&str], password: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_assay"))
        .arg("--project")
        .arg(project)
        .args(args)
        .env("ASSAY_TEAM_PASSWORD", password)
        .env("ASSAY_MEMBER_PASSWORD", "pw-aiko")
        .output()
        .unwrap()
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sample(f: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/sample")
        .join(f);
    p.display().to_string()
}

/// Starts `assay sync` and kills it after `ms` milliseconds (or lets it finish first).
fn killed_sync(project: &Path, password: &str, ms: u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_assay"))
        .arg("--project")
        .arg(project)
        .arg("sync")
        .env("ASSAY_TEAM_PASSWORD", password)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(ms));
    let _ = child.kill();
    let _ = child.wait();
}

fn revisions_there(owner: &mut Client) -> i64 {
    owner
        .query_one("SELECT count(*) FROM revisions", &[])
        .unwrap()
        .get(0)
}

fn local_revisions(p: &Path) -> i64 {
    let p = Project::open(p).unwrap();
    p.summary().unwrap().revisions
}

#[test]
fn sync_survives_being_killed_during_push_and_pull() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let mut admin = Client::connect(&cluster.admin_url("postgres"), NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE cli").unwrap();
    let admin_url = cluster.admin_url("cli");
    let lead = dir.path().join("lead.assay");
    ok(assay(&lead, &["new"], ""), "new");
    ok(
        assay(
            &lead,
            &["import", &sample("jgraph-mini/jgraph-mini.jsonl")],
            "",
        ),
        "import",
    );
    let out = ok(assay(&lead, &["team", "init", &admin_url], ""), "team init");
    assert!(out.contains("published"), "{out}");
    assert!(
        !out.contains("assay-test"),
        "the password is not printed: {out}"
    );
    let out = ok(
        assay(&lead, &["team", "upgrade", &admin_url], ""),
        "team upgrade",
    );
    assert!(
        out.contains("0 schema steps"),
        "a new team is current: {out}"
    );
    ok(
        assay(
            &lead,
            &[
                "team",
                "add-member",
                &admin_url,
                "aiko",
                "--role",
                "annotator",
            ],
            "",
        ),
        "add aiko",
    );
    ok(
        assay(
            &lead,
            &[
                "team",
                "add-member",
                &admin_url,
                "minjun",
                "--role",
                "annotator",
            ],
            "",
        ),
        "add minjun",
    );
    let member = |n: &str| format!("postgres://{n}@127.0.0.1:{}/cli", cluster.port);
    let a = dir.path().join("aiko.assay");
    let m = dir.path().join("minjun.assay");
    ok(
        assay(
            &a,
            &["team", "join", &member("aiko"), &a.display().to_string()],
            "pw-aiko",
        ),
        "join a",
    );
    // minjun's password is aiko's here (add-member read one variable): set his own.
    assay_sync::add_member(&admin_url, "minjun", Role::Annotator, "pw-minjun").unwrap();
    ok(
        assay(
            &m,
            &["team", "join", &member("minjun"), &m.display().to_string()],
            "pw-minjun",
        ),
        "join m",
    );
    // The stored URL has no password; the wrong one is refused with a clear error.
    let out = assay(&a, &["sync"], "wrong");
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("password"),
        "{:?}",
        out
    );

    // aiko works offline: 3,000 revisions.
    {
        let mut p = Project::open(&a).unwrap();
        let u = p.user_by_name("aiko").unwrap().unwrap();
        let who = Author {
            user_id: u.id,
            role: u.role,
            round: 1,
        };
        let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
        let ids: Vec<i64> = p
            .item_ext_ids(ds)
            .unwrap()
            .into_iter()
            .map(|x| x.0)
            .collect();
        for n in 0..3000 {
            let id = ids[n % ids.len()];
            let edit = Edit::answer_fix(&p.item(id).unwrap(), &format!("answer {n}"));
            p.save_edit(id, &edit, &who).unwrap();
        }
    }
    let mut owner = Client::connect(&admin_url, NoTls).unwrap();
    let before = revisions_there(&mut owner);
    // Killed pushes at several points; each leaves the team with whole batches only.
    for ms in [30, 120, 400] {
        killed_sync(&a, "pw-aiko", ms);
        let there = revisions_there(&mut owner) - before;
        eprintln!("push killed after {ms} ms: {there} in the team");
        assert!(
            there == 0 || there == 2000 || there == 3000,
            "a partial batch: {there}"
        );
    }
    ok(assay(&a, &["sync"], "pw-aiko"), "sync a");
    assert_eq!(
        revisions_there(&mut owner) - before,
        3000,
        "every revision once"
    );
    assert_eq!(Project::open(&a).unwrap().sync_status().unwrap().pending, 0);

    // minjun's pull killed at several points, then finished.
    let expected = local_revisions(&a);
    for ms in [30, 150, 500, 1500] {
        killed_sync(&m, "pw-minjun", ms);
        eprintln!(
            "pull killed after {ms} ms: {} of {expected} here",
            local_revisions(&m)
        );
        assert!(local_revisions(&m) <= expected, "never more than there is");
    }
    ok(assay(&m, &["sync"], "pw-minjun"), "sync m");
    assert_eq!(
        local_revisions(&m),
        expected,
        "nothing lost, nothing doubled"
    );
    let pm = Project::open(&m).unwrap();
    let pa = Project::open(&a).unwrap();
    for ext in ["jg-001", "jg-006", "jg-012"] {
        let im = pm
            .item(pm.item_id_by_ext("jgraph-mini", ext).unwrap())
            .unwrap();
        let ia = pa
            .item(pa.item_id_by_ext("jgraph-mini", ext).unwrap())
            .unwrap();
        assert_eq!(im.content.answer, ia.content.answer, "{ext}");
    }
    cluster.stop();
}

/// `assay serve` as a process: the owner invites, a member joins with the link and syncs with
/// no database login, and SIGTERM stops the service cleanly.
#[test]
fn the_team_service_runs_invites_serves_and_stops_on_sigterm() {
    use std::io::BufRead;
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let mut admin = Client::connect(&cluster.admin_url("postgres"), NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE svc").unwrap();
    let admin_url = cluster.admin_url("svc");
    let lead = dir.path().join("lead.assay");
    ok(assay(&lead, &["new"], ""), "new");
    ok(
        assay(
            &lead,
            &["import", &sample("jgraph-mini/jgraph-mini.jsonl")],
            "",
        ),
        "import",
    );
    ok(assay(&lead, &["team", "init", &admin_url], ""), "team init");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_assay"))
        .args([
            "serve",
            "--db",
            &admin_url,
            "--listen",
            "127.0.0.1:0",
            "--data",
        ])
        .arg(dir.path().join("service"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(
        first.starts_with("serving the team at https://127.0.0.1:"),
        "{first}"
    );

    let out = ok(
        assay(
            &lead,
            &[
                "--json",
                "team",
                "invite",
                &admin_url,
                "aiko",
                "--role",
                "annotator",
            ],
            "",
        ),
        "invite",
    );
    let link = serde_json::from_str::<serde_json::Value>(&out).unwrap()["link"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(link.starts_with("assay-join:https://127.0.0.1:"), "{link}");
    let a = dir.path().join("aiko.assay");
    let ring = dir.path().join("aiko-keyring.json");
    let as_aiko = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_assay"))
            .arg("--project")
            .arg(&a)
            .args(args)
            .env("ASSAY_KEYRING", &ring)
            .env_remove("ASSAY_TEAM_PASSWORD")
            .env_remove("PGPASSWORD")
            .output()
            .unwrap()
    };
    let out = ok(
        as_aiko(&["team", "join", &link, a.to_str().unwrap()]),
        "join",
    );
    assert!(out.contains("replica with"), "{out}");
    assert!(!String::from_utf8_lossy(&std::fs::read(&a).unwrap()).contains(&admin_url));
    {
        let mut p = Project::open(&a).unwrap();
        let u = p.ensure_user("aiko", Role::Annotator).unwrap();
        let who = Author {
            user_id: u.id,
            role: u.role,
            round: 0,
        };
        let id = p.item_id_by_ext("jgraph-mini", "jg-002").unwrap();
        let edit = Edit::answer_fix(&p.item(id).unwrap(), "through the service");
        p.save_edit(id, &edit, &who).unwrap();
    }
    let out = ok(as_aiko(&["sync"]), "sync");
    assert!(out.contains("pushed 1"), "{out}");
    let n: i64 = Client::connect(&admin_url, NoTls)
        .unwrap()
        .query_one(
            "SELECT count(*) FROM revisions WHERE author = 'aiko' AND content->>'answer' = 'through the service'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 1);
    let out = ok(
        assay(&lead, &["--json", "team", "members", &admin_url], ""),
        "members",
    );
    assert!(out.contains("\"aiko\""), "{out}");

    let term = Command::new("kill")
        .args(["-TERM", &serve.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = serve.wait().unwrap();
    assert!(status.success(), "stopped cleanly on SIGTERM: {status:?}");
}
