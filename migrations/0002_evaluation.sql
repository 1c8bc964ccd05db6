-- The evaluation engine: models, versioned prompt templates, runs, per-item results, the
-- response cache and human overrules of judgements.

CREATE TABLE models (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    config     TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE prompt_templates (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    version    INTEGER NOT NULL,
    format     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (name, version)
);

CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    model_id    INTEGER NOT NULL REFERENCES models(id),
    dataset_id  INTEGER NOT NULL REFERENCES datasets(id),
    version     TEXT NOT NULL CHECK (version IN ('before', 'after')),
    variant     TEXT NOT NULL,
    run_index   INTEGER NOT NULL,
    template    TEXT NOT NULL,
    scorer      TEXT NOT NULL,
    source      TEXT NOT NULL DEFAULT 'live',
    status      TEXT NOT NULL DEFAULT 'pending',
    created_at  TEXT NOT NULL,
    finished_at TEXT,
    UNIQUE (model_id, dataset_id, version, variant, run_index, template, scorer)
);

-- One row per (run, item) once its response (or final error) has arrived.
CREATE TABLE run_items (
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    item_id   INTEGER NOT NULL REFERENCES items(id),
    item_rev  INTEGER NOT NULL,
    cache_key TEXT,
    outcome   TEXT NOT NULL CHECK (outcome IN ('scored', 'unparsed', 'error', 'skipped')),
    from_cache INTEGER NOT NULL DEFAULT 0,
    score     REAL,
    parsed    TEXT,
    evidence  TEXT,
    error     TEXT,
    PRIMARY KEY (run_id, item_id)
);

CREATE TABLE responses (
    cache_key         TEXT PRIMARY KEY,
    text              TEXT NOT NULL,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    created_at        TEXT NOT NULL
);

CREATE TABLE overrules (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id),
    item_id    INTEGER NOT NULL REFERENCES items(id),
    score      REAL NOT NULL,
    author_id  INTEGER REFERENCES users(id),
    note       TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX overrules_item ON overrules (run_id, item_id);
