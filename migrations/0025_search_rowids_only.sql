-- The full-text indexes keep item ids only (detail = none), no token positions: a search checks
-- its candidates against `item_search` itself (store/query.rs), so positions bought nothing
-- but an index several times larger, slower to fill at import and to merge afterwards. The CJK
-- tokens carry no diacritics to remove. Refilled from `item_search` (the CJK index by the
-- migration step in migrate.rs).
DROP TABLE items_fts;
CREATE VIRTUAL TABLE items_fts USING fts5 (
    body,
    content = '',
    contentless_delete = 1,
    tokenize = 'trigram',
    detail = 'none'
);
INSERT INTO items_fts (items_fts, rank) VALUES ('hashsize', 16777216);
INSERT INTO items_fts (rowid, body) SELECT id, body FROM item_search;

DROP TABLE items_cjk;
CREATE VIRTUAL TABLE items_cjk USING fts5 (
    chars,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0',
    detail = 'none'
);
INSERT INTO items_cjk (items_cjk, rank) VALUES ('hashsize', 16777216);
