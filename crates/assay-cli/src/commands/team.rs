//! `assay team init|invite|members|set-role|revoke|migrate|join`, `assay sync`, `assay
//! conflicts`, `assay resolve`: a project shared through the team service (`assay serve`), or
//! for a team of the earlier design straight through PostgreSQL. The owner's commands take the
//! database URL; its password comes from the URL, `ASSAY_TEAM_PASSWORD` or `PGPASSWORD` and is
//! never written to the project file. Members' credentials live in their own keyring file.

use clap::{Args, Subcommand};

use super::review::person;
use super::{named, Ctx};
use crate::output;
use assay_core::Role;

#[derive(Subcommand)]
pub enum TeamCommand {
    /// Publish this project to an empty PostgreSQL database (as its owner).
    Init { url: String },
    /// Give a person a login of their own (password from ASSAY_MEMBER_PASSWORD).
    AddMember {
        url: String,
        name: String,
        #[arg(long, value_parser = named::<Role>(&Role::NAMES))]
        role: Role,
    },
    /// Invite a person to the team service (as the owner): prints a one-time join link.
    Invite {
        url: String,
        name: String,
        #[arg(long, value_parser = named::<Role>(&Role::NAMES))]
        role: Role,
        /// Days the invitation stays valid.
        #[arg(long, default_value_t = 7)]
        days: u64,
        /// Make them a lead: they manage the team's members from the app.
        #[arg(long)]
        lead: bool,
    },
    /// The team's members, their roles, credentials and open invitations (as the owner).
    Members { url: String },
    /// Give a member another role (as the owner).
    SetRole {
        url: String,
        name: String,
        #[arg(long, value_parser = named::<Role>(&Role::NAMES))]
        role: Role,
    },
    /// End a member's access: every credential and open invitation (as the owner).
    Revoke { url: String, name: String },
    /// Move a team of member logins (the earlier design) to the team service: the logins end
    /// and each member gets a join link (as the owner).
    Migrate {
        url: String,
        #[arg(long, default_value_t = 7)]
        days: u64,
    },
    /// Make a local replica of a team's project at FILE from a join link (`assay-join:…`) or,
    /// for a team of the earlier design, a database URL (images come on first view).
    Join {
        url: String,
        file: std::path::PathBuf,
        /// Fetch every image now, to work offline.
        #[arg(long)]
        images: bool,
    },
    /// Fetch every image this replica does not have yet.
    FetchImages,
    /// Bring a team database published by an older Assay up to this version's rules (as its
    /// owner; each step is one transaction).
    Upgrade { url: String },
}

#[derive(Args)]
pub struct ResolveArgs {
    pub dataset: String,
    pub id: String,
    /// The revision (uid, from `assay conflicts`) whose content to keep.
    #[arg(long)]
    pub keep: String,
    #[arg(long)]
    pub user: String,
}

