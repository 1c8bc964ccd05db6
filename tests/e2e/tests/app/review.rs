//! Review: two people and an auditor on one item (changes requested, fixed, approved, signed
//! off and locked), and blind double annotation adjudicated by the auditor.

use std::path::Path;

use fantoccini::{Client, Locator};

use crate::common::fixtures::Scenario;
use crate::common::until;
use crate::common::window::{
    click, fill, keys, open_row, screenshot, search, select, show, wait_for, wait_op, wait_text,
    wait_value,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_by_two_people_and_an_auditor_in_the_window() {
    let s = Scenario::new("review by two people and an auditor");
    // jg-006's current revision is e2e-annotator's own, who is the project's first person.
    s.edit("jg-006", "e2e-annotator", |c| c.answer = Some("117".into()));
    let c = s.start_as("e2e-annotator", None).await;
    review_by_two_people_and_an_auditor(&c, &s.project).await;
    c.close().await.unwrap();
}

/// Two people and an auditor on one project: the annotator cannot review their own revision;
/// a reviewer asks for changes; the annotator fixes; the reviewer approves with the keyboard;
/// the auditor signs off and the item locks.
async fn review_by_two_people_and_an_auditor(c: &Client, project: &Path) {
    use assay_core::ItemStatus;
    // jg-006's current revision is e2e-annotator's own.
    search(c, "降水量は何mm").await;
    open_row(c, "jg-006").await;
    let approve = wait_for(c, "[data-testid=approve]").await;
    assert!(
        !approve.is_enabled().await.unwrap(),
        "no reviewing one's own work"
    );

    // Nor is it in the annotator's own list of work to review.
    assert!(!in_my_work(c, "review-item", "jg-006").await);

    // The reviewer finds it in their list, opens it from there and asks for changes.
    work_as(c, "e2e-reviewer", "annotator").await;
    assert!(in_my_work(c, "review-item", "jg-006").await);
    click(c, "[data-testid=review-item][data-ext-id=jg-006]").await;
    wait_text(c, "[data-testid=item-id]", |t| t == "jg-006").await;
    fill(c, "[data-testid=review-comment]", "give the unit (mm)").await;
    click(c, "[data-testid=request-changes]").await;
    wait_jg006(c, project, "changes requested", |s| {
        s.0 == ItemStatus::Flagged
    })
    .await;
    wait_text(c, "[data-testid=comment]", |t| {
        t.contains("give the unit (mm)")
    })
    .await;
    // A comment with a mention; markup in it stays text.
    fill(
        c,
        "[data-testid=comment-input]",
        "@e2e-annotator <b>mm</b> please",
    )
    .await;
    click(c, "[data-testid=comment-send]").await;
    wait_text(c, "[data-testid=comments] mark.mention", |t| {
        t == "@e2e-annotator"
    })
    .await;
    let bolds = c
        .find_all(Locator::Css("[data-testid=comments] b"))
        .await
        .unwrap();
    for b in bolds {
        assert_ne!(
            b.text().await.unwrap(),
            "mm",
            "comment markup was interpreted"
        );
    }

    // The annotator sees it sent back, with the mentions, and fixes it from there.
    work_as(c, "e2e-annotator", "annotator").await;
    assert!(in_my_work(c, "sent-back-item", "jg-006").await);
    let mentions = c
        .find_all(Locator::Css("[data-testid=mention]"))
        .await
        .unwrap();
    assert_eq!(
        mentions.len(),
        2,
        "the request and the comment both mention the author"
    );
    screenshot(c, "my-work.png").await;
    click(c, "[data-testid=sent-back-item][data-ext-id=jg-006]").await;
    wait_text(c, "[data-testid=item-id]", |t| t == "jg-006").await;
    fill(c, "[data-testid=answer]", "171mm").await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_jg006(c, project, "the fix", |s| {
        s.0 == ItemStatus::Edited && s.2.as_deref() == Some("171mm")
    })
    .await;

    work_as(c, "e2e-reviewer", "annotator").await;
    search(c, "降水量は何mm").await;
    open_row(c, "jg-006").await;
    keys(c, &[(None, 'y')]).await; // approve
    wait_jg006(c, project, "the approval", |s| s.0 == ItemStatus::Approved).await;

    // An annotator sees everyone's role, the choice disabled with the reason.
    show(c, "team").await;
    wait_text(c, "[data-testid=roles-why]", |t| {
        t.contains("only the project's owner or an auditor assigns roles")
    })
    .await;
    let role = wait_for(
        c,
        "[data-testid=person][data-name=e2e-annotator] [data-testid=person-role]",
    )
    .await;
    assert!(
        !role.is_enabled().await.unwrap(),
        "not offered to an annotator"
    );
    show(c, "items").await;

    // The project's owner makes e2e-auditor an auditor: nobody makes themselves one.
    {
        let p = assay_core::Project::open(project).unwrap();
        let owner = p.owner().unwrap().unwrap();
        p.set_role(&owner, "e2e-auditor", assay_core::Role::Auditor)
            .unwrap();
    }
    work_as(c, "e2e-auditor", "auditor").await;
    search(c, "降水量は何mm").await;
    // The auditor deals the filtered items to both people as an audit round, all overlapping.
    show(c, "team").await;
    wait_for(c, "[data-testid=round-form]").await;
    // An auditor gives roles from the People table: e2e-reviewer made an auditor and back.
    let role_of = |name: &'static str| {
        let p = assay_core::Project::open(project).unwrap();
        p.user_by_name(name).unwrap().unwrap().role
    };
    let reviewer = "[data-testid=person][data-name=e2e-reviewer] [data-testid=person-role]";
    for role in [assay_core::Role::Auditor, assay_core::Role::Annotator] {
        select(c, reviewer, role.as_str()).await;
        until(
            c,
            || format!("e2e-reviewer never became {}", role.as_str()),
            move || std::future::ready(role_of("e2e-reviewer") == role),
        )
        .await;
    }
    screenshot(c, "team-roles.png").await;
    fill(c, "[data-testid=round-name]", "final check").await;
    click(c, "[data-testid=round-purpose] option[value=audit]").await;
    for who in ["e2e-annotator", "e2e-reviewer"] {
        click(c, &format!("[data-testid=assignee][data-name={who}]")).await;
    }
    fill(c, "[data-testid=round-overlap]", "100").await;
    click(c, "[data-testid=round-create]").await;
    wait_text(c, "[data-testid=round] caption", |t| {
        t.contains("final check") && t.contains("audit") && t.contains("1 items, 1 to two people")
    })
    .await;
    wait_text(c, "[data-testid=person][data-name=e2e-reviewer]", |t| {
        t.contains("e2e-reviewer")
    })
    .await;
    // The form is reset once the round is stored: the frame shows the finished state.
    wait_value(c, "[data-testid=round-name]", "").await;
    screenshot(c, "team.png").await;
    show(c, "items").await;
    open_row(c, "jg-006").await;
    click(c, "[data-testid=sign-off]").await;
    wait_for(c, "[data-testid=signed-off]").await;
    wait_jg006(c, project, "the sign-off", |s| s.1).await;
    screenshot(c, "signed-off.png").await;
    // Locked: an edit is refused by the store and nothing changes.
    fill(c, "[data-testid=answer]", "999").await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_text(c, "[data-testid=editor-error]", |t| {
        t.contains("signed off")
    })
    .await;
    assert_eq!(jg006(project).2.as_deref(), Some("171mm"));
}

