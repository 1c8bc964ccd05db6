//! The search indexes of an item, kept in step with its current text: the trigram FTS table
//! (three or more characters), the CJK table (one or two kana, ideographs or Hangul syllables:
//! each distinct character and each distinct pair of adjacent ones is a token, so either query
//! is one index lookup) and, for other short strings, a scan of the items' question and answer
//! columns plus `item_search`, which holds the rest of an item's text (variants, options)
//! lower-cased, for the few items that have any.

use rusqlite::{params, Connection};

use crate::error::Result;
use crate::model::ItemContent;

/// Kana, CJK ideographs or Hangul: characters written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F | 0xFF66..=0xFF9F)
}

/// The distinct CJK characters of a text and the distinct pairs of adjacent CJK characters,
/// space-separated: one FTS5 token each.
pub fn cjk_tokens(text: &str) -> String {
    // Characters and pairs as (first, second) with '\0' for "none", sorted and deduplicated:
    // one allocation instead of a String per token in a set, which was a tenth of an import.
    let mut set: Vec<(char, char)> = Vec::new();
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if is_cjk(c) {
            set.push((c, '\0'));
            if let Some(p) = prev {
                set.push((p, c));
            }
            prev = Some(c);
        } else {
            prev = None;
        }
    }
    set.sort_unstable();
    set.dedup();
    let mut out = String::with_capacity(set.len() * 7);
    for (a, b) in set {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push(a);
        if b != '\0' {
            out.push(b);
        }
    }
    out
}

/// Writes new items' rows in the two full-text indexes: all of one, then all of the other (see
/// `ItemWriter` for why the order matters).
/// Each item is (id, search text, its [`cjk_tokens`]).
pub(crate) fn index_full_text(conn: &Connection, items: &[(i64, String, String)]) -> Result<()> {
    let mut fts = conn.prepare_cached("INSERT INTO items_fts (rowid, body) VALUES (?1, ?2)")?;
    for (id, text, _) in items {
        fts.execute(params![id, text])?;
    }
    let mut cjk = conn.prepare_cached("INSERT INTO items_cjk (rowid, chars) VALUES (?1, ?2)")?;
    for (id, _, tokens) in items {
        if !tokens.is_empty() {
            cjk.execute(params![id, tokens])?;
        }
    }
    Ok(())
}

/// Replaces an item's rows after an edit (held until the transaction's end while
/// `defer_full_text` is in force).
pub(crate) fn reindex(conn: &Connection, item_id: i64, c: &ItemContent) -> Result<()> {
    let text = c.search_text();
    conn.prepare_cached("DELETE FROM item_search WHERE id = ?1")?
        .execute([item_id])?;
    let extras = c.search_extras();
    if !extras.is_empty() {
        conn.prepare_cached("INSERT INTO item_search (id, body) VALUES (?1, ?2)")?
            .execute(params![item_id, extras.to_lowercase()])?;
    }
    let tokens = cjk_tokens(&text);
    if deferring(conn)? {
        conn.prepare_cached(
            "INSERT OR REPLACE INTO temp.search_deferred (item_id, body, chars) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![item_id, text, tokens])?;
        return Ok(());
    }
    conn.prepare_cached("DELETE FROM items_fts WHERE rowid = ?1")?
        .execute([item_id])?;
    conn.prepare_cached("DELETE FROM items_cjk WHERE rowid = ?1")?
        .execute([item_id])?;
    index_full_text(conn, &[(item_id, text, tokens)])
}

/// Holds the full-text rows of the items the open transaction changes until
/// `flush_full_text`, which writes them with one statement per index. FTS5 writes its pending
/// terms to disk at every savepoint and merges segments there, and a pull page opens a savepoint
/// per row: indexing each pulled revision as it came cost about 7 ms on a 100,000-item project
/// (profiled: `fts5SavepointMethod` → `fts5IndexMergeLevel`). A temporary table, so a row or
/// page rolled back leaves nothing to write.
pub(crate) fn defer_full_text(conn: &Connection) -> Result<()> {
    // The tables stay for the connection's life and only their rows come and go: dropping and
    // creating a table, even a temporary one, changes the schema, and SQLite then compiles
    // every cached statement again at its next use (`sqlite3Reprepare`, 8 % of a replica's CPU
    // at fifty annotators). A page rolled back takes its rows, and the flag, with it.
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS search_deferred (
             item_id INTEGER PRIMARY KEY, body TEXT NOT NULL, chars TEXT NOT NULL);
         CREATE TEMP TABLE IF NOT EXISTS search_deferring (on_ INTEGER PRIMARY KEY CHECK (on_ = 1));",
    )?;
    conn.prepare_cached("INSERT OR IGNORE INTO temp.search_deferring (on_) VALUES (1)")?
        .execute([])?;
    Ok(())
}

