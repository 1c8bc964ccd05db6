//! Suggestions through the engine against the stub server, on the seeds' published samples:
//! every kind parsed from canned replies (malformed ones kept, not dropped), resume without
//! paying twice, and what a person does with them (accept, edit, reject, stale).

use std::path::Path;
use std::sync::Arc;

use assay_core::store::Author;
use assay_core::{Project, Role, SuggestionKind, SuggestionValue};
use assay_eval::stub::{Reply, Rule, StubConfig, StubServer};
use assay_eval::suggest::{estimate, run_suggestions, SuggestRequest, SuggestSummary};
use assay_eval::CancelToken;

use super::common::{add_model, fixture_project};

fn item_ids(path: &Path) -> Vec<i64> {
    let p = Project::open(path).unwrap();
    let mut st = p
        .connection()
        .prepare("SELECT id FROM items ORDER BY id")
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

fn question(path: &Path, id: i64) -> String {
    Project::open(path)
        .unwrap()
        .item(id)
        .unwrap()
        .content
        .question
}

async fn suggest(path: &Path, req: &SuggestRequest) -> SuggestSummary {
    run_suggestions(path, req, Arc::new(|_| {}), CancelToken::new())
        .await
        .unwrap()
}

fn author(p: &Project, name: &str) -> Author {
    let u = p.sign_in(name, Role::Annotator).unwrap();
    Author {
        user_id: u.id,
        role: u.role,
        round: 1,
    }
}

async fn stub(rules: Vec<Rule>, default: &str) -> StubServer {
    StubServer::start(StubConfig {
        rules,
        default_reply: Some(Reply::Text(default.into())),
        ..Default::default()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn checklist_drafts_are_kept_parsed_or_not_resumed_free_and_reviewed_with_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "haerae-vision/data/train.jsonl", "haerae");
    let ids = item_ids(&path);
    assert_eq!(ids.len(), 4);
    // Item 2 gets a refusal, item 3 six criteria; the others a good draft.
    let q2: String = question(&path, ids[1]).chars().take(12).collect();
    let q3: String = question(&path, ids[2]).chars().take(12).collect();
    let server = stub(
        vec![
            Rule::always(&q2, Reply::Text("I cannot help with that.".into())),
            Rule::always(
                &q3,
                Reply::Text((1..=6).map(|i| format!("- c{i}\n")).collect()),
            ),
        ],
        "Criteria:\n- 앵커를 식별한다\n- 나사를 먼저 푸는 방법을 설명한다\n- 펜치로 빼내는 방법을 안내한다",
    )
    .await;
    add_model(&path, "drafter", vec![server.url.clone()], |_| {});
    let req = SuggestRequest::new(
        SuggestionKind::Checklist,
        Some("drafter".into()),
        ids.clone(),
    );
    {
        let p = Project::open(&path).unwrap();
        let e = estimate(&p, &req).unwrap();
        assert_eq!((e.todo, e.requests, e.cached), (4, 4, 0));
    }
    let s = suggest(&path, &req).await;
    assert_eq!(s.progress.parsed, 2);
    assert_eq!(s.progress.unparsed, 2);
    assert_eq!(s.progress.errors, 0);
    assert_eq!(s.template, "suggest/checklist@builtin-1");
    assert_eq!(server.requests(), 4);
    // Every request carried the item's images and the reference answer.
    assert!(server
        .prompts()
        .iter()
        .all(|p| p.contains("Reference answer:")));
    assert!(server.images() >= 4);

    let mut p = Project::open(&path).unwrap();
    let refused = p.item_suggestions(ids[1]).unwrap();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].outcome, "unparsed");
    assert_eq!(refused[0].raw.as_deref(), Some("I cannot help with that."));
    assert!(refused[0]
        .problem
        .as_deref()
        .unwrap()
        .contains("no criteria"));
    let six = &p.item_suggestions(ids[2]).unwrap()[0];
    assert!(six.problem.as_deref().unwrap().contains("6 criteria"));

    // Asked again: every item already has an answer for its revision, nothing is sent.
    let again = suggest(&path, &req).await;
    assert_eq!((again.already, again.progress.total), (4, 0));
    assert_eq!(server.requests(), 4);

    // Accept one as is: a revision whose note names the suggestion, by the person.
    let aiko = author(&p, "aiko");
    let first = p.item_suggestions(ids[0]).unwrap().remove(0);
    assert!(!first.stale);
    let value = first.value.clone().unwrap();
    let before = p.item(ids[0]).unwrap();
    let a = p
        .accept_suggestion(first.id, before.rev, &value, None, None, &aiko)
        .unwrap();
    assert_eq!(a.decision, "accepted");
    assert_eq!(a.edit_distance, 0);
    let after = p.item(ids[0]).unwrap();
    assert_eq!(after.rev, before.rev + 1);
    assert_eq!(after.content.checklist.len(), 3);
    let hist = p.revisions(ids[0]).unwrap();
    let last = hist.last().unwrap();
    assert_eq!(last.author.as_deref(), Some("aiko"));
    let note = last.note.clone().unwrap();
    assert!(
        note.contains(&format!("suggestion #{}", first.id)) && note.contains("drafter"),
        "{note}"
    );
    // Once decided, a suggestion is not decided again.
    assert!(p
        .accept_suggestion(first.id, after.rev, &value, None, None, &aiko)
        .is_err());
    assert!(p
        .reject_suggestion(first.id, "changed my mind", &aiko)
        .is_err());

    // A note cannot claim a suggestion; only accepting one links a revision to it.
    let mut forged = assay_core::store::Edit {
        base_rev: Some(after.rev),
        content: after.content.clone(),
        op: after.op,
        tags: after.tags.clone(),
        status: after.status,
        note: Some("accepted suggestion #99 (checklist, model gpt-5, template x)".into()),
    };
    forged.content.question.push('!');
    assert_eq!(
        p.save_edit(ids[0], &forged, &aiko).unwrap_err().code(),
        "invalid"
    );
    assert_eq!(
        p.revisions(ids[0]).unwrap().last().unwrap().suggestion,
        Some(first.id)
    );

    // The unparsed one, accepted after the person wrote the criteria: an edit, with distance.
    let edited = SuggestionValue::Checklist {
        criteria: vec!["앵커를 식별한다".into(), "나사를 푼다".into()],
    };
    let rev = p.item(ids[1]).unwrap().rev;
    let e = p
        .accept_suggestion(refused[0].id, rev, &edited, None, None, &aiko)
        .unwrap();
    assert_eq!(e.decision, "edited");
    assert!(e.edit_distance > 0);

    // Rejecting needs a reason.
    let ben = author(&p, "ben");
    assert_eq!(
        p.reject_suggestion(six.id, "  ", &ben).unwrap_err().code(),
        "invalid"
    );
    p.reject_suggestion(six.id, "six criteria, several not grounded", &ben)
        .unwrap();

    // A suggestion made for an older revision shows stale, and accepting it on an old base is
    // a conflict, not an overwrite.
    let fourth = p.item_suggestions(ids[3]).unwrap().remove(0);
    let mut edit = assay_core::store::Edit {
        base_rev: Some(p.item(ids[3]).unwrap().rev),
        content: p.item(ids[3]).unwrap().content,
        op: Some(assay_core::RefinementOp::MinorEdit),
        tags: vec![],
        status: assay_core::ItemStatus::Edited,
        note: None,
    };
    edit.content.question.push('?');
    p.save_edit(ids[3], &edit, &ben).unwrap();
    let fourth_now = p.suggestion(fourth.id).unwrap();
    assert!(fourth_now.stale);
    assert_eq!(
        p.accept_suggestion(
            fourth.id,
            fourth.item_rev,
            &fourth.value.clone().unwrap(),
            None,
            None,
            &aiko
        )
        .unwrap_err()
        .code(),
        "conflict"
    );

    let report = p.suggestion_report().unwrap();
    assert_eq!(report.rows.len(), 1);
    let r = &report.rows[0];
    assert_eq!(
        (r.kind.as_str(), r.model.as_str()),
        ("checklist", "drafter")
    );
    assert_eq!(
        (
            r.suggested,
            r.accepted,
            r.edited,
            r.rejected,
            r.unparsed,
            r.pending
        ),
        (4, 1, 1, 1, 0, 1)
    );
    // The one edited acceptance was written from an output that did not parse: it is no
    // measure of how much a draft needed changing.
    assert_eq!(r.mean_edit_distance, None);
    // Time per item is a person's visit to it, from their previous visit's last action:
    // aiko's second item (an acceptance) is one visit with a suggestion; ben's rejection was
    // his first action, and his edit of another item after it is one visit without.
    assert_eq!(
        (report.visits_with, report.visits_without),
        (1, 1),
        "{report:?}"
    );
    assert!(report.median_seconds_with.is_some() && r.median_seconds.is_some());
}

