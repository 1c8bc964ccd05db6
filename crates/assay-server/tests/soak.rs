//! Twelve simulated annotators (ASSAY_SOAK_PEOPLE), each with a replica of their own, saving and
//! syncing at once through one team service for 30 s (ASSAY_SOAK_SECS): every revision made
//! reaches the team exactly once, nothing is refused or set aside, and every replica, the
//! service's own and a fresh join end on the same state.

mod support;

use std::time::{Duration, Instant};

use assay_core::{Project, Role};
use support::common::annotate_until;
use support::Team;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Every item's number of revisions and answer, by ext id.
fn state(p: &Project) -> Vec<(String, usize, Option<String>)> {
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let mut v: Vec<_> = p
        .item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|(id, ext)| {
            (
                ext,
                p.revisions(id).unwrap().len(),
                p.item(id).unwrap().content.answer,
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn annotators_save_and_sync_at_once_through_the_service() {
    let secs = env_or("ASSAY_SOAK_SECS", 30);
    let people = env_or("ASSAY_SOAK_PEOPLE", 12) as usize;
    // A simulated annotator syncs after every save, many times a second once syncs are fast:
    // far over a person's pace and the service's per-member rate (which `limits.rs` tests).
    let mut t = Team::start(assay_server::limits::Limits {
        requests_per_minute: 1_000_000,
        ..Default::default()
    });
    let names: Vec<String> = (0..people).map(|i| format!("annotator{i:02}")).collect();
    let joined: Vec<(String, Project)> = names
        .iter()
        .map(|n| (n.clone(), t.join(n, Role::Annotator)))
        .collect();

    let until = Instant::now() + Duration::from_secs(secs);
    let made: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = joined
            .into_iter()
            .enumerate()
            .map(|(k, (n, mut p))| {
                let t = &t;
                s.spawn(move || {
                    let made = annotate_until(&mut p, &n, k, until, |p| {
                        let r = t.sync(&n, p);
                        assert_eq!(r.refused, 0, "{n}: an honest row refused");
                    });
                    t.sync(&n, &mut p);
                    made
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let total: usize = made.iter().sum();
    assert!(total >= people * 3, "every annotator saved");

    let mut db = t.db();
    for (n, m) in names.iter().zip(&made) {
        let there: i64 = db
            .query_one("SELECT count(*) FROM revisions WHERE author = $1", &[n])
            .unwrap()
            .get(0);
        assert_eq!(
            there as usize, *m,
            "{n}'s revisions reach the team exactly once"
        );
    }

    // One more round of syncs: every replica holds every revision, shows the same one, and
    // set nothing aside; so do the service's own replica and a replica joining now.
    let mut states = Vec::new();
    for n in &names {
        let mut p = Project::open(t.dir.path().join(format!("{n}.assay"))).unwrap();
        t.sync(n, &mut p);
        assert_eq!(p.sync_status().unwrap().pending, 0, "{n}");
        assert_eq!(p.refused_rows().unwrap(), vec![], "{n}");
        states.push(state(&p));
    }
    let in_team: i64 = db
        .query_one("SELECT count(*) FROM revisions", &[])
        .unwrap()
        .get(0);
    let revisions: usize = states[0].iter().map(|s| s.1).sum();
    assert_eq!(
        revisions, in_team as usize,
        "every revision of the team, originals too"
    );
    assert!(states.iter().all(|s| *s == states[0]), "replicas agree");
    let fresh = t.join("latecomer", Role::Annotator);
    assert_eq!(state(&fresh), states[0], "a fresh join agrees");
    t.service.take().expect("the service is running").stop();
    let served = Project::open(t.dir.path().join("service/service-replica.assay")).unwrap();
    assert_eq!(state(&served), states[0], "the service's replica agrees");
    eprintln!(
        "soak through the service: {people} annotators, {secs} s, {total} revisions ({:.1}/s)",
        total as f64 / secs as f64
    );
}
