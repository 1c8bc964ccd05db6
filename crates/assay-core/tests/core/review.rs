//! Review rules, the auditor's sign-off, and agreement measured from the project's revisions.

use assay_core::store::{AgreementField, Author, NewRound, ReviewDecision, RoundPurpose};
use assay_core::Phase1Dimension;
use assay_core::{ItemStatus, RefinementOp, Role};

use crate::common::*;

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
    let ag = p.agreement(AgreementField::Op, None, None).unwrap();
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
    // A reviewer's approval records the item's op under the reviewer's name, but it is not their
    // judgement: agreement does not count it.
    let jg2 = p.item_id_by_ext("jgraph-mini", "jg-002").unwrap();
    let lead = person(&p, "lead", Role::Auditor);
    p.review(jg2, ReviewDecision::Approve, None, &lead).unwrap();
    let again = p.agreement(AgreementField::Op, None, None).unwrap();
    assert_eq!(again.people, ag.people);
    assert_eq!(again.krippendorff_alpha, ag.krippendorff_alpha);
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

/// Tags and phase-1 flags as nominal values per item (a set of tags is one value). References:
/// scikit-learn `cohen_kappa_score(["none", "ambiguous+wrong_answer", "wrong_answer",
/// "none"], ["none", "ambiguous+wrong_answer", "none", "none"])` = 0.5555555555555556, and for
/// the flags (["overall", "none", "qa_quality"], ["overall", "none", "none"]) = 0.4999999999999999.
#[test]
fn agreement_on_tags_and_phase1_flags() {
    use assay_core::IssueTag::*;
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let tag =
        |p: &mut assay_core::Project, ext: &str, tags: Vec<assay_core::IssueTag>, who: &Author| {
            let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
            let mut e = edit_of(p, id);
            e.tags = tags;
            e.base_rev = None;
            e.note = Some("tagged".into());
            p.save_edit(id, &e, who).unwrap();
        };
    tag(&mut p, "jg-001", vec![], &aiko);
    tag(&mut p, "jg-002", vec![WrongAnswer, Ambiguous], &aiko);
    tag(&mut p, "jg-003", vec![WrongAnswer], &aiko);
    tag(&mut p, "jg-004", vec![], &aiko);
    tag(&mut p, "jg-001", vec![], &minjun);
    tag(&mut p, "jg-002", vec![Ambiguous, WrongAnswer], &minjun);
    tag(&mut p, "jg-003", vec![], &minjun);
    tag(&mut p, "jg-004", vec![], &minjun);
    let ag = p.agreement(AgreementField::Tags, None, None).unwrap();
    assert_eq!(ag.items, 4);
    assert!((ag.pairs[0].cohen_kappa.unwrap() - 0.5555555555555556).abs() < 1e-9);
    assert!(ag.labels.contains(&"ambiguous+wrong_answer".to_string()));

    let flag =
        |p: &mut assay_core::Project, ext: &str, dim: Option<Phase1Dimension>, who: &Author| {
            let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
            // Every person records a judgement on each item: a flag, or a withdrawn one ("none").
            let (d, on) = match dim {
                Some(d) => (d, true),
                None => (Phase1Dimension::Overall, false),
            };
            p.flag_phase1(id, d, on, None, who).unwrap();
        };
    flag(&mut p, "jg-001", Some(Phase1Dimension::Overall), &aiko);
    flag(&mut p, "jg-002", None, &aiko);
    flag(&mut p, "jg-003", Some(Phase1Dimension::QaQuality), &aiko);
    flag(&mut p, "jg-001", Some(Phase1Dimension::Overall), &minjun);
    flag(&mut p, "jg-002", None, &minjun);
    flag(&mut p, "jg-003", None, &minjun);
    let ag = p.agreement(AgreementField::Phase1, None, None).unwrap();
    assert_eq!(ag.items, 3);
    assert!((ag.pairs[0].cohen_kappa.unwrap() - 0.4999999999999999).abs() < 1e-9);
}