const REFUSAL: &str = "Sorry, I can't.\nI am unable to see the image.";

#[tokio::test]
async fn every_request_kind_parses_its_canned_reply_and_keeps_a_malformed_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "crag-mm-diagnostics/data/test.jsonl", "crag");
    let ids = item_ids(&path);
    let canned: Vec<(SuggestionKind, &str, &str)> = vec![
        (
            SuggestionKind::Screening,
            r#"{"safety": {"flag": false, "reason": ""}, "objectivity": {"flag": false, "reason": ""}, "time_sensitivity": {"flag": true, "reason": "asks for today's price"}}"#,
            "screening",
        ),
        (
            SuggestionKind::ExplicitRewrite,
            "Rewritten question: When was the grey sedan on the right first sold?",
            "explicit_rewrite",
        ),
        (
            SuggestionKind::CragQuestions,
            "Disambiguated: What is the grey car on the right?\nText-only: When was the Kia K5 released?",
            "crag_questions",
        ),
        (SuggestionKind::TargetBox, "[10, 20, 110, 220]", "target_box"),
        (
            SuggestionKind::Operation,
            r#"{"operation": "disambiguation", "question": "What brand is the grey car on the right?", "answer": null, "reason": "two cars"}"#,
            "operation",
        ),
    ];
    for (kind, reply, tag) in canned {
        // The first item gets a malformed reply; the rest the canned one.
        let q0: String = question(&path, ids[0]).chars().take(20).collect();
        let server = stub(vec![Rule::always(&q0, Reply::Text(REFUSAL.into()))], reply).await;
        let model = format!("m-{tag}");
        add_model(&path, &model, vec![server.url.clone()], |_| {});
        let s = suggest(
            &path,
            &SuggestRequest::new(kind, Some(model.clone()), ids.clone()),
        )
        .await;
        assert_eq!(s.progress.unparsed, 1, "{kind}: {s:?}");
        assert_eq!(s.progress.parsed, ids.len() - 1, "{kind}: {s:?}");
        let p = Project::open(&path).unwrap();
        let got = p.item_suggestions(ids[1]).unwrap();
        let v = got
            .iter()
            .find(|x| x.kind == kind)
            .and_then(|x| x.value.clone())
            .unwrap();
        match (kind, v) {
            (SuggestionKind::Screening, SuggestionValue::Screening { keep, flags }) => {
                assert!(!keep);
                assert_eq!(flags[0].axis, "time_sensitivity");
            }
            (SuggestionKind::TargetBox, SuggestionValue::TargetBox { image, bbox }) => {
                // The stub's box is in pixels of the image as sent; stored in the original's.
                let img = &p.item(ids[1]).unwrap().content.images[image];
                let sent = assay_eval::model::ModelConfig::default()
                    .score_context()
                    .sent_size_of(img, None);
                let sx = f64::from(img.width) / f64::from(sent.0);
                assert!((bbox.x_min - 10.0 * sx).abs() < 1e-6, "{bbox:?}");
            }
            (SuggestionKind::Operation, SuggestionValue::Operation { op, .. }) => {
                assert_eq!(op, assay_core::RefinementOp::Disambiguation);
            }
            (SuggestionKind::CragQuestions, SuggestionValue::CragQuestions { text_only, .. }) => {
                assert_eq!(text_only.as_deref(), Some("When was the Kia K5 released?"));
            }
            (SuggestionKind::ExplicitRewrite, SuggestionValue::ExplicitRewrite { question }) => {
                assert!(question.starts_with("When was the grey sedan"));
            }
            (k, v) => panic!("{k}: {v:?}"),
        }
        let bad = p.item_suggestions(ids[0]).unwrap();
        let bad = bad.iter().find(|x| x.kind == kind).unwrap();
        assert_eq!(bad.outcome, "unparsed");
        assert_eq!(bad.raw.as_deref(), Some(REFUSAL));
    }
}