/// Blind double annotation: two annotators judge jg-006 apart (neither sees the other's until
/// both are in, and neither edits the item meanwhile), they disagree, the agreement says it was
/// measured blind, and the auditor adjudicates by adopting one judgement.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blind_double_annotation_and_adjudication_in_the_window() {
    let s = Scenario::new("blind double annotation");
    {
        use assay_core::store::{Author, NewRound, RoundPurpose};
        let mut p = assay_core::Project::open(&s.project).unwrap();
        let lead = p
            .sign_in("e2e-auditor", assay_core::Role::Annotator)
            .unwrap();
        p.set_role("e2e-auditor", "e2e-auditor", assay_core::Role::Auditor)
            .unwrap();
        for who in ["e2e-annotator", "e2e-reviewer"] {
            p.sign_in(who, assay_core::Role::Annotator).unwrap();
        }
        let spec = NewRound {
            name: "blind pass".into(),
            purpose: RoundPurpose::Annotate,
            assignees: vec!["e2e-annotator".into(), "e2e-reviewer".into()],
            overlap: 1.0,
            sample: None,
            seed: 1,
            blind: true,
        };
        let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
        let author = Author {
            user_id: lead.id,
            role: assay_core::Role::Auditor,
            round: 1,
        };
        p.create_round(&spec, &[id], &author).unwrap();
    }
    let c = s.start_as("e2e-annotator", None).await;
    blind_double_annotation(&c, &s.project).await;
    c.close().await.unwrap();
}

