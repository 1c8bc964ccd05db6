//! HAERAE-Vision's workflow: checklist edits with their rules, stage decisions, phase-1 flags
//! and auditors' overrides, the funnel, and the export in the published layout.

use assay_core::store::{Author, DecidedBy, Filter};
use assay_core::{CriterionFlag, CriterionIssue, Error, Phase1Dimension, Role, Version};

use crate::common::*;

fn haerae(p: &mut assay_core::Project) -> i64 {
    import(
        p,
        &sample_dir().join("haerae-mini/haerae-mini.jsonl"),
        &Default::default(),
    )
    .unwrap();
    p.dataset_by_name("haerae-mini").unwrap().id
}

fn auditor(p: &assay_core::Project, name: &str) -> Author {
    let u = p.ensure_user(name, Role::Auditor).unwrap();
    Author {
        user_id: u.id,
        role: Role::Auditor,
        round: 3,
    }
}

#[test]
fn checklist_edits_follow_the_rules_and_flags_follow_their_criterion() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    haerae(&mut p);
    let a = author(&p, "minjun");
    let id = p.item_id_by_ext("haerae-mini", "103").unwrap();
    let refuse = |p: &mut assay_core::Project, list: Vec<&str>, want: &str| {
        let mut e = edit_of(p, id);
        e.content.checklist = list.into_iter().map(String::from).collect();
        let err = p.save_edit(id, &e, &a).unwrap_err();
        assert!(
            matches!(&err, Error::Invalid(m) if m.contains(want)),
            "{err}"
        );
    };
    refuse(&mut p, vec!["a", " ", "c"], "criterion 2 is empty");
    refuse(
        &mut p,
        vec!["Names the price", "names  the PRICE"],
        "repeats",
    );
    refuse(&mut p, vec!["1", "2", "3", "4", "5", "6"], "1-5 criteria");
    assert_eq!(p.item(id).unwrap().rev, 0, "nothing saved");

    // Reorder, flag one criterion, then rewrite it: the flag goes with the old text.
    let mut e = edit_of(&p, id);
    e.content.checklist.reverse();
    let first = e.content.checklist[0].clone();
    e.content.checklist_flags = vec![CriterionFlag {
        criterion: first.clone(),
        issue: CriterionIssue::Unverifiable,
    }];
    p.save_edit(id, &e, &a).unwrap();
    assert_eq!(p.item(id).unwrap().content.checklist_flags.len(), 1);
    let mut e = edit_of(&p, id);
    e.content.checklist[0] = format!("{first} (with the sale price)");
    p.save_edit(id, &e, &a).unwrap();
    let now = p.item(id).unwrap();
    assert!(now.content.checklist_flags.is_empty());
    assert_eq!(
        now.content.checklist[0],
        format!("{first} (with the sale price)")
    );
}

#[test]
fn stages_flags_and_overrides_decide_the_kept_set_and_the_funnel() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let ds = haerae(&mut p);
    let a = author(&p, "minjun");
    let stages = p.stages().unwrap();
    assert_eq!(stages.len(), 6, "HAERAE-Vision's six by default");
    assert_eq!(stages[2].name, "Difficulty calibration");
    let item = |ext: &str| p.item_id_by_ext("haerae-mini", ext).unwrap();
    let (i101, i102, i103) = (item("101"), item("102"), item("103"));

    // A model run drops 101 at stage 3, a person keeps 102 at stage 2 then drops it at 4.
    let err = p
        .decide_stage(i101, stages[2].id, false, None, DecidedBy::Person(&a))
        .unwrap_err();
    assert!(err.to_string().contains("reason"), "{err}");
    p.decide_stage(
        i101,
        stages[2].id,
        false,
        Some("all three models solved it"),
        DecidedBy::Person(&a),
    )
    .unwrap();
    p.decide_stage(i102, stages[1].id, true, None, DecidedBy::Person(&a))
        .unwrap();
    let f = p
        .decide_stage(
            i102,
            stages[3].id,
            false,
            Some("answerable without the image"),
            DecidedBy::Person(&a),
        )
        .unwrap();
    assert_eq!(f.dropped_stage, Some(4));
    assert!(!f.kept);

    // Phase 1: one annotator's flag on any dimension removes 103.
    let f = p
        .flag_phase1(
            i103,
            Phase1Dimension::ChecklistValidity,
            true,
            Some("criterion 2 is unverifiable"),
            &a,
        )
        .unwrap();
    assert!(f.phase1_removed && !f.kept);
    assert_eq!(f.flags[0].dimension, Phase1Dimension::ChecklistValidity);

    assert_eq!(
        ids(
            &p,
            &Filter {
                dropped_at: Some(4),
                ..Default::default()
            }
        ),
        vec!["102"]
    );
    assert_eq!(
        ids(
            &p,
            &Filter {
                kept: Some(true),
                ..Default::default()
            }
        ),
        vec!["104"]
    );
    let after: Vec<String> = p
        .version_members(ds, Version::After)
        .unwrap()
        .into_iter()
        .map(|m| m.ext_id)
        .collect();
    assert_eq!(after, vec!["104"], "the after set is the kept set");

    let funnel = p.funnel(&[], "source").unwrap();
    let survivors: Vec<i64> = funnel.iter().map(|s| s.survivors).collect();
    // candidates, stages 1-6, phase 1
    assert_eq!(survivors, vec![4, 4, 4, 3, 2, 2, 2, 1]);
    let naver = |step: &assay_core::store::FunnelStep| {
        step.groups
            .iter()
            .find(|g| g.0.as_deref() == Some("Naver KnowledgeIn"))
            .map_or(0, |g| g.1)
    };
    assert_eq!(naver(&funnel[0]), 3);
    assert_eq!(naver(&funnel[7]), 1);

    // Only an auditor keeps a flagged item; the store refuses anyone else.
    let err = p.override_phase1(i103, true, None, &a).unwrap_err();
    assert_eq!(err.code(), "forbidden");
    let pretender = Author {
        role: Role::Auditor,
        ..a
    };
    assert_eq!(
        p.override_phase1(i103, true, None, &pretender)
            .unwrap_err()
            .code(),
        "forbidden"
    );
    let audit = auditor(&p, "seoyeon");
    let f = p
        .override_phase1(i103, true, Some("criterion fixed in phase 2"), &audit)
        .unwrap();
    assert!(f.kept);
    assert_eq!(f.overridden_by.as_deref(), Some("seoyeon"));
    // Withdrawing the flag and the override leaves it kept; a new flag removes it again.
    p.flag_phase1(i103, Phase1Dimension::ChecklistValidity, false, None, &a)
        .unwrap();
    p.override_phase1(i103, false, None, &audit).unwrap();
    assert!(p.filtering(i103).unwrap().kept);
    let f = p
        .flag_phase1(i103, Phase1Dimension::Overall, true, None, &a)
        .unwrap();
    assert!(!f.kept);

    // Decisions are append-only in the file itself.
    let conn = p.connection();
    assert!(conn.execute("DELETE FROM stage_decisions", []).is_err());
    assert!(conn
        .execute("UPDATE phase1_flags SET flagged = 0", [])
        .is_err());
}

