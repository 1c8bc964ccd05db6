//! The one write path: every public function that changes an item, tried the way a person
//! would try to get around a rule, on a signed-off item, on an item a blind round holds, and as
//! an approval of one's own work. Each refusal must leave every table as it was.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use assay_core::grounding::formats::BoxSet;
use assay_core::store::{
    Author, BlindJudgement, BulkChange, DecidedBy, Edit, Filter, NewRound, NewSuggestion,
    ReviewDecision, RoundPurpose,
};
use assay_core::{BBox, ItemStatus, LabeledBox, Phase1Dimension, Project, RefinementOp, Role};

use crate::common::*;

/// Who acts: `actor` is the person trying the change, `auditor` the one whose role some
/// changes need (both assignees of the blind round in the blind case).
struct Ctx {
    item: i64,
    dataset: i64,
    stage: i64,
    round: i64,
    actor: Author,
    auditor: Author,
    dir: std::path::PathBuf,
}

/// A new project holding the sample's JGraph items.
fn jgraph_project(dir: &Path) -> Project {
    let mut p = new_project(dir);
    import(
        &mut p,
        &sample_dir().join("jgraph-mini/jgraph-mini.jsonl"),
        &Default::default(),
    )
    .unwrap();
    p
}

/// A blind round of `assignees` over `item`, dealt by `lead`.
fn blind_round(p: &mut Project, item: i64, assignees: &[&str], lead: &Author) -> i64 {
    p.create_round(
        &NewRound {
            name: "blind".into(),
            purpose: RoundPurpose::Annotate,
            assignees: assignees.iter().map(|a| a.to_string()).collect(),
            overlap: 1.0,
            sample: None,
            seed: 1,
            blind: true,
        },
        &[item],
        lead,
    )
    .unwrap()
}

/// Rows of every table the write path writes, in a fixed order.
fn rows(p: &Project) -> Vec<(String, i64)> {
    [
        "revisions",
        "review_decisions",
        "signoffs",
        "stage_decisions",
        "phase1_flags",
        "phase1_overrides",
        "blind_annotations",
    ]
    .iter()
    .map(|t| {
        let n = p
            .connection()
            .query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
            .unwrap();
        (t.to_string(), n)
    })
    .collect()
}

fn changed_answer(p: &Project, item: i64) -> Edit {
    let mut e = edit_of(p, item);
    e.content.answer = Some(format!("changed {}", e.content.answer.unwrap_or_default()));
    e
}

/// A project with the sample's JGraph items; `ann` has written the first item's answer, and
/// `bob` and `aud` (an auditor) are dealt it in a blind round where both have judged it.
fn setup(dir: &Path) -> (Project, Ctx, Author) {
    let mut p = jgraph_project(dir);
    let lead = person(&p, "lead", Role::Auditor);
    let ann = person(&p, "ann", Role::Annotator);
    let bob = person(&p, "bob", Role::Annotator);
    let aud = person(&p, "aud", Role::Auditor);
    let item = p.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    let dataset = p.item(item).unwrap().dataset_id;
    p.save_edit(item, &changed_answer(&p, item), &ann).unwrap();
    let round = blind_round(&mut p, item, &["bob", "aud"], &lead);
    for who in [&bob, &aud] {
        let j = BlindJudgement {
            op: Some(RefinementOp::MinorEdit),
            ..Default::default()
        };
        p.record_blind(round, item, &j, who).unwrap();
    }
    let stage = p.stages().unwrap()[0].id;
    // A refined set that changes the item, beside the sample's images.
    let images = dir.join("images");
    std::fs::create_dir_all(&images).unwrap();
    std::fs::copy(
        sample_dir().join("jgraph-mini/images/sales.png"),
        images.join("sales.png"),
    )
    .unwrap();
    std::fs::write(
        dir.join("refined.jsonl"),
        r#"{"answer":"91","category":"chart","image":"images/sales.png","question":"Cの値は？","question_id":"jg-001r","seed":"jg-001"}"#,
    )
    .unwrap();
    let ctx = Ctx {
        item,
        dataset,
        stage,
        round,
        actor: bob,
        auditor: aud,
        dir: dir.to_path_buf(),
    };
    (p, ctx, ann)
}

type Write = fn(&mut Project, &Ctx) -> assay_core::Result<()>;

