-- Why a model's response failed (JAMMEval's error analysis: perception, OCR, reasoning,
-- knowledge, judge, annotation, refusal; a project may add its own): set or withdrawn by a
-- person per (run, item, tag). Append-only; the latest row per (run, item, tag) stands.
CREATE TABLE failure_tags (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    item_id    INTEGER NOT NULL REFERENCES items(id),
    tag        TEXT NOT NULL CHECK (length(trim(tag)) > 0),
    tagged     INTEGER NOT NULL CHECK (tagged IN (0, 1)),
    author_id  INTEGER REFERENCES users(id),
    created_at TEXT NOT NULL
);
CREATE INDEX failure_tags_item ON failure_tags (run_id, item_id, tag, id);
CREATE TRIGGER failure_tags_are_immutable BEFORE UPDATE ON failure_tags
BEGIN SELECT RAISE(ABORT, 'failure tags are append-only'); END;
CREATE TRIGGER failure_tags_are_permanent BEFORE DELETE ON failure_tags
BEGIN SELECT RAISE(ABORT, 'failure tags are append-only'); END;
