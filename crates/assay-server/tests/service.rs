//! The team service end to end: a real PostgreSQL, the service on 127.0.0.1 over TLS, members'
//! replicas that hold no database login, and a hand-written HTTP client that sends anything.

mod support;

use std::time::Duration;

use assay_core::store::ReviewDecision;
use assay_core::{ItemStatus, Role};
use assay_server::Config;
use assay_sync::service::{join_service, sync_service, JoinLink};
use postgres::{Client, NoTls};
use support::common::{self, answer, author, edit_answer};
use support::{has_login, heads, post, pull_from_start, raw, Team};

#[test]
fn members_edit_review_and_sign_off_through_the_service_without_a_login() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let mut s = t.join("seo", Role::Auditor);
    for p in [&a, &m, &s] {
        assert_eq!(answer(p, "jg-001").as_deref(), Some("before publishing"));
    }
    let mut db = t.db();
    for name in ["aiko", "minjun", "seo"] {
        assert!(!has_login(&mut db, name), "{name} holds no database login");
    }

    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-006", "117", &aiko);
    edit_answer(&mut a, "jg-006", "117mm", &aiko);
    assert_eq!(t.sync("aiko", &mut a).pushed, 2);
    t.sync("minjun", &mut m);
    assert_eq!(answer(&m, "jg-006").as_deref(), Some("117mm"));

    // minjun approves; the approval's decision and the revision recording it arrive together.
    let mj = author(&m, "minjun");
    let id_m = m.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    m.review(id_m, ReviewDecision::Approve, Some("ok"), &mj)
        .unwrap();
    let r = t.sync("minjun", &mut m);
    assert!(r.pushed >= 2 && r.refused == 0, "{r:?}");
    t.sync("seo", &mut s);
    let id_s = s.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    assert_eq!(s.item(id_s).unwrap().status, ItemStatus::Approved);
    assert_eq!(s.refused_rows().unwrap(), vec![]);
    let seo = author(&s, "seo");
    s.sign_off(id_s, true, None, &seo).unwrap();
    t.sync("seo", &mut s);
    t.sync("aiko", &mut a);
    let id_a = a.item_id_by_ext("jgraph-mini", "jg-006").unwrap();
    assert!(a.item(id_a).unwrap().signed_off);

    // Images by hash through the service.
    let ds = a.dataset_by_name("jgraph-mini").unwrap().id;
    let hash = a
        .item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .flat_map(|(id, _)| a.item(id).unwrap().content.images)
        .map(|i| i.hash)
        .next()
        .unwrap();
    std::env::set_var("ASSAY_KEYRING", t.keyring("aiko"));
    assert!(assay_sync::fetch_image(&mut a, &hash, None).unwrap());
    assert_eq!(
        assay_core::imaging::sha256_hex(&a.image_bytes(&hash).unwrap().0),
        hash
    );

    // Every replica, and one made fresh now, shows the same team.
    t.sync("minjun", &mut m);
    let fresh = t.join("kenji", Role::Annotator);
    for p in [&a, &m, &s] {
        assert_eq!(heads(p), heads(&fresh));
        assert_eq!(p.refused_rows().unwrap(), vec![]);
    }
}

#[test]
fn an_invitation_works_once_and_a_revoked_member_is_refused() {
    let t = Team::start(Default::default());
    let link = t.link("aiko", Role::Annotator);
    let (mut a, _) =
        join_service(&link, &t.dir.path().join("a.assay"), &t.keyring("aiko")).unwrap();
    let again = join_service(&link, &t.dir.path().join("a2.assay"), &t.keyring("x"))
        .map(|_| ())
        .unwrap_err();
    assert!(again.to_string().contains("used already"), "{again}");
    // A code with one character changed is no invitation.
    let l = JoinLink::parse(&t.link("minjun", Role::Annotator)).unwrap();
    let mut forged = l.clone();
    let last = forged.invitation.pop().unwrap();
    forged.invitation.push(if last == '0' { '1' } else { '0' });
    let e = join_service(
        &forged.format(),
        &t.dir.path().join("m.assay"),
        &t.keyring("m"),
    )
    .map(|_| ())
    .unwrap_err();
    assert!(e.to_string().contains("not valid"), "{e}");

    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-002", "before revocation", &aiko);
    t.sync("aiko", &mut a);
    assert_eq!(
        assay_server::members::revoke(&mut t.db(), "aiko").unwrap(),
        1
    );
    edit_answer(&mut a, "jg-002", "after revocation", &aiko);
    let e = sync_service(&mut a, &t.keyring("aiko"))
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("revoked"), "{e}");
    let mut db = t.db();
    let n: i64 = db
        .query_one(
            "SELECT count(*) FROM revisions WHERE author = 'aiko' AND content->>'answer' = 'after revocation'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
    // The change stays on aiko's machine, pending.
    assert_eq!(a.sync_status().unwrap().pending, 1);
}