/// Every public function that changes an item, each making a change that would be allowed on
/// an item no rule holds.
const WRITES: &[(&str, Write)] = &[
    ("save_edit", |p, c| {
        let e = changed_answer(p, c.item);
        p.save_edit(c.item, &e, &c.actor).map(drop)
    }),
    ("restore_revision", |p, c| {
        p.restore_revision(c.item, 0, &c.actor).map(drop)
    }),
    ("resolve_conflict_with", |p, c| {
        let e = changed_answer(p, c.item);
        p.resolve_conflict_with(c.item, &e, &c.actor).map(drop)
    }),
    ("bulk_edit", |p, c| {
        let target = Filter {
            ids: vec![c.item],
            ..Default::default()
        };
        let change = BulkChange {
            set_op: true,
            op: Some(RefinementOp::Remove),
            ..Default::default()
        };
        let r = p.bulk_edit(&target, &change, &c.actor)?;
        // A bulk action skips what the rules refuse and says why.
        match r.skipped_reasons.first() {
            Some((_, why)) => Err(assay_core::Error::Forbidden(why.clone())),
            None => Ok(()),
        }
    }),
    ("review", |p, c| {
        p.review(
            c.item,
            ReviewDecision::RequestChanges,
            Some("unit?"),
            &c.actor,
        )
        .map(drop)
    }),
    ("decide_stage", |p, c| {
        p.decide_stage(
            c.item,
            c.stage,
            false,
            Some("answerable without the image"),
            DecidedBy::Person(&c.actor),
        )
        .map(drop)
    }),
    ("flag_phase1", |p, c| {
        p.flag_phase1(
            c.item,
            Phase1Dimension::parse("checklist_validity").unwrap(),
            true,
            None,
            &c.actor,
        )
        .map(drop)
    }),
    ("override_phase1", |p, c| {
        p.override_phase1(c.item, true, Some("kept"), &c.auditor)
            .map(drop)
    }),
    ("apply_box_sets", |p, c| {
        let hash = p.item(c.item)?.content.images[0].hash.clone();
        let set = BoxSet {
            item: Some("jg-001".into()),
            image_hash: Some(hash),
            targets: vec![LabeledBox::plain(BBox {
                x_min: 1.0,
                y_min: 1.0,
                x_max: 5.0,
                y_max: 5.0,
            })],
            ..Default::default()
        };
        p.apply_box_sets(c.dataset, &[set], &c.actor, "boxes", "boxes.json")
            .map(drop)
    }),
    ("adjudicate_blind", |p, c| {
        p.adjudicate_blind(c.round, c.item, "bob", &c.auditor)
            .map(drop)
    }),
    ("accept_suggestion", |p, c| {
        let it = p.item(c.item)?;
        let value = assay_core::SuggestionValue::Checklist {
            criteria: vec!["Names the value of bar C".into()],
        };
        let run = p.start_suggestion_run(assay_core::SuggestionKind::Checklist, "m", "t", 1)?;
        let ids = p.write_suggestions(
            &[NewSuggestion {
                run_id: run,
                item_id: c.item,
                item_rev: it.rev,
                kind: assay_core::SuggestionKind::Checklist,
                model: "m".into(),
                template: "t".into(),
                value: Some(value.clone()),
                raw: Some("- Names the value of bar C".into()),
                problem: None,
                error: false,
                cache_key: None,
                from_cache: false,
            }],
            &[],
        )?;
        p.accept_suggestion(ids[0], it.rev, &value, None, None, &c.actor)
            .map(drop)
    }),
    ("import_refined", |p, c| {
        assay_core::import::refined::import_refined(
            p,
            &c.dir.join("refined.jsonl"),
            "jgraph-mini",
            "seed",
            &Default::default(),
            &c.actor,
            &mut |_| {},
            &AtomicBool::new(false),
        )
        .map(drop)
    }),
];

fn refused(p: &mut Project, c: &Ctx, name: &str, write: Write, says: &str) {
    let before = rows(p);
    let err = write(p, c).expect_err(name);
    assert_eq!(err.code(), "forbidden", "{name}: {err}");
    assert!(err.to_string().contains(says), "{name}: {err}");
    assert_eq!(rows(p), before, "{name} wrote something");
}

#[test]
fn every_write_refuses_a_change_to_a_signed_off_item() {
    let dir = tempfile::tempdir().unwrap();
    let (mut p, c, _) = setup(dir.path());
    p.sign_off(c.item, true, None, &c.auditor).unwrap();
    for (name, write) in WRITES {
        refused(&mut p, &c, name, *write, "is signed off");
    }
}

#[test]
fn every_write_refuses_an_assignee_while_a_blind_round_holds_the_item() {
    let dir = tempfile::tempdir().unwrap();
    let (mut p, c, _) = setup(dir.path());
    // The auditor is an assignee too, so the writes an auditor makes are held like any.
    for (name, write) in WRITES {
        refused(&mut p, &c, name, *write, "blind round");
    }
}

