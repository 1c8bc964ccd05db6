//! Comment threads on items. `@name` in a comment mentions a person who must act; a mention stays
//! open until that person does something on the item afterwards (a revision, a review, a comment).

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::items::Author;
use crate::store::{now, Project};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Comment {
    pub id: i64,
    pub item_id: i64,
    /// The item's revision when the comment was written.
    pub rev: i64,
    pub author: String,
    pub body: String,
    pub mentions: Vec<String>,
    pub created_at: String,
}

/// A comment that mentions someone who has not acted on the item since.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OpenMention {
    pub item_id: i64,
    pub dataset: String,
    pub ext_id: String,
    pub comment: Comment,
}

/// The names after `@` in a comment: letters, digits, `_`, `-` and `.` (a trailing `.` or `-` is
/// punctuation, not part of the name).
pub fn mentioned_names(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find('@') {
        let before = body.len() - rest.len() + at;
        rest = &rest[at + 1..];
        // An address like a@b.c is not a mention.
        if body[..before]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric())
        {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
            .collect();
        let name = name.trim_end_matches(['.', '-']).to_string();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Writes a comment and its mentions inside the caller's transaction. Every mentioned name must
/// be a user of the project, so a mistyped name is an error instead of a silent non-mention.
pub(crate) fn insert_comment(
    conn: &Connection,
    item_id: i64,
    body: &str,
    extra_mentions: &[i64],
    author: &Author,
) -> Result<i64> {
    let body = body.trim();
    if body.is_empty() {
        return Err(Error::Invalid("a comment needs some text".into()));
    }
    let rev: i64 = conn
        .query_row("SELECT rev FROM items WHERE id = ?1", [item_id], |r| {
            r.get(0)
        })
        .optional()?
        .ok_or_else(|| Error::NotFound(format!("item {item_id}")))?;
    let mut ids: Vec<i64> = Vec::new();
    for name in mentioned_names(body) {
        let id: i64 = conn
            .query_row("SELECT id FROM users WHERE name = ?1", [&name], |r| {
                r.get(0)
            })
            .optional()?
            .ok_or_else(|| Error::Invalid(format!("@{name}: no such person in this project")))?;
        ids.push(id);
    }
    for id in extra_mentions {
        if !ids.contains(id) {
            ids.push(*id);
        }
    }
    conn.execute(
        "INSERT INTO comments (item_id, rev, body, author_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![item_id, rev, body, author.user_id, now()],
    )?;
    let comment_id = conn.last_insert_rowid();
    for id in ids {
        conn.execute(
            "INSERT INTO comment_mentions (comment_id, user_id) VALUES (?1, ?2)",
            params![comment_id, id],
        )?;
    }
    Ok(comment_id)
}

const COMMENT_COLUMNS: &str = "c.id, c.item_id, c.rev, u.name, c.body, c.created_at,
    (SELECT group_concat(mu.name, char(31)) FROM comment_mentions m JOIN users mu ON mu.id = m.user_id
     WHERE m.comment_id = c.id)";

fn comment_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Comment> {
    let mentions: Option<String> = r.get(6)?;
    Ok(Comment {
        id: r.get(0)?,
        item_id: r.get(1)?,
        rev: r.get(2)?,
        author: r.get(3)?,
        body: r.get(4)?,
        created_at: r.get(5)?,
        mentions: mentions
            .map(|m| m.split('\u{1f}').map(str::to_string).collect())
            .unwrap_or_default(),
    })
}

impl Project {
    pub fn add_comment(&mut self, item_id: i64, body: &str, author: &Author) -> Result<Comment> {
        let tx = self.conn.transaction()?;
        let id = insert_comment(&tx, item_id, body, &[], author)?;
        tx.commit()?;
        Ok(self.conn.query_row(
            &format!("SELECT {COMMENT_COLUMNS} FROM comments c JOIN users u ON u.id = c.author_id WHERE c.id = ?1"),
            [id],
            comment_row,
        )?)
    }

    /// An item's thread, oldest first.
    pub fn comments(&self, item_id: i64) -> Result<Vec<Comment>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {COMMENT_COLUMNS} FROM comments c JOIN users u ON u.id = c.author_id
             WHERE c.item_id = ?1 ORDER BY c.id"
        ))?;
        let rows = st.query_map([item_id], comment_row)?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }

    /// Mentions of this person that wait for them: nothing done by them on the item since.
    pub fn open_mentions(&self, user_id: i64) -> Result<Vec<OpenMention>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {COMMENT_COLUMNS}, d.name, i.ext_id
             FROM comment_mentions m JOIN comments c ON c.id = m.comment_id
             JOIN users u ON u.id = c.author_id
             JOIN items i ON i.id = c.item_id JOIN datasets d ON d.id = i.dataset_id
             WHERE m.user_id = ?1
               AND NOT EXISTS (SELECT 1 FROM revisions r WHERE r.item_id = c.item_id
                               AND r.author_id = ?1 AND r.rev > c.rev)
               AND NOT EXISTS (SELECT 1 FROM comments c2 WHERE c2.item_id = c.item_id
                               AND c2.author_id = ?1 AND c2.id > c.id)
               AND NOT EXISTS (SELECT 1 FROM review_decisions rd WHERE rd.item_id = c.item_id
                               AND rd.author_id = ?1 AND rd.made_rev > c.rev)
             ORDER BY c.id"
        ))?;
        let rows = st.query_map([user_id], |r| {
            Ok(OpenMention {
                item_id: r.get(1)?,
                comment: comment_row(r)?,
                dataset: r.get(7)?,
                ext_id: r.get(8)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::mentioned_names;

    #[test]
    fn mentions_are_names_after_an_at_sign() {
        assert_eq!(
            mentioned_names("@aiko please fix the answer, cc @min-jun."),
            vec!["aiko", "min-jun"]
        );
        assert_eq!(
            mentioned_names("mail a@b.com, not a mention"),
            Vec::<String>::new()
        );
        assert_eq!(
            mentioned_names("@서연 확인 @aiko @aiko"),
            vec!["서연", "aiko"]
        );
        assert_eq!(mentioned_names("just @ a sign"), Vec::<String>::new());
    }
}