#[test]
fn rows_are_checked_by_the_write_path_and_stored_canonical() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-003", "honest", &aiko);
    let mut pending = assay_sync::push::Pending::gather(&mut a).unwrap();
    assert_eq!(pending.revisions.len(), 1);
    let honest = pending.revisions[0].clone();
    let token = t.credential("aiko");

    // Written as someone else: refused with the reason, nothing stored.
    let mut forged = honest.clone();
    forged.uid = "forged-as-seo".into();
    forged.author = Some("seo".into());
    // A hidden field and tag bits Assay does not know: stored without them.
    let mut hidden = honest.clone();
    let mut content: serde_json::Value = serde_json::from_str(&hidden.content).unwrap();
    content["zz_hidden"] = serde_json::json!("only some readers see this");
    hidden.content = content.to_string();
    hidden.tags = 1 | (1 << 40);
    // Approving one's own answer: the write path refuses it.
    let mut own_approval = honest.clone();
    own_approval.uid = "self-approved".into();
    own_approval.base_uid = Some(hidden.uid.clone());
    own_approval.status = "approved".into();
    // JSON that is not an item.
    let mut not_item = honest.clone();
    not_item.uid = "not-an-item".into();
    not_item.content = "[1, 2, 3]".into();
    pending.revisions = vec![forged, hidden, own_approval, not_item];
    let (status, body) = post(
        &t,
        "/v1/push",
        Some(&token),
        serde_json::to_vec(&pending).unwrap(),
    );
    assert_eq!(status, 200, "{body}");
    let pushed: assay_sync::push::Pushed = serde_json::from_value(body).unwrap();
    assert_eq!(pushed.done.len(), 1, "{pushed:?}");
    assert_eq!(pushed.done[0].0, honest.uid);
    let why = |uid: &str| {
        pushed
            .refused
            .iter()
            .find(|(u, _)| u == uid)
            .map(|(_, w)| w.clone())
            .unwrap_or_else(|| panic!("{uid} not refused: {pushed:?}"))
    };
    assert!(why("forged-as-seo").contains("written as seo"));
    assert!(
        why("self-approved").contains("approv"),
        "{}",
        why("self-approved")
    );
    assert!(why("not-an-item").contains("not-an-item"));

    let mut db = t.db();
    let row = db
        .query_one(
            "SELECT content::text, tags FROM revisions WHERE uid = $1",
            &[&honest.uid],
        )
        .unwrap();
    let (stored, tags): (String, i64) = (row.get(0), row.get(1));
    assert!(!stored.contains("zz_hidden"), "{stored}");
    assert_eq!(tags, 1);
    let others: i64 = db
        .query_one(
            "SELECT count(*) FROM revisions WHERE uid IN ('forged-as-seo', 'self-approved', 'not-an-item')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(others, 0);

    // aiko's replica, seo's and a fresh one read the same row.
    a.mark_pushed(&pushed.done).unwrap();
    let mut s = t.join("seo", Role::Auditor);
    t.sync("aiko", &mut a);
    t.sync("seo", &mut s);
    assert_eq!(heads(&a), heads(&s));
    assert_eq!(answer(&s, "jg-003").as_deref(), Some("honest"));
}

