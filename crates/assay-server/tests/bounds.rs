//! What one member can make the team hold or send: pages of a pull bounded in bytes (a run of
//! large rows arrives over several pages, none set aside), push batches an honest replica keeps
//! within the service's bound on a request, and a daily quota of bytes per member. Through the
//! real service and a real PostgreSQL.

mod support;

use assay_core::Role;
use assay_server::limits::Limits;
use assay_sync::pull::PAGE_BYTES;
use support::common::{answer, author, edit_answer};
use support::{post, Team};

const ITEMS: [&str; 12] = [
    "jg-001", "jg-002", "jg-003", "jg-004", "jg-005", "jg-006", "jg-007", "jg-008", "jg-009",
    "jg-010", "jg-011", "jg-012",
];

/// An answer of `mib` MiB, different for each `k`.
fn long_answer(k: usize, mib: usize) -> String {
    format!("{k}:{}", "x".repeat(mib << 20))
}

#[test]
fn large_rows_travel_in_pages_and_batches_of_bounded_bytes_and_none_is_lost() {
    // 24 MiB of content in all, over a bound of 20 MiB on one request.
    let t = Team::start(Limits {
        push_bytes: 20 << 20,
        ..Default::default()
    });
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let ds = a.dataset_by_name("jgraph-mini").unwrap().id;
    assert_eq!(a.item_ext_ids(ds).unwrap().len(), ITEMS.len());
    let aiko = author(&a, "aiko");
    for (k, ext) in ITEMS.iter().enumerate() {
        edit_answer(&mut a, ext, &long_answer(k, 2), &aiko);
    }
    let r = t.sync("aiko", &mut a);
    assert_eq!((r.pushed, r.refused), (ITEMS.len(), 0), "every row taken");

    // The first page from the start holds the originals and large revisions up to the bound
    // (one row may cross it), not all of them.
    let (status, page) = post(
        &t,
        "/v1/pull",
        Some(&t.credential("minjun")),
        br#"{"positions":{}}"#.to_vec(),
    );
    assert_eq!(status, 200, "{page}");
    let rows = page["rows"].as_array().expect("a page of rows");
    let large: Vec<usize> = rows
        .iter()
        .filter_map(|r| r["row"]["Ok"]["row"]["content"].as_str())
        .map(str::len)
        .filter(|n| *n > 1 << 20)
        .collect();
    assert!(
        !large.is_empty() && large.len() < ITEMS.len(),
        "some of the large revisions: {}",
        large.len()
    );
    let bytes: usize = large.iter().sum();
    assert!(
        bytes <= PAGE_BYTES as usize + (3 << 20),
        "{bytes} bytes in one page"
    );
    assert!(
        rows.iter().all(|r| r["row"].get("Ok").is_some()),
        "no row of the page is left unread"
    );
    assert_eq!(page["last"], false, "a page cut short says more may follow");

    // A replica pulls them all, over several pages, and sets none aside.
    t.sync("minjun", &mut m);
    for (k, ext) in ITEMS.iter().enumerate() {
        assert_eq!(answer(&m, ext), Some(long_answer(k, 2)), "{ext}");
    }
    assert_eq!(m.refused_rows().unwrap(), vec![], "nothing set aside");
    let mut fresh = t.join("seo", Role::Auditor);
    t.sync("seo", &mut fresh);
    assert_eq!(answer(&fresh, "jg-012"), Some(long_answer(11, 2)));
    assert_eq!(fresh.refused_rows().unwrap(), vec![]);
}

/// A replica asks for pages until one says it holds the rest: a page that holds everything
/// after the positions asked from says so (a sync then asks once, not twice), and it is true.
#[test]
fn a_page_holding_everything_after_the_positions_says_it_is_the_last() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-001", "Osaka", &aiko);
    edit_answer(&mut a, "jg-002", "Kyoto", &aiko);
    t.sync("aiko", &mut a);

    let pull_from = |p: &assay_core::Project| {
        let from = assay_sync::pull::positions(p).unwrap();
        post(
            &t,
            "/v1/pull",
            Some(&t.credential("minjun")),
            serde_json::to_vec(&serde_json::json!({ "positions": from })).unwrap(),
        )
    };
    let (status, page) = pull_from(&m);
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["rows"].as_array().map(Vec::len), Some(2), "{page}");
    assert_eq!(page["last"], true, "{page}");

    t.sync("minjun", &mut m);
    assert_eq!(answer(&m, "jg-002").as_deref(), Some("Kyoto"));
    let (_, after) = pull_from(&m);
    assert!(
        after["rows"].is_null(),
        "nothing after the last page: {after}"
    );
}

