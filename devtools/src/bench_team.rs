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
    edit_share(p, who, ids, n, tag, (0, ids.len()))
}

/// `n` edits among the `share.1` items of `ids` from `share.0`: an annotator's own share.
fn edit_share(
    p: &mut Project,
    who: &Author,
    ids: &[i64],
    n: usize,
    tag: &str,
    share: (usize, usize),
) -> Result<()> {
    for k in 0..n {
        let id = ids[(share.0 + (k * 7919) % share.1.max(1)) % ids.len()];
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
    let annotators: Vec<usize> = args
        .iter()
        .position(|a| a == "--annotators")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![8]);
    let sustained_only = args.iter().any(|a| a == "--sustained-only");
    // Members sync through the team service (`assay serve`) instead of logging in to the
    // database.
    let service = args.iter().any(|a| a == "--service");
    // Each member's replica as if on a machine of its own: it pushes through the service as a
    // replica does and pulls every page the service sends, but does not apply them here, where
    // fifty replicas applying each other's rows would be counted against the service.
    let elsewhere = service && args.iter().any(|a| a == "--members-elsewhere");
    // The ordering before schema 8 (one push lock held for each whole push), restored in the
    // benchmark's own databases as the baseline to compare with.
    let one_lock = args.iter().any(|a| a == "--one-lock");
    let dir = crate::root().join("target/bench-team");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let cluster = Cluster::start().map_err(anyhow::Error::msg)?;
    let mut admin = postgres::Client::connect(&cluster.admin_url("postgres"), postgres::NoTls)?;
    let member =
        |who: &str, db: &str| format!("postgres://{who}:pw@127.0.0.1:{}/{db}", cluster.port);
    // Members reach the server through a link with this round trip (a team server over a
    // network rather than on the same machine), when `--rtt-ms` is given.
    let rtt_ms: u64 = args
        .iter()
        .position(|a| a == "--rtt-ms")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let remote_port = if rtt_ms > 0 {
        delay_proxy(cluster.port, Duration::from_micros(rtt_ms * 500))?
    } else {
        cluster.port
    };
    let remote = |who: &str, db: &str| format!("postgres://{who}:pw@127.0.0.1:{remote_port}/{db}");

    if !sustained_only {
        let data = dir.join("synthetic.jsonl");
        crate::bench::generate(&data, n)?;
        let mut lead = crate::fresh_project_from(&dir.join("lead.assay"), &data)?;
        admin.batch_execute("CREATE DATABASE bench")?;
        let admin_url = cluster.admin_url("bench");
        let t = Instant::now();
        assay_sync::init(&admin_url, &mut lead)?;
        println!("publish {n} items: {:.2} s", t.elapsed().as_secs_f64());
        let served = if service {
            Some(start_service(&admin_url, &dir.join("service-bench"))?)
        } else {
            assay_sync::add_member(&admin_url, "aiko", Role::Annotator, "pw")?;
            None
        };
        let ring = dir.join("aiko-keyring.json");
        let t = Instant::now();
        let (mut aiko, _) = match &served {
            Some(s) => assay_sync::service::join_service(
                &link(&admin_url, s, "aiko")?,
                &dir.join("aiko.assay"),
                &ring,
            )?,
            None => assay_sync::join(&member("aiko", "bench"), &dir.join("aiko.assay"))?,
        };
        println!(
            "first pull (join) of {n} items{}: {:.2} s",
            via(service),
            t.elapsed().as_secs_f64()
        );

        // Through the service, a second member pulls what aiko pushes.
        let mut minjun = match &served {
            Some(s) => {
                let ring = dir.join("minjun-keyring.json");
                let (m, _) = assay_sync::service::join_service(
                    &link(&admin_url, s, "minjun")?,
                    &dir.join("minjun.assay"),
                    &ring,
                )?;
                Some((m, ring))
            }
            None => None,
        };
        let ids = aiko.query_ids(&Filter::default())?;
        let who = author(&aiko, "aiko")?;
        edit_some(&mut aiko, &who, &ids, 100, "bench")?;
        let t = Instant::now();
        let r = match &served {
            Some(_) => assay_sync::service::sync_service(&mut aiko, &ring)?,
            None => assay_sync::sync(&member("aiko", "bench"), &mut aiko)?,
        };
        println!(
            "sync pushing {} new revisions{}: {:.0} ms",
            r.pushed,
            via(service),
            t.elapsed().as_secs_f64() * 1e3
        );
        let t = Instant::now();
        let (r, whose) = match &mut minjun {
            Some((m, ring)) => (
                assay_sync::service::sync_service(m, ring)?,
                "a member, through the service",
            ),
            None => (assay_sync::sync(&admin_url, &mut lead)?, "the owner"),
        };
        println!(
            "sync pulling {} new revisions ({whose}): {:.0} ms",
            r.pulled,
            t.elapsed().as_secs_f64() * 1e3
        );
        drop(served);
    }

    // Sustained: K annotators on a project of 40 items each, each saving three revisions of
    // their own share (as a round deals them) then syncing, as fast as they can, for `secs`
    // seconds; for each K of `--annotators 8,20,50`.
    for (round, &k) in annotators.iter().enumerate() {
        let db = format!("sustained{round}");
        admin.batch_execute(&format!("CREATE DATABASE {db}"))?;
        let small = dir.join(format!("small{round}/items.jsonl"));
        std::fs::create_dir_all(small.parent().unwrap_or(&dir))?;
        crate::bench::generate(&small, 40 * k)?;
        let mut base = crate::fresh_project_from(&dir.join(format!("small{round}.assay")), &small)?;
        let small_admin = cluster.admin_url(&db);
        assay_sync::init(&small_admin, &mut base)?;
        if one_lock {
            restore_one_lock(&small_admin)?;
        }
        let names: Vec<String> = (0..k).map(|i| format!("r{round}annotator{i}")).collect();
        let served = if service {
            Some(start_service(
                &small_admin,
                &dir.join(format!("service{round}")),
            )?)
        } else {
            for nm in &names {
                assay_sync::add_member(&small_admin, nm, Role::Annotator, "pw")?;
            }
            None
        };
        // Through a link with the round trip asked for, members reach the service as from
        // machines of their own (the certificate is pinned, so the proxy changes nothing else).
        let service_url = match &served {
            Some(s) if rtt_ms > 0 => Some(format!(
                "https://127.0.0.1:{}",
                delay_proxy(s.addr.port(), Duration::from_micros(rtt_ms * 500))?
            )),
            Some(s) => Some(s.url.clone()),
            None => None,
        };
        let ring_of = |nm: &str| dir.join(format!("{nm}-keyring.json"));
        // Everyone joins first, so the timed part is saving and syncing only.
        let joined: Vec<(String, Project)> = names
            .iter()
            .map(|nm| {
                let file = dir.join(format!("{nm}.assay"));
                let (p, _) = match &served {
                    Some(s) => assay_sync::service::join_service(
                        &link_via(&small_admin, s, service_url.as_deref(), nm)?,
                        &file,
                        &ring_of(nm),
                    )?,
                    None => assay_sync::join(&member(nm, &db), &file)?,
                };
                Ok((nm.clone(), p))
            })
            .collect::<Result<_>>()?;
        let until = Instant::now() + Duration::from_secs(secs);
        let results: Vec<(usize, Vec<f64>)> = std::thread::scope(|s| -> Result<_> {
            let hs: Vec<_> = joined
                .into_iter()
                .enumerate()
                .map(|(i, (nm, mut p))| {
                    let url = remote(&nm, &db);
                    let ring = ring_of(&nm);
                    s.spawn(move || -> Result<(usize, Vec<f64>)> {
                        let who = author(&p, &nm)?;
                        let ids = p.query_ids(&Filter::default())?;
                        let mut seen = assay_sync::pull::positions(&p)?;
                        let mut made = 0;
                        let mut syncs = Vec::new();
                        while Instant::now() < until {
                            // A new answer each time: an edit that changes nothing writes
                            // nothing, and would leave nothing to push.
                            edit_share(
                                &mut p,
                                &who,
                                &ids,
                                3,
                                &format!("{nm} {made}"),
                                (i * 40, 40),
                            )?;
                            made += 3;
                            let t = Instant::now();
                            if elsewhere {
                                sync_elsewhere(&mut p, &ring, &mut seen)?;
                            } else if service {
                                assay_sync::service::sync_service(&mut p, &ring)?;
                            } else {
                                assay_sync::sync(&url, &mut p)?;
                            }
                            syncs.push(t.elapsed().as_secs_f64() * 1000.0);
                        }
                        Ok((made, syncs))
                    })
                })
                .collect();
            hs.into_iter()
                .map(|h| h.join().expect("annotator thread"))
                .collect()
        })?;
        let made: usize = results.iter().map(|r| r.0).sum();
        // What the team holds is the figure: every edit made is there once, or the run failed.
        let in_team: i64 = postgres::Client::connect(&small_admin, postgres::NoTls)?
            .query_one(
                "SELECT count(*) FROM revisions WHERE author = ANY($1)",
                &[&names],
            )?
            .get(0);
        anyhow::ensure!(
            in_team == made as i64,
            "{made} revisions made, {in_team} in the team"
        );
        let mut syncs: Vec<f64> = results.into_iter().flat_map(|r| r.1).collect();
        syncs.sort_by(f64::total_cmp);
        let pct = |q: f64| {
            syncs
                .get(((syncs.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        println!(
            "sustained{}{}{}: {k} annotators saving and syncing for {secs} s: {made} revisions, each in the team = {:.0} revisions/s; {} syncs, sync p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            if one_lock { " (one push lock, before schema 8)" } else { "" },
            if elsewhere {
                " through the service, members' replicas elsewhere (pages pulled, not applied here)"
            } else {
                via(service)
            },
            if rtt_ms > 0 { format!(", {rtt_ms} ms round trip") } else { String::new() },
            made as f64 / secs as f64,
            syncs.len(),
            pct(0.5),
            pct(0.95),
            syncs.last().copied().unwrap_or(0.0)
        );
        drop(served);
    }
    cluster.stop();
    let _ = Path::new(&dir);
    Ok(())
}

/// A sync of a member whose replica is on a machine of its own (`--members-elsewhere`): the
/// requests and bodies of `sync_service`, the pulled pages read to their end and their positions
/// kept, and nothing applied to the replica here (each member edits only their own share, so
/// their edits never need a colleague's rows).
fn sync_elsewhere(
    p: &mut Project,
    ring: &Path,
    seen: &mut assay_sync::pull::Positions,
) -> Result<()> {
    use assay_sync::push::{Pending, Pushed};
    use assay_sync::service::wire::{PullPage, PullRequest};
    let team = p
        .sync_get("team")?
        .ok_or_else(|| anyhow::anyhow!("not a replica"))?;
    let entry = assay_sync::service::Keyring::load(ring)?
        .find(&team)
        .cloned()
        .ok_or_else(|| anyhow::anyhow!("{team} is not in the keyring"))?;
    let client = assay_sync::service::ServiceClient::new(&entry.url, &entry.pin)?
        .with_credential(&entry.credential);
    loop {
        let pending = Pending::gather(p)?;
        if pending.is_empty() {
            break;
        }
        let pushed: Pushed = client.post("/v1/push", &pending)?;
        anyhow::ensure!(pushed.refused.is_empty(), "refused: {:?}", pushed.refused);
        if pushed.is_empty() {
            break;
        }
        p.mark_pushed(&pushed.done)?;
    }
    loop {
        let page: PullPage = client.post(
            "/v1/pull",
            &PullRequest {
                positions: seen.clone(),
            },
        )?;
        let Some(rows) = page.rows else { break };
        for r in &rows {
            let at = seen.entry(r.table.clone()).or_insert(0);
            *at = (*at).max(r.seq);
        }
        if page.last {
            break;
        }
    }
    Ok(())
}

fn via(service: bool) -> &'static str {
    if service {
        " through the service"
    } else {
        ""
    }
}

/// The team service in front of the database at `admin_url`, on a free local port.
fn start_service(admin_url: &str, data: &Path) -> Result<assay_server::Running> {
    Ok(assay_server::start(assay_server::Config {
        admin_url: admin_url.to_string(),
        listen: "127.0.0.1:0".parse()?,
        data_dir: data.to_path_buf(),
        cert: None,
        public_url: None,
        limits: assay_server::limits::Limits {
            requests_per_minute: u32::MAX,
            ..Default::default()
        },
    })?)
}

/// A join link for `name`, as the owner makes it.
fn link(admin_url: &str, served: &assay_server::Running, name: &str) -> Result<String> {
    link_via(admin_url, served, None, name)
}

/// A join link for `name` to the service at `url` (its own address when None).
fn link_via(
    admin_url: &str,
    served: &assay_server::Running,
    url: Option<&str>,
    name: &str,
) -> Result<String> {
    let mut db = postgres::Client::connect(admin_url, postgres::NoTls)?;
    let code =
        assay_server::members::invite(&mut db, name, Role::Annotator, Duration::from_secs(3600))?;
    Ok(assay_sync::service::JoinLink {
        url: url.unwrap_or(&served.url).to_string(),
        invitation: code,
        pin: served.pin.clone(),
    }
    .format())
}

/// Puts back the team's order before schema 8 in one benchmark database: every insert takes the
/// one push lock (7412) for the rest of its transaction and draws its final position at once, and
/// no row moves at commit (and a push locks no items up front).
fn restore_one_lock(admin_url: &str) -> Result<()> {
    let mut db = postgres::Client::connect(admin_url, postgres::NoTls)?;
    db.batch_execute(
        "CREATE OR REPLACE FUNCTION assay_stamp() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
             SET search_path = public, pg_temp AS $$
         BEGIN
             PERFORM pg_advisory_xact_lock(7412);
             NEW.seq := nextval('assay_position');
             IF TG_TABLE_NAME <> 'runs' THEN
                 NEW.created_at := to_char(clock_timestamp() AT TIME ZONE 'UTC',
                                           'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"');
             END IF;
             RETURN NEW;
         END $$;
         CREATE OR REPLACE FUNCTION assay_lock_items(ds text[], ext text[], revs text[],
                                                     whole_team boolean)
             RETURNS void LANGUAGE sql AS $$ SELECT $$;
         DO $$
         DECLARE t text;
         BEGIN
             FOREACH t IN ARRAY ARRAY['revisions', 'review_decisions', 'signoffs', 'comments',
                                      'rounds', 'runs', 'blind_annotations', 'judge_ratings',
                                      'saved_views']
             LOOP
                 EXECUTE format('DROP TRIGGER z_place ON %I', t);
             END LOOP;
         END $$;",
    )?;
    Ok(())
}

/// A TCP relay to `port` that delivers every chunk `one_way` after it was read, each way: the
/// latency of a network link without limiting its bandwidth. Returns the port it listens on.
fn delay_proxy(port: u16, one_way: Duration) -> Result<u16> {
    use std::io::{Read, Write};
    use std::net::{Shutdown, TcpListener, TcpStream};
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let local = listener.local_addr()?.port();
    let relay = move |mut from: TcpStream, mut to: TcpStream| {
        let (tx, rx) = std::sync::mpsc::channel::<(Instant, Vec<u8>)>();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n) = from.read(&mut buf) {
                if n == 0
                    || tx
                        .send((Instant::now() + one_way, buf[..n].to_vec()))
                        .is_err()
                {
                    break;
                }
            }
        });
        std::thread::spawn(move || {
            for (due, bytes) in rx {
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
                if to.write_all(&bytes).is_err() {
                    break;
                }
            }
            let _ = to.shutdown(Shutdown::Write);
        });
    };
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(client) = conn else { continue };
            let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
                continue;
            };
            let _ = client.set_nodelay(true);
            let _ = server.set_nodelay(true);
            match (client.try_clone(), server.try_clone()) {
                (Ok(c2), Ok(s2)) => {
                    relay(client, s2);
                    relay(server, c2);
                }
                _ => continue,
            }
        }
    });
    Ok(local)
}
