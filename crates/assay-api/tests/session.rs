//! The app's session without a window: what the Tauri commands call, on a real project file.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use assay_api::session::{import_into, Session};
use assay_api::types::ImportRequest;
use assay_api::ApiError;
use assay_core::store::{Edit, Filter, Page};
use assay_core::{ItemStatus, Role};

fn sample() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/sample/jgraph-mini/jgraph-mini.jsonl")
        .display()
        .to_string()
}

/// Imports `file` into the project at `project` as the app's import command does.
fn import_file(project: &Path, file: &str) {
    let req = ImportRequest {
        path: file.into(),
        name: None,
        layout: None,
        mapping: None,
        link_images: false,
        dry_run: false,
    };
    import_into(project, &req, &mut |_| {}, &AtomicBool::new(false)).unwrap();
}

fn session(dir: &Path, user: &str) -> Session {
    let mut s = Session::new(dir.join(format!("prefs-{user}.json")));
    let path = dir.join("p.assay");
    if path.exists() {
        s.open_project(&path).unwrap();
    } else {
        s.create_project(path.clone()).unwrap();
        import_file(&path, &sample());
    }
    s.set_user(user.to_string(), Role::Annotator).unwrap();
    s
}

fn edit_of(s: &Session, id: i64, answer: &str) -> Edit {
    let d = s.item_detail(id).unwrap();
    let mut content = d.item.content;
    content.answer = Some(answer.into());
    Edit {
        base_rev: Some(d.item.rev),
        content,
        op: d.item.op,
        tags: d.item.tags,
        status: ItemStatus::Edited,
        note: None,
    }
}

#[test]
fn editing_needs_a_user_and_errors_cross_as_code_and_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path().join("prefs.json"));
    let e = s.project_info().unwrap_err();
    assert_eq!(e.code, "no_project");
    // The wire format the UI branches on.
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"code": "no_project", "message": "no project is open"})
    );
    let back: ApiError = serde_json::from_value(json).unwrap();
    assert_eq!(back, e);
    s.create_project(dir.path().join("p.assay").clone())
        .unwrap();
    let edit = Edit {
        base_rev: None,
        content: Default::default(),
        op: None,
        tags: vec![],
        status: ItemStatus::Edited,
        note: None,
    };
    assert_eq!(s.save_item(1, edit.clone()).unwrap_err().code, "no_user");
    assert_eq!(s.item_detail(999).unwrap_err().code, "not_found");
}

#[test]
fn two_sessions_on_one_file_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = session(dir.path(), "aiko");
    let mut b = session(dir.path(), "minjun");
    let ids = a.item_ids(Filter::default().clone()).unwrap();
    let id = ids[5];
    // Both open the item at revision 0; aiko saves first.
    let mine = edit_of(&a, id, "117");
    let theirs = edit_of(&b, id, "171 mm");
    assert_eq!(a.save_item(id, mine.clone()).unwrap().item.rev, 1);
    // minjun's save is refused as a conflict, aiko's answer stays.
    let e = b.save_item(id, theirs.clone()).unwrap_err();
    assert_eq!(e.code, "conflict", "{e}");
    assert_eq!(
        b.item_detail(id).unwrap().item.content.answer.as_deref(),
        Some("117")
    );
    // Autosave of an unchanged state writes nothing.
    let again = edit_of(&a, id, "117");
    assert_eq!(a.save_item(id, again.clone()).unwrap().history.len(), 2);
    // Rebased on revision 1, minjun's change goes in.
    let rebased = edit_of(&b, id, "171 mm");
    assert_eq!(b.save_item(id, rebased.clone()).unwrap().item.rev, 2);
    let page = a
        .query_items(
            Filter::default().clone(),
            Page {
                offset: 0,
                limit: 100,
            },
        )
        .unwrap();
    assert_eq!(page.total, 12);
}

#[test]
fn previews_come_in_fixed_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path(), "aiko");
    let d = s
        .item_detail(s.item_ids(Filter::default().clone()).unwrap()[0])
        .unwrap();
    let hash = &d.item.content.images[0].hash;
    let small = s.preview(hash, 96).unwrap();
    assert_eq!(
        s.preview(hash, 112).unwrap(),
        small,
        "one cached preview serves both"
    );
    let info = assay_core::imaging::probe(&small).unwrap();
    assert_eq!(info.width.max(info.height), 128);
}

