pub mod export;
pub mod import;

use clap::{Args, Subcommand};

use super::Ctx;
use crate::output;
use assay_core::{Project, Role};

#[derive(Args)]
pub struct NewArgs {
    /// Where to create the project (overrides --project).
    pub path: Option<std::path::PathBuf>,
}

pub fn new(ctx: &Ctx, a: NewArgs) -> anyhow::Result<()> {
    let path = match a.path {
        Some(p) => p,
        None => ctx.path()?.clone(),
    };
    Project::create(&path)?;
    if ctx.json {
        output::json(&serde_json::json!({"created": path}))
    } else {
        println!("created {}", path.display());
        Ok(())
    }
}

pub fn stats(ctx: &Ctx) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let s = p.summary()?;
    if ctx.json {
        return output::json(&s);
    }
    println!(
        "{} items, {} images, {} revisions",
        s.items, s.images, s.revisions
    );
    for d in &s.datasets {
        println!(
            "\n{}  ({} items, {} edited, {} removed)",
            d.dataset, d.items, d.edited, d.removed
        );
        let ops: Vec<String> = d.ops.iter().map(|(o, n)| format!("{o}={n}")).collect();
        let st: Vec<String> = d.statuses.iter().map(|(o, n)| format!("{o}={n}")).collect();
        println!("  ops:    {}", ops.join("  "));
        println!("  status: {}", st.join("  "));
    }
    Ok(())
}

pub fn compact(ctx: &Ctx) -> anyhow::Result<()> {
    let p = ctx.open()?;
    let r = p.compact()?;
    if ctx.json {
        return output::json(&r);
    }
    println!(
        "{:.1} MB -> {:.1} MB ({} free pages given back)",
        r.bytes_before as f64 / 1e6,
        r.bytes_after as f64 / 1e6,
        r.free_pages_before
    );
    Ok(())
}

#[derive(Subcommand)]
pub enum UserCommand {
    /// Add a user: a new person may be an annotator or a researcher (an auditor only as the
    /// project's first person, its owner). An existing person keeps their role.
    Add {
        name: String,
        #[arg(long, default_value = "annotator", value_parser = super::named::<Role>(&Role::NAMES))]
        role: Role,
    },
    /// Give a person a role, as the project's owner or an auditor (`--by`). Refused in a team,
    /// where the team's members table is the only source of roles.
    SetRole {
        name: String,
        #[arg(value_parser = super::named::<Role>(&Role::NAMES))]
        role: Role,
        #[arg(long)]
        by: String,
    },
    /// List users.
    List,
}

pub fn user(ctx: &Ctx, c: UserCommand) -> anyhow::Result<()> {
    let p = ctx.open()?;
    match c {
        UserCommand::Add { name, role } => {
            let u = p.sign_in(&name, role)?;
            if ctx.json {
                output::json(&u)
            } else {
                println!("{} ({})", u.name, u.role.as_str());
                Ok(())
            }
        }
        UserCommand::SetRole { name, role, by } => {
            let u = p.set_role(&by, &name, role)?;
            if ctx.json {
                output::json(&u)
            } else {
                println!("{} ({})", u.name, u.role.as_str());
                Ok(())
            }
        }
        UserCommand::List => {
            let users = p.users()?;
            let owner = p.owner()?;
            if ctx.json {
                let listed: Vec<serde_json::Value> = users
                    .iter()
                    .map(|u| {
                        serde_json::json!({
                            "id": u.id, "name": u.name, "role": u.role,
                            "owner": owner.as_deref() == Some(u.name.as_str()),
                        })
                    })
                    .collect();
                return output::json(&listed);
            }
            for u in users {
                let mark = if owner.as_deref() == Some(u.name.as_str()) {
                    "\towner"
                } else {
                    ""
                };
                println!("{}\t{}{mark}", u.name, u.role.as_str());
            }
            Ok(())
        }
    }
}
