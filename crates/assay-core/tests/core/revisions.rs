use assay_core::store::Edit;
use assay_core::{IssueTag, ItemStatus, RefinementOp};

use crate::common::*;

fn edit_answer(p: &mut assay_core::Project, id: i64, answer: &str, who: &str) -> i64 {
    let a = author(p, who);
    let mut content = p.item(id).unwrap().content;
    content.answer = Some(answer.into());
    let edit = Edit {
        content,
        op: Some(RefinementOp::AnswerCorrection),
        tags: vec![IssueTag::WrongAnswer],
        status: ItemStatus::Edited,
        note: Some("checked against the chart".into()),
    };
    p.save_edit(id, &edit, &a).unwrap()
}

#[test]
fn edits_append_revisions_and_keep_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    assert_eq!(edit_answer(&mut p, id, "117", "aiko"), 1);
    assert_eq!(edit_answer(&mut p, id, "117mm", "minjun"), 2);
    let it = p.item(id).unwrap();
    assert_eq!(it.content.answer.as_deref(), Some("117mm"));
    assert_eq!(it.original.answer.as_deref(), Some("171"));
    assert_eq!(it.op, Some(RefinementOp::AnswerCorrection));
    assert_eq!(it.tags, vec![IssueTag::WrongAnswer]);
    let h = p.revisions(id).unwrap();
    assert_eq!(h.len(), 3);
    assert_eq!(h[0].author, None);
    assert_eq!(h[1].author.as_deref(), Some("aiko"));
    assert_eq!(h[2].author.as_deref(), Some("minjun"));
    assert_eq!(h[2].round, 1);
    // Restoring appends; nothing is rewritten.
    let a = author(&p, "aiko");
    assert_eq!(p.restore_revision(id, 0, &a).unwrap(), 3);
    let it = p.item(id).unwrap();
    assert_eq!(it.content.answer.as_deref(), Some("171"));
    assert_eq!(
        p.revision(id, 2).unwrap().content.answer.as_deref(),
        Some("117mm")
    );
    // Indexed columns follow the latest revision.
    let r = p
        .query(
            &assay_core::store::Filter {
                text: Some("117mm".into()),
                ..Default::default()
            },
            Default::default(),
        )
        .unwrap();
    assert_eq!(r.total, 0);
}

#[test]
fn revisions_cannot_be_changed_or_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let id = p.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    edit_answer(&mut p, id, "91", "aiko");
    let c = p.connection();
    let upd = c
        .execute(
            "UPDATE revisions SET content = '{}' WHERE item_id = ?1",
            [id],
        )
        .unwrap_err();
    assert!(upd.to_string().contains("immutable"), "{upd}");
    let del = c
        .execute("DELETE FROM revisions WHERE item_id = ?1", [id])
        .unwrap_err();
    assert!(del.to_string().contains("cannot be deleted"), "{del}");
    let del_item = c
        .execute("DELETE FROM items WHERE id = ?1", [id])
        .unwrap_err();
    assert!(
        del_item.to_string().contains("remove operation"),
        "{del_item}"
    );
    assert_eq!(p.item(id).unwrap().original.answer.as_deref(), Some("90"));
}

#[test]
fn invalid_edits_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let id = p.item_id_by_ext("vague-mini", "vg-001").unwrap();
    let a = author(&p, "aiko");
    let mut content = p.item(id).unwrap().content;
    content.correct_option = Some(9);
    let edit = Edit {
        content,
        op: None,
        tags: vec![],
        status: ItemStatus::Edited,
        note: None,
    };
    assert_eq!(p.save_edit(id, &edit, &a).unwrap_err().code(), "invalid");
    assert_eq!(p.item(id).unwrap().rev, 0);
}

#[test]
fn edits_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.assay");
    {
        let mut p = assay_core::Project::create(&path).unwrap();
        import_sample(&mut p);
        let id = p.item_id_by_ext("jgraph-mini", "jg-004").unwrap();
        edit_answer(&mut p, id, "80", "aiko");
    }
    let p = assay_core::Project::open(&path).unwrap();
    let id = p.item_id_by_ext("jgraph-mini", "jg-004").unwrap();
    assert_eq!(p.item(id).unwrap().content.answer.as_deref(), Some("80"));
    assert_eq!(p.revisions(id).unwrap()[1].author.as_deref(), Some("aiko"));
}