#[test]
fn anything_a_client_sends_gets_a_clear_refusal_and_breaks_nothing() {
    let limits = assay_server::limits::Limits {
        push_bytes: 1 << 20,
        requests_per_minute: 100_000,
        ..Default::default()
    };
    let t = Team::start(limits);
    let mut a = t.join("aiko", Role::Annotator);
    let token = t.credential("aiko");
    let url = &t.service().url;

    // No credential, a made-up one, a malformed one.
    let res = raw().get(format!("{url}/v1/me")).send().unwrap();
    assert_eq!(res.status().as_u16(), 401);
    for bad in [
        "0123456789abcdef.".to_string() + &"0".repeat(48),
        "garbage".into(),
        String::new(),
    ] {
        let res = raw()
            .get(format!("{url}/v1/me"))
            .bearer_auth(&bad)
            .send()
            .unwrap();
        assert_eq!(res.status().as_u16(), 401, "{bad}");
    }
    let (status, body) = post(&t, "/v1/push", Some(&token), b"{not json".to_vec());
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("line 1"), "{body}");
    // Over the bound: 413 as soon as the length is known, which a client still writing may
    // see as its write being cut off.
    let sent = raw()
        .post(format!("{url}/v1/push"))
        .header("content-type", "application/json")
        .bearer_auth(&token)
        .body(vec![b' '; 2 << 20])
        .send();
    match sent {
        Ok(res) => assert_eq!(res.status().as_u16(), 413),
        Err(e) => assert!(format!("{e:?}").contains("BodyWrite"), "{e:?}"),
    }
    // Without a credential the body is never read: the service answers 401 and closes, which
    // the client may see as its write being cut off.
    let sent = raw()
        .post(format!("{url}/v1/push"))
        .header("content-type", "application/json")
        .body(vec![b' '; 2 << 20])
        .send();
    match sent {
        Ok(res) => assert_eq!(res.status().as_u16(), 401),
        Err(e) => assert!(format!("{e:?}").contains("BodyWrite"), "{e:?}"),
    }

    // Arbitrary mutations of an honest batch: never a failure of the service.
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-004", "fuzzed base", &aiko);
    let honest = serde_json::to_value(assay_sync::push::Pending::gather(&mut a).unwrap()).unwrap();
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let values = [
        serde_json::json!(null),
        serde_json::json!(-1),
        serde_json::json!(i64::MAX),
        serde_json::json!("x"),
        serde_json::json!(""),
        serde_json::json!([]),
        serde_json::json!({}),
        serde_json::json!("approved"),
        serde_json::json!("seo"),
        serde_json::json!("{\"question\":\"q\"}"),
        serde_json::json!(1.5),
        serde_json::json!("'; DROP TABLE revisions; --"),
    ];
    for _ in 0..150 {
        let mut v = honest.clone();
        let rev = &mut v["revisions"][0];
        let fields = [
            "uid",
            "dataset",
            "ext_id",
            "base_uid",
            "author",
            "author_role",
            "created_at",
            "op",
            "tags",
            "status",
            "note",
            "content",
        ];
        for _ in 0..(1 + next() % 3) {
            let f = fields[(next() % fields.len() as u64) as usize];
            rev[f] = values[(next() % values.len() as u64) as usize].clone();
        }
        let (status, body) = post(
            &t,
            "/v1/push",
            Some(&token),
            serde_json::to_vec(&v).unwrap(),
        );
        assert!([200, 400, 413].contains(&status), "{status} {body} for {v}");
    }
    let res = raw().get(format!("{url}/health")).send().unwrap();
    assert_eq!(res.status().as_u16(), 200);

    // The honest row still goes in, and replicas agree.
    let r = t.sync("aiko", &mut a);
    assert_eq!(r.refused, 0);
    let mut s = t.join("seo", Role::Auditor);
    t.sync("seo", &mut s);
    let fresh = t.join("kenji", Role::Annotator);
    assert_eq!(heads(&a), heads(&s));
    assert_eq!(heads(&a), heads(&fresh));
    assert_eq!(answer(&fresh, "jg-004").as_deref(), Some("fuzzed base"));
    for p in [&a, &s, &fresh] {
        assert_eq!(p.refused_rows().unwrap(), vec![]);
    }
}

#[test]
fn a_project_file_naming_another_server_or_certificate_is_refused_before_sending() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    // minjun's own replica, dressed as aiko's (her name, with a row in her name waiting), and
    // handed to her: her credential does not sync it.
    let mut m = t.join("minjun", Role::Annotator);
    m.sync_set("member", "aiko").unwrap();
    m.ensure_user("aiko", Role::Annotator).unwrap();
    let as_aiko = author(&m, "aiko");
    edit_answer(&mut m, "jg-010", "planted in aiko's name", &as_aiko);
    let e = sync_service(&mut m, &t.keyring("aiko")).unwrap_err();
    assert!(e.to_string().contains("not a replica you made"), "{e}");
    let planted: i64 = t
        .db()
        .query_one(
            "SELECT count(*) FROM revisions WHERE content->>'answer' = 'planted in aiko''s name'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(planted, 0);
    // A colleague's project file edited to name a server aiko never joined.
    a.sync_set("team", "https://127.0.0.1:9").unwrap();
    let e = sync_service(&mut a, &t.keyring("aiko"))
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("not joined"), "{e}");
    // The right server with another certificate than the one pinned at join.
    a.sync_set("team", &t.service().url).unwrap();
    a.sync_set("team_pin", &"0".repeat(64)).unwrap();
    let e = sync_service(&mut a, &t.keyring("aiko"))
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("another certificate"), "{e}");
    // A server showing another certificate than the pinned one: no request reaches it.
    let mut ring = assay_sync::service::Keyring::load(&t.keyring("aiko")).unwrap();
    ring.teams[0].pin = "1".repeat(64);
    ring.save(&t.keyring("aiko")).unwrap();
    a.sync_set("team_pin", &"1".repeat(64)).unwrap();
    let e = sync_service(&mut a, &t.keyring("aiko"))
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(e, assay_sync::SyncError::Tls(_)), "{e}");
    assert!(e.to_string().contains("nothing was sent"), "{e}");
}

#[test]
fn a_team_of_logins_is_migrated_to_the_service() {
    let t = Team::start(Default::default());
    assay_sync::add_member(&t.admin, "aiko", Role::Annotator, "pw-aiko").unwrap();
    let legacy = common::url(&t.cluster, "aiko", "team");
    Client::connect(&legacy, NoTls).expect("a login of the earlier design");
    let codes = assay_server::members::migrate(&mut t.db(), Duration::from_secs(3600)).unwrap();
    assert!(
        Client::connect(&legacy, NoTls).is_err(),
        "the login is gone"
    );
    let (_, code) = codes.iter().find(|(n, _)| n == "aiko").unwrap();
    let link = JoinLink {
        url: t.service().url.clone(),
        invitation: code.clone(),
        pin: t.service().pin.clone(),
    };
    let (mut a, _) = join_service(
        &link.format(),
        &t.dir.path().join("a.assay"),
        &t.keyring("aiko"),
    )
    .unwrap();
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-005", "after migrating", &aiko);
    assert_eq!(t.sync("aiko", &mut a).pushed, 1);
    let mut db = t.db();
    assert!(!has_login(&mut db, "aiko"));
}