#[test]
fn stages_are_editable_but_a_used_stage_stays() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    haerae(&mut p);
    let a = author(&p, "minjun");
    let id = p.item_id_by_ext("haerae-mini", "101").unwrap();
    let st = p.stages().unwrap();
    p.decide_stage(id, st[5].id, false, Some("unclear"), DecidedBy::Person(&a))
        .unwrap();
    let two = vec![
        ("Collection".to_string(), String::new()),
        ("Human validation".to_string(), "three phases".to_string()),
    ];
    let now = p.set_stages(&two).unwrap();
    assert_eq!(now.len(), 2);
    assert_eq!(now[1].id, st[5].id, "the used stage keeps its id");
    assert_eq!(
        p.filtering(id).unwrap().dropped_stage,
        Some(2),
        "its new position"
    );
    let err = p.set_stages(&two[..1]).unwrap_err();
    assert!(err.to_string().contains("cannot be removed"), "{err}");
}

#[test]
fn the_published_layout_round_trips_with_the_kept_set_and_the_filtering_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let ds = haerae(&mut p);
    let a = author(&p, "minjun");
    let st = p.stages().unwrap();
    let id = p.item_id_by_ext("haerae-mini", "102").unwrap();
    p.decide_stage(
        id,
        st[3].id,
        false,
        Some("image-independent"),
        DecidedBy::Person(&a),
    )
    .unwrap();
    let i101 = p.item_id_by_ext("haerae-mini", "101").unwrap();
    let mut e = edit_of(&p, i101);
    e.content.explicit_question = Some("초록색 비상구 표지판의 EXIT는 무슨 뜻인가요?".into());
    e.content.checklist.swap(0, 1);
    p.save_edit(i101, &e, &a).unwrap();

    let out = dir.path().join("HAERAE-Vision-Refined");
    let report =
        assay_core::export::export_haerae(&p, "haerae-mini", &out, Default::default()).unwrap();
    assert_eq!((report.items, report.removed_left_out), (3, 1));
    let text = std::fs::read_to_string(out.join("train.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["question_idx"], 101, "an integer, as published");
    let filtering = std::fs::read_to_string(out.join("filtering.csv")).unwrap();
    assert!(
        filtering.contains("102,4. Image dependency verification,drop,image-independent,minjun"),
        "{filtering}"
    );

    std::fs::create_dir_all(dir.path().join("again")).unwrap();
    let mut q = new_project(&dir.path().join("again"));
    let r = import(&mut q, &out.join("train.jsonl"), &Default::default()).unwrap();
    assert_eq!(r.layout, "haerae-vision");
    let back = q.dataset_by_name(&r.dataset).unwrap().id;
    let mine: Vec<_> = p
        .version_items(ds, Version::After)
        .unwrap()
        .into_iter()
        .map(|(m, c)| (m.ext_id, c))
        .collect();
    let theirs: Vec<_> = q
        .version_items(back, Version::After)
        .unwrap()
        .into_iter()
        .map(|(m, c)| (m.ext_id, c))
        .collect();
    assert_eq!(mine.len(), theirs.len());
    for ((a_id, a), (b_id, b)) in mine.iter().zip(&theirs) {
        assert_eq!(a_id, b_id);
        assert_eq!(a.question, b.question);
        assert_eq!(a.explicit_question, b.explicit_question);
        assert_eq!(a.checklist, b.checklist);
        assert_eq!(a.category, b.category);
        assert_eq!(a.source, b.source);
        assert_eq!(a.answer, b.answer);
        assert_eq!(
            a.images.iter().map(|i| &i.hash).collect::<Vec<_>>(),
            b.images.iter().map(|i| &i.hash).collect::<Vec<_>>()
        );
    }
}
