-- The CJK index keeps item ids only (detail = none), no token positions: each of its tokens is
-- a whole query (one character, or a pair), so positions bought nothing but a larger index,
-- slower to fill at import. Its tokens carry no diacritics to remove. Refilled from
-- `item_search` by the migration step in migrate.rs. (The trigram index keeps its positions:
-- without them a search must confirm every candidate against the text, 5x slower.)
DROP TABLE items_cjk;
CREATE VIRTUAL TABLE items_cjk USING fts5 (
    chars,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0',
    detail = 'none'
);
INSERT INTO items_cjk (items_cjk, rank) VALUES ('hashsize', 16777216);
