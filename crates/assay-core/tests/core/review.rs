//! Review rules, the auditor's sign-off, and agreement measured from the project's revisions.

use assay_core::store::{Author, ReviewDecision};
use assay_core::{ItemStatus, RefinementOp, Role};

use crate::common::*;

fn person(p: &assay_core::Project, name: &str, role: Role) -> Author {
    let u = p.ensure_user(name, role).unwrap();
    Author {
        user_id: u.id,
        role,
        round: 1,
    }
}

fn set_op(p: &mut assay_core::Project, ext: &str, op: RefinementOp, who: &Author) {
    let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
    let mut e = edit_of(p, id);
    e.op = Some(op);
    e.base_rev = None;
    // A person's judgement is recorded even when it matches the current one (a note makes the
    // save a revision), so a second annotator who agrees counts.
    e.note = Some("annotated".into());
    p.save_edit(id, &e, who).unwrap();
}

#[test]
fn nobody_reviews_their_own_work_and_only_auditors_sign_off() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let seo = person(&p, "seoyeon", Role::Auditor);
    let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    set_op(&mut p, "jg-006", RefinementOp::AnswerCorrection, &aiko);

    // aiko's own revision: not in her queue, she cannot approve it either way.
    assert!(!p.review_queue(aiko.user_id).unwrap().contains(&id));
    assert!(p.review_queue(minjun.user_id).unwrap().contains(&id));
    let err = p
        .review(id, ReviewDecision::Approve, None, &aiko)
        .unwrap_err();
    assert_eq!(err.code(), "forbidden");
    let mut approve = edit_of(&p, id);
    approve.status = ItemStatus::Approved;
    assert_eq!(
        p.save_edit(id, &approve, &aiko).unwrap_err().code(),
        "forbidden"
    );

    // minjun asks for changes; aiko fixes it; minjun approves.
    p.review(
        id,
        ReviewDecision::RequestChanges,
        Some("unit missing"),
        &minjun,
    )
    .unwrap();
    assert_eq!(p.item(id).unwrap().status, ItemStatus::Flagged);
    let mut fix = edit_of(&p, id);
    fix.content.answer = Some("117mm".into());
    fix.status = ItemStatus::Edited;
    p.save_edit(id, &fix, &aiko).unwrap();
    p.review(id, ReviewDecision::Approve, Some("ok"), &minjun)
        .unwrap();
    assert_eq!(p.item(id).unwrap().status, ItemStatus::Approved);

    // Sign-off: annotators cannot, even claiming to be auditors; the auditor can; it locks.
    assert_eq!(
        p.sign_off(id, true, None, &aiko).unwrap_err().code(),
        "forbidden"
    );
    let pretender = Author {
        role: Role::Auditor,
        ..aiko
    };
    assert_eq!(
        p.sign_off(id, true, None, &pretender).unwrap_err().code(),
        "forbidden"
    );
    p.sign_off(id, true, Some("final audit"), &seo).unwrap();
    let mut late = edit_of(&p, id);
    late.content.answer = Some("118mm".into());
    let err = p.save_edit(id, &late, &seo).unwrap_err();
    assert!(err.to_string().contains("signed off"), "{err}");
    assert_eq!(
        p.restore_revision(id, 0, &aiko).unwrap_err().code(),
        "forbidden"
    );
    assert!(!p.review_queue(minjun.user_id).unwrap().contains(&id));
    p.sign_off(id, false, Some("reopened for a typo"), &seo)
        .unwrap();
    late.base_rev = None;
    p.save_edit(id, &late, &aiko).unwrap();
    assert_eq!(p.item(id).unwrap().content.answer.as_deref(), Some("118mm"));

    // Sign-offs and decisions are append-only in the file.
    assert!(p.connection().execute("DELETE FROM signoffs", []).is_err());
    assert!(p
        .connection()
        .execute("UPDATE review_decisions SET decision = 'approve'", [])
        .is_err());
}

/// Three annotators record operations on jgraph-mini; references from scikit-learn's
/// `cohen_kappa_score` and the `krippendorff` package (nominal) on the same labels.
#[test]
fn agreement_from_the_projects_own_revisions_matches_the_references() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    use RefinementOp::*;
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let seo = person(&p, "seo", Role::Annotator);
    let a = [
        Identical,
        MinorEdit,
        AnswerCorrection,
        Identical,
        Remove,
        MinorEdit,
    ];
    let m = [
        Identical,
        AnswerCorrection,
        AnswerCorrection,
        Identical,
        Remove,
        Identical,
    ];
    let s = [Identical, MinorEdit, MinorEdit];
    for (i, op) in a.iter().enumerate() {
        set_op(&mut p, &format!("jg-00{}", i + 1), *op, &aiko);
    }
    // minjun first records something else on jg-001, then changes his mind: the latest counts.
    set_op(&mut p, "jg-001", Remove, &minjun);
    for (i, op) in m.iter().enumerate() {
        set_op(&mut p, &format!("jg-00{}", i + 1), *op, &minjun);
    }
    for (i, op) in s.iter().enumerate() {
        set_op(&mut p, &format!("jg-00{}", i + 1), *op, &seo);
    }
    let ag = p.agreement(None, "op").unwrap();
    assert_eq!(ag.items, 6);
    assert_eq!(ag.people, vec!["aiko", "minjun", "seo"]);
    let kappa = |x: &str, y: &str| {
        ag.pairs
            .iter()
            .find(|pa| pa.a == x && pa.b == y)
            .unwrap()
            .cohen_kappa
            .unwrap()
    };
    assert!((kappa("aiko", "minjun") - 0.5555555555555556).abs() < 1e-9);
    assert!((kappa("aiko", "seo") - 0.4999999999999999).abs() < 1e-9);
    assert!((kappa("minjun", "seo") - 0.25).abs() < 1e-9);
    assert!((ag.krippendorff_alpha.unwrap() - 0.475).abs() < 1e-9);
    let am = ag.pairs.iter().find(|pa| pa.b == "minjun").unwrap();
    let total: u64 = am.confusion.iter().flatten().sum();
    assert_eq!(total, 6);
    assert!(p.agreement(None, "colour").is_err());
}

#[test]
fn an_auditor_signs_off_a_whole_dataset_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let aiko = person(&p, "aiko", Role::Annotator);
    let seo = person(&p, "seoyeon", Role::Auditor);
    assert_eq!(
        p.sign_off_dataset(ds, None, &aiko).unwrap_err().code(),
        "forbidden"
    );
    assert_eq!(p.sign_off_dataset(ds, Some("release 1"), &seo).unwrap(), 12);
    assert_eq!(
        p.sign_off_dataset(ds, None, &seo).unwrap(),
        0,
        "already signed"
    );
    let id = p.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    assert!(p.item(id).unwrap().signed_off);
    let other = p.item_id_by_ext("vague-mini", "vg-001").unwrap();
    assert!(
        !p.item(other).unwrap().signed_off,
        "other datasets untouched"
    );
}