/// A team not yet migrated: a member's own login that takes an item's lock and leaves its
/// transaction idle loses its session to the next push through the service; one that keeps
/// its session busy holding the lock is named in the refusal, and nothing is written.
#[test]
fn a_login_of_the_earlier_design_holding_a_lock_does_not_stall_the_service() {
    let t = Team::start(assay_server::limits::Limits {
        statement_timeout: Duration::from_secs(2),
        stale_lock: Duration::from_secs(1),
        ..Default::default()
    });
    assay_sync::add_member(&t.admin, "kenji", Role::Annotator, "pw-kenji").unwrap();
    let mut a = t.join("aiko", Role::Annotator);
    let aiko = author(&a, "aiko");
    let legacy = common::url(&t.cluster, "kenji", "team");
    let hold = |k: &mut Client| {
        k.batch_execute("BEGIN").unwrap();
        k.execute(
            "SELECT assay_lock_items(
                 ARRAY(SELECT dataset FROM revisions WHERE ext_id = 'jg-005' LIMIT 1),
                 ARRAY['jg-005'], '{}', false)",
            &[],
        )
        .unwrap();
    };

    let mut idle = Client::connect(&legacy, NoTls).expect("a login of the earlier design");
    hold(&mut idle);
    edit_answer(&mut a, "jg-005", "while kenji sits on it", &aiko);
    assert_eq!(
        t.sync("aiko", &mut a).pushed,
        1,
        "the idle session's lock was broken"
    );
    assert!(
        idle.simple_query("SELECT 1").is_err(),
        "kenji's idle session was ended"
    );
    let mut db = t.db();
    let text: String = db
        .query_one(
            "SELECT content::text FROM revisions WHERE ext_id = 'jg-005' ORDER BY seq DESC LIMIT 1",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(text.contains("while kenji sits on it"), "{text}");

    // A session kept busy while it holds the lock is not ended: the push is refused, naming it.
    let mut busy = Client::connect(&legacy, NoTls).unwrap();
    hold(&mut busy);
    let sleeper = std::thread::spawn(move || {
        let _ = busy.simple_query("SELECT pg_sleep(5)");
        busy
    });
    edit_answer(&mut a, "jg-005", "while kenji works on it", &aiko);
    let e = sync_service(&mut a, &t.keyring("aiko"))
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("kenji") && e.contains("migrate"), "{e}");
    drop(sleeper.join().unwrap());
    assert_eq!(
        t.sync("aiko", &mut a).pushed,
        1,
        "the edit waited, and goes once the lock is free"
    );
}

#[test]
fn a_lead_manages_members_and_nobody_else_can() {
    let t = Team::start(Default::default());
    let s = t.join_lead("seo", Role::Auditor);
    let a = t.join("aiko", Role::Annotator);
    use assay_sync::service::{invite, members, revoke, set_role};

    // aiko is no lead: every member action is refused, with the reason.
    let e = members(&a, &t.keyring("aiko")).unwrap_err().to_string();
    assert!(e.contains("not a lead"), "{e}");
    let e = invite(&a, &t.keyring("aiko"), "sock", Role::Auditor, None).unwrap_err();
    assert!(e.to_string().contains("not a lead"), "{e}");
    assert!(set_role(&a, &t.keyring("aiko"), "aiko", Role::Auditor).is_err());
    assert!(revoke(&a, &t.keyring("aiko"), "seo").is_err());
    let (status, _) = post(
        &t,
        "/v1/members/invite",
        Some(&t.credential("aiko")),
        br#"{"name":"sock","role":"auditor"}"#.to_vec(),
    );
    assert_eq!(status, 403);

    // seo invites kenji, who joins; sets his role; revokes him.
    let kenji_link = invite(&s, &t.keyring("seo"), "kenji", Role::Annotator, Some(1)).unwrap();
    let (mut k, _) = join_service(
        &kenji_link,
        &t.dir.path().join("kenji.assay"),
        &t.keyring("kenji"),
    )
    .unwrap();
    let list = members(&s, &t.keyring("seo")).unwrap();
    let kenji = list.iter().find(|m| m.name == "kenji").unwrap();
    assert_eq!(
        (kenji.role.as_str(), kenji.active, kenji.lead),
        ("annotator", 1, false)
    );
    assert!(list.iter().find(|m| m.name == "seo").unwrap().lead);
    set_role(&s, &t.keyring("seo"), "kenji", Role::Researcher).unwrap();
    assert!(set_role(&s, &t.keyring("seo"), "nobody", Role::Researcher).is_err());
    t.sync("kenji", &mut k);
    assert_eq!(
        k.user_by_name("kenji").unwrap().unwrap().role,
        Role::Researcher
    );
    assert_eq!(revoke(&s, &t.keyring("seo"), "kenji").unwrap(), 1);
    let e = sync_service(&mut k, &t.keyring("kenji")).unwrap_err();
    assert!(e.to_string().contains("revoked"), "{e}");
    // A role that is not one is refused by name.
    let (status, body) = post(
        &t,
        "/v1/members/role",
        Some(&t.credential("seo")),
        br#"{"name":"aiko","role":"owner"}"#.to_vec(),
    );
    assert_eq!(status, 400, "{body}");
    assert!(body["error"].as_str().unwrap().contains("not a role"));

    // A lead cannot become someone else, raise or keep themselves, or outlast revocation.
    let e = invite(&s, &t.keyring("seo"), "aiko", Role::Auditor, None).unwrap_err();
    assert!(e.to_string().contains("already"), "{e}");
    let e = set_role(&s, &t.keyring("seo"), "seo", Role::Auditor).unwrap_err();
    assert!(e.to_string().contains("own role"), "{e}");
    let spare = invite(&s, &t.keyring("seo"), "spare", Role::Auditor, Some(30)).unwrap();
    assay_server::members::revoke(&mut t.db(), "seo").unwrap();
    let e = join_service(
        &spare,
        &t.dir.path().join("spare.assay"),
        &t.keyring("spare"),
    )
    .map(|_| ())
    .unwrap_err();
    assert!(e.to_string().contains("used already"), "{e}");
}

