//! Saved views: a named filter (with its order) and the table columns people keep coming back
//! to ("unreviewed CJK items", "boxes under 1 % of the image"). Each is its author's; a shared
//! one is offered to everyone in the project. Append-only rows, the latest per author and name
//! counting, so a change or a deletion syncs like any other record.

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::items::query::Filter;
use crate::store::items::Author;
use crate::store::{now, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SavedView {
    pub id: i64,
    pub name: String,
    pub filter: Filter,
    /// The table's columns, in order (names the UI knows; unknown ones are ignored there).
    pub columns: Vec<String>,
    pub author: String,
    pub shared: bool,
    /// Whether the person asking wrote it (only they change or delete it).
    pub mine: bool,
}

const NAME_MAX: usize = 80;

impl Project {
    /// Saves (or replaces) this person's view of that name.
    pub fn save_view(
        &mut self,
        name: &str,
        filter: &Filter,
        columns: &[String],
        shared: bool,
        author: &Author,
    ) -> Result<SavedView> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > NAME_MAX {
            return Err(Error::Invalid(format!(
                "a view needs a name of 1 to {NAME_MAX} characters"
            )));
        }
        if filter.ids.len() > 10_000 {
            return Err(Error::Invalid(
                "a saved view keeps a filter; a selection of more than 10,000 items is not one"
                    .into(),
            ));
        }
        let f = serde_json::to_string(filter).map_err(|e| Error::Invalid(e.to_string()))?;
        let c = serde_json::to_string(columns).map_err(|e| Error::Invalid(e.to_string()))?;
        let latest = self.latest_view_row(name, author.user_id)?;
        if latest == Some((false, true)) && !shared {
            // Made private: everyone who saw it shared learns it is gone for them.
            self.insert_deletion(name, author.user_id, true)?;
        }
        self.conn.execute(
            "INSERT INTO saved_views (name, filter, columns, author_id, shared, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![name, f, c, author.user_id, shared, now()],
        )?;
        let id = self.conn.last_insert_rowid();
        self.saved_views(author.user_id)?
            .into_iter()
            .find(|v| v.id == id)
            .ok_or_else(|| Error::NotFound(format!("view {name}")))
    }

    /// Deletes this person's view of that name (others' views are theirs).
    pub fn delete_view(&mut self, name: &str, author: &Author) -> Result<()> {
        let Some((false, shared)) = self.latest_view_row(name, author.user_id)? else {
            return Err(Error::NotFound(format!("your view {name:?}")));
        };
        self.insert_deletion(name, author.user_id, shared)?;
        Ok(())
    }

    /// (deleted, shared) of the latest row of this person's view of that name.
    fn latest_view_row(&self, name: &str, user_id: i64) -> Result<Option<(bool, bool)>> {
        Ok(self
            .conn
            .query_row(
                "SELECT deleted, shared FROM saved_views WHERE author_id = ?1 AND name = ?2
                 ORDER BY id DESC LIMIT 1",
                params![user_id, name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// A deletion is shared when what it ends was: every replica that received the view
    /// receives its end, and the name of a view that was only ever its author's stays theirs
    /// (a view made private had its shared end written then).
    fn insert_deletion(&self, name: &str, user_id: i64, shared: bool) -> Result<()> {
        self.conn.execute(
            "INSERT INTO saved_views (name, filter, columns, author_id, shared, created_at, deleted)
             VALUES (?1, '{}', '[]', ?2, ?3, ?4, 1)",
            params![name, user_id, shared, now()],
        )?;
        Ok(())
    }

    /// The views `user_id` sees: their own and everyone's shared ones, by name.
    pub fn saved_views(&self, user_id: i64) -> Result<Vec<SavedView>> {
        let mut st = self.conn.prepare_cached(
            "SELECT v.id, v.name, v.filter, v.columns, coalesce(u.name, '?'), v.shared, v.author_id
             FROM saved_views v LEFT JOIN users u ON u.id = v.author_id
             WHERE v.id = (SELECT max(id) FROM saved_views w
                           WHERE w.author_id = v.author_id AND w.name = v.name)
               AND v.deleted = 0 AND (v.shared OR v.author_id = ?1)
             ORDER BY v.name, u.name",
        )?;
        let rows = st
            .query_map([user_id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, bool>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            })?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(rows
            .into_iter()
            .filter_map(|(id, name, f, c, author, shared, by)| {
                // A filter this build cannot read is left out rather than widened to every item.
                let filter = serde_json::from_str(&f).ok()?;
                Some(SavedView {
                    id,
                    name,
                    filter,
                    columns: serde_json::from_str(&c).unwrap_or_default(),
                    author,
                    shared,
                    mine: by == user_id,
                })
            })
            .collect())
    }
}
