//! What the team tests share: the published sample project, its people, and their logins.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use assay_core::store::Author;
use assay_core::{Project, Role};
use assay_sync::cluster::Cluster;
use postgres::{Client, NoTls};

pub fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/sample")
}

pub fn published_project(dir: &Path) -> Project {
    let mut p = Project::create(dir.join("lead.assay")).unwrap();
    assay_core::import::import_path(
        &mut p,
        &sample().join("jgraph-mini/jgraph-mini.jsonl"),
        &Default::default(),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    for (name, role) in [
        ("aiko", Role::Annotator),
        ("minjun", Role::Annotator),
        ("seo", Role::Auditor),
    ] {
        p.ensure_user(name, role).unwrap();
    }
    // History made before publishing travels too.
    let who = author(&p, "aiko");
    edit_answer(&mut p, "jg-001", "before publishing", &who);
    p
}

pub fn author(p: &Project, name: &str) -> Author {
    let u = p.user_by_name(name).unwrap().unwrap();
    Author {
        user_id: u.id,
        role: u.role,
        round: 1,
    }
}

pub fn edit_answer(p: &mut Project, ext: &str, answer: &str, who: &Author) -> i64 {
    let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
    let mut edit = assay_core::store::Edit::answer_fix(&p.item(id).unwrap(), answer);
    edit.op = Some(assay_core::RefinementOp::AnswerCorrection);
    p.save_edit(id, &edit, who).unwrap()
}

pub fn answer(p: &Project, ext: &str) -> Option<String> {
    let id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
    p.item(id).unwrap().content.answer
}

pub fn url(cluster: &Cluster, user: &str, db: &str) -> String {
    format!(
        "postgres://{user}:pw-{user}@127.0.0.1:{}/{db}",
        cluster.port
    )
}

pub fn create_db(cluster: &Cluster, name: &str) -> String {
    let mut admin = Client::connect(&cluster.admin_url("postgres"), NoTls).unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .unwrap();
    cluster.admin_url(name)
}

pub fn count(db: &mut Client, table: &str) -> i64 {
    db.query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap()
        .get(0)
}

/// The current score of each scored item of the sample, by ext id.
pub fn scores(p: &Project) -> Vec<(String, Option<f64>)> {
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let mut v: Vec<(String, Option<f64>)> = p
        .current_results(ds)
        .unwrap()
        .into_iter()
        .map(|r| (r.ext_id, r.score))
        .collect();
    v.sort_by(|x, y| x.0.cmp(&y.0));
    v
}

/// A run of `model` recorded on jgraph-mini items with the given scores, scored by `scorer`
/// (its evidence reads like a judge's), at each item's current revision. Returns the run.
pub fn recorded_run(p: &mut Project, model: &str, scorer: &str, scores: &[(&str, f64)]) -> i64 {
    let cfg =
        format!(r#"{{"name":"{model}","model":"{model}","endpoints":["http://127.0.0.1:9/v1"]}}"#);
    let model_id = p.ensure_model_config(model, &cfg).unwrap();
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let key = assay_core::store::evaluation::runs::RunKey {
        model_id,
        dataset_id: ds,
        version: assay_core::Version::Before,
        variant: "original".into(),
        run_index: 0,
        template: "default".into(),
        scorer: scorer.into(),
        source: "recorded".into(),
        protocol: None,
    };
    let results: Vec<_> = scores
        .iter()
        .map(|(ext, score)| {
            let item_id = p.item_id_by_ext("jgraph-mini", ext).unwrap();
            assay_core::store::evaluation::runs::RecordedResult {
                result: assay_core::store::evaluation::runs::RunItemResult {
                    item_id,
                    item_rev: p.item(item_id).unwrap().rev,
                    cache_key: None,
                    outcome: "scored".into(),
                    from_cache: false,
                    score: Some(*score),
                    parsed: None,
                    evidence: Some(format!("the judge says {score}")),
                    error: None,
                    scorer: Some(scorer.into()),
                    scorer_version: None,
                },
                response: format!("the model said {score}"),
                prompt: None,
            }
        })
        .collect();
    p.record_run(&key, &results, "complete").unwrap()
}

/// Refused by a policy, a privilege or the team's rules (42501), a check (23514), or the
/// append-only trigger (P0001).
#[track_caller]
pub fn refused<T: std::fmt::Debug>(r: Result<T, postgres::Error>, what: &str) {
    let e = match r {
        Ok(n) => panic!("{what}: accepted ({n:?})"),
        Err(e) => e,
    };
    let code = e.code().map(|c| c.code().to_string()).unwrap_or_default();
    assert!(
        ["42501", "23514", "P0001"].contains(&code.as_str()),
        "{what}: {code} {e:?}"
    );
}

/// The sample project published to a new database "team", with aiko and minjun (annotators)
/// and seo (auditor) as members, each with password `pw-NAME`: the owner's URL.
pub fn published_team(cluster: &Cluster, dir: &Path) -> String {
    let admin = create_db(cluster, "team");
    let mut lead = published_project(dir);
    assay_sync::init(&admin, &mut lead).unwrap();
    for (name, role) in [
        ("aiko", Role::Annotator),
        ("minjun", Role::Annotator),
        ("seo", Role::Auditor),
    ] {
        assay_sync::add_member(&admin, name, role, &format!("pw-{name}")).unwrap();
    }
    admin
}

/// Which of the team's item locks a jgraph-mini item takes.
pub fn item_bucket(db: &mut Client, ext: &str) -> i32 {
    db.query_one("SELECT assay_item_bucket('jgraph-mini', $1)", &[&ext])
        .unwrap()
        .get(0)
}

/// One simulated annotator of jgraph-mini until `until`: a few saves (three answers, the
/// `k`-th person's own walk over the items), then a `sync`, as the app does every few seconds;
/// how many revisions they made.
pub fn annotate_until(
    p: &mut Project,
    name: &str,
    k: usize,
    until: std::time::Instant,
    mut sync: impl FnMut(&mut Project),
) -> usize {
    let who = author(p, name);
    let ds = p.dataset_by_name("jgraph-mini").unwrap().id;
    let ids: Vec<i64> = p
        .item_ext_ids(ds)
        .unwrap()
        .into_iter()
        .map(|x| x.0)
        .collect();
    let mut made = 0;
    let mut step = k;
    while std::time::Instant::now() < until {
        for _ in 0..3 {
            step = (step * 7 + 3) % 1_000_003;
            let id = ids[step % ids.len()];
            let edit = assay_core::store::Edit::answer_fix(
                &p.item(id).unwrap(),
                &format!("{name}-{made}"),
            );
            p.save_edit(id, &edit, &who).unwrap();
            made += 1;
        }
        sync(p);
    }
    made
}