pub fn team(ctx: &Ctx, c: TeamCommand) -> anyhow::Result<()> {
    match c {
        TeamCommand::Init { url } => {
            let mut p = ctx.open()?;
            let r = assay_sync::init(&url, &mut p)?;
            if ctx.json {
                return output::json(&serde_json::json!({"pushed": r.pushed}));
            }
            println!(
                "published to {} ({} revisions of people's work)",
                assay_sync::redact(&url),
                r.pushed
            );
        }
        TeamCommand::AddMember { url, name, role } => {
            let pw = std::env::var("ASSAY_MEMBER_PASSWORD").map_err(|_| {
                anyhow::anyhow!("set ASSAY_MEMBER_PASSWORD to the new member's password")
            })?;
            assay_sync::add_member(&url, &name, role, &pw)?;
            println!("{name} ({role}) can log in");
        }
        TeamCommand::Upgrade { url } => {
            let n = assay_sync::upgrade(&url)?;
            if ctx.json {
                return output::json(&serde_json::json!({"steps": n}));
            }
            println!("{}: {n} schema steps applied", assay_sync::redact(&url));
        }
        TeamCommand::FetchImages => {
            let mut p = ctx.open()?;
            let r = assay_sync::fetch_images(&mut p, None)?;
            println!("{} images fetched", r.fetched);
            for (hash, why) in &r.bad {
                eprintln!("skipped image {hash}: {why}");
            }
        }
        TeamCommand::Invite {
            url,
            name,
            role,
            days,
            lead,
        } => {
            let mut db = assay_sync::connect_admin(&url)?;
            let code = assay_server::members::invite_as(&mut db, &name, role, days_of(days), lead)?;
            let link = assay_server::members::join_link(&mut db, &code)?;
            if ctx.json {
                return output::json(&serde_json::json!({"name": name, "link": link}));
            }
            println!("{name} ({role}) joins with (once, within {days} days):\n{link}");
        }
        TeamCommand::Members { url } => {
            let list = assay_server::members::list(&mut assay_sync::connect_admin(&url)?)?;
            if ctx.json {
                return output::json(&list);
            }
            for m in list {
                println!(
                    "{}\t{}\t{} credentials\t{} invitations open",
                    m.name, m.role, m.active, m.invited
                );
            }
        }
        TeamCommand::SetRole { url, name, role } => {
            assay_server::members::set_role(&mut assay_sync::connect_admin(&url)?, &name, role)?;
            println!("{name} is now {role}");
        }
        TeamCommand::Revoke { url, name } => {
            let n = assay_server::members::revoke(&mut assay_sync::connect_admin(&url)?, &name)?;
            println!("{name}: {n} credentials revoked");
        }
        TeamCommand::Migrate { url, days } => {
            let mut db = assay_sync::connect_admin(&url)?;
            let codes = assay_server::members::migrate(&mut db, days_of(days))?;
            let mut links = Vec::new();
            for (name, code) in codes {
                links.push((name, assay_server::members::join_link(&mut db, &code)?));
            }
            if ctx.json {
                return output::json(&links);
            }
            for (name, link) in links {
                println!("{name}\t{link}");
            }
        }
        TeamCommand::Join { url, file, images } => {
            let service = url.starts_with("assay-join:");
            let (mut p, r) = if service {
                let ring = assay_sync::service::Keyring::default_path()?;
                assay_sync::service::join_service(&url, &file, &ring)?
            } else {
                assay_sync::join(&url, &file)?
            };
            if images {
                let fetched = if service {
                    assay_sync::fetch_images(&mut p, None)?
                } else {
                    assay_sync::fetch_images_at(&url, None, &mut p)?
                };
                for (hash, why) in fetched.bad {
                    eprintln!("skipped image {hash}: {why}");
                }
            }
            if ctx.json {
                return output::json(&serde_json::json!({"pulled": r.pulled, "file": file}));
            }
            println!(
                "{}: replica with {} items, {} rows of history pulled",
                file.display(),
                p.summary()?.items,
                r.pulled
            );
        }
    }
    Ok(())
}

fn days_of(days: u64) -> std::time::Duration {
    std::time::Duration::from_secs(days.saturating_mul(86_400))
}

pub fn sync(ctx: &Ctx) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let r = assay_sync::sync_stored(&mut p, None)?;
    let status = p.sync_status()?;
    let refused = p.refused_rows()?;
    if ctx.json {
        return output::json(&serde_json::json!({
            "pushed": r.pushed, "pulled": r.pulled, "new_conflicts": r.conflicts,
            "status": status, "refused": refused,
        }));
    }
    println!(
        "pushed {}, pulled {}; {} conflicts open, {} rows pending",
        r.pushed, r.pulled, status.conflicts, status.pending
    );
    for (table, uid, why) in refused {
        println!("refused by the team: {table} {uid}: {why}");
    }
    Ok(())
}

pub fn conflicts(ctx: &Ctx) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let list = p.sync_conflicts()?;
    if ctx.json {
        return output::json(&list);
    }
    for c in list {
        println!(
            "{} / {}: current {} · other {}",
            c.dataset, c.ext_id, c.head_uid, c.other_uid
        );
    }
    Ok(())
}

pub fn resolve(ctx: &Ctx, a: ResolveArgs) -> anyhow::Result<()> {
    let mut p = ctx.open()?;
    let id = p.item_id_by_ext(&a.dataset, &a.id)?;
    let who = person(&p, &a.user)?;
    let rev = p.resolve_conflict(id, &a.keep, &who)?;
    println!(
        "{} / {}: kept {} as revision {rev}",
        a.dataset, a.id, a.keep
    );
    Ok(())
}
