//! Facet counts from the columns a connection holds in memory (`store::facet_columns`) are the
//! counts SQL takes over the items, under any filter and after any write, by this connection
//! or by another one.

use assay_core::store::{BulkChange, Filter, Page, Range};
use assay_core::{IssueTag, ItemStatus, Project, RefType, RefinementOp};

use crate::common::*;

/// A deterministic stream of numbers (no randomness crate in this workspace's tests).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn metric(&mut self) -> Option<f64> {
        // Edges of the histograms included (0.05, 0.5, 1.0), so the closed last bar and the
        // half-open others are both exercised.
        let edges = [0.0, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9, 1.0];
        match self.below(4) {
            0 => None,
            1 => Some(*self.pick(&edges)),
            _ => Some(self.below(1001) as f64 / 1000.0),
        }
    }
}

const CATEGORIES: [Option<&str>; 5] = [
    Some("chart"),
    Some("map"),
    Some("sports"),
    Some("地図"),
    None,
];
const STATUSES: [&str; 4] = ["todo", "edited", "flagged", "approved"];

/// The sample's items and 300 more with their facet columns scattered: categories (and none),
/// ops (and none), statuses, tags, referring-expression types, boxes and metrics (and none).
fn scattered(rng: &mut Lcg) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let more = jgraph_items(dir.path(), 300, "more.jsonl");
    let opts = assay_core::import::ImportOptions {
        name: Some("more".into()),
        image_root: Some(sample_dir().join("jgraph-mini")),
        ..Default::default()
    };
    import(&mut p, &more, &opts).unwrap();
    scatter(&p, rng, 100);
    (dir, p)
}

/// Writes random facet columns on `percent` % of the items, straight in SQL, as a team pull or
/// any other writer of the file would change them under a connection that holds them.
fn scatter(p: &Project, rng: &mut Lcg, percent: u64) {
    let ids: Vec<i64> = p
        .connection()
        .prepare("SELECT id FROM items")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for id in ids {
        if !rng.chance(percent) {
            continue;
        }
        // A box has all three metrics (or, measured before metrics existed, none); a few
        // items, as a file written elsewhere could have, have one metric without the others.
        let boxed = rng.chance(60);
        let measured = boxed && rng.chance(85);
        let odd = rng.chance(5);
        let metric = |rng: &mut Lcg| {
            if odd {
                rng.metric()
            } else if measured {
                Some(rng.metric().unwrap_or(0.5))
            } else {
                None
            }
        };
        let (s, c, sal) = (metric(rng), metric(rng), metric(rng));
        p.connection()
            .execute(
                "UPDATE items SET category = ?2, op = ?3, status = ?4, tags = ?5, ref_type = ?6,
                        has_box = ?7, size_ratio = ?8, center_distance = ?9, saliency = ?10
                 WHERE id = ?1",
                rusqlite::params![
                    id,
                    rng.pick(&CATEGORIES),
                    rng.chance(50)
                        .then(|| rng.pick(&RefinementOp::ALL).as_str()),
                    rng.pick(&STATUSES),
                    rng.below(16) as i64,
                    rng.chance(70).then(|| rng.pick(&RefType::ALL).as_str()),
                    boxed as i64,
                    s,
                    c,
                    sal,
                ],
            )
            .unwrap();
    }
}

fn range(rng: &mut Lcg) -> Option<Range> {
    rng.chance(25).then(|| Range {
        min: rng.chance(60).then(|| rng.metric().unwrap_or(0.2)),
        max: rng.chance(60).then(|| rng.metric().unwrap_or(1.0)),
    })
}