#[test]
fn a_member_over_the_daily_quota_is_refused_and_the_others_are_not() {
    let t = Team::start(Limits {
        bytes_per_day: 160 << 10,
        ..Default::default()
    });
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let aiko = author(&a, "aiko");
    let before = aikos(&t);
    edit_answer(&mut a, "jg-001", &"a".repeat(60 << 10), &aiko);
    assert_eq!(t.sync("aiko", &mut a).pushed, 1);
    edit_answer(&mut a, "jg-002", &"b".repeat(60 << 10), &aiko);
    assert_eq!(t.sync("aiko", &mut a).pushed, 1);

    // The third would go over the day's 160 KiB: refused with the reason, nothing stored; the
    // sync still brings in what a colleague pushed meanwhile.
    let minjun = author(&m, "minjun");
    edit_answer(&mut m, "jg-006", "from minjun", &minjun);
    assert_eq!(t.sync("minjun", &mut m).pushed, 1);
    edit_answer(&mut a, "jg-003", &"c".repeat(60 << 10), &aiko);
    let err = assay_sync::service::sync_service(&mut a, &t.keyring("aiko"))
        .expect_err("over the quota")
        .to_string();
    assert!(err.contains("quota") && err.contains("aiko"), "{err}");
    assert_eq!(
        aikos(&t),
        before + 2,
        "the two within the quota, not the third"
    );
    assert_eq!(answer(&a, "jg-006").as_deref(), Some("from minjun"));
    assert_eq!(
        a.sync_status().unwrap().pending,
        1,
        "the third waits for tomorrow"
    );

    // A batch over the whole quota is refused and counts nothing; nor does a malformed body:
    // a small push still fits afterwards.
    let padded = format!(
        "{}{}",
        " ".repeat(200 << 10),
        serde_json::to_string(&assay_sync::push::Pending::default()).unwrap()
    );
    let (status, body) = post(
        &t,
        "/v1/push",
        Some(&t.credential("minjun")),
        padded.into_bytes(),
    );
    assert_eq!(status, 429, "{body}");
    let (status, _) = post(
        &t,
        "/v1/push",
        Some(&t.credential("minjun")),
        vec![b'x'; 150 << 10],
    );
    assert_eq!(status, 400);
    edit_answer(&mut m, "jg-004", "4", &minjun);
    let r = t.sync("minjun", &mut m);
    assert_eq!(
        (r.pushed, r.refused),
        (1, 0),
        "another member's quota is their own"
    );
    assert_eq!(answer(&m, "jg-001"), Some("a".repeat(60 << 10)));
}

/// aiko's revisions in the team.
fn aikos(t: &Team) -> i64 {
    t.db()
        .query_one("SELECT count(*) FROM revisions WHERE author = 'aiko'", &[])
        .unwrap()
        .get(0)
}

#[test]
fn a_key_or_name_over_its_bound_is_refused_whole() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-005", "5", &aiko);
    let honest = serde_json::to_value(assay_sync::push::Pending::gather(&mut a).unwrap()).unwrap();
    for field in ["uid", "dataset", "ext_id", "base_uid"] {
        let mut v = honest.clone();
        v["revisions"][0][field] = serde_json::json!("k".repeat(600));
        let (status, body) = post(
            &t,
            "/v1/push",
            Some(&t.credential("aiko")),
            serde_json::to_vec(&v).unwrap(),
        );
        assert_eq!(status, 413, "{field}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("600 bytes"),
            "{field}: {body}"
        );
    }
    assert_eq!(aikos(&t), 1, "only the revision made before publishing");
    let r = t.sync("aiko", &mut a);
    assert_eq!(
        (r.pushed, r.refused),
        (1, 0),
        "the honest row still goes in"
    );
}

#[test]
fn a_run_of_large_comments_arrives_over_several_pages() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let aiko = author(&a, "aiko");
    let id = a.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    // 200 comments of 90,000 characters: 17 MiB, each within what a comment may hold.
    for k in 0..200 {
        a.add_comment(id, &format!("{k:03} {}", "c".repeat(90_000)), &aiko)
            .unwrap();
    }
    let r = t.sync("aiko", &mut a);
    assert_eq!((r.pushed, r.refused), (200, 0));

    // The first page from the start carries comments up to the bound, not all of them.
    let (status, page) = post(
        &t,
        "/v1/pull",
        Some(&t.credential("aiko")),
        br#"{"positions":{}}"#.to_vec(),
    );
    assert_eq!(status, 200, "{page}");
    let bodies: Vec<usize> = page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["table"] == "comments")
        .filter_map(|r| r["row"]["Ok"]["row"]["body"].as_str())
        .map(str::len)
        .collect();
    assert!(
        !bodies.is_empty() && bodies.len() < 200,
        "{} comments in the first page",
        bodies.len()
    );
    assert!(bodies.iter().sum::<usize>() <= PAGE_BYTES as usize + 100_000);

    // A fresh replica gets all of them, in order, nothing set aside.
    let fresh = t.join("seo", Role::Auditor);
    let id = fresh.item_id_by_ext("jgraph-mini", "jg-001").unwrap();
    let thread = fresh.comments(id).unwrap();
    assert_eq!(thread.len(), 200);
    assert!(thread[199].body.starts_with("199 "));
    assert_eq!(fresh.refused_rows().unwrap(), vec![]);
}

