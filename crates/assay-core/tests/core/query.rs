use assay_core::store::{Edit, Filter, Page};
use assay_core::{IssueTag, ItemStatus, RefType, RefinementOp};

use crate::common::*;

fn project() -> (tempfile::TempDir, assay_core::Project) {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    import_sample(&mut p);
    (dir, p)
}

#[test]
fn japanese_and_korean_substrings_match() {
    let (_d, p) = project();
    let f = |t: &str| Filter {
        text: Some(t.into()),
        ..Default::default()
    };
    assert_eq!(ids(&p, &f("降水量")), vec!["jg-006", "jg-007"]);
    // 101 matches through its explicit rewrite.
    assert_eq!(ids(&p, &f("표지판")), vec!["101", "102", "103", "104"]);
    // Two characters: below the trigram size, found through the CJK character index, in order.
    assert_eq!(ids(&p, &f("首都")), vec!["jg-008"]);
    assert!(
        ids(&p, &f("都首")).is_empty(),
        "both characters, wrong order"
    );
    // One character, Japanese and Korean.
    assert_eq!(ids(&p, &f("首")), vec!["jg-008"]);
    assert_eq!(ids(&p, &f("뜻")), vec!["101", "103"]);
    // Facet counts agree with the list for a short CJK query.
    assert_eq!(
        p.facets(&f("首"))
            .unwrap()
            .datasets
            .iter()
            .map(|d| d.1)
            .sum::<i64>(),
        1
    );
    // Answers and options are searched too; Latin is case-insensitive.
    assert_eq!(ids(&p, &f("ramen")), vec!["cr-003"]);
    assert_eq!(ids(&p, &f("wash the DISHES")), vec!["vg-001"]);
    // Quotes and LIKE wildcards are literal.
    assert!(ids(&p, &f("\"%_")).is_empty());
    assert_eq!(ids(&p, &f("50%")), vec!["103"]);
}

