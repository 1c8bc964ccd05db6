//! The item table's first page sorted by the columns that are not on the item (who it is dealt
//! to, whether they agree, a run's score) beside columns that are, on one project of N items:
//! every item dealt to two of three annotators, some of them edited by both (agreeing or not),
//! and a run with a score for every item.

use anyhow::Result;
use assay_core::store::{Author, Edit, Filter, NewRound, RoundPurpose, Sort, SortColumn};
use assay_core::{RefinementOp, Role};

pub fn sort_extras(args: &[String]) -> Result<()> {
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let dir = crate::root().join("target/bench-sort");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let data = dir.join("synthetic.jsonl");
    crate::bench::generate(&data, n)?;
    let p = crate::fresh_project_from(&dir.join("sort.assay"), &data)?;
    let ids: Vec<i64> = p.query_ids(&Filter::default())?;

    let as_author = |p: &assay_core::Project, name: &str, role: Role| -> Result<Author> {
        let u = p.ensure_user(name, role)?;
        Ok(Author {
            user_id: u.id,
            role: u.role,
            round: 1,
        })
    };
    let lead = as_author(&p, "lead", Role::Auditor)?;
    let people = ["aiko", "minjun", "seo"];
    for name in people {
        as_author(&p, name, Role::Annotator)?;
    }
    let round = |name: &str| NewRound {
        name: name.into(),
        purpose: RoundPurpose::Annotate,
        assignees: people.iter().map(|s| s.to_string()).collect(),
        overlap: 1.0,
        sample: None,
        seed: 7,
        blind: false,
    };
    // What standing each item in its round (migration 0041) adds to dealing one: the same
    // round dealt on a copy of the project whose `stand` statement finds no view rows (the
    // view's rounds emptied by a filter it cannot match), then here.
    let path = dir.join("sort.assay");
    drop(p);
    let copy = dir.join("unstood.assay");
    std::fs::copy(&path, &copy)?;
    rusqlite::Connection::open(&copy)?.execute_batch(
        "DROP VIEW round_standing_of;
         CREATE VIEW round_standing_of AS SELECT NULL AS item_id, NULL AS round_id,
                NULL AS assignee, NULL AS agreement WHERE 0;",
    )?;
    let mut p = assay_core::Project::open(&path)?;
    let bare = {
        let mut c = assay_core::Project::open(&copy)?;
        let t = std::time::Instant::now();
        c.create_round(&round("bench"), &ids, &lead)?;
        t.elapsed()
    };
    let t = std::time::Instant::now();
    p.create_round(&round("bench"), &ids, &lead)?;
    let kept = t.elapsed();
    println!(
        "dealing {n} items to two people each: {:.0} ms keeping where each stands, {:.0} ms without ({:.2}x)",
        kept.as_secs_f64() * 1000.0,
        bare.as_secs_f64() * 1000.0,
        kept.as_secs_f64() / bare.as_secs_f64().max(1e-9)
    );
    // Two people's operations on a few thousand items: the same on most, different on some.
    let edited = (n / 40).max(1);
    for (k, &id) in ids.iter().take(edited).enumerate() {
        let dealt = p
            .table_extras(&[id], &[])?
            .pop()
            .unwrap_or_default()
            .assignees;
        for (j, name) in dealt.iter().enumerate() {
            let who = as_author(&p, name, Role::Annotator)?;
            let mut edit = Edit::answer_fix(&p.item(id)?, &format!("{name} {k}"));
            edit.op = Some(if j == 1 && k % 5 == 0 {
                RefinementOp::AnswerCorrection
            } else {
                RefinementOp::MinorEdit
            });
            p.save_edit(id, &edit, &who)?;
        }
    }
    let run = crate::bench::recorded_scores_run(&mut p, &ids)?;

    let sorted = |column, desc| Filter {
        sort: Some(Sort {
            column,
            desc,
            run: (column == SortColumn::RunScore).then_some(run),
        }),
        ..Default::default()
    };
    let pages = [
        (
            "question (an index walk)",
            sorted(SortColumn::Question, false),
        ),
        ("id", sorted(SortColumn::ExtId, false)),
        ("centre distance", sorted(SortColumn::CenterDistance, false)),
        ("revision, descending", sorted(SortColumn::Revision, true)),
        ("assignee", sorted(SortColumn::Assignee, false)),
        ("assignee, descending", sorted(SortColumn::Assignee, true)),
        ("agreement", sorted(SortColumn::Agreement, false)),
        ("agreement, descending", sorted(SortColumn::Agreement, true)),
        ("a run's score", sorted(SortColumn::RunScore, false)),
        (
            "a run's score, descending",
            sorted(SortColumn::RunScore, true),
        ),
    ];
    println!("{n} items, {edited} of them edited by both their people");
    crate::bench::first_pages(&p, "first page sorted by", &pages, runs)
}