/// A run that names a member's stored responses by key, without sending them, costs every
/// colleague's pull those responses again: the quota counts them, so a stream of tiny runs
/// cannot multiply what the team reads.
#[test]
fn a_run_naming_stored_responses_is_charged_for_them() {
    let t = Team::start(Limits {
        bytes_per_day: 300 << 10,
        ..Default::default()
    });
    let mut a = t.join("aiko", Role::Annotator);
    support::common::recorded_run(
        &mut a,
        "tiny",
        "exact",
        &[("jg-001", 1.0), ("jg-002", 0.0), ("jg-003", 1.0)],
    );
    let mut run = a.pending_runs().unwrap().pop().expect("the recorded run");
    let keys = ["k1", "k2", "k3"];
    for (it, k) in run.items.iter_mut().zip(keys) {
        it.cache_key = Some(k.to_string());
    }
    run.responses = keys
        .iter()
        .map(|k| assay_core::store::team::runs::SyncResponse {
            cache_key: k.to_string(),
            text: k.repeat(20 << 10),
            prompt_tokens: None,
            completion_tokens: None,
            created_at: "2026-12-06T00:00:00Z".into(),
            prompt: None,
        })
        .collect();
    let cred = t.credential("aiko");
    let (status, body) = post(
        &t,
        "/v1/runs",
        Some(&cred),
        serde_json::to_vec(&run).unwrap(),
    );
    assert_eq!(status, 200, "the run with its 120 KiB of responses: {body}");
    assert!(body[2].get("Err").is_none(), "taken: {body}");
    let used = || -> i64 {
        t.db()
            .query_one(
                "SELECT coalesce(sum(bytes), 0)::bigint FROM service_usage WHERE member = 'aiko'",
                &[],
            )
            .unwrap()
            .get(0)
    };
    let after_first = used();
    assert!(after_first > 120 << 10, "{after_first}");

    // The same results again under a new identity, the responses only named (or sent as
    // empty stubs): a few KiB sent, but charged as the 120 KiB a colleague's pull reads.
    // Stubs sent under the stored keys change nothing stored, and are not what is charged.
    let mut tiny = run.clone();
    for r in &mut tiny.responses {
        r.text = String::new();
    }
    tiny.origin = "0123456789abcdef0123456789abcdef".into();
    let (status, body) = post(
        &t,
        "/v1/runs",
        Some(&cred),
        serde_json::to_vec(&tiny).unwrap(),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body[2].get("Err").is_none(), "taken: {body}");
    let charged = used() - after_first;
    assert!(
        charged > 120 << 10,
        "the named responses are counted: {charged} bytes"
    );
    tiny.responses.clear();
    tiny.origin = "fedcba9876543210fedcba9876543210".into();
    let (status, body) = post(
        &t,
        "/v1/runs",
        Some(&cred),
        serde_json::to_vec(&tiny).unwrap(),
    );
    assert_eq!(status, 429, "the third 120 KiB goes over 300 KiB: {body}");
    assert!(body.to_string().contains("quota"), "{body}");
}

/// A member labels a run of their own making with a seed's protocol: the service's write path
/// refuses it with the reason, so no replica counts it in that protocol's row; the same run
/// that follows the protocol is taken.
#[test]
fn a_run_claiming_a_protocol_it_did_not_follow_is_refused() {
    let t = Team::start(Limits::default());
    let mut a = t.join("aiko", Role::Annotator);
    support::common::recorded_run(&mut a, "tiny", "soft_match", &[("jg-001", 1.0)]);
    let mut run = a.pending_runs().unwrap().pop().expect("the recorded run");
    let cred = t.credential("aiko");
    run.protocol = Some("vague".into());
    let (status, body) = post(
        &t,
        "/v1/runs",
        Some(&cred),
        serde_json::to_vec(&run).unwrap(),
    );
    assert_eq!(status, 200, "{body}");
    let why = body[2]["Err"].as_str().unwrap_or_default().to_string();
    assert!(
        why.contains("vague protocol"),
        "refused with the reason: {body}"
    );
    run.protocol = Some("mmbench".into());
    let (_, body) = post(
        &t,
        "/v1/runs",
        Some(&cred),
        serde_json::to_vec(&run).unwrap(),
    );
    assert!(body.to_string().contains("none Assay knows"), "{body}");
    let stored: i64 = t
        .db()
        .query_one("SELECT count(*) FROM runs WHERE protocol IS NOT NULL", &[])
        .unwrap()
        .get(0);
    assert_eq!(stored, 0);
    // Scored by choice on run 1 of the original: what VAGUE's preset makes.
    run.protocol = Some("vague".into());
    run.scorer = "choice".into();
    run.run_index = 1;
    let (_, body) = post(
        &t,
        "/v1/runs",
        Some(&cred),
        serde_json::to_vec(&run).unwrap(),
    );
    assert!(body[2].get("Err").is_none(), "taken: {body}");
}
