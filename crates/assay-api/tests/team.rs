//! The app's team functions against a private PostgreSQL cluster: publish, join, sync state,
//! and going offline without losing a save.

use std::sync::atomic::AtomicBool;

use assay_api::team::{team_join, team_publish, team_status, team_sync};
use assay_core::store::{Author, Edit};
use assay_core::{Project, Role};
use assay_sync::cluster::Cluster;

fn edit(path: &std::path::Path, who: &str, answer: &str) {
    let mut p = Project::open(path).unwrap();
    let u = p.user_by_name(who).unwrap().unwrap();
    let author = Author {
        user_id: u.id,
        role: u.role,
        round: 1,
    };
    let id = p.item_id_by_ext("jgraph-mini", "jg-004").unwrap();
    p.save_edit(id, &Edit::answer_fix(&p.item(id).unwrap(), answer), &author)
        .unwrap();
}

#[test]
fn publish_join_sync_and_offline() {
    let cluster = Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let mut admin =
        postgres::Client::connect(&cluster.admin_url("postgres"), postgres::NoTls).unwrap();
    admin.batch_execute("CREATE DATABASE app").unwrap();
    let lead = dir.path().join("lead.assay");
    {
        let mut p = Project::create(&lead).unwrap();
        assay_core::import::import_path(
            &mut p,
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../assets/sample/jgraph-mini/jgraph-mini.jsonl"),
            &Default::default(),
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
    }
    assert_eq!(team_status(&lead).unwrap().team, None, "a project of one");
    // The owner's password typed in the app goes into the connection, not the file.
    let owner = format!("postgres://postgres@127.0.0.1:{}/app", cluster.port);
    let s = team_publish(&lead, &owner, Some(assay_sync::cluster::SUPERUSER_PASSWORD)).unwrap();
    assert_eq!(s.team.as_deref(), Some(owner.as_str()));
    assay_sync::add_member(
        &cluster.admin_url("app"),
        "aiko",
        Role::Annotator,
        "pa$$ word",
    )
    .unwrap();

    let member = format!("postgres://aiko@127.0.0.1:{}/app", cluster.port);
    let replica = dir.path().join("aiko.assay");
    let err = team_join(&member, Some("wrong"), &replica).unwrap_err();
    assert_eq!(err.code, "team", "{err:?}");
    team_join(&member, Some("pa$$ word"), &replica).unwrap();
    assert!(
        team_join(&member, Some("pa$$ word"), &replica).is_err(),
        "never over an existing file"
    );
    let s = team_status(&replica).unwrap();
    assert_eq!((s.pending, s.conflicts), (0, 0));
    // The first view of an image fetches it (the shell's image handler does this on not_found).
    let hash = {
        let p = Project::open(&replica).unwrap();
        let id = p.item_id_by_ext("jgraph-mini", "jg-004").unwrap();
        p.item(id).unwrap().content.images[0].hash.clone()
    };
    let readers = assay_api::session::ImageReaders::default();
    assert_eq!(
        readers.image(&replica, &hash).unwrap_err().code,
        "not_found"
    );
    assert!(assay_api::team::fetch_image(&replica, &hash, Some("pa$$ word")).unwrap());
    assert!(!readers.image(&replica, &hash).unwrap().is_empty());

    edit(&replica, "aiko", "first");
    assert_eq!(team_status(&replica).unwrap().pending, 1);
    let s = team_sync(&replica, Some("pa$$ word")).unwrap();
    assert_eq!((s.pushed, s.pending, s.offline), (1, 0, false));
    assert!(s.last_sync.is_some());

    // The database goes away: saves go on, the state says offline, nothing is lost.
    cluster.stop();
    edit(&replica, "aiko", "while offline");
    let s = team_sync(&replica, Some("pa$$ word")).unwrap();
    assert!(s.offline, "{s:?}");
    assert_eq!(s.pending, 1);
}
