//! Team benchmarks through a private PostgreSQL cluster: publishing and the first pull (join) of
//! an N-item project, one sync of 100 new revisions each way, and sustained revisions per second
//! with several annotators saving and syncing at once. Run with `cargo xtask bench-team [N]`.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use assay_core::store::{Author, Edit, Filter};
use assay_core::{Project, Role};
use assay_sync::cluster::Cluster;

fn edit_some(p: &mut Project, who: &Author, ids: &[i64], n: usize, tag: &str) -> Result<()> {
    for k in 0..n {
        let id = ids[(k * 7919) % ids.len()];
        p.save_edit(
            id,
            &Edit::answer_fix(&p.item(id)?, &format!("{tag} {k}")),
            who,
        )?;
    }
    Ok(())
}

fn author(p: &Project, name: &str) -> Result<Author> {
    let u = p
        .user_by_name(name)?
        .ok_or_else(|| anyhow::anyhow!("{name} is not in the replica"))?;
    Ok(Author {
        user_id: u.id,
        role: u.role,
        round: 1,
    })
}

pub fn team(args: &[String]) -> Result<()> {
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let secs: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let dir = crate::root().join("target/bench-team");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let data = dir.join("synthetic.jsonl");
    crate::bench::generate(&data, n)?;
    let mut lead = crate::fresh_project_from(&dir.join("lead.assay"), &data)?;
    let cluster = Cluster::start().map_err(anyhow::Error::msg)?;
    let mut admin = postgres::Client::connect(&cluster.admin_url("postgres"), postgres::NoTls)?;
    admin.batch_execute("CREATE DATABASE bench")?;
    admin.batch_execute("CREATE DATABASE sustained")?;
    let admin_url = cluster.admin_url("bench");
    let member =
        |who: &str, db: &str| format!("postgres://{who}:pw@127.0.0.1:{}/{db}", cluster.port);

    let t = Instant::now();
    assay_sync::init(&admin_url, &mut lead)?;
    println!("publish {n} items: {:.2} s", t.elapsed().as_secs_f64());
    assay_sync::add_member(&admin_url, "aiko", Role::Annotator, "pw")?;
    let t = Instant::now();
    let (mut aiko, _) = assay_sync::join(&member("aiko", "bench"), &dir.join("aiko.assay"))?;
    println!(
        "first pull (join) of {n} items: {:.2} s",
        t.elapsed().as_secs_f64()
    );

    let ids = aiko.query_ids(&Filter::default())?;
    let who = author(&aiko, "aiko")?;
    edit_some(&mut aiko, &who, &ids, 100, "bench")?;
    let t = Instant::now();
    let r = assay_sync::sync(&member("aiko", "bench"), &mut aiko)?;
    println!(
        "sync pushing {} new revisions: {:.0} ms",
        r.pushed,
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let r = assay_sync::sync(&admin_url, &mut lead)?;
    println!(
        "sync pulling {} new revisions: {:.0} ms",
        r.pulled,
        t.elapsed().as_secs_f64() * 1e3
    );

    // Sustained: eight annotators on a small project, each saving three revisions then syncing,
    // as fast as they can, for `secs` seconds.
    let small = crate::root().join("assets/sample/jgraph-mini/jgraph-mini.jsonl");
    let mut base = crate::fresh_project_from(&dir.join("small.assay"), &small)?;
    let small_admin = cluster.admin_url("sustained");
    assay_sync::init(&small_admin, &mut base)?;
    let names: Vec<String> = (0..8).map(|i| format!("annotator{i}")).collect();
    for nm in &names {
        assay_sync::add_member(&small_admin, nm, Role::Annotator, "pw")?;
    }
    let until = Instant::now() + Duration::from_secs(secs);
    let made: usize = std::thread::scope(|s| -> Result<usize> {
        let hs: Vec<_> = names
            .iter()
            .map(|nm| {
                let url = member(nm, "sustained");
                let path = dir.join(format!("{nm}.assay"));
                s.spawn(move || -> Result<usize> {
                    let (mut p, _) = assay_sync::join(&url, &path)?;
                    let who = author(&p, nm)?;
                    let ids = p.query_ids(&Filter::default())?;
                    let mut made = 0;
                    while Instant::now() < until {
                        edit_some(&mut p, &who, &ids, 3, nm)?;
                        made += 3;
                        assay_sync::sync(&url, &mut p)?;
                    }
                    Ok(made)
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("annotator thread"))
            .sum()
    })?;
    println!(
        "sustained: 8 annotators saving and syncing for {secs} s: {made} revisions = {:.0} revisions/s",
        made as f64 / secs as f64
    );
    cluster.stop();
    let _ = Path::new(&dir);
    Ok(())
}
