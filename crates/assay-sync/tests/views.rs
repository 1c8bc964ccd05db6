//! Saved views through the team's PostgreSQL: a shared view reaches every member's replica
//! (its datasets by name, so each replica's own ids), a private one only its author's; with psql
//! and their own login nobody reads another's private view, writes a view under another's
//! name, or changes or deletes a row.

mod common;

use assay_core::store::{Filter, Sort, SortColumn};
use assay_core::{ItemStatus, Role};
use common::*;
use postgres::{Client, NoTls};

#[test]
fn shared_views_reach_the_team_and_private_ones_stay_their_authors() {
    let cluster = assay_sync::cluster::Cluster::start().expect("a private PostgreSQL cluster");
    let dir = tempfile::tempdir().unwrap();
    let admin = create_db(&cluster, "team");
    let mut lead = published_project(dir.path());
    assay_sync::init(&admin, &mut lead).unwrap();
    for name in ["aiko", "minjun"] {
        assay_sync::add_member(&admin, name, Role::Annotator, &format!("pw-{name}")).unwrap();
    }
    let (ua, um) = (
        url(&cluster, "aiko", "team"),
        url(&cluster, "minjun", "team"),
    );
    let (mut a, _) = assay_sync::join(&ua, &dir.path().join("a.assay")).unwrap();
    let aiko = author(&a, "aiko");
    let jg = a.dataset_by_name("jgraph-mini").unwrap().id;
    let f = Filter {
        datasets: vec![jg],
        statuses: vec![ItemStatus::Todo],
        sort: Some(Sort {
            column: SortColumn::Question,
            desc: true,
            run: None,
        }),
        ..Default::default()
    };
    let cols = vec!["ext_id".to_string(), "question".into()];
    a.save_view("todo jgraph", &f, &cols, true, &aiko).unwrap();
    a.save_view("my corner", &f, &cols, false, &aiko).unwrap();
    let r = assay_sync::sync(&ua, &mut a).unwrap();
    assert_eq!(r.refused, 0);

    // minjun's replica: the shared view, its dataset by this replica's id; not the private one.
    let (mut m, _) = assay_sync::join(&um, &dir.path().join("m.assay")).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    let minjun = author(&m, "minjun");
    let seen = m.saved_views(minjun.user_id).unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].name, "todo jgraph");
    assert_eq!(seen[0].author, "aiko");
    assert_eq!(
        seen[0].filter.datasets,
        vec![m.dataset_by_name("jgraph-mini").unwrap().id]
    );
    assert_eq!(seen[0].filter.sort, f.sort);
    assert_eq!(seen[0].columns, cols);

    // minjun with psql: aiko's private view is not there for him.
    let mut eve = Client::connect(&um, NoTls).unwrap();
    let names: Vec<String> = eve
        .query("SELECT name FROM saved_views", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(names, ["todo jgraph"]);
    // A view under aiko's name, an update and a delete of hers: refused.
    refused(
        eve.execute(
            "INSERT INTO saved_views (uid, name, filter, columns, author, shared, created_at)
             VALUES ('forged', 'todo jgraph', '{}', '[]', 'aiko', true, 'now')",
            &[],
        ),
        "a view under another's name",
    );
    refused(
        eve.execute("UPDATE saved_views SET filter = '{}'", &[]),
        "changing a view",
    );
    refused(
        eve.execute("DELETE FROM saved_views", &[]),
        "deleting a view",
    );
    // His own is fine, and a replica of aiko's sees it once shared.
    m.save_view("minjun's", &Filter::default(), &cols, true, &minjun)
        .unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    // aiko deletes her shared view: the deletion travels.
    a.delete_view("todo jgraph", &aiko).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    let seen: Vec<String> = m
        .saved_views(minjun.user_id)
        .unwrap()
        .into_iter()
        .map(|v| v.name)
        .collect();
    assert_eq!(seen, ["minjun's"]);
    let on_a: Vec<String> = a
        .saved_views(aiko.user_id)
        .unwrap()
        .into_iter()
        .map(|v| format!("{}:{}", v.author, v.name))
        .collect();
    assert_eq!(on_a, ["minjun:minjun's", "aiko:my corner"], "by name");

    // A shared view made private leaves the others' replicas; it stays its author's.
    a.save_view("for now", &f, &cols, true, &aiko).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    let names = |p: &assay_core::Project, who: i64| -> Vec<String> {
        p.saved_views(who)
            .unwrap()
            .into_iter()
            .map(|v| v.name)
            .collect()
    };
    assert!(names(&m, minjun.user_id).contains(&"for now".to_string()));
    a.save_view("for now", &f, &cols, false, &aiko).unwrap();
    assay_sync::sync(&ua, &mut a).unwrap();
    assay_sync::sync(&um, &mut m).unwrap();
    assert!(!names(&m, minjun.user_id).contains(&"for now".to_string()));
    assert!(names(&a, aiko.user_id).contains(&"for now".to_string()));
    // A view too large for the team is refused there, not pulled by everyone.
    refused(
        eve.execute(
            "INSERT INTO saved_views (uid, name, filter, datasets, columns, author, shared, created_at)
             VALUES ('huge', 'huge', '{}', to_jsonb(array_fill('x'::text, ARRAY[40000])), '[]',
                     'minjun', true, 'now')",
            &[],
        ),
        "a view of 40,000 dataset names",
    );
}
