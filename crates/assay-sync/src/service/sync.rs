//! Joining, syncing and fetching images through the team service.

use std::path::Path;

use assay_core::store::team::sync::SyncItem;
use assay_core::{Project, Role};

use crate::pull::{apply_rows, positions};
use crate::push::{Pending, Pushed, RunOutcome};
use crate::service::client::ServiceClient;
use crate::service::keyring::{Keyring, KeyringEntry};
use crate::service::link::JoinLink;
use crate::service::wire::{
    InviteRequest, Invited, JoinRequest, Joined, MemberInfo, PullPage, PullRequest, RevokeRequest,
    Revoked, RoleRequest,
};
use crate::sync::{mark_runs, team_url, SyncReport};
use crate::{FetchReport, Result, SyncError};

/// Joins a team with a join link: takes the invitation (once), keeps the credential in the
/// keyring at `keyring` with the certificate pinned, and makes a new replica at `path`.
pub fn join_service(link: &str, path: &Path, keyring: &Path) -> Result<(Project, SyncReport)> {
    let link = JoinLink::parse(link)?;
    let anonymous = ServiceClient::new(&link.url, &link.pin)?;
    let joined: Joined = anonymous.post(
        "/v1/join",
        &JoinRequest {
            invitation: link.invitation.clone(),
        },
    )?;
    let replica = replica_id()?;
    let mut ring = Keyring::load(keyring)?;
    ring.put(KeyringEntry {
        url: link.url.clone(),
        pin: link.pin.clone(),
        member: joined.member.clone(),
        credential: joined.credential.clone(),
        replicas: vec![replica.clone()],
    });
    ring.save(keyring)?;
    let client = anonymous.with_credential(&joined.credential);
    let mut project = Project::create(path)?;
    // Pages are fetched on their own thread while the last one is inserted: the service
    // reading and the replica writing overlap instead of taking turns.
    let inserted = std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<SyncItem>>>(1);
        let fetcher = &client;
        scope.spawn(move || {
            let mut after: Option<(String, i64)> = None;
            loop {
                let mut query = Vec::new();
                if let Some((dataset, seq)) = &after {
                    query.push(("dataset", dataset.clone()));
                    query.push(("seq", seq.to_string()));
                }
                let page: Result<Vec<SyncItem>> = fetcher.get("/v1/items", &query);
                let done = match &page {
                    Ok(p) => match p.last() {
                        Some(last) => {
                            after = Some((last.dataset.clone(), last.seq));
                            false
                        }
                        None => true,
                    },
                    Err(_) => true,
                };
                // The inserter stopped (an error of its own): nothing more to fetch for.
                if tx.send(page).is_err() || done {
                    return;
                }
            }
        });
        project.insert_replica_item_pages(|| match rx.recv() {
            Ok(Ok(page)) if page.is_empty() => Ok(None),
            Ok(Ok(page)) => Ok(Some(page)),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(SyncError::Invalid(
                "the team service's items stopped arriving".into(),
            )),
        })
    });
    if let Err(e) = inserted {
        // As before the pages overlapped: a join whose items did not arrive leaves no file
        // behind (the transaction left it empty), so trying again is not refused.
        drop(project);
        for suffix in ["", "-wal", "-shm"] {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
        return Err(e);
    }
    project.sync_set("team", &link.url)?;
    project.sync_set("team_pin", &link.pin)?;
    project.sync_set("member", &joined.member)?;
    project.sync_set("replica", &replica)?;
    let pulled = pull_service(&client, &mut project)?;
    // Joining pulled everything: the replica is as synced as after a sync.
    project.sync_set("last_sync", &assay_core::store::now())?;
    Ok((
        project,
        SyncReport {
            pulled,
            ..Default::default()
        },
    ))
}

/// A new replica's identity: 128 random bits.
fn replica_id() -> Result<String> {
    let mut buf = [0u8; 16];
    rustls::crypto::ring::default_provider()
        .secure_random
        .fill(&mut buf)
        .map_err(|_| SyncError::Invalid("no random source".into()))?;
    Ok(hex::encode(buf))
}