#[test]
fn a_blind_judgement_on_a_signed_off_item_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = jgraph_project(dir.path());
    let lead = person(&p, "lead", Role::Auditor);
    let bob = person(&p, "bob", Role::Annotator);
    let item = p.item_id_by_ext("jgraph-mini", "jg-002").unwrap();
    let round = blind_round(&mut p, item, &["bob", "lead"], &lead);
    p.sign_off(item, true, None, &lead).unwrap();
    let before = rows(&p);
    let j = BlindJudgement {
        op: Some(RefinementOp::Identical),
        ..Default::default()
    };
    let err = p.record_blind(round, item, &j, &bob).unwrap_err();
    assert!(err.to_string().contains("is signed off"), "{err}");
    assert_eq!(rows(&p), before);
}

/// Approving is a status, a review or a bulk action: every way is refused to the person who
/// wrote the work, however the item was touched since by others.
#[test]
fn nobody_approves_their_own_work_by_any_write() {
    let dir = tempfile::tempdir().unwrap();
    let (mut p, c, ann) = setup(dir.path());
    // Out of the blind round's hold: an auditor outside it adjudicates, taking bob's operation
    // (the content stays ann's answer).
    let lead = person(&p, "lead", Role::Auditor);
    p.adjudicate_blind(c.round, c.item, "bob", &lead).unwrap();
    // A colleague adds a tag: the answer is still ann's work.
    let cara = person(&p, "cara", Role::Annotator);
    let mut tagged = edit_of(&p, c.item);
    tagged
        .tags
        .push(assay_core::IssueTag::parse("ambiguous").unwrap());
    p.save_edit(c.item, &tagged, &cara).unwrap();
    let approvals: &[(&str, Write)] = &[
        ("save_edit approved", |p, c| {
            let mut e = edit_of(p, c.item);
            e.status = ItemStatus::Approved;
            p.save_edit(c.item, &e, &c.actor).map(drop)
        }),
        ("review approve", |p, c| {
            p.review(c.item, ReviewDecision::Approve, None, &c.actor)
                .map(drop)
        }),
        ("bulk approve", |p, c| {
            let target = Filter {
                ids: vec![c.item],
                ..Default::default()
            };
            let change = BulkChange {
                status: Some(ItemStatus::Approved),
                ..Default::default()
            };
            p.bulk_edit(&target, &change, &c.actor).map(drop)
        }),
    ];
    let as_ann = Ctx { actor: ann, ..c };
    for (name, write) in approvals {
        let before = rows(&p);
        let err = write(&mut p, &as_ann).expect_err(name);
        assert_eq!(err.code(), "forbidden", "{name}: {err}");
        assert_eq!(rows(&p), before, "{name} wrote something");
    }
    // Someone who wrote none of it approves it.
    let dan = person(&p, "dan", Role::Annotator);
    let e = p.review(as_ann.item, ReviewDecision::Approve, None, &dan);
    assert!(e.is_ok(), "{e:?}");
}

/// Clearing the operation is work too: whoever cleared it does not approve it, even after a
/// colleague touched the item since; and nobody writes a note that passes for an adjudication.
#[test]
fn clearing_the_operation_is_work_and_adjudication_notes_are_the_stores() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = jgraph_project(dir.path());
    let ann = person(&p, "ann", Role::Annotator);
    let bob = person(&p, "bob", Role::Annotator);
    let cara = person(&p, "cara", Role::Annotator);
    let item = p.item_id_by_ext("jgraph-mini", "jg-003").unwrap();
    let mut e = changed_answer(&p, item);
    e.op = Some(RefinementOp::Remove);
    p.save_edit(item, &e, &ann).unwrap();
    let mut cleared = edit_of(&p, item);
    cleared.op = None;
    p.save_edit(item, &cleared, &bob).unwrap();
    let mut tagged = edit_of(&p, item);
    tagged.tags.push(assay_core::IssueTag::Ambiguous);
    p.save_edit(item, &tagged, &cara).unwrap();
    let before = rows(&p);
    let err = p
        .review(item, ReviewDecision::Approve, None, &bob)
        .unwrap_err();
    assert_eq!(err.code(), "forbidden", "{err}");
    assert_eq!(rows(&p), before);
    // Approving by status is refused to whoever made the current revision, whatever it changed.
    let mut approve = edit_of(&p, item);
    approve.status = ItemStatus::Approved;
    let err = p.save_edit(item, &approve, &cara).unwrap_err();
    assert!(err.to_string().contains("your own revision"), "{err}");
    let mut forged = changed_answer(&p, item);
    forged.note = Some("adjudicated blind: took bob's judgement".into());
    let err = p.save_edit(item, &forged, &cara).unwrap_err();
    assert_eq!(err.code(), "invalid", "{err}");
    assert_eq!(rows(&p), before);
}
