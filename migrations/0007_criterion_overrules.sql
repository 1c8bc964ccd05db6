-- A person's rating of one checklist criterion in one run's judgement, over the judge's (which
-- stays in run_items.evidence). The item's overruled score (overrules table) is written with it
-- in the same transaction, so tables and S_final read one place.
CREATE TABLE criterion_overrules (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    item_id    INTEGER NOT NULL REFERENCES items(id),
    criterion  INTEGER NOT NULL CHECK (criterion >= 0),
    rating     REAL NOT NULL CHECK (rating IN (0, 0.5, 1)),
    author_id  INTEGER REFERENCES users(id),
    note       TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX criterion_overrules_item ON criterion_overrules (run_id, item_id, criterion, id);
CREATE TRIGGER criterion_overrules_are_immutable BEFORE UPDATE ON criterion_overrules
BEGIN SELECT RAISE(ABORT, 'overrules are append-only'); END;
CREATE TRIGGER criterion_overrules_are_permanent BEFORE DELETE ON criterion_overrules
BEGIN SELECT RAISE(ABORT, 'overrules are append-only'); END;
