//! The team's people as the service knows them: invitations, credentials, roles and revocation,
//! all in the team database and written only by the service's login (no member role can read
//! these tables). A member's database role has no login: the service runs their requests as it.

use std::time::Duration;

use assay_core::Role;
use postgres::GenericClient;

use crate::credentials;
use crate::error::{Result, ServiceError};

/// A signed-in member: their name, the role the team gave them, and the database role their
/// requests run as.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    pub role: Role,
    pub db_role: String,
    /// Manages the team's members through the service (made so by the owner only).
    pub lead: bool,
}

pub use assay_sync::service::wire::MemberInfo;

pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn check_name(name: &str) -> Result<()> {
    if name.trim().is_empty() || name.trim() != name || name.len() > 63 || name.contains('\0') {
        return Err(ServiceError::BadRequest(
            "a member needs a name of 1 to 63 bytes without surrounding spaces".into(),
        ));
    }
    Ok(())
}

/// Makes a one-time invitation for `name` with `role`, valid for `valid_for`: the code to hand
/// over (only its hash is kept).
pub fn invite(
    db: &mut impl GenericClient,
    name: &str,
    role: Role,
    valid_for: Duration,
) -> Result<String> {
    invite_as(db, name, role, valid_for, false)
}

/// A lead's invitation (through the service): only of someone new to the team, never a lead;
/// revoking the lead voids it.
pub fn invite_by_lead(
    db: &mut impl GenericClient,
    lead: &str,
    name: &str,
    role: Role,
    valid_for: Duration,
) -> Result<String> {
    // One transaction: an invitation is never left behind without the lead who made it.
    let mut tx = db.transaction()?;
    let db = &mut tx;
    let known = db
        .query_opt("SELECT 1 FROM members WHERE name = $1", &[&name])?
        .is_some()
        || db
            .query_opt(
                "SELECT 1 FROM service_invitations
                 WHERE member = $1 AND used_at IS NULL AND expires_at > now()",
                &[&name],
            )?
            .is_some();
    if known {
        return Err(ServiceError::Forbidden(format!(
            "{name} is a member of this team already (or invited): a lead invites only new \
             people; the team's owner gives an existing member a new credential"
        )));
    }
    let code = invite_as(db, name, role, valid_for, false)?;
    let id = credentials::split(&code).map(|(id, _)| id.to_string());
    db.execute(
        "UPDATE service_invitations SET invited_by = $2 WHERE id = $1",
        &[&id, &lead],
    )?;
    tx.commit()?;
    Ok(code)
}

/// `invite`, making the member a lead when `lead` (the owner's call alone).
pub fn invite_as(
    db: &mut impl GenericClient,
    name: &str,
    role: Role,
    valid_for: Duration,
    lead: bool,
) -> Result<String> {
    check_name(name)?;
    if valid_for.is_zero() || valid_for > Duration::from_secs(90 * 86_400) {
        return Err(ServiceError::BadRequest(
            "an invitation is valid for 1 second to 90 days".into(),
        ));
    }
    let (code, id, hash) = credentials::issue();
    db.execute(
        "INSERT INTO service_invitations (id, member, role, hash, expires_at, lead)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), $6)",
        &[
            &id,
            &name,
            &role.as_str(),
            &hash,
            &(valid_for.as_secs_f64()),
            &lead,
        ],
    )?;
    Ok(code)
}

/// The join link for an invitation `code`: the address and certificate pin the running service
/// recorded in the team database when it started.
pub fn join_link(db: &mut impl GenericClient, code: &str) -> Result<String> {
    let mut read = |key: &str| -> Result<Option<String>> {
        Ok(db
            .query_opt("SELECT value FROM assay_meta WHERE key = $1", &[&key])?
            .map(|r| r.get(0)))
    };
    let url = read("service_url")?;
    let pin = read("service_pin")?;
    match (url, pin) {
        (Some(url), Some(pin)) => Ok(assay_sync::service::JoinLink {
            url,
            invitation: code.to_string(),
            pin,
        }
        .format()),
        _ => Err(ServiceError::BadRequest(
            "start the team service first (assay serve): the link names its address and certificate"
                .into(),
        )),
    }
}

/// The database role a service member's requests run as: one per team and name, no login.
fn service_role(group: &str, name: &str) -> String {
    use sha2::Digest;
    let h = hex::encode(sha2::Sha256::digest(name.as_bytes()));
    format!("{group}_{}", &h[..12])
}