fn deferring(conn: &Connection) -> Result<bool> {
    let made: bool = conn
        .prepare_cached(
            "SELECT count(*) FROM temp.sqlite_master WHERE type = 'table' AND name = 'search_deferring'",
        )?
        .query_row([], |r| r.get::<_, i64>(0))?
        > 0;
    Ok(made
        && conn
            .prepare_cached("SELECT count(*) FROM temp.search_deferring")?
            .query_row([], |r| r.get::<_, i64>(0))?
            > 0)
}

/// Writes what `defer_full_text` held, and indexes at once again after.
pub(crate) fn flush_full_text(conn: &Connection) -> Result<()> {
    if !deferring(conn)? {
        return Ok(());
    }
    for sql in [
        "DELETE FROM items_fts WHERE rowid IN (SELECT item_id FROM temp.search_deferred)",
        "DELETE FROM items_cjk WHERE rowid IN (SELECT item_id FROM temp.search_deferred)",
        "INSERT INTO items_fts (rowid, body) SELECT item_id, body FROM temp.search_deferred",
        "INSERT INTO items_cjk (rowid, chars)
             SELECT item_id, chars FROM temp.search_deferred WHERE chars <> ''",
        "DELETE FROM temp.search_deferred",
        "DELETE FROM temp.search_deferring",
    ] {
        conn.prepare_cached(sql)?.execute([])?;
    }
    Ok(())
}

