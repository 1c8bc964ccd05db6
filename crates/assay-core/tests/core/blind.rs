//! Blind double annotation: judgements recorded apart from the item and from each other,
//! agreement measured on them, and an auditor's adjudication.

use assay_core::store::{AgreementField, Author, BlindJudgement, Edit, NewRound, RoundPurpose};
use assay_core::{BBox, IssueTag, Phase1Dimension, Project, RefType, RefinementOp, Role};

use crate::common::*;

fn judged(op: RefinementOp) -> BlindJudgement {
    BlindJudgement {
        op: Some(op),
        ..Default::default()
    }
}

fn bx(x_min: f64, y_min: f64, x_max: f64, y_max: f64) -> BBox {
    BBox {
        x_min,
        y_min,
        x_max,
        y_max,
    }
}

fn blind_round(p: &mut Project, items: &[i64], lead: &Author) -> i64 {
    let spec = NewRound {
        name: "blind 1".into(),
        purpose: RoundPurpose::Annotate,
        assignees: vec!["aiko".into(), "minjun".into()],
        overlap: 1.0,
        sample: None,
        seed: 5,
        blind: true,
    };
    p.create_round(&spec, items, lead).unwrap()
}

fn answer_edit(p: &Project, id: i64) -> Edit {
    let mut e = edit_of(p, id);
    e.content.answer = Some("changed".into());
    e
}

#[test]
fn judgements_stay_apart_until_all_are_in_then_an_auditor_adjudicates() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let seo = person(&p, "seo", Role::Annotator);
    let lead = person(&p, "lead", Role::Auditor);
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let items: Vec<i64> = p.item_ext_ids(ds).unwrap()[..6]
        .iter()
        .map(|x| x.0)
        .collect();
    let x = items[0];

    // Only an annotate round can be blind.
    let review = NewRound {
        name: "blind review".into(),
        purpose: RoundPurpose::Review,
        assignees: vec!["aiko".into(), "minjun".into()],
        overlap: 1.0,
        sample: None,
        seed: 1,
        blind: true,
    };
    assert_eq!(
        p.create_round(&review, &items, &lead).unwrap_err().code(),
        "invalid"
    );
    let round = blind_round(&mut p, &items, &lead);
    assert!(p.rounds().unwrap()[0].blind);

    // A judgement names an op; ratings are 1-5; a box lies inside the image.
    let mut bad = judged(RefinementOp::Identical);
    bad.op = None;
    assert_eq!(
        p.record_blind(round, x, &bad, &aiko).unwrap_err().code(),
        "invalid"
    );
    let mut outside = judged(RefinementOp::Identical);
    outside.target_box = Some(bx(0.0, 0.0, 1e6, 10.0));
    assert_eq!(
        p.record_blind(round, x, &outside, &aiko)
            .unwrap_err()
            .code(),
        "invalid"
    );
    // Someone not assigned the item records nothing.
    assert_eq!(
        p.record_blind(round, x, &judged(RefinementOp::Remove), &seo)
            .unwrap_err()
            .code(),
        "forbidden"
    );

    let mut a = judged(RefinementOp::AnswerCorrection);
    a.tags = vec![IssueTag::WrongAnswer];
    a.target_box = Some(bx(0.0, 0.0, 10.0, 10.0));
    a.phase1 = vec![Phase1Dimension::QaQuality];
    let shown = p.record_blind(round, x, &a, &aiko).unwrap();
    assert!(!shown.open);
    assert_eq!(shown.judgements.len(), 1);
    assert_eq!(shown.judgements[0].judgement, a);
    // The item itself is untouched: a judgement is not a revision.
    assert_eq!(p.item(x).unwrap().rev, 0);

    // minjun sees neither aiko's judgement nor, as an auditor, does the lead.
    let m_view = p.blind_items(x, &minjun).unwrap();
    assert_eq!(m_view.len(), 1);
    assert!(m_view[0].judgements.is_empty() && !m_view[0].open);
    let l_view = p.blind_items(x, &lead).unwrap();
    assert!(l_view[0].judgements.is_empty());
    // seo, not in the round and not an auditor, is not shown the round at all.
    assert!(p.blind_items(x, &seo).unwrap().is_empty());
    // Nothing to adjudicate yet, and the lead cannot.
    assert!(p.adjudication_queue().unwrap().is_empty());
    assert_eq!(
        p.adjudicate_blind(round, x, "aiko", &lead)
            .unwrap_err()
            .code(),
        "forbidden"
    );
    // Neither assignee edits the item while the judgements are not all in; someone else may.
    for who in [&aiko, &minjun] {
        let e = answer_edit(&p, x);
        assert_eq!(p.save_edit(x, &e, who).unwrap_err().code(), "forbidden");
        assert_eq!(
            p.restore_revision(x, 0, who).unwrap_err().code(),
            "forbidden"
        );
    }
    // aiko may still change her mind while minjun's is not in: the latest counts.
    a.ref_type = Some(RefType::Salient);
    p.record_blind(round, x, &a, &aiko).unwrap();

    let mut m = judged(RefinementOp::MinorEdit);
    m.target_box = Some(bx(5.0, 0.0, 15.0, 10.0));
    m.ref_type = Some(RefType::Salient);
    let shown = p.record_blind(round, x, &m, &minjun).unwrap();
    assert!(shown.open);
    assert_eq!(
        shown
            .judgements
            .iter()
            .map(|e| (e.person.as_str(), e.judgement.clone()))
            .collect::<Vec<_>>(),
        vec![("aiko", a.clone()), ("minjun", m.clone())]
    );
    // Once all are in nobody records again (nobody changes their mind having seen the other's).
    assert_eq!(
        p.record_blind(round, x, &judged(RefinementOp::Identical), &aiko)
            .unwrap_err()
            .code(),
        "forbidden"
    );
    // Until an auditor adjudicates, the assignees still do not edit the item.
    let e = answer_edit(&p, x);
    assert_eq!(p.save_edit(x, &e, &aiko).unwrap_err().code(), "forbidden");
    let queue = p.round_queue(round, aiko.user_id).unwrap();
    assert!(queue.iter().find(|e| e.item_id == x).unwrap().done);
    assert_eq!(
        p.adjudication_queue()
            .unwrap()
            .iter()
            .map(|e| e.item_id)
            .collect::<Vec<_>>(),
        vec![x]
    );

    // Only an auditor adjudicates; the revision takes the chosen judgement.
    assert_eq!(
        p.adjudicate_blind(round, x, "minjun", &aiko)
            .unwrap_err()
            .code(),
        "forbidden"
    );
    assert_eq!(
        p.adjudicate_blind(round, x, "seo", &lead)
            .unwrap_err()
            .code(),
        "invalid"
    );
    let rev = p.adjudicate_blind(round, x, "minjun", &lead).unwrap();
    let it = p.item(x).unwrap();
    assert_eq!(it.rev, rev);
    assert_eq!(it.op, Some(RefinementOp::MinorEdit));
    assert_eq!(it.content.ref_type, Some(RefType::Salient));
    assert_eq!(
        it.content.images[0].target_boxes[0].bbox,
        bx(5.0, 0.0, 15.0, 10.0)
    );
    assert!(p.blind_items(x, &lead).unwrap()[0].adjudicated);
    assert!(p.adjudication_queue().unwrap().is_empty());
    // With every judgement in, the assignees edit the item again.
    let e = answer_edit(&p, x);
    p.save_edit(x, &e, &aiko).unwrap();
}

