//! Users and their roles.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::{now, Project};
use crate::error::{Error, Result};
use crate::model::Role;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct User {
    pub id: i64,
    pub name: String,
    pub role: Role,
}

impl Project {
    /// Returns the user with this name, creating it with `role` if missing. An existing user keeps
    /// its stored role only if it matches; otherwise the role is updated (people change hats).
    pub fn ensure_user(&self, name: &str, role: Role) -> Result<User> {
        let name = name.trim();
        if name.is_empty() {
            return Err(Error::Invalid("a user needs a name".into()));
        }
        self.conn.execute(
            "INSERT INTO users (name, role, created_at) VALUES (?1, ?2, ?3)
             ON CONFLICT(name) DO UPDATE SET role = excluded.role",
            params![name, role.as_str(), now()],
        )?;
        self.user_by_name(name)?
            .ok_or_else(|| Error::NotFound(format!("user {name}")))
    }

    pub fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        Ok(self
            .conn
            .query_row(
                "SELECT id, name, role FROM users WHERE name = ?1",
                [name],
                row_to_user,
            )
            .optional()?)
    }

    pub fn users(&self) -> Result<Vec<User>> {
        let mut st = self
            .conn
            .prepare("SELECT id, name, role FROM users ORDER BY name")?;
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