/// The service's check sees what the push before it wrote: a revision of an item another
/// member signed off a moment ago is refused by the write path's sign-off lock (its message,
/// not the database's), and the same holds after the service restarts on its kept replica.
#[test]
fn each_check_sees_the_team_as_the_last_push_left_it() {
    let mut t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let mut s = t.join("seo", Role::Auditor);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-007", "to be signed", &aiko);
    t.sync("aiko", &mut a);
    t.sync("minjun", &mut m);
    let mj = author(&m, "minjun");
    let id_m = m.item_id_by_ext("jgraph-mini", "jg-007").unwrap();
    m.review(id_m, ReviewDecision::Approve, None, &mj).unwrap();
    t.sync("minjun", &mut m);
    t.sync("seo", &mut s);
    let id_s = s.item_id_by_ext("jgraph-mini", "jg-007").unwrap();
    let seo = author(&s, "seo");
    s.sign_off(id_s, true, None, &seo).unwrap();
    t.sync("seo", &mut s);

    // aiko's replica has not pulled the sign-off: her edit is made locally, and her push of it
    // is refused by the service's check.
    edit_answer(&mut a, "jg-007", "after the sign-off", &aiko);
    let r = t.sync("aiko", &mut a);
    assert_eq!((r.pushed, r.refused), (0, 1), "{r:?}");
    let refused = a.refused_rows().unwrap();
    assert!(
        refused[0].2.contains("signed off; an auditor must reopen"),
        "{refused:?}"
    );

    // Restarted on the replica it kept, the service still knows.
    let data = t.dir.path().join("service");
    t.service.take().unwrap().stop();
    t.service = Some(
        assay_server::start(Config {
            admin_url: t.admin.clone(),
            listen: "127.0.0.1:0".parse().unwrap(),
            data_dir: data,
            cert: None,
            public_url: None,
            limits: Default::default(),
        })
        .unwrap(),
    );
    // The same certificate: the pin in the keyring still holds, only the port moved.
    let mut ring = assay_sync::service::Keyring::load(&t.keyring("minjun")).unwrap();
    ring.teams[0].url = t.service().url.clone();
    ring.save(&t.keyring("minjun")).unwrap();
    m.sync_set("team", &t.service().url).unwrap();
    edit_answer(&mut m, "jg-007", "minjun after the sign-off", &mj);
    let r = t.sync("minjun", &mut m);
    assert_eq!((r.pushed, r.refused), (0, 1), "{r:?}");
}