/// Fills the CJK table from the items' text (migrations 0004 and 0025), 10,000 items at a time
/// so a large project is never held whole. Reads the question and answer columns and
/// `item_search`, which before migration 0034 repeats them and after it holds the rest: the
/// distinct characters and pairs are the same either way, as a line break ends a pair.
pub(crate) fn backfill_cjk(conn: &Connection) -> Result<()> {
    let mut st = conn.prepare(
        "SELECT i.id, i.question || char(10) || coalesce(i.answer, '') || char(10)
                || coalesce(s.body, '')
         FROM items i LEFT JOIN item_search s ON s.id = i.id
         WHERE i.id > ?1 ORDER BY i.id LIMIT 10000",
    )?;
    let mut ins = conn.prepare("INSERT INTO items_cjk (rowid, chars) VALUES (?1, ?2)")?;
    let mut after = 0i64;
    loop {
        let rows: Vec<(i64, String)> = st
            .query_map([after], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<std::result::Result<_, _>>()?;
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = last.0;
        for (id, text) in rows {
            let cjk = cjk_tokens(&text);
            if !cjk.is_empty() {
                ins.execute(params![id, cjk])?;
            }
        }
    }
}

/// Migration 0034: `item_search` held each item's whole search text lower-cased, its question
/// and answer first (~18 % of a text-only project's file, though the items table holds both).
/// Each row keeps only what follows them, and a row with nothing after them goes. A body that
/// does not start with its item's question and answer as the writer would have lower-cased them
/// (written by some older code) is kept whole: the scan then also reads the question again,
/// which finds nothing the columns do not.
pub(crate) fn keep_extras_only(conn: &Connection) -> Result<()> {
    let mut st = conn.prepare(
        "SELECT s.id, s.body, i.question, i.answer FROM item_search s JOIN items i ON i.id = s.id
         WHERE s.id > ?1 ORDER BY s.id LIMIT 10000",
    )?;
    let mut delete = conn.prepare("DELETE FROM item_search WHERE id = ?1")?;
    let mut update = conn.prepare("UPDATE item_search SET body = ?2 WHERE id = ?1")?;
    let mut after = 0i64;
    loop {
        let rows: Vec<(i64, String, String, Option<String>)> = st
            .query_map([after], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<std::result::Result<_, _>>()?;
        let Some(last) = rows.last() else {
            return Ok(());
        };
        after = last.0;
        for (id, body, question, answer) in rows {
            let mut head = question;
            if let Some(a) = answer {
                head.push('\n');
                head.push_str(&a);
            }
            let head = head.to_lowercase();
            // Older code wrote a line break before every part, empty ones too: what is left
            // after the question and answer may be only line breaks, or start with them.
            match body
                .strip_prefix(head.as_str())
                .map(|rest| rest.trim_start_matches('\n'))
            {
                Some("") => {
                    delete.execute([id])?;
                }
                Some(rest) => {
                    update.execute(params![id, rest])?;
                }
                None => {}
            }
        }
    }
}

/// Whether `haystack`, lower-cased, contains `needle` (already lower-cased): the short-text
/// scan's test on the items' question and answer columns, registered as `folded_contains`.
/// SQLite's own `lower` folds ASCII only. The text comes as SQLite's bytes: the common case
/// (an ASCII needle) never decodes it, and the rest folds into a buffer the thread keeps, so a
/// scan of a million items allocates nothing per row.
pub(crate) fn folded_contains(haystack: &[u8], needle: &str) -> bool {
    let n = needle.as_bytes();
    let Some((&first, rest)) = n.split_first() else {
        return true;
    };
    // Only two characters outside ASCII lower-case to ASCII: KELVIN SIGN (E2 84 AA) to `k` and
    // LATIN CAPITAL LETTER I WITH DOT ABOVE (C4 B0) to `i` and a combining dot. Without them,
    // an ASCII run of the lower-cased text is an ASCII run of the text lower-cased, so an ASCII
    // needle is matched on the text's bytes without folding or even decoding them (which
    // took most of the scan's time).
    if needle.is_ascii() && !folds_into_ascii(haystack) {
        return memchr::memchr2_iter(
            first.to_ascii_lowercase(),
            first.to_ascii_uppercase(),
            haystack,
        )
        .any(|i| {
            haystack
                .get(i + 1..i + n.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(rest))
        });
    }
    if haystack.is_ascii() {
        // The needle is not ASCII here, and a lower-cased ASCII text holds only ASCII.
        return false;
    }
    let Ok(haystack) = std::str::from_utf8(haystack) else {
        return false;
    };
    // A capital sigma lower-cases by its context (final `ς` at a word's end): only the whole
    // text's `to_lowercase` knows, and it is what the search text was folded with before.
    if haystack.contains('\u{3A3}') {
        return haystack.to_lowercase().contains(needle);
    }
    thread_local! {
        static FOLDED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    FOLDED.with_borrow_mut(|folded| {
        folded.clear();
        folded.extend(haystack.chars().flat_map(char::to_lowercase));
        folded.contains(needle)
    })
}

/// Whether a UTF-8 text holds KELVIN SIGN or LATIN CAPITAL LETTER I WITH DOT ABOVE.
fn folds_into_ascii(text: &[u8]) -> bool {
    memchr::memchr2_iter(0xE2, 0xC4, text).any(|i| {
        matches!(
            (text[i], text.get(i + 1), text.get(i + 2)),
            (0xE2, Some(0x84), Some(0xAA)) | (0xC4, Some(0xB0), _)
        )
    })
}

/// Registers [`folded_contains`] on a connection: `folded_contains(text, needle)`, false when
/// either is NULL or not text.
pub(crate) fn register(conn: &Connection) -> Result<()> {
    use rusqlite::functions::FunctionFlags;
    use rusqlite::types::ValueRef;
    conn.create_scalar_function(
        "folded_contains",
        2,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            Ok(match (ctx.get_raw(0), ctx.get_raw(1)) {
                (ValueRef::Text(t), ValueRef::Text(n)) => {
                    std::str::from_utf8(n).is_ok_and(|n| folded_contains(t, n))
                }
                _ => false,
            })
        },
    )?;
    Ok(())
}

/// The two FTS5 tables: what `Project::tidy_search_step` merges and the full-text builder fills.
pub(crate) const FULL_TEXT_INDEXES: [&str; 2] = ["items_fts", "items_cjk"];

/// Revisions since the last whole merge that make the next one due: a hundredth of the items,
/// and at least this many. At a million items 50,000 edits made English searches ~1.5x slower;
/// merging whole rewrites ~300 MB there, so it is not done for a handful of edits.
const TIDY_AFTER_EDITS: i64 = 1_000;

impl crate::Project {
    /// Whether enough has been written since the full-text indexes were last merged whole
    /// (imports and edits both add revisions) for `tidy_search_step` to be worth running.
    pub fn search_tidy_due(&self) -> Result<bool> {
        let (newest, at, items): (i64, i64, i64) = self
            .conn
            .prepare_cached(
                "SELECT (SELECT coalesce(max(id), 0) FROM revisions),
                        (SELECT revisions_at FROM search_tidy WHERE id = 1),
                        (SELECT coalesce(max(id), 0) FROM items)",
            )?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        Ok(newest - at >= TIDY_AFTER_EDITS.max(items / 100))
    }

    /// One bounded step of merging a full-text index's segments whole, in its own short
    /// write. Every edit leaves its item's new rows as a small segment of their own and its
    /// old rows marked deleted inside the big ones, and a search reads every segment: at a
    /// million items, 50,000 edits made the English searches of `bench-store` ~1.5x slower,
    /// and merging brought them back. A negative budget is FTS5's optimize in steps: every
    /// segment is merged into one. Rewrites at most `pages` pages of one index; returns
    /// whether it found work, so an idle caller repeats it while it does (a step with nothing
    /// to do takes microseconds and writes nothing). The step that finds nothing records the
    /// newest revision for `search_tidy_due`.
    pub fn tidy_search_step(&self, pages: u32) -> Result<bool> {
        for index in FULL_TEXT_INDEXES {
            let before = self.conn.total_changes();
            // Table names are the constants above, never data.
            self.conn
                .prepare_cached(&format!(
                    "INSERT INTO {index} ({index}, rank) VALUES ('merge', ?1)"
                ))?
                .execute([-i64::from(pages.max(1))])?;
            // The command itself is one change; any more is a merge's writes.
            if self.conn.total_changes() - before > 1 {
                return Ok(true);
            }
        }
        self.conn
            .prepare_cached(
                "UPDATE search_tidy SET revisions_at = (SELECT coalesce(max(id), 0) FROM revisions)
                 WHERE id = 1",
            )?
            .execute([])?;
        Ok(false)
    }
}

/// A one- or two-character query made only of CJK characters, as an FTS5 match over
/// `items_cjk` (the query is itself one token).
pub(crate) fn cjk_match(query: &str) -> Option<String> {
    let n = query.chars().count();
    ((1..=2).contains(&n) && query.chars().all(is_cjk)).then(|| format!("\"{query}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_distinct_characters_and_adjacent_pairs() {
        // Characters and adjacent pairs; a break (。, Latin, space) starts a new run.
        assert_eq!(
            cjk_tokens("首都は東京。Tokyo 首都"),
            "は は東 京 東 東京 都 都は 首 首都"
        );
        assert_eq!(cjk_tokens("정답 서울"), "답 서 서울 울 정 정답");
        assert_eq!(cjk_match("首都").as_deref(), Some("\"首都\""));
        assert_eq!(cjk_match("の").as_deref(), Some("\"の\""));
        assert_eq!(cjk_match("A社"), None);
        assert_eq!(cjk_match("東京都"), None);
    }

    #[test]
    fn folded_contains_folds_the_text_beyond_ascii() {
        let has = |h: &str, n: &str| folded_contains(h.as_bytes(), n);
        assert!(has("Which BRAND?", "br"));
        assert!(has("Which BRAND?", "d?"));
        assert!(!has("Which BRAND?", "rb"));
        // An ASCII text never holds a non-ASCII needle.
        assert!(!has("Which BRAND?", "é"));
        assert!(has("CAFÉ 東京", "fé"));
        assert!(has("ÀJ", "àj"));
        assert!(has("ΣΟΦΊΑ", "σο"));
        // A word's final capital sigma is a final sigma, as `str::to_lowercase` makes it.
        assert!(has("ΠΟΣΟΣ", "ος"));
        assert!(has("ΠΟΣΟΣ", "οσ"));
        assert!(!has("ΟΣ", "σ"));
        assert!(!has("東京", "京東"));
        assert!(has("", ""));
        assert!(!has("", "a"));
        // The thread's buffer starts clean for each call.
        assert!(has("ÉTÉ long", "lo"));
        assert!(!has("É", "lo"));
        // The two characters that lower-case to ASCII.
        assert!(has("500 \u{212A}M", "km"));
        assert!(has("\u{130}stanbul", "i"));
        assert!(!has("\u{130}stanbul", "is"));
        assert!(has("東京 Tower", "r"));
        // Bytes that only start the two sequences, and an `I` with dot above beside ASCII.
        assert!(has("\u{2100}\u{0100}x", "x"));
        assert!(has("ÀB \u{130}", "i"));
        assert!(!has("ÀB \u{130}", "ib"));
    }

    #[test]
    fn folded_contains_is_the_scan_s_sql_function() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let hit = |t: Option<&str>, n: &str| -> bool {
            conn.query_row("SELECT folded_contains(?1, ?2)", params![t, n], |r| {
                r.get(0)
            })
            .unwrap()
        };
        assert!(hit(Some("Ǯx"), "ǯx"));
        assert!(!hit(None, "a"));
        assert!(!hit(Some("abc"), "z"));
    }

    /// A pull page holds its items' full-text rows until its end; a page rolled back leaves
    /// nothing of them, and the pages after the first change no schema (which would make
    /// SQLite compile every cached statement again).
    #[test]
    fn a_page_indexes_at_its_end_and_a_page_rolled_back_indexes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = crate::Project::create(dir.path().join("p.assay")).unwrap();
        let conn = &p.conn;
        let hits = |word: &str| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM items_fts WHERE items_fts MATCH ?1",
                [word],
                |r| r.get(0),
            )
            .unwrap()
        };
        let schema = || -> (i64, i64) {
            (
                conn.query_row("PRAGMA schema_version", [], |r| r.get(0))
                    .unwrap(),
                conn.query_row("PRAGMA temp.schema_version", [], |r| r.get(0))
                    .unwrap(),
            )
        };
        let content = |q: &str| ItemContent {
            question: q.into(),
            ..Default::default()
        };

        conn.execute_batch("BEGIN").unwrap();
        defer_full_text(conn).unwrap();
        reindex(conn, 1, &content("zebra")).unwrap();
        assert_eq!(hits("zebra"), 0, "held until the page ends");
        conn.execute_batch("ROLLBACK").unwrap();
        assert!(!deferring(conn).unwrap());
        reindex(conn, 2, &content("giraffe")).unwrap();
        assert_eq!(hits("giraffe"), 1, "indexed at once outside a page");

        let mut after_first = None;
        for (id, word) in [(3, "okapi"), (4, "tapir"), (5, "quokka")] {
            conn.execute_batch("BEGIN").unwrap();
            defer_full_text(conn).unwrap();
            reindex(conn, id, &content(word)).unwrap();
            assert_eq!(hits(word), 0, "{word} held until the page ends");
            flush_full_text(conn).unwrap();
            conn.execute_batch("COMMIT").unwrap();
            assert_eq!(hits(word), 1, "{word} indexed once its page ended");
            assert!(!deferring(conn).unwrap());
            match after_first {
                None => after_first = Some(schema()),
                Some(v) => assert_eq!(schema(), v, "a page changed the schema"),
            }
        }
        assert_eq!(hits("zebra"), 0);
    }
}