#[test]
fn filters_combine_and_facets_count() {
    let (_d, mut p) = project();
    let a = author(&p, "aiko");
    let id = p.item_id_by_ext("jgraph-mini", "jg-005").unwrap();
    let content = p.item(id).unwrap().content;
    p.save_edit(
        id,
        &Edit {
            base_rev: None,
            content,
            op: Some(RefinementOp::Remove),
            tags: vec![IssueTag::Subjective],
            status: ItemStatus::Edited,
            note: None,
        },
        &a,
    )
    .unwrap();

    let jg = p.dataset_by_name("jgraph-mini").unwrap().id;
    let chart = Filter {
        datasets: vec![jg],
        categories: vec!["chart".into()],
        ..Default::default()
    };
    assert_eq!(p.query(&chart, Page::default()).unwrap().total, 7);
    let removed = Filter {
        ops: vec![Some(RefinementOp::Remove)],
        ..Default::default()
    };
    assert_eq!(ids(&p, &removed), vec!["jg-005"]);
    let untouched = Filter {
        datasets: vec![jg],
        ops: vec![None],
        ..Default::default()
    };
    assert_eq!(p.query(&untouched, Page::default()).unwrap().total, 11);
    let tagged = Filter {
        tags: vec![IssueTag::Subjective, IssueTag::Ambiguous],
        ..Default::default()
    };
    assert_eq!(ids(&p, &tagged), vec!["jg-005"]);
    let boxed = Filter {
        has_box: Some(true),
        ref_types: vec![RefType::KnowledgeCue],
        ..Default::default()
    };
    assert_eq!(ids(&p, &boxed), vec!["cr-003"]);

    let facets = p.facets(&chart).unwrap();
    // The category facet ignores the category filter but honours the dataset filter.
    let cat = |name: &str| {
        facets
            .categories
            .iter()
            .find(|(c, _)| c.as_deref() == Some(name))
            .map(|x| x.1)
    };
    assert_eq!(cat("chart"), Some(7));
    assert_eq!(cat("arithmetic"), Some(3));
    // The dataset facet ignores the dataset filter: chart items exist only in jgraph-mini.
    assert_eq!(facets.datasets, vec![(jg, 7)]);
    let tag = facets
        .tags
        .iter()
        .find(|(t, _)| t == "subjective")
        .unwrap()
        .1;
    assert_eq!(tag, 0, "jg-005 is not a chart item");
    // Facets without their own filter are counted in one pass over the filtered rows.
    assert_eq!(facets.ops, vec![(None, 7)]);
    assert_eq!(facets.statuses, vec![("todo".to_string(), 7)]);
    let removed_facets = p.facets(&removed).unwrap();
    assert_eq!(
        removed_facets.categories,
        vec![(Some("opinion".to_string()), 1)]
    );
    assert_eq!(
        removed_facets.ops.iter().map(|x| x.1).sum::<i64>(),
        23,
        "ops ignore their own filter"
    );

    // Facets of a text search count only the matching items.
    let rain = p
        .facets(&Filter {
            text: Some("降水量".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(rain.categories, vec![(Some("chart".to_string()), 2)]);
    let short = p
        .facets(&Filter {
            text: Some("首都".into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(short.categories, vec![(Some("knowledge".to_string()), 1)]);

    // Paging walks the same order as query_ids.
    let all = p.query_ids(&Filter::default()).unwrap();
    let page2 = p
        .query(
            &Filter::default(),
            Page {
                offset: 5,
                limit: 5,
            },
        )
        .unwrap();
    assert_eq!(
        page2.rows.iter().map(|r| r.id).collect::<Vec<_>>(),
        all[5..10].to_vec()
    );
    assert_eq!(page2.total, 23);
}

#[test]
fn previews_are_made_once_and_cached() {
    let (_d, p) = project();
    let hash = p.item(1).unwrap().content.images[0].hash.clone();
    let a = p.image_preview(&hash, 64).unwrap();
    let info = assay_core::imaging::probe(&a).unwrap();
    // Any requested size maps to one of three fixed sizes: 64 is served by the 128 preview.
    assert_eq!(info.width.max(info.height), 128);
    let count = || -> i64 {
        p.connection()
            .query_row("SELECT count(*) FROM image_previews", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(count(), 1);
    assert_eq!(p.image_preview(&hash, 64).unwrap(), a);
    assert_eq!(p.image_preview(&hash, 100).unwrap(), a);
    assert_eq!(p.image_preview(&hash, 128).unwrap(), a);
    assert_eq!(count(), 1, "no new preview per requested size");
    for size in [300, 700, 2000, 4096] {
        p.image_preview(&hash, size).unwrap();
    }
    assert_eq!(count(), 3, "at most the three fixed sizes are ever stored");
}

/// An import fills the full-text indexes a batch at a time after the other rows: items of the
/// first batch, of a later one and of the short last one must all be found, by a trigram query
/// and by a two-character CJK one, and by nothing else.
#[test]
fn every_imported_batch_is_searchable() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let n = 20_123;
    let mut text = String::new();
    for i in 0..n {
        // A unique Latin word and a unique pair of kanji (from two ranges) per item.
        let a = char::from_u32(0x4E00 + (i / 100) as u32).unwrap();
        let b = char::from_u32(0x6000 + (i % 100) as u32).unwrap();
        text.push_str(&format!(
            "{{\"id\":\"q{i}\",\"question\":\"zq{i:05}x what is shown {a}{b}\",\"answer\":\"a\"}}\n"
        ));
    }
    let file = dir.path().join("many.jsonl");
    std::fs::write(&file, text).unwrap();
    let opts = assay_core::import::ImportOptions {
        layout: Some("jammeval".into()),
        ..Default::default()
    };
    assert_eq!(import(&mut p, &file, &opts).unwrap().items, n);
    for i in [0usize, 9_999, 10_000, 15_555, 20_000, n - 1] {
        let f = |t: String| Filter {
            text: Some(t),
            ..Default::default()
        };
        assert_eq!(ids(&p, &f(format!("zq{i:05}x"))), vec![format!("q{i}")]);
        let a = char::from_u32(0x4E00 + (i / 100) as u32).unwrap();
        let b = char::from_u32(0x6000 + (i % 100) as u32).unwrap();
        assert_eq!(ids(&p, &f(format!("{a}{b}"))), vec![format!("q{i}")]);
    }
}

/// Edits leave the full-text indexes in small segments with deleted rows inside the big one;
/// tidying merges them in bounded steps until a step finds nothing, and every search finds
/// exactly what it found before (an edited item by its new text only).
#[test]
fn tidying_the_search_indexes_after_edits_keeps_every_answer() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let n = 3_000;
    let mut text = String::new();
    for i in 0..n {
        let k = char::from_u32(0x4E00 + i as u32).unwrap();
        text.push_str(&format!(
            "{{\"id\":\"q{i}\",\"question\":\"zq{i:05}x what is shown {k}\",\"answer\":\"old{i:05}w\"}}\n"
        ));
    }
    let file = dir.path().join("many.jsonl");
    std::fs::write(&file, text).unwrap();
    let opts = assay_core::import::ImportOptions {
        layout: Some("jammeval".into()),
        ..Default::default()
    };
    assert_eq!(import(&mut p, &file, &opts).unwrap().items, n);
    let a = author(&p, "aiko");
    let edited: Vec<usize> = (0..n).step_by(7).collect();
    for &i in &edited {
        let id = p.item_id_by_ext("many", &format!("q{i}")).unwrap();
        let mut e = edit_of(&p, id);
        e.content.answer = Some(format!("new{i:05}w"));
        p.save_edit(id, &e, &a).unwrap();
    }
    let f = |t: String| Filter {
        text: Some(t),
        ..Default::default()
    };
    let probe = |p: &assay_core::Project| -> Vec<Vec<String>> {
        let mut out = Vec::new();
        for i in [0usize, 1, 7, 700, 701, 2_996, n - 1] {
            let k = char::from_u32(0x4E00 + i as u32).unwrap();
            out.push(ids(p, &f(format!("zq{i:05}x"))));
            out.push(ids(p, &f(format!("old{i:05}w"))));
            out.push(ids(p, &f(format!("new{i:05}w"))));
            out.push(ids(p, &f(k.to_string())));
        }
        out.push(ids(p, &f("what is shown".into())));
        out
    };
    let before = probe(&p);
    // Item 7 was edited: found by its new answer, not its old one.
    assert_eq!(before[8], vec!["q7".to_string()]);
    assert!(before[9].is_empty() && before[10] == vec!["q7".to_string()]);
    assert_eq!(
        before.last().unwrap().len(),
        1000,
        "a page of the 3,000 items"
    );
    let rows = |p: &assay_core::Project| -> i64 {
        p.connection()
            .query_row("SELECT count(*) FROM items_fts_data", [], |r| r.get(0))
            .unwrap()
    };
    let rows_before = rows(&p);
    // 3,000 imported items and 429 edits: more than a thousand revisions since the file was
    // made, so a whole merge is due.
    assert!(p.search_tidy_due().unwrap());
    let mut steps = 0;
    while p.tidy_search_step(50).unwrap() {
        steps += 1;
        assert!(steps < 10_000, "tidying never ends");
    }
    assert!(steps > 0, "the edits left segments to merge");
    assert!(!p.tidy_search_step(50).unwrap(), "a tidy index stays tidy");
    assert!(!p.search_tidy_due().unwrap(), "the whole merge is recorded");
    assert!(rows(&p) < rows_before, "{} -> {}", rows_before, rows(&p));
    assert_eq!(probe(&p), before);
    // A few edits more do not make another whole merge due; a thousand do.
    let edit_answer = |p: &mut assay_core::Project, i: usize, answer: String| {
        let id = p.item_id_by_ext("many", &format!("q{i}")).unwrap();
        let mut e = edit_of(p, id);
        e.content.answer = Some(answer);
        p.save_edit(id, &e, &a).unwrap();
    };
    for k in 0..999 {
        edit_answer(&mut p, k % n, format!("again{k:04}v"));
    }
    assert!(!p.search_tidy_due().unwrap(), "999 edits");
    edit_answer(&mut p, 5, "again9999v".into());
    assert!(p.search_tidy_due().unwrap(), "1,000 edits");
    p.connection()
        .execute_batch("INSERT INTO items_fts (items_fts) VALUES ('integrity-check')")
        .unwrap();
}

/// The trigram index keeps item ids only: an item holding every trigram of a query in other
/// places must not match, a query longer than the trigrams it is narrowed by must still match
/// exactly, and an edit's new text replaces the old in the index.
#[test]
fn trigram_candidates_are_confirmed_by_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    let file = dir.path().join("t.jsonl");
    let long = "the quick brown fox jumps over the lazy dog near the riverbank at dawn";
    std::fs::write(
        &file,
        format!(
            "{{\"id\":\"whole\",\"question\":\"abcdef\",\"answer\":\"a\"}}\n\
             {{\"id\":\"scattered\",\"question\":\"abcd zz cdef\",\"answer\":\"a\"}}\n\
             {{\"id\":\"long\",\"question\":\"{long}\",\"answer\":\"a\"}}\n\
             {{\"id\":\"almost\",\"question\":\"{}\",\"answer\":\"a\"}}\n",
            long.replace("dawn", "dusk")
        ),
    )
    .unwrap();
    let opts = assay_core::import::ImportOptions {
        layout: Some("jammeval".into()),
        ..Default::default()
    };
    import(&mut p, &file, &opts).unwrap();
    let f = |t: &str| Filter {
        text: Some(t.into()),
        ..Default::default()
    };
    assert_eq!(ids(&p, &f("abcdef")), vec!["whole"]);
    assert_eq!(ids(&p, &f("ABCDEF")), vec!["whole"]);
    assert_eq!(ids(&p, &f(long)), vec!["long"]);
    assert_eq!(ids(&p, &f(&long.to_uppercase())), vec!["long"]);
    let total: i64 = p
        .facets(&f(long))
        .unwrap()
        .datasets
        .iter()
        .map(|d| d.1)
        .sum();
    assert_eq!(total, 1);
    let id = p.item_id_by_ext("t", "whole").unwrap();
    let mut content = p.item(id).unwrap().content;
    content.question = "ghijkl".into();
    let a = author(&p, "aiko");
    p.save_edit(
        id,
        &Edit {
            base_rev: None,
            content,
            op: None,
            tags: vec![],
            status: ItemStatus::Edited,
            note: None,
        },
        &a,
    )
    .unwrap();
    assert!(ids(&p, &f("abcdef")).is_empty());
    assert_eq!(ids(&p, &f("hijk")), vec!["whole"]);
}

/// A project made before migration 0025 (its CJK index with positions) keeps its one- and
/// two-character searches: the step rebuilds the index from the search table.
#[test]
fn the_cjk_index_is_rebuilt_by_its_migration() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.assay");
    {
        let mut p = assay_core::Project::create(&path).unwrap();
        import_sample(&mut p);
    }
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP TABLE items_cjk;
             CREATE VIRTUAL TABLE items_cjk USING fts5 (chars, content = '',
                 contentless_delete = 1, tokenize = 'unicode61');
             DROP TABLE suggestion_reviews; DROP TABLE suggestions; DROP TABLE suggestion_runs;
             DROP INDEX items_facets;
             DROP TRIGGER items_count_facets_insert; DROP TRIGGER items_count_facets_update;
             DROP TABLE facet_counts; DROP TABLE facet_state; DROP TABLE content_dicts;
             DROP INDEX items_ref_type_metrics;
             DROP TRIGGER items_log_changes; DROP TABLE item_changes; DROP INDEX items_question_order; DROP INDEX items_answer_order; DROP TABLE search_tidy;
             PRAGMA user_version = 24;",
        )
        .unwrap();
    }
    let p = assay_core::Project::open(&path).unwrap();
    let f = |t: &str| Filter {
        text: Some(t.into()),
        ..Default::default()
    };
    assert_eq!(ids(&p, &f("首都")), vec!["jg-008"]);
    assert_eq!(ids(&p, &f("뜻")), vec!["101", "103"]);
    // The facet counts start from the items the project already had.
    assert_eq!(
        p.facets(&Filter::default()).unwrap(),
        p.count_facets(&Filter::default()).unwrap()
    );
    assert!(p.facets(&Filter::default()).unwrap().datasets.len() == 4);
    let sql: String = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'items_cjk'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(sql.contains("detail = 'none'"), "{sql}");
}

/// Every count the facets show is the total a query returns once that value is added to the
/// filter: dims, box histogram bars and tags, whether they come from their own pass or ride on
/// the shared pass over the filtered rows.
#[test]
fn every_facet_count_is_what_its_filter_returns() {
    use assay_core::store::Range;
    let (_d, mut p) = project();
    let a = author(&p, "aiko");
    // Tags and ops on a few items of different datasets, boxed and not.
    let picked = [
        ("crag-mini", "cr-001"),
        ("crag-mini", "cr-003"),
        ("jgraph-mini", "jg-002"),
    ];
    for (k, (ds, ext)) in picked.into_iter().enumerate() {
        let id = p.item_id_by_ext(ds, ext).unwrap();
        let mut e = edit_of(&p, id);
        e.tags = if k % 2 == 0 {
            vec![IssueTag::WrongAnswer, IssueTag::Ambiguous]
        } else {
            vec![IssueTag::Ambiguous]
        };
        e.op = Some(RefinementOp::MinorEdit);
        p.save_edit(id, &e, &a).unwrap();
    }
    let total = |f: &Filter| p.query(f, Page::default()).unwrap().total;
    let filters = [
        Filter::default(),
        Filter {
            has_box: Some(true),
            ..Default::default()
        },
        Filter {
            ops: vec![Some(RefinementOp::MinorEdit)],
            ..Default::default()
        },
        Filter {
            statuses: vec![ItemStatus::Todo, ItemStatus::Edited],
            ref_types: vec![RefType::Ambiguous, RefType::Salient, RefType::KnowledgeCue],
            ..Default::default()
        },
        Filter {
            tags: vec![IssueTag::Ambiguous],
            ..Default::default()
        },
        Filter {
            saliency: Some(Range {
                min: Some(0.0),
                max: Some(0.5),
            }),
            has_box: Some(true),
            ..Default::default()
        },
    ];
    for f in &filters {
        let facets = p.facets(f).unwrap();
        if f.ops.is_empty() {
            for (op, n) in &facets.ops {
                let op = op.as_deref().map(|o| RefinementOp::parse(o).unwrap());
                let with = Filter {
                    ops: vec![op],
                    ..f.clone()
                };
                assert_eq!(*n, total(&with), "op {op:?} under {f:?}");
            }
        }
        if f.tags.is_empty() {
            for (t, n) in &facets.tags {
                let tag = IssueTag::ALL.into_iter().find(|x| x.as_str() == t).unwrap();
                let with = Filter {
                    tags: vec![tag],
                    ..f.clone()
                };
                assert_eq!(*n, total(&with), "tag {t} under {f:?}");
            }
        }
        let bars = [
            (&facets.boxes.size_ratio, 0),
            (&facets.boxes.center_distance, 1),
            (&facets.boxes.saliency, 2),
        ];
        for (bins, m) in bars {
            for b in bins.iter() {
                let r = Some(Range {
                    min: Some(b.lo),
                    max: Some(b.hi),
                });
                let mut with = f.clone();
                match m {
                    0 => with.size_ratio = r,
                    1 => with.center_distance = r,
                    _ => with.saliency = r,
                }
                assert_eq!(b.count, total(&with), "bar {m} {b:?} under {f:?}");
            }
        }
        let boxed: i64 = facets.boxes.size_ratio.iter().map(|b| b.count).sum();
        let in_boxes = Filter {
            has_box: Some(true),
            size_ratio: None,
            ..f.clone()
        };
        assert_eq!(
            boxed,
            total(&in_boxes),
            "every boxed item in one bar, under {f:?}"
        );
    }
}

/// The facets with no filter come from counts the store keeps (triggers on each write, one pass
/// after a bulk import). After every kind of write they must equal the counts taken over the
/// items themselves: an edit of op, tags and status, a box removed, a bulk action and its undo,
/// a restored revision, an import into a project that has items, and an import that fails.
#[test]
fn kept_facet_counts_follow_every_kind_of_write() {
    use assay_core::store::BulkChange;
    let same = |p: &assay_core::Project, step: &str| {
        let everything = Filter::default();
        let kept = p.facets(&everything).unwrap();
        // Largest first, as the counted facets are.
        for counts in [&kept.categories, &kept.ops, &kept.ref_types] {
            assert!(counts.windows(2).all(|w| w[0].1 >= w[1].1), "{step}");
        }
        let counted = p.count_facets(&everything).unwrap();
        // The same lists in the same order: equal counts by value, no value last.
        assert_eq!(kept, counted, "after {step}");
    };
    let dir = tempfile::tempdir().unwrap();
    let mut p = new_project(dir.path());
    same(&p, "creating the project");
    import(
        &mut p,
        &sample_dir().join("jgraph-mini/jgraph-mini.jsonl"),
        &Default::default(),
    )
    .unwrap();
    same(&p, "the first import");
    for f in [
        "vague-mini/vague-mini.json",
        "haerae-mini/haerae-mini.jsonl",
        "crag-mini/crag-mini.jsonl",
    ] {
        import(&mut p, &sample_dir().join(f), &Default::default()).unwrap();
    }
    same(&p, "imports into a project with items");
    let counts_before_boxes = p.facets(&Filter::default()).unwrap();
    assert!(
        counts_before_boxes
            .boxes
            .size_ratio
            .iter()
            .any(|b| b.count > 0),
        "the sample has boxed items"
    );

    let a = author(&p, "aiko");
    let id = p.item_id_by_ext("crag-mini", "cr-001").unwrap();
    let mut e = edit_of(&p, id);
    e.op = Some(RefinementOp::MinorEdit);
    e.tags = vec![IssueTag::WrongAnswer, IssueTag::Subjective];
    p.save_edit(id, &e, &a).unwrap();
    same(&p, "an edit of op and tags");
    let mut e = edit_of(&p, id);
    e.tags = vec![IssueTag::Subjective];
    e.status = ItemStatus::Flagged;
    p.save_edit(id, &e, &a).unwrap();
    same(&p, "a tag taken off and a flag");

    let boxed = p
        .query(
            &Filter {
                has_box: Some(true),
                ..Default::default()
            },
            Page::default(),
        )
        .unwrap()
        .rows[0]
        .id;
    let mut e = edit_of(&p, boxed);
    for image in &mut e.content.images {
        image.target_boxes.clear();
    }
    p.save_edit(boxed, &e, &a).unwrap();
    same(&p, "a box removed");
    p.restore_revision(boxed, 0, &a).unwrap();
    same(&p, "the original restored");

    let everything_in = Filter {
        datasets: vec![1],
        ..Default::default()
    };
    let r = p
        .bulk_edit(
            &everything_in,
            &BulkChange {
                set_op: true,
                op: Some(RefinementOp::Remove),
                add_tags: vec![IssueTag::Ambiguous],
                status: Some(ItemStatus::Flagged),
                ..Default::default()
            },
            &a,
        )
        .unwrap();
    assert!(r.changed > 1, "{r:?}");
    same(&p, "a bulk action");
    p.undo_bulk(r.action_id.unwrap(), &a).unwrap();
    same(&p, "its undo");

    // An import that fails part-way writes nothing, counts included, and leaves the triggers on.
    let bad = dir.path().join("bad.jsonl");
    let good = std::fs::read_to_string(sample_dir().join("crag-mini/crag-mini.jsonl")).unwrap();
    let renamed = good.replace("\"cr-", "\"late-");
    std::fs::write(&bad, format!("{renamed}{{ not json\n")).unwrap();
    let before = p.facets(&Filter::default()).unwrap();
    assert!(import(&mut p, &bad, &Default::default()).is_err());
    assert_eq!(p.facets(&Filter::default()).unwrap(), before);
    let bulk: i64 = p
        .connection()
        .query_row("SELECT bulk FROM facet_state", [], |r| r.get(0))
        .unwrap();
    assert_eq!(bulk, 0, "the failed import left the triggers off");
    let mut e = edit_of(&p, id);
    e.op = Some(RefinementOp::AnswerCorrection);
    p.save_edit(id, &e, &a).unwrap();
    same(&p, "an edit after the failed import");
}

/// Pages of the whole list, taken by id rather than by OFFSET, are exactly the list's slices at
/// every offset and size, the last page and past the end included; and if the ids ever had a
/// gap, paging would still be right.
#[test]
fn whole_list_pages_are_the_lists_slices() {
    let (_dir, mut p) = project();
    let check = |p: &assay_core::Project| {
        let all = p.query_ids(&Filter::default()).unwrap();
        let n = all.len() as i64;
        for limit in [1, 2, 5, 7, 200] {
            for offset in (0..=n + 2).chain([n + 100]) {
                let page = p.query(&Filter::default(), Page { offset, limit }).unwrap();
                assert_eq!(page.total, n);
                let ids: Vec<i64> = page.rows.iter().map(|r| r.id).collect();
                let from = (offset as usize).min(all.len());
                let to = ((offset + limit) as usize).min(all.len());
                assert_eq!(ids, all[from..to], "offset {offset}, limit {limit}");
            }
        }
        n
    };
    let n = check(&p);
    assert!(n > 20);
    // An item with an id past a gap: the ids are no longer 1..=count.
    p.connection_mut()
        .execute_batch(&format!(
            "INSERT INTO items (id, dataset_id, ext_id, seq, rev, format, question, updated_at)
             SELECT {}, dataset_id, 'far', 9999, 0, format, 'far away', updated_at
             FROM items WHERE id = 1",
            n + 50
        ))
        .unwrap();
    assert_eq!(check(&p), n + 1);
}

/// Under a filter of one kind, that kind's own facet is read from the kept counts instead of
/// counted over every item: for every kind (and for mixes and a search, which count), the
/// facets must be what counting gives, after edits that moved the kept counts.
#[test]
fn facets_under_one_kind_of_filter_are_the_counted_ones() {
    use assay_core::store::Range;
    let (_d, mut p) = project();
    let a = author(&p, "aiko");
    for (k, (ds, ext)) in [("crag-mini", "cr-001"), ("jgraph-mini", "jg-002")]
        .into_iter()
        .enumerate()
    {
        let id = p.item_id_by_ext(ds, ext).unwrap();
        let mut e = edit_of(&p, id);
        e.tags = vec![IssueTag::Ambiguous];
        e.op = Some(if k == 0 {
            RefinementOp::MinorEdit
        } else {
            RefinementOp::Remove
        });
        p.save_edit(id, &e, &a).unwrap();
    }
    let band = Some(Range {
        min: Some(0.0),
        max: Some(0.3),
    });
    let dataset = p.datasets().unwrap()[1].id;
    let category = p.facets(&Filter::default()).unwrap().categories[0]
        .0
        .clone()
        .unwrap();
    let filters = [
        Filter {
            datasets: vec![dataset],
            ..Default::default()
        },
        Filter {
            categories: vec![category.clone()],
            ..Default::default()
        },
        Filter {
            ops: vec![Some(RefinementOp::MinorEdit), None],
            ..Default::default()
        },
        Filter {
            statuses: vec![ItemStatus::Edited],
            ..Default::default()
        },
        Filter {
            ref_types: vec![RefType::Ambiguous],
            ..Default::default()
        },
        Filter {
            has_box: Some(false),
            ..Default::default()
        },
        Filter {
            tags: vec![IssueTag::Ambiguous],
            ..Default::default()
        },
        Filter {
            size_ratio: band,
            ..Default::default()
        },
        Filter {
            center_distance: band,
            ..Default::default()
        },
        Filter {
            saliency: band,
            ..Default::default()
        },
        Filter {
            categories: vec![category],
            ops: vec![Some(RefinementOp::Remove)],
            ..Default::default()
        },
        Filter {
            saliency: band,
            has_box: Some(true),
            ..Default::default()
        },
        Filter {
            text: Some("the".into()),
            ..Default::default()
        },
    ];
    for f in &filters {
        assert_eq!(p.facets(f).unwrap(), p.count_facets(f).unwrap(), "{f:?}");
    }
}

/// How many rows `item_search` holds, and the body of `ext`'s row if it has one.
fn search_rows(p: &assay_core::Project, dir: &std::path::Path, ext: &str) -> (i64, Option<String>) {
    let id = sample_id(p, ext);
    let conn = rusqlite::Connection::open(dir.join("t.assay")).unwrap();
    let n = conn
        .query_row("SELECT count(*) FROM item_search", [], |r| r.get(0))
        .unwrap();
    let body = conn
        .query_row("SELECT body FROM item_search WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .ok();
    (n, body)
}

/// The sample item `ext`'s id, through the store's own lookup (its dataset from its prefix).
fn sample_id(p: &assay_core::Project, ext: &str) -> i64 {
    let dataset = match ext.split('-').next() {
        Some("jg") => "jgraph-mini",
        Some("cr") => "crag-mini",
        Some("vg") => "vague-mini",
        _ => "haerae-mini",
    };
    p.item_id_by_ext(dataset, ext).unwrap()
}

/// Every item of a small project, in list order.
fn all_rows(p: &assay_core::Project) -> Vec<assay_core::store::ItemRow> {
    let page = Page {
        offset: 0,
        limit: 10_000,
    };
    p.query(&Filter::default(), page).unwrap().rows
}

#[test]
fn short_latin_text_is_found_in_questions_answers_variants_and_options() {
    let (d, mut p) = project();
    let a = author(&p, "aiko");
    let f = |t: &str| Filter {
        text: Some(t.into()),
        ..Default::default()
    };
    // Only items with text beyond their question and answer have a scan row, holding just that.
    let with_extras = all_rows(&p)
        .iter()
        .filter(|r| !p.item(r.id).unwrap().content.search_extras().is_empty())
        .count() as i64;
    let (rows, body) = search_rows(&p, d.path(), "vg-001");
    assert_eq!(rows, with_extras);
    assert!(rows > 0, "the sample has items with options or variants");
    let vg = p.item(sample_id(&p, "vg-001")).unwrap().content;
    assert_eq!(
        body,
        Some(vg.search_extras().to_lowercase()).filter(|b| !b.is_empty())
    );

    // Two characters no item has yet: in a question (folded beyond ASCII), an answer (ASCII),
    // a variant and an option.
    let set =
        |p: &mut assay_core::Project, ext: &str, change: &dyn Fn(&mut assay_core::ItemContent)| {
            let id = sample_id(p, ext);
            let mut e = edit_of(p, id);
            change(&mut e.content);
            p.save_edit(id, &e, &a).unwrap();
        };
    for q in ["ǯŧ", "qz", "ɋx", "ʁʬ"] {
        assert!(ids(&p, &f(q)).is_empty(), "{q} already matches");
    }
    set(&mut p, "jg-001", &|c| c.question.push_str(" ǮŦ"));
    set(&mut p, "cr-003", &|c| c.answer = Some("QZ noodles".into()));
    set(&mut p, "jg-002", &|c| {
        c.explicit_question = Some("Which Ɋx?".into())
    });
    set(&mut p, "vg-001", &|c| c.options[0].text.push_str(" ʁʬ"));
    assert_eq!(ids(&p, &f("ǯŧ")), vec!["jg-001"]);
    assert_eq!(ids(&p, &f("Ǯŧ")), vec!["jg-001"]);
    assert_eq!(ids(&p, &f("Qz")), vec!["cr-003"]);
    assert_eq!(ids(&p, &f("ɋX")), vec!["jg-002"]);
    assert_eq!(ids(&p, &f("ʁʬ")), vec!["vg-001"]);
    // Facet counts take the same ids as the list.
    assert_eq!(
        p.facets(&f("qz"))
            .unwrap()
            .datasets
            .iter()
            .map(|d| d.1)
            .sum::<i64>(),
        1
    );
    // A variant taken away again is no longer found, and its row goes with it.
    let (before, _) = search_rows(&p, d.path(), "jg-002");
    set(&mut p, "jg-002", &|c| c.explicit_question = None);
    assert!(ids(&p, &f("ɋx")).is_empty());
    let (after, row) = search_rows(&p, d.path(), "jg-002");
    let jg2 = p.item(sample_id(&p, "jg-002")).unwrap().content;
    if jg2.search_extras().is_empty() {
        assert_eq!((after, row), (before - 1, None));
    } else {
        assert_eq!(row, Some(jg2.search_extras().to_lowercase()));
    }
}

/// Migration 0034 cuts each body written before it (the whole text, lower-cased) to what
/// follows the question and answer, and drops rows left with nothing.
#[test]
fn migration_keeps_only_the_search_extras() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.assay");
    let (items, odd_id) = {
        let mut p = assay_core::Project::create(&path).unwrap();
        import_sample(&mut p);
        let rows = all_rows(&p);
        let items: Vec<(i64, assay_core::ItemContent)> = rows
            .iter()
            .map(|r| (r.id, p.item(r.id).unwrap().content))
            .collect();
        (items, rows[0].id)
    };
    // Older code put a line break before every part, empty ones too: an item whose only
    // extra was an empty variant, and one whose first extra was.
    let plain_id = items
        .iter()
        .find(|(id, c)| *id != odd_id && c.search_extras().is_empty())
        .unwrap()
        .0;
    let rich_id = items
        .iter()
        .find(|(id, c)| *id != odd_id && !c.search_extras().is_empty())
        .unwrap()
        .0;
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute("DELETE FROM item_search", []).unwrap();
        for (id, c) in &items {
            let head = format!(
                "{}{}",
                c.question,
                c.answer
                    .as_ref()
                    .map(|a| format!("\n{a}"))
                    .unwrap_or_default()
            );
            let body = if *id == odd_id {
                "a body some older code wrote".to_string()
            } else if *id == plain_id {
                format!("{head}\n").to_lowercase()
            } else if *id == rich_id {
                format!("{head}\n\n{}", c.search_extras()).to_lowercase()
            } else {
                c.search_text().to_lowercase()
            };
            conn.execute(
                "INSERT INTO item_search (id, body) VALUES (?1, ?2)",
                rusqlite::params![id, body],
            )
            .unwrap();
        }
        conn.execute_batch("PRAGMA user_version = 33;").unwrap();
    }
    let p = assay_core::Project::open(&path).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mut st = conn
        .prepare("SELECT id, body FROM item_search ORDER BY id")
        .unwrap();
    let got: Vec<(i64, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let want: Vec<(i64, String)> = items
        .iter()
        .filter_map(|(id, c)| {
            if *id == odd_id {
                return Some((*id, "a body some older code wrote".to_string()));
            }
            let extras = c.search_extras().to_lowercase();
            (!extras.is_empty()).then_some((*id, extras))
        })
        .collect();
    assert_eq!(got, want);
    assert!(
        got.len() < items.len() - 1,
        "most sample items have no extras"
    );
    // Searches still find what they found.
    let f = |t: &str| Filter {
        text: Some(t.into()),
        ..Default::default()
    };
    assert_eq!(ids(&p, &f("首")), vec!["jg-008"]);
    assert_eq!(ids(&p, &f("wash the DISHES")), vec!["vg-001"]);
}

/// The list's thumbnail hash is each item's first image's, whether the file holds it as bytes
/// (since migration 0035) or as the text a project made before it holds, which the migration
/// turns into bytes.
#[test]
fn thumbnail_hashes_are_stored_as_bytes_and_listed_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.assay");
    let all = Filter::default();
    let page = Page {
        offset: 0,
        limit: 1000,
    };
    let expected = {
        let mut p = assay_core::Project::create(&path).unwrap();
        import_sample(&mut p);
        let rows = p.query(&all, page).unwrap().rows;
        let expected: Vec<(String, Option<String>)> = rows
            .iter()
            .map(|r| {
                let c = p.item(r.id).unwrap().content;
                (r.ext_id.clone(), c.images.first().map(|i| i.hash.clone()))
            })
            .collect();
        let listed: Vec<(String, Option<String>)> =
            rows.into_iter().map(|r| (r.ext_id, r.thumb_hash)).collect();
        assert_eq!(listed, expected);
        assert!(
            expected.iter().any(|e| e.1.is_some()),
            "the sample has images"
        );
        expected
    };
    let types = |conn: &rusqlite::Connection| -> Vec<String> {
        let mut st = conn
            .prepare("SELECT DISTINCT typeof(thumb_hash) FROM items ORDER BY 1")
            .unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        assert_eq!(types(&conn), ["blob"], "every sample item has an image");
        // As a project made before migration 0035 holds them.
        conn.execute_batch(
            "UPDATE items SET thumb_hash = lower(hex(thumb_hash)) WHERE thumb_hash IS NOT NULL;
             PRAGMA user_version = 34;",
        )
        .unwrap();
        assert_eq!(types(&conn), ["text"]);
    }
    let p = assay_core::Project::open(&path).unwrap();
    let listed: Vec<(String, Option<String>)> = p
        .query(&all, page)
        .unwrap()
        .rows
        .into_iter()
        .map(|r| (r.ext_id, r.thumb_hash))
        .collect();
    assert_eq!(listed, expected);
    let conn = rusqlite::Connection::open(&path).unwrap();
    assert_eq!(types(&conn), ["blob"], "every sample item has an image");
}

/// `compact` gives back the pages a migration or a write freed, and changes nothing else.
#[test]
fn compacting_gives_free_pages_back_and_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.assay");
    let mut p = assay_core::Project::create(&path).unwrap();
    import_sample(&mut p);
    let data = jgraph_items(dir.path(), 3000, "many.jsonl");
    let opts = assay_core::import::ImportOptions {
        name: Some("many".into()),
        image_root: Some(sample_dir().join("jgraph-mini")),
        ..Default::default()
    };
    import(&mut p, &data, &opts).unwrap();
    let all = Filter::default();
    let page = Page {
        offset: 0,
        limit: 5000,
    };
    let f = |t: &str| Filter {
        text: Some(t.into()),
        ..Default::default()
    };
    let before = (
        p.query(&all, page).unwrap().rows.len(),
        ids(&p, &f("首")),
        ids(&p, &f("wash the DISHES")),
        p.facets(&all).unwrap(),
    );
    drop(p);
    // Pages freed the way a migration frees them: a table grown, then cut.
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE scratch (x BLOB);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
             INSERT INTO scratch SELECT randomblob(2000) FROM n;
             DROP TABLE scratch;",
        )
        .unwrap();
    }
    let p = assay_core::Project::open(&path).unwrap();
    let report = p.compact().unwrap();
    assert!(report.free_pages_before >= 900, "{report:?}");
    assert!(
        report.bytes_before - report.bytes_after >= 3_500_000,
        "{report:?}"
    );
    assert_eq!(std::fs::metadata(&path).unwrap().len(), report.bytes_after);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let free: i64 = conn
        .query_row("PRAGMA freelist_count", [], |r| r.get(0))
        .unwrap();
    assert_eq!(free, 0);
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let after = (
        p.query(&all, page).unwrap().rows.len(),
        ids(&p, &f("首")),
        ids(&p, &f("wash the DISHES")),
        p.facets(&all).unwrap(),
    );
    assert_eq!(after, before);
    assert!(after.0 > 3000, "{}", after.0);
}

#[test]
fn compacting_while_another_writes_is_refused_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.assay");
    let mut p = assay_core::Project::create(&path).unwrap();
    import_sample(&mut p);
    drop(p);
    // Another process holds the write lock (an evaluation run writing results).
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let p = assay_core::Project::open_reader(&path, 50).unwrap();
    let before = std::fs::metadata(&path).unwrap().len();
    match p.compact() {
        Err(assay_core::Error::Invalid(why)) => {
            assert!(
                why.contains("being written") && why.contains("nothing was changed"),
                "{why}"
            )
        }
        other => panic!("refused while another writes, not {other:?}"),
    }
    writer.execute_batch("ROLLBACK").unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), before);
    p.compact().expect("compacts once the writer is done");
}