/// The team page in a browser: a sign-in form, a session cookie only for a team credential,
/// and the team's state with every text from the team escaped.
#[test]
fn the_team_page_shows_progress_to_a_signed_in_member_with_text_escaped() {
    let t = Team::start(Default::default());
    let mut a = t.join_lead("aiko", Role::Annotator);
    let evil = "<img src=x onerror=alert(1)>";
    let mut hostile = t.join(evil, Role::Annotator);
    let who = author(&hostile, evil);
    edit_answer(&mut hostile, "jg-009", "<script>alert(2)</script>", &who);
    t.sync(evil, &mut hostile);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-008", "for the page", &aiko);
    t.sync("aiko", &mut a);
    let url = &t.service().url;
    let client = reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();

    let res = client.get(format!("{url}/team")).send().unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(res.text().unwrap().contains("name=\"credential\""));

    let res = client
        .post(format!("{url}/team/login"))
        .form(&[(
            "credential",
            "0123456789abcdef.".to_string() + &"0".repeat(48),
        )])
        .send()
        .unwrap();
    assert_eq!(res.status().as_u16(), 401);
    assert!(res.headers().get("set-cookie").is_none());

    let res = client
        .post(format!("{url}/team/login"))
        .form(&[("credential", t.credential("aiko"))])
        .send()
        .unwrap();
    assert_eq!(res.status().as_u16(), 303);
    let set = res.headers()["set-cookie"].to_str().unwrap().to_string();
    for attr in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/team"] {
        assert!(set.contains(attr), "{set}");
    }
    let cookie = set.split(';').next().unwrap().to_string();
    let page = client
        .get(format!("{url}/team"))
        .header("cookie", &cookie)
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(page.contains("Signed in as aiko"), "{page}");
    assert!(page.contains("jgraph-mini"));
    assert!(
        page.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "the name is escaped"
    );
    assert!(!page.contains("<img src=x"), "no markup from the team");
    assert!(!page.contains("<script"), "no script at all");
    // aiko's edit shows in her row of the people table.
    let row = page.split("<tr><td>aiko</td>").nth(1).unwrap();
    assert!(row.starts_with("<td>annotator</td><td>2</td>"), "{row}");

    // Revoked, the session shows the sign-in form again.
    assay_server::members::revoke(&mut t.db(), "aiko").unwrap();
    let res = client
        .get(format!("{url}/team"))
        .header("cookie", &cookie)
        .send()
        .unwrap();
    assert_eq!(res.status().as_u16(), 401);
    assert!(res.text().unwrap().contains("revoked"));
}

/// A push sent twice (a client killed before it marked its rows, or on purpose) leaves the
/// service's replica on the team's positions: later work on the item is checked against the
/// item as the team has it.
#[test]
fn a_repeated_push_leaves_the_services_replica_on_the_teams_positions() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let mut s = t.join("seo", Role::Auditor);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-011", "aiko's", &aiko);
    let pending = assay_sync::push::Pending::gather(&mut a).unwrap();
    let body = serde_json::to_vec(&pending).unwrap();
    for _ in 0..2 {
        let (status, reply) = post(&t, "/v1/push", Some(&t.credential("aiko")), body.clone());
        assert_eq!(status, 200, "{reply}");
        let pushed: assay_sync::push::Pushed = serde_json::from_value(reply).unwrap();
        assert_eq!(
            (pushed.done.len(), pushed.refused.len()),
            (1, 0),
            "{pushed:?}"
        );
    }
    t.sync("aiko", &mut a);
    t.sync("minjun", &mut m);
    let mj = author(&m, "minjun");
    edit_answer(&mut m, "jg-011", "minjun's", &mj);
    let r = t.sync("minjun", &mut m);
    assert_eq!((r.pushed, r.refused), (1, 0));
    // seo approves minjun's revision, the item's head in the team: the service agrees.
    t.sync("seo", &mut s);
    let seo = author(&s, "seo");
    let id = s.item_id_by_ext("jgraph-mini", "jg-011").unwrap();
    assert_eq!(answer(&s, "jg-011").as_deref(), Some("minjun's"));
    s.review(id, ReviewDecision::Approve, None, &seo).unwrap();
    let r = t.sync("seo", &mut s);
    assert!(
        r.pushed >= 2 && r.refused == 0,
        "{r:?} {:?}",
        s.refused_rows().unwrap()
    );
    let fresh = t.join("kenji", Role::Annotator);
    assert_eq!(heads(&fresh), heads(&s));
}

/// A pulled page indexes the items it changes once, at its end: a replica finds the pulled
/// text (trigram and CJK search) and no longer finds what it replaced, also for an item edited
/// twice in one page.
#[test]
fn pulled_edits_are_found_by_search_and_the_text_they_replaced_is_not() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-001", "quokkazebra", &aiko);
    edit_answer(&mut a, "jg-002", "富士山頂の気温", &aiko);
    edit_answer(&mut a, "jg-001", "wombatfinch", &aiko);
    assert_eq!(t.sync("aiko", &mut a).pushed, 3);
    assert_eq!(t.sync("minjun", &mut m).pulled, 3);
    let found = |p: &assay_core::Project, text: &str| -> Vec<String> {
        let f = assay_core::store::Filter {
            text: Some(text.into()),
            ..Default::default()
        };
        p.query_ids(&f)
            .unwrap()
            .into_iter()
            .map(|id| p.item(id).unwrap().ext_id)
            .collect()
    };
    for p in [&a, &m] {
        assert_eq!(found(p, "wombatfinch"), ["jg-001"]);
        assert!(found(p, "quokkazebra").is_empty(), "the replaced answer");
        assert_eq!(found(p, "山頂"), ["jg-002"]);
        assert_eq!(found(p, "頂"), ["jg-002"]);
    }
    // The next local edit is indexed at once, as before any pull.
    let minjun = author(&m, "minjun");
    edit_answer(&mut m, "jg-002", "platypusowl", &minjun);
    assert_eq!(found(&m, "platypusowl"), ["jg-002"]);
    assert!(found(&m, "山頂").is_empty());
}

