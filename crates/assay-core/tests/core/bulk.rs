//! Bulk actions on a selection, undone as one step; saved views; the list's order.

use assay_core::store::{Author, BulkChange, Filter, Page, Sort, SortColumn};
use assay_core::{IssueTag, ItemStatus, RefinementOp, Role};

use crate::common::*;

fn jg(p: &assay_core::Project, ext: &str) -> i64 {
    p.item_id_by_ext("jgraph-mini", ext).unwrap()
}

fn selection(ids: &[i64]) -> Filter {
    Filter {
        ids: ids.to_vec(),
        ..Default::default()
    }
}

#[test]
fn a_bulk_change_is_one_step_and_its_undo_another() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let ids = [jg(&p, "jg-001"), jg(&p, "jg-002"), jg(&p, "jg-003")];
    // jg-002 already carries the tag and op asked for: it is counted unchanged, not re-written.
    let c2 = p.item(ids[1]).unwrap().content;
    p.save_edit(
        ids[1],
        &assay_core::store::Edit {
            base_rev: None,
            content: c2,
            op: Some(RefinementOp::Remove),
            tags: vec![IssueTag::WrongAnswer],
            status: ItemStatus::Edited,
            note: None,
        },
        &aiko,
    )
    .unwrap();
    let revs_before: Vec<i64> = ids.iter().map(|&i| p.item(i).unwrap().rev).collect();

    let change = BulkChange {
        set_op: true,
        op: Some(RefinementOp::Remove),
        add_tags: vec![IssueTag::WrongAnswer],
        ..Default::default()
    };
    let r = p.bulk_edit(&selection(&ids), &change, &aiko).unwrap();
    assert_eq!((r.changed, r.unchanged, r.skipped), (2, 1, 0), "{r:?}");
    let action = r.action_id.unwrap();
    for &i in &ids {
        let it = p.item(i).unwrap();
        assert_eq!(it.op, Some(RefinementOp::Remove));
        assert!(it.tags.contains(&IssueTag::WrongAnswer));
    }
    // Each changed item got exactly one revision, authored by the person, like a single edit.
    let h = p.revisions(ids[0]).unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h[1].author.as_deref(), Some("aiko"));
    assert_eq!(h[1].status, ItemStatus::Edited);

    let list = p.bulk_actions(10).unwrap();
    assert_eq!(list[0].id, action);
    assert_eq!(list[0].items, 2);
    assert!(
        list[0].label.contains("operation remove"),
        "{}",
        list[0].label
    );

    let u = p.undo_bulk(action, &aiko).unwrap();
    assert_eq!((u.changed, u.skipped), (2, 0), "{u:?}");
    for (k, &i) in ids.iter().enumerate() {
        let it = p.item(i).unwrap();
        if k == 1 {
            assert_eq!(it.rev, revs_before[1], "the unchanged item is left alone");
            continue;
        }
        assert_eq!(it.op, None);
        assert!(it.tags.is_empty());
        assert_eq!(it.status, ItemStatus::Todo);
        assert_eq!(it.rev, revs_before[k] + 2, "undo appends; history stays");
    }
    assert!(
        p.undo_bulk(action, &aiko).is_err(),
        "an action is undone once"
    );
    // Undoing the undo redoes.
    let redo = p.undo_bulk(u.action_id.unwrap(), &aiko).unwrap();
    assert_eq!(redo.changed, 2);
    assert_eq!(p.item(ids[0]).unwrap().op, Some(RefinementOp::Remove));
}

#[test]
fn the_rules_of_one_edit_hold_for_each_item_of_a_bulk_change() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let lead = person(&p, "lead", Role::Auditor);
    let ids = [jg(&p, "jg-001"), jg(&p, "jg-002"), jg(&p, "jg-003")];
    p.sign_off(ids[2], true, None, &lead).unwrap();

    let flag = BulkChange {
        status: Some(ItemStatus::Flagged),
        ..Default::default()
    };
    let r = p.bulk_edit(&selection(&ids), &flag, &aiko).unwrap();
    assert_eq!((r.changed, r.skipped), (2, 1), "{r:?}");
    assert_eq!(r.skipped_reasons[0].0, ids[2]);
    assert!(r.skipped_reasons[0].1.contains("signed off"), "{r:?}");
    assert_eq!(p.item(ids[2]).unwrap().status, ItemStatus::Todo);

    // Approval is a review, never a bulk status.
    let approve = BulkChange {
        status: Some(ItemStatus::Approved),
        ..Default::default()
    };
    assert!(p.bulk_edit(&selection(&ids), &approve, &lead).is_err());
    assert!(p
        .bulk_edit(&selection(&ids), &BulkChange::default(), &aiko)
        .is_err());

    // An item someone changed after the bulk action is left as they made it by the undo.
    let mut c = p.item(ids[0]).unwrap().content;
    c.answer = Some("changed later".into());
    let minjun = person(&p, "minjun", Role::Annotator);
    p.save_edit(
        ids[0],
        &assay_core::store::Edit {
            base_rev: None,
            content: c,
            op: None,
            tags: vec![],
            status: ItemStatus::Edited,
            note: None,
        },
        &minjun,
    )
    .unwrap();
    let u = p.undo_bulk(r.action_id.unwrap(), &aiko).unwrap();
    assert_eq!((u.changed, u.skipped), (1, 1), "{u:?}");
    assert_eq!(
        p.item(ids[0]).unwrap().content.answer.as_deref(),
        Some("changed later")
    );
    assert_eq!(p.item(ids[1]).unwrap().status, ItemStatus::Todo);
}

