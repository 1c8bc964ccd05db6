//! Twenty simulated annotators, each with a replica of their own, saving and syncing
//! concurrently through one PostgreSQL database for a minute (ASSAY_SOAK_SECS and
//! ASSAY_SOAK_PEOPLE to change them; issue 24 runs it at 50): every revision made reaches the team
//! exactly once and every replica ends on the same state.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

mod common;

use assay_core::{Project, Role};
use assay_sync::cluster::Cluster;
use common::annotate_until;
use postgres::{Client, NoTls};

fn state(p: &Project) -> Vec<(String, i64, Option<String>)> {
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    p.item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|(id, ext)| {
            let it = p.item(id).unwrap();
            (
                ext,
                p.revisions(id).unwrap().len() as i64,
                it.content.answer,
            )
        })
        .collect()
}

#[test]
fn twenty_annotators_save_and_sync_at_once() {
    let secs: u64 = std::env::var("ASSAY_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let people: usize = std::env::var("ASSAY_SOAK_PEOPLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let mut admin = Client::connect(&cluster.admin_url("postgres"), NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE soak").unwrap();
    let mut lead = Project::create(dir.path().join("lead.assay")).unwrap();
    assay_core::import::import_path(
        &mut lead,
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/sample/jgraph-mini/jgraph-mini.jsonl"),
        &Default::default(),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    assay_sync::init(&cluster.admin_url("soak"), &mut lead).unwrap();
    let names: Vec<String> = (0..people).map(|i| format!("annotator{i:02}")).collect();
    for n in &names {
        assay_sync::add_member(&cluster.admin_url("soak"), n, Role::Annotator, "pw").unwrap();
    }
    let url = |n: &str| format!("postgres://{n}:pw@127.0.0.1:{}/soak", cluster.port);

    let until = Instant::now() + Duration::from_secs(secs);
    let made: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(k, n)| {
                let path = dir.path().join(format!("{n}.assay"));
                let url = url(n);
                s.spawn(move || {
                    let (mut p, _) = assay_sync::join(&url, &path).unwrap();
                    let made = annotate_until(&mut p, n, k, until, |p| {
                        assay_sync::sync(&url, p).unwrap();
                    });
                    assay_sync::sync(&url, &mut p).unwrap();
                    made
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let total: usize = made.iter().sum();
    assert!(total >= people * 3, "every annotator saved");

    let mut owner = Client::connect(&cluster.admin_url("soak"), NoTls).unwrap();
    let there: i64 = owner
        .query_one(
            "SELECT count(*) FROM revisions WHERE author IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(
        there as usize, total,
        "each revision made reaches the team exactly once"
    );
    let per_person: Vec<(String, i64)> = owner
        .query("SELECT author, count(*) FROM revisions WHERE author IS NOT NULL GROUP BY author ORDER BY author", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    for ((name, n), m) in per_person.iter().zip(&made) {
        assert_eq!(*n as usize, *m, "{name}");
    }

    // After one more round of syncs every replica holds every revision and shows the same one.
    let mut states = Vec::new();
    for n in &names {
        let mut p = Project::open(dir.path().join(format!("{n}.assay"))).unwrap();
        assay_sync::sync(&url(n), &mut p).unwrap();
        assert_eq!(p.sync_status().unwrap().pending, 0);
        states.push(state(&p));
    }
    let items = states[0].len() as i64;
    let revisions: i64 = states[0].iter().map(|s| s.1).sum();
    assert_eq!(
        revisions,
        total as i64 + items,
        "originals plus every revision"
    );
    assert!(states.iter().all(|s| *s == states[0]), "replicas agree");
    eprintln!(
        "soak: {people} annotators, {secs} s, {total} revisions ({:.1}/s through one database)",
        total as f64 / secs as f64
    );
    cluster.stop();
}