/// Sets of tags: one tag in common is partial agreement under MASI, full disagreement for the
/// nominal alpha. References from NLTK 3.9.1 (`AnnotationTask(data, distance=masi_distance)
/// .alpha()` = 0.4830976198689203; with the sets as plain labels, 0.4193548387096774).
#[test]
fn a_shared_tag_is_partial_agreement_under_masi() {
    use assay_core::IssueTag::*;
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let mut tag = |ext: &str, tags: Vec<assay_core::IssueTag>, who: &Author| {
        let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
        let mut e = edit_of(&p, id);
        e.tags = tags;
        e.base_rev = None;
        e.note = Some("tagged".into());
        p.save_edit(id, &e, who).unwrap();
    };
    for (ext, a, m) in [
        ("jg-001", vec![], vec![]),
        (
            "jg-002",
            vec![WrongAnswer, Ambiguous],
            vec![Ambiguous, WrongAnswer],
        ),
        ("jg-003", vec![WrongAnswer], vec![]),
        ("jg-004", vec![], vec![]),
        ("jg-005", vec![WrongAnswer, Ambiguous], vec![WrongAnswer]),
    ] {
        tag(ext, a, &aiko);
        tag(ext, m, &minjun);
    }
    let ag = p.agreement(AgreementField::Tags, None, None).unwrap();
    assert_eq!(ag.items, 5);
    assert!((ag.krippendorff_alpha_masi.unwrap() - 0.4830976198689203).abs() < 1e-12);
    assert!((ag.krippendorff_alpha.unwrap() - 0.4193548387096774).abs() < 1e-12);
    // Fields that are not sets have no MASI figure.
    let ops = p.agreement(AgreementField::Op, None, None).unwrap();
    assert_eq!(ops.krippendorff_alpha_masi, None);
}

/// A lead deals a round with overlap; each person sees their queue and progress; the overlap is
/// what agreement is measured on; a review round never hands someone their own revision.
#[test]
fn rounds_deal_items_with_overlap_and_track_progress() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let lead = person(&p, "lead", Role::Auditor);
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let items: Vec<i64> = p
        .item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(items.len(), 12);
    let spec = NewRound {
        name: "round 1".into(),
        purpose: RoundPurpose::Annotate,
        assignees: vec!["aiko".into(), "minjun".into()],
        overlap: 0.25,
        sample: None,
        seed: 3,
        blind: false,
    };
    // Only an auditor makes rounds; an overlap needs two people; names must exist.
    assert_eq!(
        p.create_round(&spec, &items, &aiko).unwrap_err().code(),
        "forbidden"
    );
    let solo = NewRound {
        assignees: vec!["aiko".into()],
        ..spec.clone()
    };
    assert_eq!(
        p.create_round(&solo, &items, &lead).unwrap_err().code(),
        "invalid"
    );
    let ghost = NewRound {
        assignees: vec!["aiko".into(), "ghost".into()],
        ..spec.clone()
    };
    assert!(p
        .create_round(&ghost, &items, &lead)
        .unwrap_err()
        .to_string()
        .contains("ghost"));

    let r1 = p.create_round(&spec, &items, &lead).unwrap();
    assert_eq!(
        p.create_round(&spec, &items, &lead).unwrap_err().code(),
        "invalid",
        "same name"
    );
    let summary = &p.rounds().unwrap()[0];
    assert_eq!((summary.items, summary.overlapping), (12, 3));
    let assigned: usize = summary.people.iter().map(|x| x.assigned).sum();
    assert_eq!(assigned, 15);

    let qa = p.round_queue(r1, aiko.user_id).unwrap();
    let qm = p.round_queue(r1, minjun.user_id).unwrap();
    let both: Vec<i64> = qa
        .iter()
        .filter(|e| qm.iter().any(|m| m.item_id == e.item_id))
        .map(|e| e.item_id)
        .collect();
    assert_eq!(both.len(), 3);
    assert!(qa.iter().all(|e| !e.done));

    // Both annotate the overlap; aiko also one of her own.
    for (i, id) in both.iter().enumerate() {
        for (who, op) in [
            (&aiko, RefinementOp::Identical),
            // minjun changes the op on the first two items; on the third he agrees with aiko,
            // so its state is hers as well and she may not approve it.
            (
                &minjun,
                if i <= 1 {
                    RefinementOp::MinorEdit
                } else {
                    RefinementOp::Identical
                },
            ),
        ] {
            let mut e = edit_of(&p, *id);
            e.op = Some(op);
            e.base_rev = None;
            e.note = Some("round 1".into());
            p.save_edit(*id, &e, who).unwrap();
        }
    }
    let qa = p.round_queue(r1, aiko.user_id).unwrap();
    assert_eq!(qa.iter().filter(|e| e.done).count(), 3);
    let ag = p.agreement(AgreementField::Op, None, Some(r1)).unwrap();
    assert_eq!(ag.items, 3);
    assert_eq!(ag.pairs[0].items, 3);

    // A review round over the overlap: minjun made the current revisions, so aiko gets them.
    let review = NewRound {
        name: "review 1".into(),
        purpose: RoundPurpose::Review,
        assignees: vec!["minjun".into(), "aiko".into()],
        overlap: 0.0,
        sample: None,
        seed: 1,
        blind: false,
    };
    let r2 = p.create_round(&review, &both, &lead).unwrap();
    assert!(p.round_queue(r2, minjun.user_id).unwrap().is_empty());
    let aq = p.round_queue(r2, aiko.user_id).unwrap();
    assert_eq!(aq.len(), 3);
    p.review(
        both[0],
        ReviewDecision::RequestChanges,
        Some("which edit?"),
        &aiko,
    )
    .unwrap();
    p.review(both[1], ReviewDecision::Approve, None, &aiko)
        .unwrap();
    let aq = p.round_queue(r2, aiko.user_id).unwrap();
    assert_eq!(aq.iter().filter(|e| e.done).count(), 2);
    // Sent back to minjun, with the comment mentioning him; once he fixes it, it is open again
    // in aiko's review queue.
    let back = p.sent_back(minjun.user_id).unwrap();
    assert_eq!(
        back.iter().map(|e| e.item_id).collect::<Vec<_>>(),
        vec![both[0]]
    );
    let mentions = p.open_mentions(minjun.user_id).unwrap();
    assert_eq!(mentions.len(), 1);
    assert!(mentions[0].comment.body.contains("which edit?"));
    let mut fix = edit_of(&p, both[0]);
    fix.status = assay_core::ItemStatus::Edited;
    fix.note = Some("explained".into());
    p.save_edit(both[0], &fix, &minjun).unwrap();
    assert!(p.sent_back(minjun.user_id).unwrap().is_empty());
    assert!(p.open_mentions(minjun.user_id).unwrap().is_empty());
    let aq = p.round_queue(r2, aiko.user_id).unwrap();
    assert_eq!(aq.iter().filter(|e| e.done).count(), 1);

    let rounds = p.rounds().unwrap();
    let m1 = rounds[0]
        .people
        .iter()
        .find(|x| x.name == "minjun")
        .unwrap();
    assert_eq!((m1.approved, m1.sent_back), (1, 1));
    let people = p.people_stats().unwrap();
    let m = people.iter().find(|x| x.name == "minjun").unwrap();
    assert_eq!((m.items_edited, m.approved, m.sent_back), (3, 1, 1));
    let a = people.iter().find(|x| x.name == "aiko").unwrap();
    assert_eq!(
        (a.reviews, a.items_edited),
        (2, 3),
        "review records are not edits"
    );
    assert!(a.median_seconds.is_some());
    assert!(p
        .connection()
        .execute("DELETE FROM round_items", [])
        .is_err());
}

