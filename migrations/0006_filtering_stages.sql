-- Filtering stages (HAERAE-Vision's six by default, editable per project), per-item decisions
-- at each stage by a person or a model run, phase-1 flags on five dimensions, and auditors'
-- overrides of those flags. Decisions, flags and overrides are append-only: the latest row per
-- (item, stage), per (item, dimension, person) and per item counts. The outcome is kept with the
-- item's current state so "dropped at stage N" and "kept" filter on indexed columns.
CREATE TABLE stages (
    id          INTEGER PRIMARY KEY,
    position    INTEGER NOT NULL UNIQUE,
    name        TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT ''
);
INSERT INTO stages (position, name, description) VALUES
    (1, 'Data collection', 'question, image and answer triplets with an accepted or well-received answer'),
    (2, 'Appropriateness filtering', 'content safety, objectivity, time-sensitiveness'),
    (3, 'Difficulty calibration', 'removed when strong models already solve it'),
    (4, 'Image dependency verification', 'removed when the answer does not need the image'),
    (5, 'Checklist generation', '1-5 criteria a correct answer must meet'),
    (6, 'Human validation', 'conservative filtering, refinement, final audit');

CREATE TABLE stage_decisions (
    id         INTEGER PRIMARY KEY,
    item_id    INTEGER NOT NULL REFERENCES items(id),
    stage_id   INTEGER NOT NULL REFERENCES stages(id),
    keep       INTEGER NOT NULL CHECK (keep IN (0, 1)),
    reason     TEXT,
    author_id  INTEGER REFERENCES users(id),
    run_id     INTEGER REFERENCES runs(id),
    created_at TEXT NOT NULL,
    CHECK ((author_id IS NULL) != (run_id IS NULL))
);
CREATE INDEX stage_decisions_item ON stage_decisions (item_id, stage_id, id);

CREATE TABLE phase1_flags (
    id         INTEGER PRIMARY KEY,
    item_id    INTEGER NOT NULL REFERENCES items(id),
    dimension  TEXT NOT NULL CHECK (dimension IN
                   ('image_relevance', 'qa_quality', 'checklist_validity', 'category', 'overall')),
    flagged    INTEGER NOT NULL CHECK (flagged IN (0, 1)),
    note       TEXT,
    author_id  INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL
);
CREATE INDEX phase1_flags_item ON phase1_flags (item_id, id);

CREATE TABLE phase1_overrides (
    id         INTEGER PRIMARY KEY,
    item_id    INTEGER NOT NULL REFERENCES items(id),
    keep       INTEGER NOT NULL CHECK (keep IN (0, 1)),
    note       TEXT,
    author_id  INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL
);
CREATE INDEX phase1_overrides_item ON phase1_overrides (item_id, id);

CREATE TRIGGER stage_decisions_are_immutable BEFORE UPDATE ON stage_decisions
BEGIN SELECT RAISE(ABORT, 'stage decisions are append-only'); END;
CREATE TRIGGER stage_decisions_are_permanent BEFORE DELETE ON stage_decisions
BEGIN SELECT RAISE(ABORT, 'stage decisions are append-only'); END;
CREATE TRIGGER phase1_flags_are_immutable BEFORE UPDATE ON phase1_flags
BEGIN SELECT RAISE(ABORT, 'phase-1 flags are append-only'); END;
CREATE TRIGGER phase1_flags_are_permanent BEFORE DELETE ON phase1_flags
BEGIN SELECT RAISE(ABORT, 'phase-1 flags are append-only'); END;
CREATE TRIGGER phase1_overrides_are_immutable BEFORE UPDATE ON phase1_overrides
BEGIN SELECT RAISE(ABORT, 'overrides are append-only'); END;
CREATE TRIGGER phase1_overrides_are_permanent BEFORE DELETE ON phase1_overrides
BEGIN SELECT RAISE(ABORT, 'overrides are append-only'); END;

-- Outcome with the current state: the position of the earliest stage whose latest decision is
-- "drop" (NULL: not dropped), whether phase-1 flags remove the item, and its source platform.
ALTER TABLE items ADD COLUMN dropped_stage INTEGER;
ALTER TABLE items ADD COLUMN phase1_removed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN source TEXT;
CREATE INDEX items_dropped_stage ON items (dropped_stage) WHERE dropped_stage IS NOT NULL;
CREATE INDEX items_phase1_removed ON items (phase1_removed) WHERE phase1_removed != 0;
UPDATE items SET source = (
    SELECT json_extract(r.content, '$.source') FROM revisions r
    WHERE r.item_id = items.id AND r.rev = items.rev
);
