//! The team's people: a login role each, in this team's group only, and the member row that maps
//! it to their name and Assay role (the only source of roles in a team). Run by the owner.

use crate::connect::connect;
use crate::schema::member_group;
use crate::{Result, SyncError};

/// Sessions one member may hold at once, so one login cannot use up the server's connections.
const CONNECTION_LIMIT: i32 = 16;

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn quote_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// Adds a person to the team (or sets their role and password again). The password reaches the
/// server only as a SCRAM-SHA-256 verifier computed here. A login of the same name that belongs
/// to someone outside this team (another team on the same server) is refused, not taken over.
pub fn add_member(
    admin_url: &str,
    name: &str,
    role: assay_core::Role,
    password: &str,
) -> Result<()> {
    if name.trim().is_empty() || name.len() > 63 {
        return Err(SyncError::Invalid(
            "a member needs a name of 1 to 63 bytes".into(),
        ));
    }
    let mut db = connect(admin_url)?;
    let group = member_group(&mut db)?;
    let mut tx = db.transaction()?;
    let existing = tx.query_opt(
        "SELECT pg_has_role(r.oid, g.oid, 'MEMBER'), r.rolsuper
         FROM pg_roles r, pg_roles g WHERE r.rolname = $1 AND g.rolname = $2",
        &[&name, &group],
    )?;
    let verifier = postgres_protocol::password::scram_sha_256(password.as_bytes());
    match existing {
        None => tx.batch_execute(&format!(
            "CREATE ROLE {} LOGIN CONNECTION LIMIT {CONNECTION_LIMIT} PASSWORD {}",
            quote_ident(name),
            quote_literal(&verifier)
        ))?,
        Some(r) if r.get::<_, bool>(1) => {
            return Err(SyncError::Invalid(format!(
                "{name} is a superuser of this server: choose another name"
            )))
        }
        // Only a login already in this team's group is this team's to reset.
        Some(r) if r.get::<_, bool>(0) => tx.batch_execute(&format!(
            "ALTER ROLE {} LOGIN PASSWORD {}",
            quote_ident(name),
            quote_literal(&verifier)
        ))?,
        Some(_) => {
            return Err(SyncError::Invalid(format!(
                "a login named {name} already exists on this server outside this team: \
                 choose another name"
            )))
        }
    }
    tx.batch_execute(&format!(
        "GRANT {} TO {}",
        quote_ident(&group),
        quote_ident(name)
    ))?;
    tx.execute(
        "INSERT INTO members (name, role, db_role) VALUES ($1, $2, $1)
         ON CONFLICT (name) DO UPDATE SET role = excluded.role",
        &[&name, &role.as_str()],
    )?;
    tx.commit()?;
    Ok(())
}