#[test]
fn previews_are_served_while_another_connection_holds_the_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path(), "aiko");
    let path = dir.path().join("p.assay");
    let d = s
        .item_detail(s.item_ids(Filter::default().clone()).unwrap()[0])
        .unwrap();
    let hash = d.item.content.images[0].hash.clone();
    // A long write elsewhere (an import) holds the lock.
    let writer = assay_core::Project::open(&path).unwrap();
    writer
        .connection()
        .execute_batch("BEGIN IMMEDIATE")
        .unwrap();
    let readers = assay_api::session::ImageReaders::default();
    // Served while the writer still holds the lock, which it keeps until after this returns: a
    // reader that waited the writer out would never return (the cache write is skipped instead).
    let bytes = readers.preview(&path, &hash, 512).unwrap();
    assert!(!bytes.is_empty());
    // Browsing reads are not blocked either.
    assert_eq!(
        s.query_items(
            Filter::default().clone(),
            Page {
                offset: 0,
                limit: 10
            }
        )
        .unwrap()
        .total,
        12
    );
    writer.connection().execute_batch("ROLLBACK").unwrap();
    // Once the writer is done, the preview is cached.
    readers.preview(&path, &hash, 512).unwrap();
    let cached: i64 = writer
        .connection()
        .query_row(
            "SELECT count(*) FROM image_previews WHERE max_side = 512",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(cached, 1);
}

#[test]
fn filtering_through_the_session_enforces_the_auditor_rule() {
    let dir = tempfile::tempdir().unwrap();
    let mut annotator = session(dir.path(), "aiko");
    let id = annotator
        .item_ids(Filter::default().clone())
        .unwrap()
        .first()
        .copied()
        .unwrap();
    let stage = annotator.stages().unwrap()[1].id;
    let f = annotator
        .decide_stage(id, stage, false, Some("subjective".into()))
        .unwrap();
    assert_eq!(f.dropped_stage, Some(2));
    let f = annotator
        .flag_phase1(id, assay_core::Phase1Dimension::QaQuality, true, None)
        .unwrap();
    assert!(f.phase1_removed);
    let err = annotator.override_phase1(id, true, None).unwrap_err();
    assert_eq!(err.code, "forbidden");
    let funnel = annotator.funnel(vec![], "category".into()).unwrap();
    assert_eq!(funnel.last().unwrap().survivors, funnel[0].survivors - 1);

    let mut auditor = Session::new(dir.path().join("prefs-rin.json"));
    auditor.open_project(&dir.path().join("p.assay")).unwrap();
    // Nobody makes themselves an auditor; the project's owner (aiko, its first person) does.
    assert_eq!(
        auditor
            .set_user("rin".into(), Role::Auditor)
            .unwrap_err()
            .code,
        "forbidden"
    );
    assert_eq!(
        annotator.why_not_assign_roles().unwrap(),
        None,
        "the owner may"
    );
    annotator.set_role("rin".into(), Role::Auditor).unwrap();
    auditor.set_user("rin".into(), Role::Auditor).unwrap();
    assert_eq!(
        auditor.why_not_assign_roles().unwrap(),
        None,
        "an auditor may"
    );
    // Another annotator may not, and is told why before trying; trying is refused the same.
    let mut ken = Session::new(dir.path().join("prefs-ken.json"));
    ken.open_project(&dir.path().join("p.assay")).unwrap();
    ken.set_user("ken".into(), Role::Annotator).unwrap();
    let why = ken.why_not_assign_roles().unwrap().expect("a reason");
    assert!(why.contains("owner or an auditor"), "{why}");
    let refused = ken.set_role("rin".into(), Role::Annotator).unwrap_err();
    assert_eq!(refused.code, "forbidden");
    assert!(refused.message.ends_with(&why), "{}", refused.message);
    let f = auditor.override_phase1(id, true, None).unwrap();
    assert_eq!(f.overridden_by.as_deref(), Some("rin"));
}

#[test]
fn charts_are_written_only_as_svg_or_png() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("funnel.svg");
    assay_api::session::save_chart(&svg, "PHN2Zy8+").unwrap();
    assert_eq!(std::fs::read_to_string(&svg).unwrap(), "<svg/>");
    let err = assay_api::session::save_chart(&dir.path().join("x.sh"), "PHN2Zy8+").unwrap_err();
    assert_eq!(err.code, "invalid");
    assert!(!dir.path().join("x.sh").exists());
}

