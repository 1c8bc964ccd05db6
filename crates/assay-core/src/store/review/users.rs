//! Users and their roles.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Role;
use crate::store::{now, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct User {
    pub id: i64,
    pub name: String,
    pub role: Role,
}

/// A role someone may or may not start working in, and why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RoleChoice {
    pub role: Role,
    pub why_not: Option<String>,
}

impl Project {
    /// Returns the user with this name, creating it with `role` if missing. An existing user keeps
    /// the role stored for them: a role changes only through `set_role` (or, in a team, the
    /// team's members table). The first user of a project is its owner.
    pub fn ensure_user(&self, name: &str, role: Role) -> Result<User> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::Invalid("a user needs a name".into()));
        }
        self.conn
            .prepare_cached(
                "INSERT INTO users (name, role, created_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(name) DO NOTHING",
            )?
            .execute(params![name, role.as_str(), now()])?;
        self.conn
            .prepare_cached(
                "INSERT OR IGNORE INTO project_meta (key, value)
                 SELECT 'owner', name FROM users ORDER BY id LIMIT 1",
            )?
            .execute([])?;
        self.user_by_name(name)?
            .ok_or_else(|| Error::NotFound(format!("user {name}")))
    }

    /// The person who owns this project (its first user): they assign roles.
    pub fn owner(&self) -> Result<Option<String>> {
        Ok(self
            .conn
            .prepare_cached("SELECT value FROM project_meta WHERE key = 'owner'")?
            .query_row([], |r| r.get(0))
            .optional()?)
    }

    /// Someone starts working under `name` (the start screen, the CLI's `--user/--role`). A known
    /// person works in the role stored for them, whatever they ask for; a new person may be an
    /// annotator or a researcher, and only the first person of a project (its owner) may start
    /// as an auditor. Nobody raises their own role.
    pub fn sign_in(&self, name: &str, requested: Role) -> Result<User> {
        if let Some(u) = self.user_by_name(name.trim())? {
            return Ok(u);
        }
        if let Some(why) = self.new_person_may_not_be(name, requested)? {
            return Err(Error::Forbidden(why));
        }
        self.ensure_user(name, requested)
    }

    /// Each role and whether `name` can start working in it here, with the reason when not:
    /// the start screen shows the choices a person cannot take disabled, by the rule
    /// [`Project::sign_in`] applies.
    pub fn role_choices(&self, name: &str) -> Result<Vec<RoleChoice>> {
        let known = self.user_by_name(name.trim())?;
        Role::ALL
            .iter()
            .map(|&role| {
                let why_not = match &known {
                    Some(u) if u.role != role => Some(format!(
                        "{} works here as {}: the project's owner changes a stored role",
                        u.name,
                        u.role.as_str()
                    )),
                    Some(_) => None,
                    None => self.new_person_may_not_be(name, role)?,
                };
                Ok(RoleChoice { role, why_not })
            })
            .collect()
    }

    /// Why a person new to the project may not start as `role`, if they may not.
    fn new_person_may_not_be(&self, name: &str, role: Role) -> Result<Option<String>> {
        Ok((role == Role::Auditor && self.owner()?.is_some()).then(|| {
            format!(
                "{} is new here: only the project's owner can make someone an auditor \
                 (assay users set-role)",
                name.trim()
            )
        }))
    }

    /// Why `by` may not give people roles here, if they may not: what `set_role` refuses, so a
    /// window can show the choice disabled with the reason before anyone tries.
    pub fn why_not_assign_roles(&self, by: &str) -> Result<Option<String>> {
        if self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM sync_state WHERE key = 'team')")?
            .query_row([], |r| r.get::<_, bool>(0))?
        {
            return Ok(Some(
                "this project is part of a team: roles come from the team's members table (Team \
                 → Members, for its lead)"
                    .into(),
            ));
        }
        let Some(actor) = self.user_by_name(by)? else {
            return Err(Error::NotFound(format!("user {by}")));
        };
        let is_owner = self.owner()?.as_deref() == Some(actor.name.as_str());
        Ok((!is_owner && actor.role != Role::Auditor)
            .then(|| "only the project's owner or an auditor assigns roles".to_string()))
    }

    /// The owner or an auditor gives a person a role. In a team the members table is the only
    /// source of roles, so this is refused there.
    pub fn set_role(&self, by: &str, name: &str, role: Role) -> Result<User> {
        if let Some(why) = self.why_not_assign_roles(by)? {
            return Err(Error::Forbidden(why));
        }
        let actor = self
            .user_by_name(by)?
            .ok_or_else(|| Error::NotFound(format!("user {by}")))?;
        let is_owner = self.owner()?.as_deref() == Some(actor.name.as_str());
        if actor.name == name.trim() && !is_owner && role != actor.role {
            return Err(Error::Forbidden("nobody changes their own role".into()));
        }
        self.ensure_user(name, role)?;
        self.conn
            .prepare_cached("UPDATE users SET role = ?2 WHERE name = ?1")?
            .execute(params![name.trim(), role.as_str()])?;
        self.user_by_name(name.trim())?
            .ok_or_else(|| Error::NotFound(format!("user {name}")))
    }

    /// The team's members with their roles: the team is the only source, so these overwrite.
    pub fn set_team_roles(&mut self, members: &[(String, Role)]) -> Result<()> {
        // Every pull reads the members, and roles seldom change: no write when none did.
        let held: std::collections::HashMap<String, Role> = self
            .users()?
            .into_iter()
            .map(|u| (u.name, u.role))
            .collect();
        let changed: Vec<&(String, Role)> = members
            .iter()
            .filter(|(name, role)| held.get(name) != Some(role))
            .collect();
        if changed.is_empty() {
            return Ok(());
        }
        let tx = self.conn.transaction()?;
        for (name, role) in changed {
            tx.prepare_cached(
                "INSERT INTO users (name, role, created_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(name) DO UPDATE SET role = excluded.role",
            )?
            .execute(params![name, role.as_str(), now()])?;
        }
        tx.commit()?;
        Ok(())
    }

    pub fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        Ok(self
            .conn
            .prepare_cached("SELECT id, name, role FROM users WHERE name = ?1")?
            .query_row([name], row_to_user)
            .optional()?)
    }

    pub fn users(&self) -> Result<Vec<User>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, name, role FROM users ORDER BY name")?;
        let rows = st.query_map([], row_to_user)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

fn row_to_user(r: &rusqlite::Row<'_>) -> rusqlite::Result<User> {
    let role: String = r.get(2)?;
    Ok(User {
        id: r.get(0)?,
        name: r.get(1)?,
        role: Role::parse(&role).unwrap_or(Role::Annotator),
    })
}