/// The client for the service this replica belongs to, with the person's credential for it. A
/// project whose service is not in the keyring, or is there with another certificate, is
/// refused before anything is sent.
fn client_for(project: &Project, keyring: &Path) -> Result<(ServiceClient, KeyringEntry)> {
    let url = team_url(project)?;
    let pin = project.sync_get("team_pin")?.unwrap_or_default();
    let ring = Keyring::load(keyring)?;
    let entry = ring.find(&url).cloned().ok_or_else(|| {
        SyncError::Invalid(format!(
            "this project names the team service at {url}, which you have not joined on this \
             machine: join it with an invitation from its lead (nothing was sent to it)"
        ))
    })?;
    if entry.pin != pin {
        return Err(SyncError::Tls(format!(
            "this project names the team service at {url} with another certificate than the one \
             you joined it with: refused (nothing was sent to it)"
        )));
    }
    // Only a replica this person made by joining syncs with their credential: a project file
    // handed over could hold rows written in their name, waiting to be pushed.
    let replica = project.sync_get("replica")?.unwrap_or_default();
    let member = project.sync_get("member")?;
    if !entry.replicas.contains(&replica) || member.is_some_and(|m| m != entry.member) {
        return Err(SyncError::Invalid(format!(
            "this project file is not a replica you made by joining the team at {url} on this \
             machine: refused (nothing was sent); join with an invitation to make one"
        )));
    }
    let client = ServiceClient::new(&entry.url, &entry.pin)?.with_credential(&entry.credential);
    Ok((client, entry))
}

/// Pushes what is new here through the service, then pulls what is new there. Safe to kill
/// and run again: rows are recognised by their uid.
pub fn sync_service(project: &mut Project, keyring: &Path) -> Result<SyncReport> {
    // The member is the one this credential joined as (`client_for` holds the project to
    // it): no request is spent asking the service again at every sync.
    let (client, entry) = client_for(project, keyring)?;
    let conflicts_before = project.open_conflict_count()?;
    let mut report = SyncReport::default();
    let pushed = push_service(&client, project, &entry.member, &mut report);
    // The service refusing what this replica sends (over the day's quota, too large, too many
    // requests, too busy to take it now) stops pushing, never pulling: the team's rows come in
    // anyway, and the refusal is the sync's answer. The rows wait here, pending, for the next
    // sync.
    let refused = match pushed {
        Err(SyncError::Service { status, message }) if [413, 429, 503].contains(&status) => {
            Some(SyncError::Service { status, message })
        }
        other => {
            other?;
            None
        }
    };
    report.pulled = pull_service(&client, project)?;
    report.conflicts = (project.open_conflict_count()? - conflicts_before).max(0) as usize;
    if let Some(e) = refused {
        return Err(e);
    }
    project.sync_set("last_sync", &assay_core::store::now())?;
    Ok(report)
}

/// Pushes this replica's pending rows, a batch at a time, then its finished runs.
fn push_service(
    client: &ServiceClient,
    project: &mut Project,
    me: &str,
    report: &mut SyncReport,
) -> Result<()> {
    loop {
        let pending = Pending::gather(project)?;
        if pending.is_empty() {
            break;
        }
        let pushed: Pushed = client.post("/v1/push", &pending)?;
        if pushed.is_empty() {
            // Nothing taken or refused: pushing the same batch again would do the same.
            break;
        }
        report.pushed += pushed.done.len();
        report.refused += pushed.refused.len();
        project.mark_pushed(&pushed.done)?;
        project.mark_refused(&pushed.refused)?;
    }
    project.write_original_uids()?;
    for run in project.pending_runs()? {
        let outcome: RunOutcome = client.post("/v1/runs", &run)?;
        let taken = mark_runs(project, std::slice::from_ref(&outcome), Some(me))?;
        report.pushed += taken;
        report.refused += 1 - taken;
    }
    Ok(())
}