#[test]
fn bulk_keep_and_drop_at_a_stage_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let stage = p.stages().unwrap()[0].id;
    let ids = [jg(&p, "jg-004"), jg(&p, "jg-005")];
    let kept = |p: &assay_core::Project| {
        p.query(
            &Filter {
                kept: Some(false),
                ..Default::default()
            },
            Page::default(),
        )
        .unwrap()
        .total
    };
    let before = kept(&p);
    let drop = BulkChange {
        stage: Some((stage, false)),
        ..Default::default()
    };
    assert!(
        p.bulk_edit(&selection(&ids), &drop, &aiko).is_err(),
        "a drop needs a reason"
    );
    let drop = BulkChange {
        stage: Some((stage, false)),
        reason: Some("time-sensitive".into()),
        ..Default::default()
    };
    let r = p.bulk_edit(&selection(&ids), &drop, &aiko).unwrap();
    assert_eq!(r.changed, 2);
    assert_eq!(kept(&p), before + 2);
    p.undo_bulk(r.action_id.unwrap(), &aiko).unwrap();
    assert_eq!(kept(&p), before);
}

#[test]
fn the_list_sorts_by_a_column_with_empty_values_last_and_selections_filter() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let all = p
        .query(
            &Filter::default(),
            Page {
                offset: 0,
                limit: 1000,
            },
        )
        .unwrap();
    let by = |col, desc| {
        let f = Filter {
            sort: Some(Sort {
                column: col,
                desc,
                run: None,
            }),
            ..Default::default()
        };
        let rows = p
            .query(
                &f,
                Page {
                    offset: 0,
                    limit: 1000,
                },
            )
            .unwrap()
            .rows;
        assert_eq!(
            p.query_ids(&f).unwrap(),
            rows.iter().map(|r| r.id).collect::<Vec<_>>()
        );
        rows
    };
    let q = by(SortColumn::Question, false);
    assert_eq!(q.len(), all.rows.len());
    assert!(q.windows(2).all(|w| w[0].question <= w[1].question));
    let sizes = by(SortColumn::SizeRatio, true);
    let with: Vec<f64> = sizes.iter().filter_map(|r| r.size_ratio).collect();
    assert!(!with.is_empty());
    assert!(with.windows(2).all(|w| w[0] >= w[1]));
    // Items without a box come after every item with one, whichever the direction.
    let first_none = sizes.iter().position(|r| r.size_ratio.is_none()).unwrap();
    assert!(sizes[first_none..].iter().all(|r| r.size_ratio.is_none()));
    assert_eq!(first_none, with.len());

    let pick = vec![all.rows[3].id, all.rows[1].id, all.rows[7].id];
    let f = selection(&pick);
    let got = p.query(&f, Page::default()).unwrap();
    assert_eq!(got.total, 3);
    let mut want = pick.clone();
    want.sort();
    assert_eq!(got.rows.iter().map(|r| r.id).collect::<Vec<_>>(), want);
    // With a text search too: both limits hold.
    let text = Filter {
        text: Some(all.rows[3].question.chars().take(6).collect()),
        ..selection(&pick)
    };
    assert!(p
        .query(&text, Page::default())
        .unwrap()
        .rows
        .iter()
        .all(|r| pick.contains(&r.id)));
}