#[tokio::test]
async fn vague_stages_draft_direct_requests_utterances_and_three_distractors() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "vague/data/vague_sample.json", "vague");
    let ids = item_ids(&path);
    let server = stub(
        vec![
            Rule::always(
                "generate a direct complaint",
                Reply::Text("Prompt: Hey, person1, move the sedan.\nSolution: (person1, move, sedan)\nCaption: A parking lot.".into()),
            ),
            Rule::always(
                "three indirect versions",
                Reply::Text("Answer 1: Hey person1, that spot is a bit special.\nAnswer 2: b\nAnswer 3: c".into()),
            ),
        ],
        "FSU: The speaker wants person1 to feed the cat.\nSU: The speaker wants person1 to play a puzzle.\nNE: The speaker wants person1 to use the tow truck.",
    )
    .await;
    add_model(&path, "gpt", vec![server.url.clone()], |_| {});
    let mut p = Project::open(&path).unwrap();
    let aiko = author(&p, "aiko");
    for kind in [
        SuggestionKind::DirectRequest,
        SuggestionKind::IndirectUtterance,
        SuggestionKind::Distractors,
    ] {
        let s = suggest(
            &path,
            &SuggestRequest::new(kind, Some("gpt".into()), ids.clone()),
        )
        .await;
        assert_eq!(s.progress.parsed, ids.len(), "{kind}");
    }
    // VAGUE's indirect step is text only; the others see the image.
    let indirect_prompts: Vec<String> = server
        .prompts()
        .into_iter()
        .filter(|x| x.contains("three indirect versions"))
        .collect();
    assert_eq!(indirect_prompts.len(), ids.len());
    assert_eq!(server.images(), 2 * ids.len());

    // Accepting the distractors keeps the correct option and replaces the three by kind.
    let item = p.item(ids[0]).unwrap();
    let correct = item
        .content
        .correct_option
        .map(|i| item.content.options[i].text.clone());
    let d = p
        .item_suggestions(ids[0])
        .unwrap()
        .into_iter()
        .find(|s| s.kind == SuggestionKind::Distractors)
        .unwrap();
    assert!(d.current_text.starts_with("FSU: "));
    p.accept_suggestion(d.id, item.rev, &d.value.clone().unwrap(), None, None, &aiko)
        .unwrap();
    let now = p.item(ids[0]).unwrap().content;
    assert_eq!(now.options.len(), item.content.options.len());
    assert_eq!(
        now.correct_option.map(|i| now.options[i].text.clone()),
        correct
    );
    assert!(now.options.iter().any(|o| o.text
        == "The speaker wants person1 to use the tow truck."
        && o.kind == Some(assay_core::DistractorKind::NonExistent)));
    // The direct request brings its triplet into the item. The distractors just accepted did
    // not touch what its draft changes or what its model was shown: still current.
    let dr = p
        .item_suggestions(ids[0])
        .unwrap()
        .into_iter()
        .find(|s| s.kind == SuggestionKind::DirectRequest)
        .unwrap();
    assert!(dr.item_rev < p.item(ids[0]).unwrap().rev);
    assert!(!dr.stale);
    let rev = p.item(ids[0]).unwrap().rev;
    p.accept_suggestion(dr.id, rev, &dr.value.clone().unwrap(), None, None, &aiko)
        .unwrap();
    let now = p.item(ids[0]).unwrap().content;
    assert_eq!(
        now.direct_request.as_deref(),
        Some("Hey, person1, move the sedan.")
    );
    assert_eq!(now.metadata["solution_triplet"]["object"], "sedan");
    // The utterance was written from the old direct request: now stale.
    let utterance = p
        .item_suggestions(ids[0])
        .unwrap()
        .into_iter()
        .find(|s| s.kind == SuggestionKind::IndirectUtterance)
        .unwrap();
    assert!(utterance.stale);
}