/// (person, op) of every judgement of jg-006 in the blind round, as stored.
fn blind_stored(project: &Path) -> Vec<(String, Option<assay_core::RefinementOp>)> {
    let p = assay_core::Project::open(project).unwrap();
    let id = p.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    let mut st = p
        .connection()
        .prepare(
            "SELECT u.name, json_extract(b.judgement, '$.op') FROM blind_annotations b
             JOIN users u ON u.id = b.user_id WHERE b.item_id = ?1 ORDER BY b.id",
        )
        .unwrap();
    let rows: Vec<_> = st
        .query_map([id], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?
                    .and_then(|o| assay_core::RefinementOp::parse(&o)),
            ))
        })
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    rows
}

async fn wait_blind(c: &Client, project: &Path, n: usize) {
    until(
        c,
        || format!("never stored {n} judgements: {:?}", blind_stored(project)),
        move || async move { blind_stored(project).len() >= n },
    )
    .await;
}

async fn blind_double_annotation(c: &Client, project: &Path) {
    use assay_core::RefinementOp;
    // The command palette (Ctrl+K) runs an action by name; one the role rules out is listed
    // with the reason and does not run; ? lists the shortcuts.
    keys(c, &[(Some('\u{E009}'), 'k')]).await;
    wait_for(c, "[data-testid=palette]").await;
    // A dialog keeps the focus: Tab never leaves it.
    keys(
        c,
        &[(None, '\u{E004}'), (None, '\u{E004}'), (None, '\u{E004}')],
    )
    .await;
    let inside = c
        .execute(
            "return !!document.activeElement.closest('[data-testid=palette]')",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        inside,
        serde_json::Value::Bool(true),
        "Tab left the palette"
    );
    fill(c, "[data-testid=palette-input]", "sign off").await;
    wait_text(
        c,
        "[data-testid=palette-action][data-action=sign-off]",
        |t| t.contains("only an auditor signs off"),
    )
    .await;
    keys(c, &[(None, '\u{E007}')]).await; // Enter: disabled, nothing runs
    wait_for(c, "[data-testid=palette]").await;
    fill(c, "[data-testid=palette-input]", "triage").await;
    keys(c, &[(None, '\u{E007}')]).await;
    wait_for(c, "[data-testid=triage]").await;
    assert!(c.find(Locator::Css("[data-testid=palette]")).await.is_err());
    show(c, "items").await;
    keys(c, &[(None, '?')]).await;
    wait_text(c, "[data-testid=shortcut][data-action=approve]", |t| {
        t.contains("Approve")
    })
    .await;
    screenshot(c, "shortcuts.png").await;
    keys(c, &[(None, '\u{E00C}')]).await;

    // The annotator finds the item in their blind queue and records a judgement there.
    assert!(in_my_work(c, "round-item", "jg-006").await);
    wait_text(c, "[data-testid=round-queue] h5", |t| t.contains("blind")).await;
    click(c, "[data-testid=round-item][data-ext-id=jg-006]").await;
    wait_text(c, "[data-testid=item-id]", |t| t == "jg-006").await;
    wait_for(c, "[data-testid=blind-form]").await;
    select(c, "[data-testid=blind-op]", "answer_correction").await;
    click(c, "[data-testid=blind-tag][data-tag=wrong_answer]").await;
    fill(c, "[data-testid=blind-note]", "<b>unit</b> missing").await;
    click(c, "[data-testid=blind-record]").await;
    wait_blind(c, project, 1).await;
    wait_for(c, "[data-testid=blind-recorded]").await;
    // The item itself is not edited in a blind round: the store refuses, the window says why.
    fill(c, "[data-testid=answer]", "999").await;
    keys(c, &[(None, '\u{E00C}')]).await;
    wait_text(c, "[data-testid=editor-error]", |t| {
        t.contains("blind round")
    })
    .await;
    assert_eq!(jg006(project).2.as_deref(), Some("171"));
    // Typed back, so no draft waits to be saved.
    fill(c, "[data-testid=answer]", "171").await;
    keys(c, &[(None, '\u{E00C}')]).await;

    // The second annotator sees an empty form, never the first one's judgement.
    work_as(c, "e2e-reviewer", "annotator").await;
    assert!(in_my_work(c, "round-item", "jg-006").await);
    click(c, "[data-testid=round-item][data-ext-id=jg-006]").await;
    wait_for(c, "[data-testid=blind-form]").await;
    assert!(c
        .find(Locator::Css("[data-testid=blind-compare]"))
        .await
        .is_err());
    assert!(c
        .find(Locator::Css("[data-testid=blind-recorded]"))
        .await
        .is_err());
    select(c, "[data-testid=blind-op]", "minor_edit").await;
    click(c, "[data-testid=blind-record]").await;
    wait_blind(c, project, 2).await;
    // Both are in: both judgements side by side, the disagreement marked.
    let table = wait_text(c, "[data-testid=blind-compare]", |t| {
        t.contains("e2e-annotator") && t.contains("Minor edit")
    })
    .await;
    assert!(table.contains("Answer correction"), "{table}");
    // The note is text, not markup.
    assert!(table.contains("<b>unit</b> missing"), "{table}");
    assert_eq!(
        blind_stored(project),
        vec![
            ("e2e-annotator".into(), Some(RefinementOp::AnswerCorrection)),
            ("e2e-reviewer".into(), Some(RefinementOp::MinorEdit)),
        ]
    );

    // The auditor reads the agreement, measured blind, then adjudicates from "My work".
    work_as(c, "e2e-auditor", "auditor").await;
    show(c, "team").await;
    wait_for(c, "[data-testid=agreement]").await;
    select(
        c,
        "[data-testid=agreement] select[aria-label='items of round']",
        "1",
    )
    .await;
    wait_for(c, "[data-testid=agreement-blind]").await;
    wait_text(c, "[data-testid=agreement-summary]", |t| {
        t.starts_with("1 items") && t.contains("e2e-annotator") && t.contains("e2e-reviewer")
    })
    .await;
    // CRAG-MM's check: one person as the expert; the other alone is no three-person majority,
    // so the item is left out and said so.
    click(
        c,
        "[data-testid=majority-check] input[type=checkbox]:first-of-type",
    )
    .await;
    wait_text(c, "[data-testid=majority-check]", |t| {
        t.contains("1 with fewer than 3 labels")
    })
    .await;
    assert_eq!(
        wait_text(c, "[data-testid=majority-items]", |_| true).await,
        "0"
    );
    screenshot(c, "blind-agreement.png").await;
    show(c, "items").await;
    assert!(in_my_work(c, "adjudicate-item", "jg-006").await);
    click(c, "[data-testid=adjudicate-item][data-ext-id=jg-006]").await;
    wait_for(c, "[data-testid=blind-compare]").await;
    screenshot(c, "blind-adjudicate.png").await;
    click(c, "[data-testid=adopt][data-person=e2e-reviewer]").await;
    wait_op(c, "minor_edit", true).await;
    let p = assay_core::Project::open(project).unwrap();
    let it = p
        .item(p.item_id_by_ext("jgraph-mini", "jg-006").unwrap())
        .unwrap();
    assert_eq!(it.op, Some(RefinementOp::MinorEdit));
    assert!(p.adjudication_queue().unwrap().is_empty());
}