#[test]
fn only_an_auditor_signs_off_through_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut annotator = session(dir.path(), "aiko");
    let id = annotator.item_ids(Filter::default().clone()).unwrap()[0];
    let err = annotator.sign_off(id, true, None).unwrap_err();
    assert_eq!(err.code, "forbidden");
    assert!(!annotator.item_detail(id).unwrap().item.signed_off);

    let mut auditor = Session::new(dir.path().join("prefs-rin.json"));
    auditor.open_project(&dir.path().join("p.assay")).unwrap();
    // Nobody makes themselves an auditor; the project's owner (aiko, its first person) does.
    assert_eq!(
        auditor
            .set_user("rin".into(), Role::Auditor)
            .unwrap_err()
            .code,
        "forbidden"
    );
    annotator.set_role("rin".into(), Role::Auditor).unwrap();
    auditor.set_user("rin".into(), Role::Auditor).unwrap();
    assert!(auditor.sign_off(id, true, None).unwrap().item.signed_off);
    // The annotator's next save is refused by the store, not just hidden in the window.
    let err = annotator
        .save_item(id, edit_of(&annotator, id, "42").clone())
        .unwrap_err();
    assert_eq!(err.code, "forbidden");
}

/// Facet columns read beside the session (as the app does after opening) are handed to it,
/// catch up with what the session wrote meanwhile, and count as SQL does; they are refused by
/// a session on another file or one that holds its own.
#[test]
fn facet_columns_read_beside_the_session_are_handed_over() {
    use assay_api::session::read_facet_columns;
    use assay_core::{IssueTag, RefinementOp};
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path(), "aiko");
    let path = dir.path().join("p.assay");
    let opened = s.opened();
    assert!(s.wants_facet_columns(opened));
    let read = read_facet_columns(&path).unwrap();
    // Written after the columns were read: the adopted columns must catch up.
    let ids = s.item_ids(Filter::default().clone()).unwrap();
    for (k, id) in ids.iter().take(4).enumerate() {
        let mut e = edit_of(&s, *id, "7");
        e.tags = vec![IssueTag::WrongAnswer];
        e.op = Some(if k % 2 == 0 {
            RefinementOp::MinorEdit
        } else {
            RefinementOp::Remove
        });
        s.save_item(*id, e.clone()).unwrap();
    }
    assert!(s.adopt_facet_columns(opened, read));
    assert!(!s.wants_facet_columns(opened), "holds them now");
    let reference = assay_core::Project::open(&path).unwrap();
    let filters = [
        Filter {
            ops: vec![Some(RefinementOp::MinorEdit)],
            ..Default::default()
        },
        Filter {
            tags: vec![IssueTag::WrongAnswer],
            statuses: vec![ItemStatus::Edited],
            ..Default::default()
        },
        Filter {
            text: Some("グラフ".into()),
            ..Default::default()
        },
    ];
    for f in &filters {
        assert_eq!(
            s.facets(f.clone()).unwrap(),
            reference.count_facets(f).unwrap(),
            "{f:?}"
        );
    }
    // The session holds columns now: more read beside it are not taken.
    assert!(!s.adopt_facet_columns(opened, read_facet_columns(&path).unwrap()));
    // Nor are another file's.
    let other_dir = tempfile::tempdir().unwrap();
    let other = session(other_dir.path(), "aiko");
    let theirs = read_facet_columns(&path).unwrap();
    assert!(!other.adopt_facet_columns(other.opened(), theirs));
    // Nor columns read for an earlier opening of the same path.
    let early = read_facet_columns(&path).unwrap();
    s.open_project(&path).unwrap();
    assert!(!s.wants_facet_columns(opened));
    assert!(!s.adopt_facet_columns(opened, early));
    assert!(s.wants_facet_columns(s.opened()));
}

