-- A hedged multiple-choice reply (several letters offered without commitment) is an outcome of
-- its own, and each result records which version of its scorer's rules produced it, so that
-- numbers rescored with newer rules can be told from older ones (NULL = version 1, before
-- versions were kept). SQLite cannot alter a CHECK: the table is rebuilt.
CREATE TABLE run_items_v2 (
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    item_id   INTEGER NOT NULL REFERENCES items(id),
    item_rev  INTEGER NOT NULL,
    cache_key TEXT,
    outcome   TEXT NOT NULL CHECK (outcome IN ('scored', 'unparsed', 'hedged', 'error', 'skipped')),
    from_cache INTEGER NOT NULL DEFAULT 0,
    score     REAL,
    parsed    TEXT,
    evidence  TEXT,
    error     TEXT,
    scorer    TEXT,
    scorer_version INTEGER CHECK (scorer_version IS NULL OR scorer_version > 0),
    PRIMARY KEY (run_id, item_id)
);
INSERT INTO run_items_v2 (run_id, item_id, item_rev, cache_key, outcome, from_cache, score, parsed, evidence, error, scorer)
    SELECT run_id, item_id, item_rev, cache_key, outcome, from_cache, score, parsed, evidence, error, scorer FROM run_items;
DROP TABLE run_items;
ALTER TABLE run_items_v2 RENAME TO run_items;