/// Pulls every page after this replica's positions; each page is one transaction here.
fn pull_service(client: &ServiceClient, project: &mut Project) -> Result<usize> {
    let mut applied = 0;
    loop {
        let from = positions(project)?;
        let page: PullPage = client.post(
            "/v1/pull",
            &PullRequest {
                positions: from.clone(),
            },
        )?;
        let members: Vec<(String, Role)> = page
            .members
            .iter()
            .filter_map(|(n, r)| Some((n.clone(), Role::parse(r)?)))
            .collect();
        project.set_team_roles(&members)?;
        let Some(rows) = page.rows else { break };
        applied += apply_rows(project, &rows)?;
        if page.last {
            break;
        }
        // A page that moves no position would be asked for again and again.
        if positions(project)? == from {
            return Err(SyncError::Invalid(
                "the team service sent a page that moves no position: stopped".into(),
            ));
        }
    }
    Ok(applied)
}

/// Copies one image from the service into the replica (on first view). Ok(false) when the team
/// has no such image.
pub fn fetch_image(project: &mut Project, hash: &str) -> Result<bool> {
    let (client, _) = client_for(project, &Keyring::default_path()?)?;
    fetch_one(&client, project, hash)
}

fn fetch_one(client: &ServiceClient, project: &mut Project, hash: &str) -> Result<bool> {
    if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SyncError::Invalid(format!(
            "image {hash:?}: not a content hash"
        )));
    }
    match client.get_bytes(&format!("/v1/images/{hash}"))? {
        Some(bytes) => crate::images::store_image(project, hash, bytes),
        None => Ok(false),
    }
}

/// Fetches every image the replica does not have yet, from the service.
pub fn fetch_images(project: &mut Project) -> Result<FetchReport> {
    let (client, _) = client_for(project, &Keyring::default_path()?)?;
    let have: std::collections::HashSet<String> = project.image_hashes()?.into_iter().collect();
    let all: Vec<String> = client.get("/v1/images", &[])?;
    let mut report = FetchReport::default();
    for hash in all.into_iter().filter(|h| !have.contains(h)) {
        match fetch_one(&client, project, &hash) {
            Ok(true) => report.fetched += 1,
            Ok(false) => {}
            Err(SyncError::Invalid(why)) => report.bad.push((hash, why)),
            Err(e) => return Err(e),
        }
    }
    Ok(report)
}

/// The team's members, for a lead (the service refuses anyone else).
pub fn members(project: &Project, keyring: &Path) -> Result<Vec<MemberInfo>> {
    let (client, _) = client_for(project, keyring)?;
    client.get("/v1/members", &[])
}

/// A lead's invitation of `name` as `role`: the join link to hand over.
pub fn invite(
    project: &Project,
    keyring: &Path,
    name: &str,
    role: Role,
    days: Option<u64>,
) -> Result<String> {
    let (client, _) = client_for(project, keyring)?;
    let invited: Invited = client.post(
        "/v1/members/invite",
        &InviteRequest {
            name: name.to_string(),
            role: role.as_str().to_string(),
            days,
        },
    )?;
    Ok(invited.link)
}

/// A lead gives a member another role.
pub fn set_role(project: &Project, keyring: &Path, name: &str, role: Role) -> Result<()> {
    let (client, _) = client_for(project, keyring)?;
    let _: serde_json::Value = client.post(
        "/v1/members/role",
        &RoleRequest {
            name: name.to_string(),
            role: role.as_str().to_string(),
        },
    )?;
    Ok(())
}

/// A lead ends a member's access: how many credentials were revoked.
pub fn revoke(project: &Project, keyring: &Path, name: &str) -> Result<u64> {
    let (client, _) = client_for(project, keyring)?;
    let r: Revoked = client.post(
        "/v1/members/revoke",
        &RevokeRequest {
            name: name.to_string(),
        },
    )?;
    Ok(r.credentials)
}