/// Takes an invitation (once): the member, created or given the invitation's role, and a new
/// credential for them.
pub fn redeem(db: &mut postgres::Client, code: &str) -> Result<(Member, String)> {
    let refused =
        || ServiceError::Unauthorized("this invitation is not valid: ask for a new one".into());
    let (id, secret) = credentials::split(code).ok_or_else(refused)?;
    let mut tx = db.transaction()?;
    let row = tx
        .query_opt(
            "SELECT member, role, hash, expires_at > now(), used_at IS NULL, lead
             FROM service_invitations WHERE id = $1 FOR UPDATE",
            &[&id],
        )?
        .ok_or_else(refused)?;
    let (name, role, hash): (String, String, String) = (row.get(0), row.get(1), row.get(2));
    // Used or expired first: an old link costs no argon2 check.
    if !row.get::<_, bool>(4) {
        return Err(ServiceError::Unauthorized(
            "this invitation was used already: ask for a new one".into(),
        ));
    }
    if !row.get::<_, bool>(3) {
        return Err(ServiceError::Unauthorized(
            "this invitation has expired: ask for a new one".into(),
        ));
    }
    if !credentials::verify(secret, &hash) {
        return Err(refused());
    }
    let role = Role::parse(&role).ok_or_else(refused)?;
    let lead: bool = row.get(5);
    tx.execute(
        "UPDATE service_invitations SET used_at = now() WHERE id = $1",
        &[&id],
    )?;
    let member = ensure_member(&mut tx, &name, role, lead)?;
    let (token, cid, chash) = credentials::issue();
    tx.execute(
        "INSERT INTO service_credentials (id, member, hash) VALUES ($1, $2, $3)",
        &[&cid, &name, &chash],
    )?;
    tx.commit()?;
    Ok((member, token))
}

/// The member row and its login-less database role, made or brought to the service's form. A
/// login of the earlier design (a member's own) loses its login and its place in the team's
/// group, so that only the service writes as a member from now on.
fn ensure_member(
    tx: &mut postgres::Transaction<'_>,
    name: &str,
    role: Role,
    lead: bool,
) -> Result<Member> {
    let group: String = tx
        .query_one(
            "SELECT value FROM assay_meta WHERE key = 'member_group'",
            &[],
        )?
        .get(0);
    let db_role = service_role(&group, name);
    let old: Option<String> = tx
        .query_opt("SELECT db_role FROM members WHERE name = $1", &[&name])?
        .map(|r| r.get(0));
    if let Some(old) = old.as_deref().filter(|o| *o != db_role) {
        retire_login(tx, &group, old)?;
    }
    let exists = tx
        .query_opt("SELECT 1 FROM pg_roles WHERE rolname = $1", &[&db_role])?
        .is_some();
    if !exists {
        tx.batch_execute(&format!("CREATE ROLE {} NOLOGIN", quote_ident(&db_role)))?;
    }
    tx.batch_execute(&format!(
        "GRANT {g} TO {r}; GRANT {r} TO CURRENT_USER",
        g = quote_ident(&group),
        r = quote_ident(&db_role)
    ))?;
    tx.execute(
        "INSERT INTO members (name, role, db_role, lead) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE
         SET role = excluded.role, db_role = excluded.db_role, lead = excluded.lead",
        &[&name, &role.as_str(), &db_role, &lead],
    )?;
    Ok(Member {
        name: name.to_string(),
        role,
        db_role,
        lead,
    })
}

/// Ends a member login of the earlier design: no login, out of the team's group, its sessions
/// ended. A role outside this team's group is left alone (it is not this team's).
fn retire_login(tx: &mut postgres::Transaction<'_>, group: &str, old: &str) -> Result<()> {
    let ours = tx
        .query_opt(
            "SELECT 1 FROM pg_roles r, pg_roles g
             WHERE r.rolname = $1 AND g.rolname = $2 AND pg_has_role(r.oid, g.oid, 'MEMBER')
               AND NOT r.rolsuper",
            &[&old, &group],
        )?
        .is_some();
    if ours {
        tx.batch_execute(&format!(
            "ALTER ROLE {o} NOLOGIN; REVOKE {g} FROM {o}",
            o = quote_ident(old),
            g = quote_ident(group)
        ))?;
        tx.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE usename = $1 AND pid <> pg_backend_pid()",
            &[&old],
        )?;
    }
    Ok(())
}