#[test]
fn comment_threads_mention_people_until_they_act() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let id = p.item_id_by_ext("jgraph-mini", "jg-003").unwrap();
    assert_eq!(
        p.add_comment(id, "@nobody look", &aiko).unwrap_err().code(),
        "invalid"
    );
    assert_eq!(
        p.add_comment(id, "   ", &aiko).unwrap_err().code(),
        "invalid"
    );
    let c = p
        .add_comment(id, "@minjun is the unit right? <b>cm</b>", &aiko)
        .unwrap();
    assert_eq!(c.mentions, vec!["minjun"]);
    assert_eq!(
        c.body, "@minjun is the unit right? <b>cm</b>",
        "stored as written, escaped by the UI"
    );
    assert_eq!(p.open_mentions(minjun.user_id).unwrap().len(), 1);
    assert!(p.open_mentions(aiko.user_id).unwrap().is_empty());
    p.add_comment(id, "yes, cm", &minjun).unwrap();
    assert!(
        p.open_mentions(minjun.user_id).unwrap().is_empty(),
        "a reply answers it"
    );
    let thread = p.comments(id).unwrap();
    assert_eq!(
        thread.iter().map(|c| c.author.as_str()).collect::<Vec<_>>(),
        vec!["aiko", "minjun"]
    );
}