#[tokio::test]
async fn stage_suggestions_become_decisions_only_when_a_person_accepts_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = fixture_project(dir.path(), "haerae-vision/data/train.jsonl", "haerae");
    let ids = item_ids(&path);
    // Image dependency: with the image a good answer, without it a poor one (rated 8 vs 3).
    let server = stub(
        vec![Rule::always(
            "Answer A (the model saw the image)",
            Reply::Text(r#"{"with_image": 8, "without_image": 3}"#.into()),
        )],
        "an answer",
    )
    .await;
    add_model(&path, "gemini", vec![server.url.clone()], |_| {});
    let s = suggest(
        &path,
        &SuggestRequest::new(
            SuggestionKind::ImageDependency,
            Some("gemini".into()),
            ids.clone(),
        ),
    )
    .await;
    assert_eq!(s.progress.parsed, ids.len());
    // With and without the image the question is the same text: two answers, one rating each.
    assert_eq!(server.requests(), 3 * ids.len());
    let mut p = Project::open(&path).unwrap();
    p.set_stages(&[
        ("appropriateness".into(), String::new()),
        ("difficulty".into(), String::new()),
        ("image dependency".into(), String::new()),
    ])
    .unwrap();
    let stages = p.stages().unwrap();
    let sug = p.item_suggestions(ids[0]).unwrap().remove(0);
    let SuggestionValue::ImageDependency {
        keep,
        with_image,
        without_image,
        ..
    } = sug.value.clone().unwrap()
    else {
        panic!()
    };
    assert!(keep && with_image == 8.0 && without_image == 3.0);
    // Nothing decided until a person accepts.
    assert!(p.filtering(ids[0]).unwrap().decisions.is_empty());
    let aiko = author(&p, "aiko");
    let rev = p.item(ids[0]).unwrap().rev;
    // A stage kind needs the stage it decides.
    assert!(p
        .accept_suggestion(sug.id, rev, &sug.value.clone().unwrap(), None, None, &aiko)
        .is_err());
    let a = p
        .accept_suggestion(
            sug.id,
            rev,
            &sug.value.clone().unwrap(),
            Some(stages[2].id),
            None,
            &aiko,
        )
        .unwrap();
    assert!(a.rev.is_none() && a.stage_decision_id.is_some());
    let f = p.filtering(ids[0]).unwrap();
    assert_eq!(f.decisions.len(), 1);
    assert_eq!(f.decisions[0].by.as_deref(), Some("aiko"));
    assert_eq!(f.decisions[0].suggestion_id, Some(sug.id));
    assert!(f.decisions[0].reason.as_deref().unwrap().contains("gemini"));
    // The person may overrule the model, with a reason: accepting "drop" instead is an edited
    // acceptance. Figures the person typed do not reach the record: only keep or drop does.
    let other = p.item_suggestions(ids[1]).unwrap().remove(0);
    let dropped = SuggestionValue::ImageDependency {
        keep: false,
        with_image: 1.0,
        without_image: 9.0,
        min_gap: 1.0,
    };
    let rev = p.item(ids[1]).unwrap().rev;
    assert!(p
        .accept_suggestion(other.id, rev, &dropped, Some(stages[2].id), None, &aiko)
        .unwrap_err()
        .to_string()
        .contains("say why"));
    let e = p
        .accept_suggestion(
            other.id,
            rev,
            &dropped,
            Some(stages[2].id),
            Some("the question names the sign; no image needed"),
            &aiko,
        )
        .unwrap();
    assert_eq!(e.decision, "edited");
    let f = p.filtering(ids[1]).unwrap();
    assert!(!f.kept);
    let why = f.decisions[0].reason.clone().unwrap();
    assert!(
        why.starts_with("the question names the sign") && why.contains("8.0 with the image"),
        "{why}"
    );

    // Difficulty reads stored runs and sends nothing; an item without a run is an error that
    // names the model.
    let mut eval = super::common::request(&["gemini"], 1);
    eval.datasets = vec!["haerae".into()];
    eval.versions = vec![assay_eval::Version::After];
    eval.scorer = Some(assay_eval::ScorerKind::Bleu);
    drop(p);
    super::common::eval(&path, &eval).await;
    let sent = server.requests();
    let mut req = SuggestRequest::new(SuggestionKind::Difficulty, None, ids.clone());
    req.strong_models = vec!["gemini".into(), "absent".into()];
    let s = suggest(&path, &req).await;
    assert_eq!(s.progress.errors, ids.len());
    req.strong_models = vec!["gemini".into()];
    let s = suggest(&path, &req).await;
    // The item dropped above is not in the current set, so it has no run to read.
    assert_eq!((s.progress.parsed, s.progress.errors), (ids.len() - 1, 1));
    assert_eq!(server.requests(), sent);
    let p = Project::open(&path).unwrap();
    let d = p
        .item_suggestions(ids[2])
        .unwrap()
        .into_iter()
        .find(|s| s.kind == SuggestionKind::Difficulty && s.outcome == "parsed")
        .unwrap();
    let Some(SuggestionValue::Difficulty { keep, mean, .. }) = d.value else {
        panic!()
    };
    // "an answer" scores low on BLEU against a real reference: the item is hard, kept.
    assert!(keep && mean < 0.6, "{mean}");
}

