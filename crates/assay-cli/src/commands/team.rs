//! `assay team init|add-member|join`, `assay sync`, `assay conflicts`, `assay resolve`: a project
//! shared through PostgreSQL. Passwords come from the URL, `ASSAY_TEAM_PASSWORD` or `PGPASSWORD`
//! and are never written to the project file.

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
    /// Make a local replica of a team's project at FILE (images come on first view).
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
        TeamCommand::Join { url, file, images } => {
            let (mut p, r) = assay_sync::join(&url, &file)?;
            if images {
                for (hash, why) in assay_sync::fetch_images_at(&url, None, &mut p)?.bad {
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
