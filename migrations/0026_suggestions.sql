-- Model-assisted curation. A suggestion run asks one model, with one versioned prompt
-- template, for one kind of draft over a set of items; each answer is kept as it arrived (raw
-- text, parsed value or the reason it did not parse) against the item revision it was made
-- for. A suggestion never changes an item: a person accepts it (as is or edited), which writes
-- a revision or a stage decision naming it, or rejects it with a reason. Local to this file.
CREATE TABLE suggestion_runs (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    model       TEXT NOT NULL,
    template    TEXT NOT NULL,
    requested   INTEGER NOT NULL,
    status      TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'complete', 'cancelled', 'incomplete')),
    created_at  TEXT NOT NULL,
    finished_at TEXT
);

CREATE TABLE suggestions (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES suggestion_runs(id),
    item_id    INTEGER NOT NULL REFERENCES items(id),
    item_rev   INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    model      TEXT NOT NULL,
    template   TEXT NOT NULL,
    outcome    TEXT NOT NULL CHECK (outcome IN ('parsed', 'unparsed', 'error')),
    value      TEXT,
    raw        TEXT,
    problem    TEXT,
    cache_key  TEXT,
    from_cache INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    CHECK ((outcome = 'parsed') = (value IS NOT NULL))
);
CREATE INDEX suggestions_item ON suggestions (item_id, kind, id);
CREATE INDEX suggestions_run ON suggestions (run_id);
-- One answer per revision, model and template (failed requests are asked again).
CREATE UNIQUE INDEX suggestions_one_answer ON suggestions (item_id, item_rev, kind, model, template)
    WHERE outcome <> 'error';

-- What a person did with a suggestion: one fate each.
CREATE TABLE suggestion_reviews (
    id            INTEGER PRIMARY KEY,
    suggestion_id INTEGER NOT NULL UNIQUE REFERENCES suggestions(id),
    decision      TEXT NOT NULL CHECK (decision IN ('accepted', 'edited', 'rejected')),
    author_id     INTEGER NOT NULL REFERENCES users(id),
    -- What accepting wrote: a revision of the item, or a stage decision (a screening,
    -- difficulty or image-dependency suggestion; the decision names the person, this row the
    -- suggestion and through it the model, template and run).
    rev           INTEGER,
    stage_decision_id INTEGER REFERENCES stage_decisions(id),
    -- The value accepted (after the person's edits), and how far it is from the suggestion.
    value         TEXT,
    edit_distance INTEGER,
    reason        TEXT,
    created_at    TEXT NOT NULL,
    CHECK (decision <> 'rejected' OR (rev IS NULL AND stage_decision_id IS NULL
                                      AND reason IS NOT NULL AND trim(reason) <> '')),
    CHECK (decision = 'rejected' OR rev IS NOT NULL OR stage_decision_id IS NOT NULL)
);

CREATE INDEX suggestion_reviews_decision ON suggestion_reviews (stage_decision_id)
    WHERE stage_decision_id IS NOT NULL;

CREATE TRIGGER suggestions_are_immutable BEFORE UPDATE ON suggestions
BEGIN SELECT RAISE(ABORT, 'suggestions are append-only'); END;
CREATE TRIGGER suggestions_are_permanent BEFORE DELETE ON suggestions
BEGIN SELECT RAISE(ABORT, 'suggestions are append-only'); END;
CREATE TRIGGER suggestion_reviews_are_immutable BEFORE UPDATE ON suggestion_reviews
BEGIN SELECT RAISE(ABORT, 'suggestion reviews are append-only'); END;
CREATE TRIGGER suggestion_reviews_are_permanent BEFORE DELETE ON suggestion_reviews
BEGIN SELECT RAISE(ABORT, 'suggestion reviews are append-only'); END;