/// Switches who is working: back to the start screen, a name and a role, the same project.
async fn work_as(c: &Client, name: &str, role: &str) {
    click(c, "[data-testid=switch]").await;
    fill(c, "[data-testid=user-name]", name).await;
    click(c, &format!("[data-testid=role-{role}]")).await;
    click(c, "[data-testid=recent-project]").await;
    wait_for(c, "[data-testid=chosen-project]").await;
    click(c, "[data-testid=start]").await;
    wait_text(c, "[data-testid=current-user]", |t| t.starts_with(name)).await;
}

/// Opens "My work" (fresh) and tells whether a list there holds the item.
async fn in_my_work(c: &Client, list: &str, ext_id: &str) -> bool {
    // Coming to the view reads the lists fresh.
    show(c, "items").await;
    show(c, "review").await;
    wait_for(c, "[data-testid=my-work] section").await;
    c.find(Locator::Css(&format!(
        "[data-testid={list}][data-ext-id={ext_id}]"
    )))
    .await
    .is_ok()
}

fn jg006(project: &Path) -> (assay_core::ItemStatus, bool, Option<String>) {
    let p = assay_core::Project::open(project).unwrap();
    let it = p
        .item(p.item_id_by_ext("jgraph-mini", "jg-006").unwrap())
        .unwrap();
    (it.status, it.signed_off, it.content.answer)
}

async fn wait_jg006(
    c: &Client,
    project: &Path,
    what: &str,
    check: impl Fn(&(assay_core::ItemStatus, bool, Option<String>)) -> bool,
) {
    until(
        c,
        || format!("never stored: {what}; now {:?}", jg006(project)),
        || std::future::ready(check(&jg006(project))),
    )
    .await;
}