/// The app tidies the search indexes beside the session while it is idle: on a connection of
/// its own, only once enough has been written since the last time, stopping when told,
/// finishing with the indexes whole, and never changing what a search finds, also when the
/// session saves between its steps.
#[test]
fn the_search_tidier_stops_when_told_and_changes_no_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path(), "aiko");
    let path = dir.path().join("p.assay");
    let due = || {
        assay_core::Project::open(&path)
            .unwrap()
            .search_tidy_due()
            .unwrap()
    };
    let tidier = assay_api::session::SearchTidier::open(&path).unwrap();
    let steps = std::cell::Cell::new(0);
    let count = || {
        steps.set(steps.get() + 1);
        true
    };
    // Twelve items and no edit: nothing worth a whole merge, so no step is taken.
    assert!(!due());
    assert!(tidier.run(&count).unwrap());
    assert_eq!(steps.get(), 0);
    // A second dataset of 1,100 items makes it due.
    let extra = dir.path().join("extra.jsonl");
    let lines: String = (0..1_100)
        .map(|i| {
            format!(
                "{{\"id\": \"x{i}\", \"question\": \"extra{i:04}q what?\", \"answer\": \"a\"}}\n"
            )
        })
        .collect();
    std::fs::write(&extra, lines).unwrap();
    import_file(&path, &extra.display().to_string());
    let search = |s: &Session, t: &str| {
        s.query_items(
            Filter {
                text: Some(t.into()),
                ..Default::default()
            },
            Page {
                offset: 0,
                limit: 100,
            },
        )
        .unwrap()
        .rows
        .into_iter()
        .map(|r| r.id)
        .collect::<Vec<_>>()
    };
    let ids = s
        .item_ids(Filter {
            datasets: vec![1],
            ..Default::default()
        })
        .unwrap();
    for (k, id) in ids.iter().enumerate() {
        s.save_item(*id, edit_of(&s, *id, &format!("fixed{k:03}z")).clone())
            .unwrap();
    }
    assert!(due());
    assert!(!tidier.run(&|| false).unwrap(), "told to stop: not done");
    // One step, then a save from the session, then the rest.
    let one = std::cell::Cell::new(0);
    tidier
        .run(&|| {
            one.set(one.get() + 1);
            one.get() == 1
        })
        .unwrap();
    let last = *ids.last().unwrap();
    s.save_item(last, edit_of(&s, last, "latest999z").clone())
        .unwrap();
    assert!(tidier.run(&count).unwrap(), "left alone, it finishes");
    assert!(steps.get() > 0);
    assert!(!due(), "the whole merge is recorded");
    let taken = steps.get();
    assert!(tidier.run(&count).unwrap());
    assert_eq!(steps.get(), taken, "nothing due: no step");
    for (k, id) in ids.iter().enumerate().take(ids.len() - 1) {
        assert_eq!(search(&s, &format!("fixed{k:03}z")), vec![*id]);
    }
    assert_eq!(search(&s, "latest999z"), vec![last]);
    assert!(search(&s, &format!("fixed{:03}z", ids.len() - 1)).is_empty());
    assert_eq!(search(&s, "extra1099q").len(), 1);
}

/// The Import view's round: a file no layout fits is previewed with the reason, mapped by hand,
/// previewed again as items, imported with that same request, and the mapping saved and read
/// back for `assay import --mapping`.
#[test]
fn a_file_is_previewed_mapped_and_imported_as_previewed() {
    use assay_api::session::preview_import;
    use assay_core::import::mapping::Mapping;
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path(), "mapper");
    let file = dir.path().join("poll.jsonl");
    std::fs::write(
        &file,
        "{\"key\":\"p1\",\"ask\":\"Which way is north?\",\"truth\":\"up\"}\n{\"key\":\"p2\",\"ask\":\"<i>Two</i> plus two?\",\"truth\":\"4\"}\n",
    )
    .unwrap();
    let mut req = ImportRequest {
        path: file.display().to_string(),
        name: Some("poll".into()),
        layout: None,
        mapping: None,
        link_images: false,
        dry_run: false,
    };
    let before = preview_import(&req, 5).unwrap();
    assert!(before.mapping_error.is_some());
    assert!(before.records.iter().all(|r| r.item.is_none()));
    let empty = ImportRequest {
        path: " ".into(),
        ..req.clone()
    };
    assert_eq!(preview_import(&empty, 5).unwrap_err().code, "invalid");

    req.mapping = Some(Mapping {
        id: Some("key".into()),
        question: Some("ask".into()),
        answer: Some("truth".into()),
        ..Default::default()
    });
    let after = preview_import(&req, 5).unwrap();
    let previewed = after.records[1].item.clone().unwrap();
    assert_eq!(previewed.question, "<i>Two</i> plus two?");

    let project = dir.path().join("p.assay");
    import_into(&project, &req, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let p = assay_core::Project::open(&project).unwrap();
    let written = p.item(p.item_id_by_ext("poll", "p2").unwrap()).unwrap();
    assert_eq!(written.content, previewed);

    let saved = dir.path().join("poll.toml");
    let mapping = req.mapping.clone().unwrap();
    s.save_mapping(saved.display().to_string(), mapping.clone())
        .unwrap();
    assert_eq!(
        s.read_mapping(saved.display().to_string()).unwrap(),
        mapping
    );
    let missing = s.read_mapping(dir.path().join("nope.toml").display().to_string());
    assert!(missing.unwrap_err().message.contains("nope.toml"));
}
