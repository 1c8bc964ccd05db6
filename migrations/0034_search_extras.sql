-- `item_search` keeps only the text an item has beyond its question and answer (question
-- variants, options), lower-cased, and only for items that have any: the short-text scan reads
-- the question and answer from `items` (`folded_contains`). Holding the whole text again was
-- ~12 % of a project's file. The rows are cut by the migration step in migrate.rs
-- (`search::keep_extras_only`): SQL's `lower` folds ASCII only, so it cannot tell which
-- bodies start with their item's question and answer as the writer lower-cased them.
SELECT 1;