/// A member who sends a colleague's row id under her own name (as if repeating a push) is
/// refused by the service's check, before the team is written: the write path knows whose row
/// the id is. The colleague's row, the team and every replica are unchanged.
#[test]
fn a_colleagues_row_id_sent_as_ones_own_is_refused_by_the_check() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let aiko = author(&a, "aiko");
    edit_answer(&mut a, "jg-005", "aiko's", &aiko);
    let theirs = assay_sync::push::Pending::gather(&mut a).unwrap().revisions[0].clone();
    assert_eq!(t.sync("aiko", &mut a).pushed, 1);
    t.sync("minjun", &mut m);

    let mj = author(&m, "minjun");
    edit_answer(&mut m, "jg-006", "minjun's", &mj);
    let mut pending = assay_sync::push::Pending::gather(&mut m).unwrap();
    let mut claimed = pending.revisions[0].clone();
    claimed.uid = theirs.uid.clone();
    pending.revisions = vec![claimed];
    let (status, body) = post(
        &t,
        "/v1/push",
        Some(&t.credential("minjun")),
        serde_json::to_vec(&pending).unwrap(),
    );
    assert_eq!(status, 200, "{body}");
    let pushed: assay_sync::push::Pushed = serde_json::from_value(body).unwrap();
    assert!(pushed.done.is_empty(), "{pushed:?}");
    assert_eq!(pushed.refused.len(), 1, "{pushed:?}");
    assert!(
        pushed.refused[0]
            .1
            .contains("a push repeats only its own rows"),
        "refused by the write path's check: {:?}",
        pushed.refused
    );
    let mut db = t.db();
    let author_in_team: Option<String> = db
        .query_one(
            "SELECT author FROM revisions WHERE uid = $1",
            &[&theirs.uid],
        )
        .unwrap()
        .get(0);
    assert_eq!(author_in_team.as_deref(), Some("aiko"));
    t.sync("aiko", &mut a);
    let fresh = t.join("kenji", Role::Annotator);
    assert_eq!(heads(&fresh), heads(&a));
    assert_eq!(answer(&fresh, "jg-005").as_deref(), Some("aiko's"));
}

/// The blind hold and private views are checked by the service on every page it sends, not
/// only by the database: with row-level security switched off by the owner, a colleague's pull
/// is refused whole (nothing of aiko's judgement or private view reaches minjun), while aiko,
/// whose rows they are, still syncs.
#[test]
fn the_blind_hold_and_private_views_hold_in_the_service_without_row_level_security() {
    use assay_core::store::items::query::Filter;
    use assay_core::store::{BlindJudgement, NewRound, RoundPurpose};
    use assay_core::RefinementOp;
    let t = Team::start(Default::default());
    let mut s = t.join("seo", Role::Auditor);
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let item = |p: &assay_core::Project| p.item_id_by_ext("jgraph-mini", "jg-007").unwrap();
    let seo = author(&s, "seo");
    let spec = NewRound {
        name: "blind".into(),
        purpose: RoundPurpose::Annotate,
        assignees: vec!["aiko".into(), "minjun".into()],
        overlap: 1.0,
        sample: None,
        seed: 2,
        blind: true,
    };
    let items = [item(&s)];
    s.create_round(&spec, &items, &seo).unwrap();
    assert_eq!(t.sync("seo", &mut s).refused, 0);
    t.sync("aiko", &mut a);
    let aiko = author(&a, "aiko");
    let round = a.rounds().unwrap().into_iter().find(|r| r.blind).unwrap();
    let judgement = BlindJudgement {
        op: Some(RefinementOp::AnswerCorrection),
        note: Some("aiko's secret".into()),
        ..Default::default()
    };
    let at = item(&a);
    a.record_blind(round.id, at, &judgement, &aiko).unwrap();
    a.save_view("aiko's private view", &Filter::default(), &[], false, &aiko)
        .unwrap();
    assert_eq!(t.sync("aiko", &mut a).refused, 0);
    // With the database's rules on, minjun's pull carries none of it.
    t.sync("minjun", &mut m);
    let minjun = author(&m, "minjun");
    let shown = m.blind_items(item(&m), &minjun).unwrap();
    assert!(shown.iter().all(|b| !b.open), "{shown:?}");

    // The owner switches row-level security off.
    let mut owner = t.db();
    owner
        .batch_execute(
            "ALTER TABLE blind_annotations DISABLE ROW LEVEL SECURITY;
             ALTER TABLE saved_views DISABLE ROW LEVEL SECURITY;",
        )
        .unwrap();
    // A fresh join reads every row: refused as well.
    let dir = tempfile::tempdir().unwrap();
    assert!(join_service(
        &t.link("kenji", Role::Annotator),
        &dir.path().join("kenji.assay"),
        &dir.path().join("kenji.keyring"),
    )
    .is_err());
    let token = t.credential("minjun");
    let (status, body) = pull_from_start(&t, &token);
    assert_eq!(status, 500, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("withheld"),
        "{body}"
    );
    assert!(!body.to_string().contains("secret"), "{body}");
    assert!(sync_service(&mut m, &t.keyring("minjun")).is_err());
    assert!(m
        .blind_items(item(&m), &minjun)
        .unwrap()
        .iter()
        .all(|b| !b.open));
    // aiko's own rows are hers to read.
    assert_eq!(t.sync("aiko", &mut a).refused, 0);
}

