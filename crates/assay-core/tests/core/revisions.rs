use assay_core::store::Edit;
use assay_core::{IssueTag, ItemStatus, RefinementOp};

use crate::common::*;

fn edit_answer(p: &mut assay_core::Project, id: i64, answer: &str, who: &str) -> i64 {
    let a = author(p, who);
    let mut content = p.item(id).unwrap().content;
    content.answer = Some(answer.into());
    let edit = Edit {
        base_rev: None,
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
        base_rev: None,
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

fn answer_edit(p: &assay_core::Project, id: i64, base: Option<i64>, answer: &str) -> Edit {
    let mut content = p.item(id).unwrap().content;
    content.answer = Some(answer.into());
    Edit {
        base_rev: base,
        content,
        op: Some(RefinementOp::AnswerCorrection),
        tags: vec![],
        status: ItemStatus::Edited,
        note: None,
    }
}

#[test]
fn two_edits_on_one_base_are_a_conflict_not_a_lost_update() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    // Two windows open revision 0; the first saves.
    let mine = answer_edit(&p, id, Some(0), "117");
    let theirs = answer_edit(&p, id, Some(0), "171 mm");
    let a = author(&p, "aiko");
    let b = author(&p, "minjun");
    assert_eq!(p.save_edit(id, &mine, &a).unwrap(), 1);
    // The second, still based on revision 0, is refused and changes nothing.
    let e = p.save_edit(id, &theirs, &b).unwrap_err();
    assert_eq!(e.code(), "conflict");
    assert!(e.to_string().contains("revision 1 (aiko)"), "{e}");
    assert_eq!(p.item(id).unwrap().content.answer.as_deref(), Some("117"));
    assert_eq!(p.revisions(id).unwrap().len(), 2);
    // Making exactly the change already made is no conflict and writes nothing.
    let same = answer_edit(&p, id, Some(0), "117");
    assert_eq!(p.save_edit(id, &same, &b).unwrap(), 1);
    // Based on the current revision, the second person's change goes in.
    let rebased = answer_edit(&p, id, Some(1), "171 mm");
    assert_eq!(p.save_edit(id, &rebased, &b).unwrap(), 2);
}

#[test]
fn no_op_saves_write_nothing_and_status_rules_apply_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let id = p.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    let a = author(&p, "aiko");
    let it = p.item(id).unwrap();
    let unchanged = Edit {
        base_rev: Some(0),
        content: it.content.clone(),
        op: None,
        tags: vec![],
        status: ItemStatus::Todo,
        note: None,
    };
    assert_eq!(
        p.save_edit(id, &unchanged, &a).unwrap(),
        0,
        "nothing changed"
    );
    assert_eq!(p.revisions(id).unwrap().len(), 1);
    // A status-only change (an auditor approves) keeps the content.
    let approve = Edit {
        status: ItemStatus::Approved,
        ..unchanged.clone()
    };
    assert_eq!(p.save_edit(id, &approve, &a).unwrap(), 1);
    assert_eq!(p.item(id).unwrap().status, ItemStatus::Approved);
    // Saving the same approved state again (a CLI run with no changes) writes nothing and
    // does not reset the approval.
    let again = Edit {
        base_rev: Some(1),
        ..approve.clone()
    };
    assert_eq!(p.save_edit(id, &again, &a).unwrap(), 1);
    assert_eq!(p.item(id).unwrap().status, ItemStatus::Approved);
    // Changing an approved item makes it edited again, whatever status the caller sent.
    let mut changed = again.clone();
    changed.content.answer = Some("91".into());
    assert_eq!(p.save_edit(id, &changed, &a).unwrap(), 2);
    assert_eq!(p.item(id).unwrap().status, ItemStatus::Edited);
}

/// Every revision has its team uid: originals from the importer's runs once a team needs them
/// (distinct, of the usual 32 hex digits), edits from the trigger with the uid of the revision
/// they were based on, taken from the runs while the original's row is not written.
#[test]
fn every_revision_gets_a_team_uid_and_an_edit_its_base() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    edit_answer(&mut p, id, "117", "aiko");
    assert!(p.write_original_uids().unwrap() > 20);
    let c = p.connection();
    let (revisions, uids, distinct, well_formed): (i64, i64, i64, i64) = c
        .query_row(
            "SELECT (SELECT count(*) FROM revisions),
                    (SELECT count(*) FROM sync_uids WHERE tbl = 'revisions'),
                    (SELECT count(DISTINCT uid) FROM sync_uids WHERE tbl = 'revisions'),
                    (SELECT count(*) FROM sync_uids WHERE tbl = 'revisions' AND length(uid) = 32
                        AND uid NOT GLOB '*[^0-9a-f]*')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert!(revisions > 20);
    assert_eq!(
        (uids, distinct, well_formed),
        (revisions, revisions, revisions)
    );
    let (base, original): (Option<String>, String) = c
        .query_row(
            "SELECT e.base_uid, o.uid FROM revisions r1
             JOIN sync_uids e ON e.tbl = 'revisions' AND e.local_id = r1.id
             JOIN revisions r0 ON r0.item_id = r1.item_id AND r0.rev = 0
             JOIN sync_uids o ON o.tbl = 'revisions' AND o.local_id = r0.id
             WHERE r1.item_id = ?1 AND r1.rev = 1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(
        base,
        Some(original),
        "the edit records the original it was based on"
    );
}