#[test]
fn agreement_of_a_blind_round_is_measured_on_its_judgements() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    use RefinementOp::*;
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let lead = person(&p, "lead", Role::Auditor);
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let ext: Vec<(i64, String)> = p.item_ext_ids(ds).unwrap()[..6].to_vec();
    let items: Vec<i64> = ext.iter().map(|x| x.0).collect();
    let round = blind_round(&mut p, &items, &lead);
    // The label sequences of review.rs's agreement test, whose kappa sklearn gives as 5/9.
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
    for (k, id) in items.iter().enumerate() {
        let mut ja = judged(a[k]);
        let mut jm = judged(m[k]);
        // Boxes on the first two items: IoU 1/3 and 1.
        if k == 0 {
            ja.target_box = Some(bx(0.0, 0.0, 10.0, 10.0));
            jm.target_box = Some(bx(5.0, 0.0, 15.0, 10.0));
        }
        if k == 1 {
            ja.target_box = Some(bx(1.0, 1.0, 4.0, 4.0));
            jm.target_box = Some(bx(1.0, 1.0, 4.0, 4.0));
        }
        p.record_blind(round, *id, &ja, &aiko).unwrap();
        // The last item's second judgement is missing: it is no unit yet.
        if k < 5 {
            p.record_blind(round, *id, &jm, &minjun).unwrap();
        }
    }
    let ag = p.agreement(AgreementField::Op, None, Some(round)).unwrap();
    assert!(ag.blind);
    assert_eq!(ag.items, 5);
    // On the five complete units: a = I M A I R, m = I A A I R; sklearn's cohen_kappa_score
    // gives 0.7222222222222222 (po 0.8, pe 0.28).
    let k = ag.pairs[0].cohen_kappa.unwrap();
    assert!((k - 0.7222222222222222).abs() < 1e-9, "{k}");
    p.record_blind(round, items[5], &judged(m[5]), &minjun)
        .unwrap();
    let ag = p.agreement(AgreementField::Op, None, Some(round)).unwrap();
    assert_eq!(ag.items, 6);
    let k = ag.pairs[0].cohen_kappa.unwrap();
    assert!((k - 0.5555555555555556).abs() < 1e-9, "{k}");
    // The items' revisions say nothing: agreement over the whole project has no units.
    assert_eq!(
        p.agreement(AgreementField::Op, None, None).unwrap().items,
        0
    );

    let boxes = p.agreement(AgreementField::Box, None, Some(round)).unwrap();
    assert_eq!(boxes.items, 2);
    assert!((boxes.mean_iou.unwrap() - (1.0 / 3.0 + 1.0) / 2.0).abs() < 1e-12);
    assert!((boxes.pairs[0].mean_iou.unwrap() - 2.0 / 3.0).abs() < 1e-12);
}