#[test]
fn nobody_approves_their_own_work_after_someone_else_flags_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    set_op(&mut p, "jg-006", RefinementOp::AnswerCorrection, &aiko);
    // minjun's "request changes" is a revision of his that repeats aiko's content.
    p.review(id, ReviewDecision::RequestChanges, Some("unit?"), &minjun)
        .unwrap();
    let err = p
        .review(id, ReviewDecision::Approve, None, &aiko)
        .unwrap_err();
    assert_eq!(err.code(), "forbidden");
    // Once someone else changes the content, aiko may approve it.
    set_op(&mut p, "jg-006", RefinementOp::MinorEdit, &minjun);
    p.review(id, ReviewDecision::Approve, None, &aiko).unwrap();
}

/// The list sorts by the columns that are not on the item, with the values the table shows:
/// who an item is dealt to, whether they agree, and a run's score; J/K walk the same order.
#[test]
fn the_list_sorts_by_assignee_agreement_and_a_runs_score() {
    use assay_core::store::{Filter, Page, Sort, SortColumn};
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    person(&p, "seo", Role::Annotator);
    let lead = person(&p, "lead", Role::Auditor);
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let items: Vec<i64> = p
        .item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|x| x.0)
        .collect();
    let spec = NewRound {
        name: "pairs".into(),
        purpose: RoundPurpose::Annotate,
        assignees: vec!["aiko".into(), "minjun".into(), "seo".into()],
        overlap: 1.0,
        sample: None,
        seed: 5,
        blind: false,
    };
    p.create_round(&spec, &items, &lead).unwrap();
    // Both of jg-001's people record the same operation, jg-002's two different ones, jg-003's
    // only one of two.
    for (ext, ops) in [
        ("jg-001", [RefinementOp::MinorEdit, RefinementOp::MinorEdit]),
        ("jg-002", [RefinementOp::MinorEdit, RefinementOp::Remove]),
    ] {
        let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
        let dealt = p.table_extras(&[id], &[]).unwrap().remove(0).assignees;
        for (who, op) in dealt.iter().zip(ops) {
            let author = person(&p, who, Role::Annotator);
            set_op(&mut p, ext, op, &author);
        }
    }
    let id3 = p.item_id_by_ext("jgraph-mini", "jg-003").unwrap();
    let first3 = p.table_extras(&[id3], &[]).unwrap().remove(0).assignees[0].clone();
    set_op(
        &mut p,
        "jg-003",
        RefinementOp::Identical,
        if first3 == "aiko" { &aiko } else { &minjun },
    );
    // jg-003's first assignee might be seo, who has not worked: then it is still pending.

    // A recorded run with a result on half the items.
    let cfg = r#"{"name":"m","model":"m","endpoints":["http://127.0.0.1:9/v1"]}"#;
    let model_id = p.ensure_model_config("m", cfg).unwrap();
    let key = assay_core::store::RunKey {
        model_id,
        dataset_id: ds,
        version: assay_core::Version::Before,
        variant: "original".into(),
        run_index: 1,
        template: "default".into(),
        scorer: "soft_match".into(),
        source: "recorded".into(),
        protocol: None,
    };
    let results: Vec<_> = items
        .iter()
        .take(6)
        .enumerate()
        .map(|(k, &item_id)| {
            let outcome = if k == 0 { "error" } else { "scored" };
            let score = [0.9, 0.2, 1.0, 0.5, 0.0, 0.7][k];
            let rev = p.item(item_id).unwrap().rev;
            assay_core::store::evaluation::runs::RecordedResult::plain(
                item_id,
                rev,
                outcome,
                Some(score),
                "soft_match",
                "r".into(),
            )
        })
        .collect();
    let run = p.record_run(&key, &results, "complete").unwrap();
    let only = Filter {
        datasets: vec![ds],
        ..Default::default()
    };
    let sorted = |column, desc, run| Filter {
        sort: Some(Sort { column, desc, run }),
        ..only.clone()
    };
    let page = |f: &Filter| -> Vec<i64> {
        let ids: Vec<i64> = p
            .query(
                f,
                Page {
                    offset: 0,
                    limit: 100,
                },
            )
            .unwrap()
            .rows
            .into_iter()
            .map(|r| r.id)
            .collect();
        assert_eq!(p.query_ids(f).unwrap(), ids, "J/K walk the list's order");
        ids
    };
    let extras = |ids: &[i64]| p.table_extras(ids, &[]).unwrap();

    // Agreement: agree, differ, then pending, the rest (no agreement yet: pending too) by id.
    let by_agreement = page(&sorted(SortColumn::Agreement, false, None));
    let shown: Vec<Option<String>> = extras(&by_agreement)
        .into_iter()
        .map(|e| e.agreement)
        .collect();
    let mut want = shown.clone();
    want.sort_by(|a, b| match (a, b) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    assert_eq!(shown, want, "sorted as the column reads");
    assert_eq!(shown[0].as_deref(), Some("agree"));
    assert_eq!(shown[1].as_deref(), Some("differ"));
    assert_eq!(
        by_agreement[..2],
        [
            p.item_id_by_ext("jgraph-mini", "jg-001").unwrap(),
            p.item_id_by_ext("jgraph-mini", "jg-002").unwrap()
        ]
    );

    // Assignee: by the first name dealt, descending reverses the names, ties in dataset order.
    let by_person = page(&sorted(SortColumn::Assignee, true, None));
    let firsts: Vec<String> = extras(&by_person)
        .into_iter()
        .map(|e| e.assignees[0].clone())
        .collect();
    let mut want = firsts.clone();
    want.sort_by(|a, b| b.cmp(a));
    assert_eq!(firsts, want);
    assert_eq!(by_person.len(), 12);

    // A run's score: descending, those without a result last.
    let by_score = page(&sorted(SortColumn::RunScore, true, Some(run)));
    let scores: Vec<Option<f64>> = p
        .table_extras(&by_score, &[run])
        .unwrap()
        .into_iter()
        .map(|e| e.scores[0])
        .collect();
    // The error counts 0, as the column shows it; items without a result last, by id.
    assert_eq!(
        scores,
        [
            vec![
                Some(1.0),
                Some(0.7),
                Some(0.5),
                Some(0.2),
                Some(0.0),
                Some(0.0)
            ],
            vec![None; 6]
        ]
        .concat()
    );
    assert_eq!(
        by_score[4], items[0],
        "0 from the error, before the true 0 by id"
    );
    assert_eq!(by_score[6..], items[6..]);
    // Pages of five cross from the results to the items without one, in the same order; a
    // filter holds in both parts.
    let f = sorted(SortColumn::RunScore, true, Some(run));
    let mut paged = Vec::new();
    for offset in (0..12).step_by(5) {
        paged.extend(
            p.query(&f, Page { offset, limit: 5 })
                .unwrap()
                .rows
                .into_iter()
                .map(|r| r.id),
        );
    }
    assert_eq!(paged, by_score);
    let some = Filter {
        ids: vec![items[1], items[2], items[7], items[9]],
        ..f.clone()
    };
    let r = p
        .query(
            &some,
            Page {
                offset: 0,
                limit: 10,
            },
        )
        .unwrap();
    assert_eq!(r.total, 4);
    let got: Vec<i64> = r.rows.into_iter().map(|r| r.id).collect();
    assert_eq!(got, vec![items[2], items[1], items[7], items[9]]);
    let err = p
        .query(&sorted(SortColumn::RunScore, false, None), Page::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("needs the run"), "{err}");

    // Paged and filtered, the round's columns keep the whole list's order.
    for column in [SortColumn::Agreement, SortColumn::Assignee] {
        for desc in [false, true] {
            let f = sorted(column, desc, None);
            let whole = page(&f);
            let mut paged = Vec::new();
            for offset in (0..12).step_by(5) {
                paged.extend(
                    p.query(&f, Page { offset, limit: 5 })
                        .unwrap()
                        .rows
                        .into_iter()
                        .map(|r| r.id),
                );
            }
            assert_eq!(paged, whole, "{column:?} desc {desc}");
            let some = Filter {
                ids: vec![items[1], items[2], items[7], items[9]],
                ..f.clone()
            };
            let got: Vec<i64> = p
                .query(&some, Page::default())
                .unwrap()
                .rows
                .into_iter()
                .map(|r| r.id)
                .collect();
            let want: Vec<i64> = whole
                .iter()
                .copied()
                .filter(|i| some.ids.contains(i))
                .collect();
            assert_eq!(got, want, "{column:?} desc {desc} filtered");
        }
    }

    // A later round deals jg-001 to one person: it stands in that round now (one person: no
    // agreement, sorted after every item that has one), its first assignee that person.
    let jg1 = p.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    let solo = NewRound {
        name: "solo".into(),
        assignees: vec!["seo".into()],
        overlap: 0.0,
        ..spec.clone()
    };
    p.create_round(&solo, &[jg1], &lead).unwrap();
    let e = p.table_extras(&[jg1], &[]).unwrap().remove(0);
    assert_eq!((e.assignees, e.agreement), (vec!["seo".to_string()], None));
    let ids = |f: &Filter| -> Vec<i64> {
        let r = p.query(f, Page::default()).unwrap();
        r.rows.into_iter().map(|r| r.id).collect()
    };
    let by_agreement = ids(&sorted(SortColumn::Agreement, false, None));
    assert_eq!(*by_agreement.last().unwrap(), jg1);
    let by_person = ids(&sorted(SortColumn::Assignee, true, None));
    assert_eq!(by_person[0], jg1, "seo sorts first, descending");
}