/// A filter mixing any of the parts a facet can leave out, a text search and a selection.
fn any_filter(rng: &mut Lcg, datasets: &[i64]) -> Filter {
    let some = |rng: &mut Lcg, k: usize| rng.below(k as u64 + 1) as usize;
    let mut f = Filter::default();
    if rng.chance(30) {
        f.datasets = (0..some(rng, 2)).map(|_| *rng.pick(datasets)).collect();
    }
    if rng.chance(30) {
        f.categories = (0..some(rng, 2))
            .map(|_| rng.pick(&CATEGORIES).unwrap_or("nothing").to_string())
            .collect();
    }
    if rng.chance(30) {
        f.ops = (0..some(rng, 2))
            .map(|_| rng.chance(70).then(|| *rng.pick(&RefinementOp::ALL)))
            .collect();
    }
    if rng.chance(30) {
        f.statuses = (0..some(rng, 2))
            .map(|_| *rng.pick(&ItemStatus::ALL))
            .collect();
    }
    if rng.chance(30) {
        f.ref_types = (0..some(rng, 2))
            .map(|_| *rng.pick(&RefType::ALL))
            .collect();
    }
    if rng.chance(30) {
        f.tags = (0..some(rng, 2))
            .map(|_| *rng.pick(&IssueTag::ALL))
            .collect();
    }
    if rng.chance(25) {
        f.has_box = Some(rng.chance(50));
    }
    f.size_ratio = range(rng);
    f.center_distance = range(rng);
    f.saliency = range(rng);
    if rng.chance(25) {
        f.text = Some(
            rng.pick(&["the", "ch", "東", "what", "グラフ", "  ", "zzqx"])
                .to_string(),
        );
    }
    if rng.chance(15) {
        f.ids = (0..rng.below(40))
            .map(|_| 1 + rng.below(400) as i64)
            .collect();
    }
    f
}

fn dataset_ids(p: &Project) -> Vec<i64> {
    let mut ids: Vec<i64> = p.datasets().unwrap().iter().map(|d| d.id).collect();
    ids.push(999);
    ids
}

fn same(p: &Project, f: &Filter, step: &str) {
    assert_eq!(
        p.facets(f).unwrap(),
        p.count_facets(f).unwrap(),
        "{step}: {f:?}"
    );
}

/// A filter the columns answer (not everything, no format or stage).
fn category(c: &str) -> Filter {
    Filter {
        categories: vec![c.into()],
        ..Default::default()
    }
}

/// The facets under `f` came from the columns, holding every item.
fn from_columns(p: &Project, f: &Filter, step: &str) {
    same(p, f, step);
    assert_eq!(
        p.facet_columns_held(),
        Some(item_count(p) as usize),
        "{step}: counted in memory"
    );
}

/// `f` run inside a transaction, where the store counts and lists in SQL alone.
fn in_sql<T>(p: &Project, f: impl FnOnce() -> T) -> T {
    p.connection().execute_batch("BEGIN").unwrap();
    let out = f();
    p.connection().execute_batch("COMMIT").unwrap();
    out
}

fn changes(p: &Project) -> i64 {
    p.connection()
        .query_row("SELECT count(*) FROM item_changes", [], |r| r.get(0))
        .unwrap()
}
#[test]
fn facets_from_memory_are_the_counted_ones_under_any_filter() {
    let mut rng = Lcg(7);
    let (_d, p) = scattered(&mut rng);
    let datasets = dataset_ids(&p);
    let mut counted_something = 0;
    assert_eq!(p.facet_columns_held(), None, "nothing read before a count");
    // A search with other filters on a connection that holds no columns is listed in SQL:
    // reading them first would cost a one-shot caller more than it saves.
    let searched = Filter {
        text: Some("グラフ".into()),
        ..category("chart")
    };
    p.query_ids(&searched).unwrap();
    assert_eq!(
        p.facet_columns_held(),
        None,
        "a list alone reads no columns"
    );
    from_columns(&p, &category("chart"), "first count");
    for k in 0..600 {
        let f = any_filter(&mut rng, &datasets);
        let facets = p.facets(&f).unwrap();
        assert_eq!(facets, p.count_facets(&f).unwrap(), "filter {k}: {f:?}");
        assert!(p.facet_columns_held().is_some(), "filter {k}: in memory");
        // A search with other filters is listed from the columns too.
        let ids = p.query_ids(&f).unwrap();
        assert_eq!(
            ids,
            in_sql(&p, || p.query_ids(&f).unwrap()),
            "ids {k}: {f:?}"
        );
        let page = p.query(&f, Page::default()).unwrap();
        assert_eq!(page.total, ids.len() as i64, "total {k}: {f:?}");
        // Two or more columns filtered together are listed from the columns: the same page.
        let in_sql_page = in_sql(&p, || p.query(&f, Page::default()).unwrap());
        assert_eq!(page.total, in_sql_page.total, "total in SQL {k}: {f:?}");
        assert_eq!(
            page.rows.iter().map(|r| r.id).collect::<Vec<_>>(),
            in_sql_page.rows.iter().map(|r| r.id).collect::<Vec<_>>(),
            "page {k}: {f:?}"
        );
        if facets.categories.iter().any(|(_, n)| *n > 0) && !f.is_everything() {
            counted_something += 1;
        }
    }
    // The filters are not all empty-handed: most leave items in some facet.
    assert!(counted_something > 300, "{counted_something}");
}