/// A list sorted by an indexed column is paged in two parts (items with a value, walking the
/// index, then those without): every page size, sort column, direction and filter must give
/// the same order as the whole list, pages crossing from one part to the other included.
#[test]
fn sorted_pages_walk_the_whole_list_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    // Some ops and statuses set, so those columns have values and empty ones.
    let some = p.query_ids(&Filter::default()).unwrap();
    for (k, id) in some.iter().enumerate().filter(|(k, _)| k % 3 == 0) {
        let mut e = edit_of(&p, *id);
        e.op = Some(if k % 2 == 0 {
            RefinementOp::MinorEdit
        } else {
            RefinementOp::Remove
        });
        p.save_edit(*id, &e, &aiko).unwrap();
    }
    let filters = [
        Filter::default(),
        Filter {
            has_box: Some(true),
            ..Default::default()
        },
        Filter {
            datasets: vec![1, 4],
            ..Default::default()
        },
        Filter {
            text: Some("the".into()),
            ..Default::default()
        },
    ];
    // Two questions made the same, so the question's order has a tie to break by id.
    for id in some.iter().skip(1).step_by(7).take(2) {
        let mut e = edit_of(&p, *id);
        e.content.question = "Which of these is the same question?".into();
        p.save_edit(*id, &e, &aiko).unwrap();
    }
    let columns = [
        SortColumn::Question,
        SortColumn::Answer,
        SortColumn::Category,
        SortColumn::Op,
        SortColumn::Status,
        SortColumn::RefType,
        SortColumn::SizeRatio,
        SortColumn::Saliency,
    ];
    for base in &filters {
        let everything = p.query_ids(base).unwrap();
        for column in columns {
            for desc in [false, true] {
                let f = Filter {
                    sort: Some(Sort {
                        column,
                        desc,
                        run: None,
                    }),
                    ..base.clone()
                };
                let whole = p.query_ids(&f).unwrap();
                let mut sorted_whole = whole.clone();
                sorted_whole.sort();
                let mut all = everything.clone();
                all.sort();
                assert_eq!(sorted_whole, all, "{column:?} keeps every item");
                for size in [1, 2, 5, 1000] {
                    let mut paged = Vec::new();
                    let mut offset = 0;
                    loop {
                        let page = p
                            .query(
                                &f,
                                Page {
                                    offset,
                                    limit: size,
                                },
                            )
                            .unwrap();
                        assert_eq!(page.total, whole.len() as i64);
                        if page.rows.is_empty() {
                            break;
                        }
                        paged.extend(page.rows.iter().map(|r| r.id));
                        offset += size;
                    }
                    assert_eq!(
                        paged, whole,
                        "{column:?} desc={desc} by {size} under {base:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn saved_views_are_their_authors_and_shared_ones_are_everyones() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let f = Filter {
        statuses: vec![ItemStatus::Todo],
        sort: Some(Sort {
            column: SortColumn::ExtId,
            desc: true,
            run: None,
        }),
        ..Default::default()
    };
    let cols = vec!["ext_id".to_string(), "question".into(), "status".into()];
    p.save_view("Unreviewed", &f, &cols, true, &aiko).unwrap();
    p.save_view("Mine only", &f, &cols, false, &aiko).unwrap();
    assert!(p.save_view("  ", &f, &cols, true, &aiko).is_err());
    let seen = p.saved_views(minjun.user_id).unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].name, "Unreviewed");
    assert_eq!(seen[0].filter, f);
    assert_eq!(seen[0].columns, cols);
    assert!(!seen[0].mine);
    assert_eq!(p.saved_views(aiko.user_id).unwrap().len(), 2);
    // Saving under the same name replaces; another person's view of that name is theirs.
    p.save_view("Unreviewed", &Filter::default(), &cols, true, &aiko)
        .unwrap();
    p.save_view("Unreviewed", &f, &cols, true, &minjun).unwrap();
    let seen = p.saved_views(aiko.user_id).unwrap();
    assert_eq!(seen.len(), 3);
    assert!(p.delete_view("Unreviewed", &minjun).is_ok());
    assert!(p.delete_view("Mine only", &minjun).is_err(), "not theirs");
    let seen = p.saved_views(aiko.user_id).unwrap();
    assert_eq!(seen.iter().filter(|v| v.name == "Unreviewed").count(), 1);
    assert_eq!(
        seen.iter().find(|v| v.name == "Unreviewed").unwrap().filter,
        Filter::default()
    );
}

#[test]
fn a_selection_exports_across_datasets_and_imports_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let pick = vec![
        jg(&p, "jg-002"),
        p.item_id_by_ext("vague-mini", &first_ext(&p, "vague-mini"))
            .unwrap(),
        jg(&p, "jg-005"),
    ];
    let out = dir.path().join("sel");
    let r = assay_core::export::export_selection(&p, &selection(&pick), &out).unwrap();
    assert_eq!(r.items, 3);
    let text = std::fs::read_to_string(out.join("data.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 3);
    let mut q = assay_core::Project::create(dir.path().join("q.assay")).unwrap();
    let rep = import(
        &mut q,
        &out.join("data.jsonl"),
        &assay_core::import::ImportOptions::default(),
    )
    .unwrap();
    assert_eq!(rep.items, 3, "{rep:?}");
}

fn first_ext(p: &assay_core::Project, dataset: &str) -> String {
    let ds = p.dataset_by_name(dataset).unwrap();
    p.item_ext_ids(ds.id).unwrap()[0].1.clone()
}

#[test]
fn nobody_approves_their_own_work_after_someone_else_bulk_flags_or_undoes_it() {
    use assay_core::store::{Edit, ReviewDecision};
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let seo = person(&p, "seo", Role::Annotator);
    let (a, b) = (jg(&p, "jg-001"), jg(&p, "jg-002"));
    for id in [a, b] {
        let mut c = p.item(id).unwrap().content;
        c.answer = Some("aiko's fix".into());
        p.save_edit(
            id,
            &Edit {
                base_rev: None,
                content: c,
                op: Some(RefinementOp::AnswerCorrection),
                tags: vec![],
                status: ItemStatus::Edited,
                note: None,
            },
            &aiko,
        )
        .unwrap();
    }
    // minjun flags jg-001 in bulk (a status-only revision under his name)...
    let flag = BulkChange {
        status: Some(ItemStatus::Flagged),
        ..Default::default()
    };
    p.bulk_edit(&selection(&[a]), &flag, &minjun).unwrap();
    // ...and changes jg-002's operation in bulk, then undoes it (aiko's state, under his name).
    let change = BulkChange {
        set_op: true,
        op: Some(RefinementOp::MinorEdit),
        ..Default::default()
    };
    let done = p.bulk_edit(&selection(&[b]), &change, &minjun).unwrap();
    p.undo_bulk(done.action_id.unwrap(), &minjun).unwrap();
    for id in [a, b] {
        let e = p
            .review(id, ReviewDecision::Approve, None, &aiko)
            .unwrap_err()
            .to_string();
        assert!(e.contains("your work"), "{e}");
        p.review(id, ReviewDecision::Approve, None, &seo).unwrap();
        assert_eq!(p.item(id).unwrap().status, ItemStatus::Approved);
    }
}

#[test]
fn the_table_reads_who_an_item_is_dealt_to_and_whether_they_agree() {
    use assay_core::store::{Edit, NewRound, RoundPurpose};
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    let lead = person(&p, "lead", Role::Auditor);
    let aiko = person(&p, "aiko", Role::Annotator);
    let minjun = person(&p, "minjun", Role::Annotator);
    let items = [
        jg(&p, "jg-001"),
        jg(&p, "jg-002"),
        jg(&p, "jg-003"),
        jg(&p, "jg-004"),
    ];
    let spec = NewRound {
        name: "double".into(),
        purpose: RoundPurpose::Annotate,
        assignees: vec!["aiko".into(), "minjun".into()],
        overlap: 1.0,
        sample: None,
        seed: 3,
        blind: false,
    };
    p.create_round(&spec, &items[..3], &lead).unwrap();
    let set_op = |p: &mut assay_core::Project, id: i64, op: RefinementOp, who: &Author| {
        let content = p.item(id).unwrap().content;
        p.save_edit(
            id,
            &Edit {
                base_rev: None,
                content,
                op: Some(op),
                tags: vec![],
                status: ItemStatus::Edited,
                note: Some("round".into()),
            },
            who,
        )
        .unwrap();
    };
    // jg-001: both say identical; jg-002: they differ; jg-003: only aiko so far.
    set_op(&mut p, items[0], RefinementOp::Identical, &aiko);
    set_op(&mut p, items[0], RefinementOp::Identical, &minjun);
    set_op(&mut p, items[1], RefinementOp::Identical, &aiko);
    set_op(&mut p, items[1], RefinementOp::MinorEdit, &minjun);
    set_op(&mut p, items[2], RefinementOp::Remove, &aiko);
    let got = p.table_extras(&items, &[]).unwrap();
    let view: Vec<(Vec<String>, Option<String>)> = got
        .iter()
        .map(|e| (e.assignees.clone(), e.agreement.clone()))
        .collect();
    let both = vec!["aiko".to_string(), "minjun".into()];
    assert_eq!(
        view,
        vec![
            (both.clone(), Some("agree".into())),
            (both.clone(), Some("differ".into())),
            (both, Some("pending".into())),
            (vec![], None),
        ]
    );
    assert!(got.iter().all(|e| e.scores.is_empty()));
}
