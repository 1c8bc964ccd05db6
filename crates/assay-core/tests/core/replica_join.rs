//! A replica's first items: the same project whether they arrive at once or in pages of any
//! size, and an interrupted arrival leaves nothing half made.

use assay_core::import::ImportOptions;
use assay_core::store::team::sync::SyncItem;
use assay_core::Project;

use crate::common::{import, item_count, jgraph_items, sample_dir};

/// The lead's items as the team database hands them out: by dataset, then seq.
fn team_items(lead: &Project) -> Vec<SyncItem> {
    let mut st = lead
        .connection()
        .prepare(
            "SELECT d.name, d.layout, i.ext_id, i.id FROM items i JOIN datasets d
             ON d.id = i.dataset_id ORDER BY d.name, i.id",
        )
        .unwrap();
    let rows: Vec<(String, String, String, i64)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.into_iter()
        .map(|(dataset, layout, ext_id, id)| SyncItem {
            original: serde_json::to_string(&lead.item(id).unwrap().content).unwrap(),
            original_uid: format!("{id:032x}"),
            seq: id,
            dataset,
            layout,
            ext_id,
        })
        .collect()
}

/// Every item's dataset, id and content: what two replicas must agree on.
fn contents(p: &Project) -> Vec<(String, String, String)> {
    team_items(p)
        .into_iter()
        .map(|i| (i.dataset, i.ext_id, i.original))
        .collect()
}

#[test]
fn items_arriving_in_pages_make_the_same_replica_as_all_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut lead = Project::create(dir.path().join("lead.assay")).unwrap();
    for (n, name) in [(1_500, "alpha"), (900, "beta")] {
        let file = jgraph_items(dir.path(), n, &format!("{name}.jsonl"));
        let opts = ImportOptions {
            name: Some(name.into()),
            image_root: Some(sample_dir().join("jgraph-mini")),
            ..Default::default()
        };
        import(&mut lead, &file, &opts).unwrap();
    }
    let all = team_items(&lead);
    assert_eq!(all.len(), 2_400);

    let mut whole = Project::create(dir.path().join("whole.assay")).unwrap();
    whole.insert_replica_items(&all).unwrap();
    // Pages that split a dataset, cross from one to the next, and hold a single item.
    let mut paged = Project::create(dir.path().join("paged.assay")).unwrap();
    let cuts = [3, 1_203, 1_204, 1_800, all.len()];
    let mut from = 0;
    let mut pages = cuts.iter().map(|&to| {
        let page = all[from..to].to_vec();
        from = to;
        page
    });
    paged
        .insert_replica_item_pages(|| Ok::<_, assay_core::Error>(pages.next()))
        .unwrap();
    assert_eq!(contents(&paged), contents(&lead));
    assert_eq!(contents(&whole), contents(&lead));
    let datasets = |p: &Project| -> i64 {
        p.connection()
            .query_row("SELECT count(*) FROM datasets", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(
        datasets(&paged),
        2,
        "a dataset split over pages is one dataset"
    );
}

#[test]
fn an_arrival_that_fails_midway_leaves_the_replica_empty() {
    let dir = tempfile::tempdir().unwrap();
    let mut lead = Project::create(dir.path().join("lead.assay")).unwrap();
    let file = jgraph_items(dir.path(), 300, "alpha.jsonl");
    let opts = ImportOptions {
        image_root: Some(sample_dir().join("jgraph-mini")),
        ..Default::default()
    };
    import(&mut lead, &file, &opts).unwrap();
    let all = team_items(&lead);
    let mut member = Project::create(dir.path().join("member.assay")).unwrap();
    let mut calls = 0;
    let err = member
        .insert_replica_item_pages(|| {
            calls += 1;
            match calls {
                1 => Ok(Some(all[..100].to_vec())),
                _ => Err(assay_core::Error::Invalid("the link dropped".into())),
            }
        })
        .unwrap_err();
    assert!(err.to_string().contains("the link dropped"), "{err}");
    assert_eq!(item_count(&member), 0, "one transaction: nothing kept");
}
