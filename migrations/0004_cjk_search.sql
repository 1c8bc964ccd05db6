-- One- and two-character searches in Japanese, Chinese and Korean: trigrams cannot index them,
-- so each item's distinct kana, ideographs and Hangul syllables are indexed one per token.
-- A one-character query is one lookup; a two-character query intersects two and checks the
-- order on the few candidates. Filled for existing items by the migration step in migrate.rs.
CREATE VIRTUAL TABLE items_cjk USING fts5 (
    chars,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61'
);
