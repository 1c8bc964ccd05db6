//! The search indexes of an item, kept in step with its current text: the trigram FTS table
//! (three or more characters), the lower-cased scan table (anything shorter) and the CJK
//! character table (one or two kana, ideographs or Hangul syllables).

use std::collections::BTreeSet;

use rusqlite::{params, Connection};

use crate::error::Result;
use crate::model::ItemContent;

/// Kana, CJK ideographs or Hangul: characters written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F | 0xFF66..=0xFF9F)
}

/// The distinct CJK characters of a text, space-separated: one token each for FTS5.
pub fn cjk_tokens(text: &str) -> String {
    let set: BTreeSet<char> = text.chars().filter(|c| is_cjk(*c)).collect();
    let mut out = String::with_capacity(set.len() * 4);
    for c in set {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Writes a new item's rows in all three indexes.
pub(crate) fn index_new(conn: &Connection, item_id: i64, c: &ItemContent) -> Result<()> {
    let text = c.search_text();
    conn.prepare_cached("INSERT INTO items_fts (rowid, body) VALUES (?1, ?2)")?
        .execute(params![item_id, text])?;
    conn.prepare_cached("INSERT INTO item_search (id, body) VALUES (?1, ?2)")?
        .execute(params![item_id, text.to_lowercase()])?;
    let cjk = cjk_tokens(&text);
    if !cjk.is_empty() {
        conn.prepare_cached("INSERT INTO items_cjk (rowid, chars) VALUES (?1, ?2)")?
            .execute(params![item_id, cjk])?;
    }
    Ok(())
}

/// Replaces an item's rows after an edit.
pub(crate) fn reindex(conn: &Connection, item_id: i64, c: &ItemContent) -> Result<()> {
    let text = c.search_text();
    conn.prepare_cached("DELETE FROM items_fts WHERE rowid = ?1")?
        .execute([item_id])?;
    conn.prepare_cached("INSERT INTO items_fts (rowid, body) VALUES (?1, ?2)")?
        .execute(params![item_id, text])?;
    conn.prepare_cached("UPDATE item_search SET body = ?2 WHERE id = ?1")?
        .execute(params![item_id, text.to_lowercase()])?;
    conn.prepare_cached("DELETE FROM items_cjk WHERE rowid = ?1")?
        .execute([item_id])?;
    let cjk = cjk_tokens(&text);
    if !cjk.is_empty() {
        conn.prepare_cached("INSERT INTO items_cjk (rowid, chars) VALUES (?1, ?2)")?
            .execute(params![item_id, cjk])?;
    }
    Ok(())
}

/// Fills the CJK table for items written before it existed (migration 0004).
pub(crate) fn backfill_cjk(conn: &Connection) -> Result<()> {
    let mut st = conn.prepare("SELECT id, body FROM item_search")?;
    let rows: Vec<(i64, String)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<std::result::Result<_, _>>()?;
    let mut ins = conn.prepare("INSERT INTO items_cjk (rowid, chars) VALUES (?1, ?2)")?;
    for (id, body) in rows {
        let cjk = cjk_tokens(&body);
        if !cjk.is_empty() {
            ins.execute(params![id, cjk])?;
        }
    }
    Ok(())
}

/// A short query made only of CJK characters, as an FTS5 match over `items_cjk`.
pub(crate) fn cjk_match(query: &str) -> Option<String> {
    let chars: Vec<char> = query.chars().collect();
    if chars.is_empty() || chars.len() > 2 || !chars.iter().all(|c| is_cjk(*c)) {
        return None;
    }
    Some(
        chars
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(" AND "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_distinct_cjk_characters() {
        assert_eq!(
            cjk_tokens("日本の首都は東京。Tokyo 首都"),
            "の は 京 日 本 東 都 首"
        );
        assert_eq!(cjk_tokens("정답은 서울"), "답 서 울 은 정");
        assert_eq!(cjk_match("首都").as_deref(), Some("\"首\" AND \"都\""));
        assert_eq!(cjk_match("の").as_deref(), Some("\"の\""));
        assert_eq!(cjk_match("A社"), None);
        assert_eq!(cjk_match("東京都"), None);
    }
}
