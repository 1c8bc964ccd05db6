-- One- and two-character searches in Japanese, Chinese and Korean: trigrams cannot index them,
-- so each item's distinct kana, ideographs and Hangul syllables, and each distinct pair of
-- adjacent ones, are indexed one per token: either query is one lookup. Filled for existing
-- items by the migration step in migrate.rs.
CREATE VIRTUAL TABLE items_cjk USING fts5 (
    chars,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61'
);
