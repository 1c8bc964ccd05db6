-- When the full-text indexes were last merged whole (`Project::tidy_search_step`): the newest
-- revision then. Merging them whole rewrites both indexes (~300 MB at a million items), so it
-- waits until enough edits (each a revision) have split them again.
CREATE TABLE search_tidy (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    revisions_at INTEGER NOT NULL
);
INSERT INTO search_tidy (id, revisions_at) VALUES (1, 0);
