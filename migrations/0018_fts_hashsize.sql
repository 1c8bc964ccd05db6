-- FTS5 holds a transaction's new terms in memory up to this size before writing them out as a
-- segment (1 MB by default). 16 MB per index lets an import write a few large segments that
-- need little merging instead of many small ones; an edit's terms are far below either size.
INSERT INTO items_fts (items_fts, rank) VALUES ('hashsize', 16777216);
INSERT INTO items_cjk (items_cjk, rank) VALUES ('hashsize', 16777216);