#[tokio::test]
async fn a_cancelled_run_resumes_and_pays_for_no_answer_twice() {
    let dir = tempfile::tempdir().unwrap();
    let path = super::common::project(dir.path(), 60, 0);
    let ids = item_ids(&path);
    let server = StubServer::start(StubConfig {
        latency: std::time::Duration::from_millis(20),
        default_reply: Some(Reply::Text("Rewritten question: a clear one".into())),
        ..Default::default()
    })
    .await
    .unwrap();
    add_model(&path, "m", vec![server.url.clone()], |c| c.concurrency = 4);
    let req = SuggestRequest::new(
        SuggestionKind::ExplicitRewrite,
        Some("m".into()),
        ids.clone(),
    );
    let cancel = CancelToken::new();
    let c = cancel.clone();
    let first = run_suggestions(
        &path,
        &req,
        Arc::new(move |p| {
            if p.done >= 10 {
                c.cancel();
            }
        }),
        cancel,
    )
    .await
    .unwrap();
    assert!(first.cancelled);
    assert!(
        first.progress.done >= 10 && first.progress.done < 60,
        "{first:?}"
    );
    let second = suggest(&path, &req).await;
    assert_eq!(second.already, first.progress.done);
    let p = Project::open(&path).unwrap();
    let stored: i64 = p
        .connection()
        .query_row(
            "SELECT count(*) FROM suggestions WHERE outcome = 'parsed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored, 60);
    // Answers the cancelled run paid for but had not stored came from the cache: the endpoint
    // wrote at most one answer per item.
    assert!(server.answered() <= 60 + 8, "{}", server.answered());
    assert_eq!(
        second.progress.sent + second.progress.cached,
        60 - first.progress.done,
        "{first:?} {second:?}"
    );
}