/// A view sorted by a run's score names the run by this replica's id: it travels without that
/// order both ways, rather than sorting a colleague's list by whatever run has the same id.
#[test]
fn a_views_run_sort_does_not_travel_between_replicas() {
    use assay_core::store::team::views::SyncSavedView;
    use assay_core::store::{Filter, Sort, SortColumn};
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let by_run = Filter {
        statuses: vec![ItemStatus::Todo],
        sort: Some(Sort {
            column: SortColumn::RunScore,
            desc: true,
            run: Some(3),
        }),
        ..Default::default()
    };
    p.save_view("by a run", &by_run, &[], true, &aiko).unwrap();
    let out = p.pending_saved_views().unwrap();
    let sent: Filter = serde_json::from_str(&out[0].filter).unwrap();
    assert_eq!(sent.sort, None);
    assert_eq!(
        sent.statuses,
        vec![ItemStatus::Todo],
        "the rest of the filter goes"
    );

    let pulled = SyncSavedView {
        uid: "0f".repeat(16),
        name: "theirs".into(),
        filter: serde_json::to_string(&by_run).unwrap(),
        datasets: vec![],
        columns: "[]".into(),
        author: "minjun".into(),
        shared: true,
        deleted: false,
        created_at: String::new(),
    };
    p.apply_pulled_saved_view(&pulled, 1).unwrap();
    let theirs = p
        .saved_views(aiko.user_id)
        .unwrap()
        .into_iter()
        .find(|v| v.name == "theirs")
        .unwrap();
    assert_eq!(theirs.filter.sort, None);
}