/// A row of a held table that the service cannot read shows nobody whose it is or what it
/// holds: with row-level security off, a colleague's broken private view goes out as its
/// position alone (set aside by name of the position, its uid and reason kept from him), and
/// his sync goes on.
#[test]
fn a_held_row_the_service_cannot_read_goes_out_as_its_position_alone() {
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let mut owner = t.db();
    // Only the owner can write a row the service would never store: a list of datasets that
    // are not names.
    owner
        .batch_execute(
            "ALTER TABLE saved_views DISABLE ROW LEVEL SECURITY;
             INSERT INTO saved_views (uid, name, filter, datasets, columns, author, shared, created_at)
             VALUES ('aiko-secret-uid', 'aiko secret plan', '{}', '[17]', '[]', 'aiko', false, 'now');",
        )
        .unwrap();
    let token = t.credential("minjun");
    let (status, body) = pull_from_start(&t, &token);
    assert_eq!(status, 200, "{body}");
    let text = body.to_string();
    assert!(!text.contains("aiko-secret-uid"), "{body}");
    assert!(!text.contains("secret plan"), "{body}");
    assert!(text.contains("withheld-"), "{body}");
    assert_eq!(t.sync("minjun", &mut m).refused, 0);
    let set_aside = m.refused_rows().unwrap();
    assert!(
        set_aside
            .iter()
            .any(|(tbl, uid, _)| tbl == "pulled saved_views" && uid.starts_with("withheld-")),
        "{set_aside:?}"
    );
    assert!(set_aside
        .iter()
        .all(|(_, uid, why)| !uid.contains("secret") && !why.contains("17")));
    // Every other row still arrives: aiko's shared view after it reaches minjun.
    let aiko = author(&a, "aiko");
    a.save_view(
        "for everyone",
        &assay_core::store::items::query::Filter::default(),
        &[],
        true,
        &aiko,
    )
    .unwrap();
    assert_eq!(t.sync("aiko", &mut a).refused, 0);
    t.sync("minjun", &mut m);
    let minjun = author(&m, "minjun");
    let views = m.saved_views(minjun.user_id).unwrap();
    assert_eq!(
        views.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
        ["for everyone"]
    );
}

/// Deleting a view that was only ever its author's tells the team nothing: its end is as
/// private as it was, so no colleague's pull names it, while the author's other machine learns
/// of the deletion. A shared view's end reaches everyone.
#[test]
fn deleting_a_private_view_publishes_nothing_of_it() {
    use assay_core::store::items::query::Filter;
    let t = Team::start(Default::default());
    let mut a = t.join("aiko", Role::Annotator);
    let mut m = t.join("minjun", Role::Annotator);
    let aiko = author(&a, "aiko");
    a.save_view("aiko's quiet corner", &Filter::default(), &[], false, &aiko)
        .unwrap();
    a.save_view("for everyone", &Filter::default(), &[], true, &aiko)
        .unwrap();
    assert_eq!(t.sync("aiko", &mut a).refused, 0);
    let on = |p: &assay_core::Project, who: i64| -> Vec<String> {
        p.saved_views(who)
            .unwrap()
            .into_iter()
            .map(|v| v.name)
            .collect()
    };
    a.delete_view("aiko's quiet corner", &aiko).unwrap();
    a.delete_view("for everyone", &aiko).unwrap();
    assert_eq!(t.sync("aiko", &mut a).refused, 0);

    let token = t.credential("minjun");
    let (status, body) = pull_from_start(&t, &token);
    assert_eq!(status, 200, "{body}");
    assert!(!body.to_string().contains("quiet corner"), "{body}");
    assert!(body.to_string().contains("for everyone"), "{body}");
    t.sync("minjun", &mut m);
    let minjun = author(&m, "minjun");
    assert!(on(&m, minjun.user_id).is_empty());
    // aiko's pull (as her other machine would make it) has both ends.
    let (_, mine) = pull_from_start(&t, &t.credential("aiko"));
    let ends: Vec<(&str, bool)> = mine["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["row"]["Ok"]["row"]["deleted"] == true)
        .map(|r| {
            (
                r["row"]["Ok"]["row"]["name"].as_str().unwrap(),
                r["row"]["Ok"]["row"]["shared"] == true,
            )
        })
        .collect();
    assert_eq!(
        ends,
        [("aiko's quiet corner", false), ("for everyone", true)],
        "{mine}"
    );
    assert!(on(&a, aiko.user_id).is_empty());
}