/// The member a credential belongs to, read afresh (role, revocation) on every request; the
/// argon2 check is the caller's (`authenticate` does both).
pub fn member_of_credential(
    db: &mut impl GenericClient,
    id: &str,
) -> Result<Option<(String, Member)>> {
    let row = db.query_opt(
        "SELECT c.hash, c.revoked_at IS NULL, m.name, m.role, m.db_role, m.lead
         FROM service_credentials c JOIN members m ON m.name = c.member WHERE c.id = $1",
        &[&id],
    )?;
    let Some(row) = row else { return Ok(None) };
    if !row.get::<_, bool>(1) {
        return Err(ServiceError::Unauthorized(
            "your access to this team was revoked: ask its lead".into(),
        ));
    }
    let role = Role::parse(&row.get::<_, String>(3))
        .ok_or_else(|| ServiceError::Internal("a member with an unknown role".into()))?;
    Ok(Some((
        row.get(0),
        Member {
            name: row.get(2),
            role,
            db_role: row.get(4),
            lead: row.get(5),
        },
    )))
}

/// The member a credential `ID.SECRET` signs in as.
pub fn authenticate(db: &mut impl GenericClient, token: &str) -> Result<Member> {
    let refused = || ServiceError::Unauthorized("this credential is not one of this team's".into());
    let (id, secret) = credentials::split(token).ok_or_else(refused)?;
    let (hash, member) = member_of_credential(db, id)?.ok_or_else(refused)?;
    if !credentials::verify(secret, &hash) {
        return Err(refused());
    }
    Ok(member)
}

/// Revokes every credential and open invitation of `name`: how many credentials were revoked.
pub fn revoke(db: &mut impl GenericClient, name: &str) -> Result<u64> {
    // One transaction: credentials and invitations are revoked together or not at all.
    let mut tx = db.transaction()?;
    let db = &mut tx;
    let n = db.execute(
        "UPDATE service_credentials SET revoked_at = now() WHERE member = $1 AND revoked_at IS NULL",
        &[&name],
    )?;
    db.execute(
        "UPDATE service_invitations SET used_at = now()
         WHERE (member = $1 OR invited_by = $1) AND used_at IS NULL",
        &[&name],
    )?;
    tx.commit()?;
    Ok(n)
}

/// Gives a member another role (the team's only source of roles).
pub fn set_role(db: &mut impl GenericClient, name: &str, role: Role) -> Result<()> {
    let n = db.execute(
        "UPDATE members SET role = $2 WHERE name = $1",
        &[&name, &role.as_str()],
    )?;
    if n == 0 {
        return Err(ServiceError::BadRequest(format!(
            "{name} is not a member of this team"
        )));
    }
    Ok(())
}

pub fn list(db: &mut impl GenericClient) -> Result<Vec<MemberInfo>> {
    Ok(db
        .query(
            "SELECT m.name, m.role, m.lead,
                    (SELECT count(*) FROM service_credentials c
                     WHERE c.member = m.name AND c.revoked_at IS NULL),
                    (SELECT count(*) FROM service_invitations i
                     WHERE i.member = m.name AND i.used_at IS NULL AND i.expires_at > now())
             FROM members m ORDER BY m.name",
            &[],
        )?
        .iter()
        .map(|r| MemberInfo {
            name: r.get(0),
            role: r.get(1),
            lead: r.get(2),
            active: r.get(3),
            invited: r.get(4),
        })
        .collect())
}

/// `assay team migrate`: a team made with the earlier design (a login per member) moved to the
/// service. Every member login loses its login and its place in the team's group; each member
/// gets an invitation with their current role: (name, code).
pub fn migrate(db: &mut postgres::Client, valid_for: Duration) -> Result<Vec<(String, String)>> {
    let group: String = db
        .query_one(
            "SELECT value FROM assay_meta WHERE key = 'member_group'",
            &[],
        )?
        .get(0);
    let mut tx = db.transaction()?;
    let members: Vec<(String, String, String)> = tx
        .query("SELECT name, role, db_role FROM members ORDER BY name", &[])?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    let mut codes = Vec::new();
    for (name, role, db_role) in members {
        retire_login(&mut tx, &group, &db_role)?;
        let role = Role::parse(&role).unwrap_or(Role::Annotator);
        codes.push((name.clone(), invite(&mut tx, &name, role, valid_for)?));
    }
    tx.commit()?;
    Ok(codes)
}
