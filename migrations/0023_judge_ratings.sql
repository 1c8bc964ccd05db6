-- People rating a judge's decisions (HAERAE-Vision's human check of its checklist judge): a
-- 1-5 rating of one judged result of a run, by one person. Each rating keeps the response,
-- revision and score the decision was made on, so a rating of a decision that has since changed
-- (the run was run again or rescored, the item revised) is kept but no longer counts. Append-only; the latest rating
-- per person and result counts.
CREATE TABLE judge_ratings (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    item_id      INTEGER NOT NULL REFERENCES items(id),
    item_rev     INTEGER NOT NULL,
    response_key TEXT,
    judge_score  REAL,
    rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    note         TEXT,
    author_id    INTEGER NOT NULL REFERENCES users(id),
    created_at   TEXT NOT NULL
);
CREATE INDEX judge_ratings_run ON judge_ratings (run_id, item_id, author_id, id);

CREATE TRIGGER judge_ratings_are_immutable BEFORE UPDATE ON judge_ratings
BEGIN SELECT RAISE(ABORT, 'judge ratings are append-only'); END;
CREATE TRIGGER judge_ratings_are_permanent BEFORE DELETE ON judge_ratings
BEGIN SELECT RAISE(ABORT, 'judge ratings are append-only'); END;
CREATE TRIGGER judge_ratings_get_uids AFTER INSERT ON judge_ratings
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid) VALUES ('judge_ratings', NEW.id, lower(hex(randomblob(16))));
END;
