//! Imported originals packed against the import's dictionary read back exactly as imported.

use assay_core::import::ImportOptions;
use assay_core::store::{Edit, Filter};
use assay_core::ItemStatus;

use crate::common::{author, import, jgraph_items, new_project, sample_dir};

fn opts() -> ImportOptions {
    ImportOptions {
        name: Some("jgraph".into()),
        image_root: Some(sample_dir().join("jgraph-mini")),
        ..Default::default()
    }
}

fn scalar(p: &assay_core::Project, sql: &str) -> i64 {
    p.connection().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn packed_originals_read_back_as_imported_and_take_less_room() {
    let dir = tempfile::tempdir().unwrap();
    let big = jgraph_items(dir.path(), 1500, "big.jsonl");
    let small = jgraph_items(dir.path(), 200, "small.jsonl");
    let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a_dir).unwrap();
    std::fs::create_dir_all(&b_dir).unwrap();
    let mut a = new_project(&a_dir);
    let mut b = new_project(&b_dir);
    import(&mut a, &big, &opts()).unwrap();
    import(&mut b, &small, &opts()).unwrap();

    // 1,500 items teach a dictionary and are packed; 200 are too few and stay plain JSON.
    assert_eq!(
        scalar(
            &a,
            "SELECT count(*) FROM revisions WHERE typeof(content) = 'blob'"
        ),
        1500
    );
    assert_eq!(scalar(&a, "SELECT count(*) FROM content_dicts"), 1);
    assert_eq!(
        scalar(
            &b,
            "SELECT count(*) FROM revisions WHERE typeof(content) = 'text'"
        ),
        200
    );
    let packed = scalar(&a, "SELECT sum(length(content)) FROM revisions");
    let plain = scalar(
        &a,
        "SELECT sum(length(CAST(revision_json(content) AS BLOB))) FROM revisions",
    );
    assert!(
        packed * 3 < plain,
        "{packed} bytes packed for {plain} of JSON"
    );

    // Each of the first 200 items reads the same from both projects.
    let a_ids = a.query_ids(&Filter::default()).unwrap();
    let b_ids = b.query_ids(&Filter::default()).unwrap();
    assert_eq!(b_ids.len(), 200);
    for (ia, ib) in a_ids.iter().zip(&b_ids) {
        let (x, y) = (a.item(*ia).unwrap(), b.item(*ib).unwrap());
        assert_eq!(
            (&x.ext_id, &x.content, &x.original),
            (&y.ext_id, &y.content, &y.original)
        );
        assert_eq!(a.revision(*ia, 0).unwrap().content, y.original);
    }
    // A search and a filter see packed items like any other.
    let found = a
        .query_ids(&Filter {
            text: Some("(1234番)".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(found.len(), 1);

    // An edit is stored plain next to its packed original; restoring the original brings back
    // exactly what was imported.
    let id = a_ids[7];
    let original = a.item(id).unwrap().content;
    let who = author(&a, "ann");
    let mut edit = Edit::answer_fix(&a.item(id).unwrap(), "fixed");
    edit.status = ItemStatus::Edited;
    a.save_edit(id, &edit, &who).unwrap();
    assert_eq!(a.item(id).unwrap().content.answer.as_deref(), Some("fixed"));
    assert_eq!(a.item(id).unwrap().original, original);
    a.restore_revision(id, 0, &who).unwrap();
    assert_eq!(a.item(id).unwrap().content, original);
    assert_eq!(
        scalar(
            &a,
            &format!(
                "SELECT count(*) FROM revisions WHERE item_id = {id} AND typeof(content) = 'text'"
            )
        ),
        2
    );

    // A second import learns a dictionary of its own; one that fails keeps nothing, its
    // dictionary included.
    let again = jgraph_items(dir.path(), 600, "again.jsonl");
    import(
        &mut a,
        &again,
        &ImportOptions {
            name: Some("again".into()),
            ..opts()
        },
    )
    .unwrap();
    assert_eq!(scalar(&a, "SELECT count(*) FROM content_dicts"), 2);
    let mut broken = std::fs::read_to_string(&again).unwrap();
    broken.push_str("{not json\n");
    let broken_path = dir.path().join("broken.jsonl");
    std::fs::write(&broken_path, broken).unwrap();
    let err = import(
        &mut a,
        &broken_path,
        &ImportOptions {
            name: Some("broken".into()),
            ..opts()
        },
    );
    assert!(err.is_err());
    assert_eq!(scalar(&a, "SELECT count(*) FROM content_dicts"), 2);
    assert_eq!(scalar(&a, "SELECT count(*) FROM items"), 2100);

    // Dictionaries, like the contents packed with them, cannot change.
    assert!(a
        .connection()
        .execute("UPDATE content_dicts SET dict = x'00'", [])
        .is_err());
    assert!(a
        .connection()
        .execute("DELETE FROM content_dicts", [])
        .is_err());

    // Reopened, a new connection finds the dictionaries again.
    drop(a);
    let a = assay_core::Project::open(a_dir.join("t.assay")).unwrap();
    assert_eq!(a.item(a_ids[1499]).unwrap().ext_id, "jg-01499");
}