/// CRAG-MM-Diagnostics' annotation check on referring-expression types: an expert's label
/// against the majority of three crowd labels, an item with a tie, with two crowd labels, or
/// with experts who disagree left out and counted. Kappa by hand on the six compared items:
/// experts (amb, sal, in, know, sal, amb), majorities (amb, sal, in, sal, amb, amb):
/// p_o = 4/6, p_e = (2·3 + 2·2 + 1·1 + 1·0)/36 = 11/36, kappa = 13/25; ambiguous against the
/// rest: p_o = 5/6, p_e = 1/2, kappa = 2/3.
#[test]
fn experts_are_checked_against_the_crowds_majority_as_crag_mm_did() {
    use assay_core::store::MajorityCheckSpec;
    use assay_core::RefType::{self, *};
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let set = |p: &mut assay_core::Project, n: usize, t: RefType, who: &Author| {
        let id = p
            .item_id_by_ext("jgraph-mini", &format!("jg-{n:03}"))
            .unwrap();
        let mut e = edit_of(p, id);
        e.content.ref_type = Some(t);
        // The write path asks an ambiguous expression for its disambiguated question.
        e.content.disambiguated_question = Some("the part on the left: how long is it?".into());
        e.base_rev = None;
        e.note = Some("typed".into());
        p.save_edit(id, &e, who).unwrap();
    };
    let kim = person(&p, "kim", Role::Auditor);
    let lee = person(&p, "lee", Role::Auditor);
    let crowd: Vec<Author> = ["a", "b", "c"]
        .iter()
        .map(|n| person(&p, n, Role::Annotator))
        .collect();
    let expert = [
        Ambiguous,
        Salient,
        Ambiguous,
        InImageCue,
        KnowledgeCue,
        Salient,
        Ambiguous,
        Salient,
        Salient,
    ];
    let votes: [&[RefType]; 9] = [
        &[Ambiguous, Ambiguous, Salient],
        &[Salient, Salient, Salient],
        &[Ambiguous, Salient, InImageCue],
        &[InImageCue, InImageCue, Ambiguous],
        &[KnowledgeCue, Salient, Salient],
        &[Salient, Ambiguous, Ambiguous],
        &[Ambiguous, Ambiguous, Ambiguous],
        &[Salient, Salient],
        &[Salient, Salient, Salient],
    ];
    for (i, (e, vs)) in expert.iter().zip(votes).enumerate() {
        set(&mut p, i + 1, *e, &kim);
        for (who, v) in crowd.iter().zip(vs) {
            set(&mut p, i + 1, *v, who);
        }
    }
    // A second expert agrees on item 1 and not on item 9.
    set(&mut p, 1, Ambiguous, &lee);
    set(&mut p, 9, Ambiguous, &lee);

    let c = p
        .majority_check(&MajorityCheckSpec::ref_types(vec![
            "kim".into(),
            "lee".into(),
        ]))
        .unwrap();
    assert_eq!(c.items, 6);
    assert_eq!(
        (c.no_majority, c.too_few_crowd, c.experts_disagree),
        (1, 1, 1)
    );
    assert!((c.accuracy.unwrap() - 4.0 / 6.0).abs() < 1e-12);
    assert!((c.kappa.unwrap() - 13.0 / 25.0).abs() < 1e-12, "{c:?}");
    assert!((c.binary_kappa.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(
        c.labels,
        ["ambiguous", "in_image_cue", "knowledge_cue", "salient"]
    );
    // Rows the expert: knowledge_cue was voted salient.
    assert_eq!(c.confusion[2], [0, 0, 0, 1]);
    let total: u64 = c.confusion.iter().flatten().sum();
    assert_eq!(total, 6);

    // Only labels can be voted on, and experts must be named, and be people of the project.
    let mut spec = MajorityCheckSpec::ref_types(vec![]);
    assert_eq!(p.majority_check(&spec).unwrap_err().code(), "invalid");
    spec.experts = vec![" kim".into()];
    assert_eq!(p.majority_check(&spec).unwrap_err().code(), "not_found");
    spec.experts = vec!["kim".into()];
    spec.field = AgreementField::Box;
    assert_eq!(p.majority_check(&spec).unwrap_err().code(), "invalid");
}

/// A project whose rounds were dealt before schema 41: opening it works out where each item
/// stands (first assignee, agreement) from its rounds and revisions, the same values dealing
/// and saving keep from then on.
#[test]
fn opening_a_project_from_before_schema_41_works_out_where_items_stand() {
    let dir = tempfile::tempdir().unwrap();
    let read = |p: &assay_core::Project| -> Vec<(i64, Option<String>, Option<String>)> {
        let mut st = p
            .connection()
            .prepare("SELECT item_id, assignee, agreement FROM round_standing ORDER BY item_id")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect()
    };
    let kept = {
        let mut p = new_project(dir.path());
        import_sample(&mut p);
        let lead = person(&p, "lead", Role::Auditor);
        for n in ["aiko", "minjun"] {
            person(&p, n, Role::Annotator);
        }
        let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
        let items: Vec<i64> = p
            .item_ext_ids(ds)
            .unwrap()
            .into_iter()
            .map(|x| x.0)
            .collect();
        let spec = NewRound {
            name: "pairs".into(),
            purpose: RoundPurpose::Annotate,
            assignees: vec!["aiko".into(), "minjun".into()],
            overlap: 1.0,
            sample: None,
            seed: 1,
            blind: false,
        };
        p.create_round(&spec, &items, &lead).unwrap();
        let aiko = person(&p, "aiko", Role::Annotator);
        let minjun = person(&p, "minjun", Role::Annotator);
        set_op(&mut p, "jg-001", RefinementOp::MinorEdit, &aiko);
        set_op(&mut p, "jg-001", RefinementOp::MinorEdit, &minjun);
        set_op(&mut p, "jg-002", RefinementOp::Remove, &aiko);
        set_op(&mut p, "jg-002", RefinementOp::MinorEdit, &minjun);
        let kept = read(&p);
        assert!(kept.iter().any(|r| r.2.as_deref() == Some("agree")));
        assert!(kept.iter().any(|r| r.2.as_deref() == Some("differ")));
        p.connection()
            .execute_batch(
                "DROP TRIGGER round_standing_on_revision;
                 DROP VIEW round_standing_of;
                 DROP TABLE round_standing;
                 PRAGMA user_version = 40;",
            )
            .unwrap();
        kept
    };
    let p = assay_core::Project::open(dir.path().join("t.assay")).unwrap();
    assert_eq!(read(&p), kept);
}