#[test]
fn facets_from_memory_follow_every_writer() {
    let mut rng = Lcg(11);
    let (dir, mut p) = scattered(&mut rng);
    let path = dir.path().join("t.assay");
    let mut other = Project::open(&path).unwrap();
    let datasets = dataset_ids(&p);
    let filters: Vec<Filter> = (0..40).map(|_| any_filter(&mut rng, &datasets)).collect();
    let check = |p: &Project, step: &str| {
        for f in &filters {
            same(p, f, step);
        }
        from_columns(p, &category("map"), step);
    };
    check(&p, "first read");

    // A few items changed by another connection: caught up from the change log.
    scatter(&other, &mut rng, 5);
    assert!(changes(&p) >= 5, "{}", changes(&p));
    check(&p, "a few items changed elsewhere");

    // Edits through the store, by this connection and by the other.
    let a = author(&p, "aiko");
    for (k, who) in [&mut p, &mut other].into_iter().enumerate() {
        let id = 1 + k as i64 * 7;
        let mut e = edit_of(who, id);
        e.tags = vec![IssueTag::Ambiguous, IssueTag::WrongAnswer];
        e.op = Some(RefinementOp::MinorEdit);
        e.status = ItemStatus::Flagged;
        who.save_edit(id, &e, &a).unwrap();
    }
    check(&p, "edits by both connections");

    // A bulk action over every item: more changes than worth re-reading one by one, so every
    // item is read again.
    other
        .bulk_edit(
            &Filter::default(),
            &BulkChange {
                set_op: true,
                op: Some(RefinementOp::Remove),
                add_tags: vec![IssueTag::Ambiguous],
                status: Some(ItemStatus::Edited),
                ..Default::default()
            },
            &a,
        )
        .unwrap();
    check(&p, "a bulk action elsewhere");

    // A new dataset imported elsewhere: new ids above those held.
    let before = item_count(&p);
    import(
        &mut other,
        &sample_dir().join("crag-mini/crag-mini.jsonl"),
        &assay_core::import::ImportOptions {
            name: Some("crag-again".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(item_count(&p) > before);
    let mut with_new = filters.clone();
    with_new.push(Filter {
        datasets: vec![p.datasets().unwrap().last().unwrap().id],
        ..Default::default()
    });
    for f in &with_new {
        same(&p, f, "an import elsewhere");
    }

    // The log pruned past what this connection last read (as its trigger prunes, oldest
    // first): it reads every item again.
    let logged = changes(&p);
    scatter(&other, &mut rng, 10);
    assert!(changes(&p) >= logged + 10, "{}", changes(&p));
    other
        .connection()
        .execute(
            "DELETE FROM item_changes WHERE seq < (SELECT max(seq) FROM item_changes)",
            [],
        )
        .unwrap();
    check(&p, "the change log pruned");
    // The newest change cannot be deleted: numbers would be handed out again.
    assert!(other
        .connection()
        .execute("DELETE FROM item_changes", [])
        .is_err());
}

/// Values a crafted file could hold that SQLite compares otherwise than the columns would (a
/// real in an integer column, text or a blob across types, a tag past the known bits): each
/// alone makes the columns decline the file, and the counts are SQL's.
#[test]
fn a_value_the_columns_cannot_mirror_is_counted_in_sql() {
    let mut rng = Lcg(3);
    let (dir, p) = scattered(&mut rng);
    let path = dir.path().join("t.assay");
    let datasets = dataset_ids(&p);
    let filters: Vec<Filter> = (0..60).map(|_| any_filter(&mut rng, &datasets)).collect();
    drop(p);
    let crafted = [
        (
            "UPDATE items SET has_box = 0.5 WHERE id = 2",
            "UPDATE items SET has_box = 1 WHERE id = 2",
        ),
        (
            "UPDATE items SET tags = 300 WHERE id = 5",
            "UPDATE items SET tags = 1 WHERE id = 5",
        ),
        (
            "UPDATE items SET has_box = 'yes' WHERE id = 3",
            "UPDATE items SET has_box = 0 WHERE id = 3",
        ),
        (
            "UPDATE items SET category = CAST('chart' AS BLOB) WHERE id = 4",
            "UPDATE items SET category = 'chart' WHERE id = 4",
        ),
    ];
    for (sql, undo) in crafted {
        // A new connection for each case: one that declined a file stays declined.
        let p = Project::open(&path).unwrap();
        from_columns(&p, &category("chart"), "before");
        p.connection().execute(sql, []).unwrap();
        for f in &filters {
            same(&p, f, sql);
        }
        same(&p, &category("chart"), sql);
        assert_eq!(p.facet_columns_held(), None, "{sql}: declined");
        p.connection().execute(undo, []).unwrap();
    }
}

/// Inside a caller's transaction the facets see its uncommitted writes and are counted in SQL;
/// the columns never take them in. Were they to, a rollback would hand the change log's next
/// number to another write, and the columns would keep the rolled-back value and miss that one.
#[test]
fn uncommitted_writes_never_reach_the_columns() {
    let mut rng = Lcg(5);
    let (_d, p) = scattered(&mut rng);
    let f = category("chart");
    from_columns(&p, &f, "before");
    let conn = p.connection();
    conn.execute_batch(
        "BEGIN; UPDATE items SET category = 'rolled back', status = 'flagged' WHERE id = 1;",
    )
    .unwrap();
    let inside = p.facets(&f).unwrap();
    assert_eq!(inside, p.count_facets(&f).unwrap());
    assert!(
        inside
            .categories
            .iter()
            .any(|(c, _)| c.as_deref() == Some("rolled back")),
        "the caller's own write"
    );
    conn.execute_batch("ROLLBACK").unwrap();
    conn.execute(
        "UPDATE items SET category = 'committed', status = 'edited' WHERE id = 2",
        [],
    )
    .unwrap();
    from_columns(&p, &f, "after the rollback and another write");
    let after = p.facets(&f).unwrap();
    assert!(after
        .categories
        .iter()
        .any(|(c, _)| c.as_deref() == Some("committed")));
    assert!(!after
        .categories
        .iter()
        .any(|(c, _)| c.as_deref() == Some("rolled back")));
}

/// Ids are handed out in order and items never deleted, but a file written elsewhere may hold
/// an item with an id of its own choosing: above the last (read as new), or in a gap below it
/// (the count no longer adds up, so every item is read again).
#[test]
fn items_with_ids_out_of_order_are_counted() {
    let mut rng = Lcg(9);
    let (_d, p) = scattered(&mut rng);
    let datasets = dataset_ids(&p);
    let filters: Vec<Filter> = (0..40).map(|_| any_filter(&mut rng, &datasets)).collect();
    from_columns(&p, &category("chart"), "before");
    let insert = |id: i64, category: &str| {
        p.connection()
            .execute(
                "INSERT INTO items (id, dataset_id, ext_id, seq, rev, format, category, status,
                                    question, updated_at)
                 VALUES (?1, 1, 'x-' || ?1, ?1, 1, 'short', ?2, 'todo', 'q', '')",
                rusqlite::params![id, category],
            )
            .unwrap();
    };
    insert(100_000, "chart");
    for f in &filters {
        same(&p, f, "an id far above the others");
    }
    from_columns(&p, &category("chart"), "an id far above the others");
    insert(50_000, "map");
    for f in &filters {
        same(&p, f, "an id in a gap below the last");
    }
    from_columns(&p, &category("map"), "an id in a gap below the last");
    // A selection by hand over sparse ids, with ids no item has.
    let picked = Filter {
        ids: vec![3, 50_000, 100_000, i64::MIN, i64::MAX],
        ..Default::default()
    };
    same(&p, &picked, "a selection over sparse ids");
    let text = Filter {
        text: Some("グラフ".into()),
        ids: vec![3, 4, 5, 50_000, 100_000],
        ..Default::default()
    };
    same(&p, &text, "a search within a selection");
}
