-- The project store: datasets, users, content-addressed images, items and their immutable revisions.

CREATE TABLE project_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE users (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    role       TEXT NOT NULL CHECK (role IN ('annotator', 'auditor', 'researcher')),
    created_at TEXT NOT NULL
);

CREATE TABLE datasets (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    layout      TEXT NOT NULL,
    source_path TEXT,
    imported_at TEXT NOT NULL
);

-- Image bytes live in the project file (content-addressed, deduplicated) unless linked in place.
CREATE TABLE images (
    hash      TEXT PRIMARY KEY,
    width     INTEGER NOT NULL,
    height    INTEGER NOT NULL,
    format    TEXT NOT NULL,
    byte_len  INTEGER NOT NULL,
    data      BLOB,
    link_path TEXT,
    CHECK ((data IS NULL) <> (link_path IS NULL))
);

CREATE TABLE image_previews (
    hash     TEXT NOT NULL REFERENCES images(hash),
    max_side INTEGER NOT NULL,
    data     BLOB NOT NULL,
    PRIMARY KEY (hash, max_side)
);

-- One row per item; the columns after `rev` mirror the latest revision so filters use indexes.
CREATE TABLE items (
    id          INTEGER PRIMARY KEY,
    dataset_id  INTEGER NOT NULL REFERENCES datasets(id),
    ext_id      TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    rev         INTEGER NOT NULL,
    format      TEXT NOT NULL,
    category    TEXT,
    op          TEXT,
    tags        INTEGER NOT NULL DEFAULT 0,
    status      TEXT NOT NULL DEFAULT 'todo',
    ref_type    TEXT,
    has_box     INTEGER NOT NULL DEFAULT 0,
    image_count INTEGER NOT NULL DEFAULT 0,
    thumb_hash  TEXT,
    question    TEXT NOT NULL,
    answer      TEXT,
    updated_at  TEXT NOT NULL,
    UNIQUE (dataset_id, ext_id)
);
-- Item ids follow import order, so `ORDER BY id` is dataset-then-file order and every
-- single-column index below also serves the list order (SQLite appends the rowid).
CREATE INDEX items_dataset ON items (dataset_id);
CREATE INDEX items_category ON items (category);
CREATE INDEX items_op ON items (op);
CREATE INDEX items_status ON items (status);
CREATE INDEX items_ref_type ON items (ref_type);
CREATE INDEX items_has_box ON items (has_box);
CREATE INDEX items_tagged ON items (tags) WHERE tags != 0;

CREATE TABLE revisions (
    id         INTEGER PRIMARY KEY,
    item_id    INTEGER NOT NULL REFERENCES items(id),
    rev        INTEGER NOT NULL,
    author_id  INTEGER REFERENCES users(id),
    role       TEXT,
    round      INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    op         TEXT,
    tags       INTEGER NOT NULL DEFAULT 0,
    status     TEXT NOT NULL,
    note       TEXT,
    content    TEXT NOT NULL,
    UNIQUE (item_id, rev)
);

CREATE TRIGGER revisions_are_immutable BEFORE UPDATE ON revisions
BEGIN
    SELECT RAISE(ABORT, 'revisions are immutable');
END;

CREATE TRIGGER revisions_are_permanent BEFORE DELETE ON revisions
BEGIN
    SELECT RAISE(ABORT, 'revisions cannot be deleted');
END;

CREATE TRIGGER items_are_permanent BEFORE DELETE ON items
BEGIN
    SELECT RAISE(ABORT, 'items cannot be deleted; record the remove operation instead');
END;

-- Search text (question, answer, options, variants), lower-cased, in a narrow table so the
-- scan that serves one- and two-character queries reads little.
CREATE TABLE item_search (
    id   INTEGER PRIMARY KEY REFERENCES items(id),
    body TEXT NOT NULL
);

-- Trigram tokens make Japanese and Korean substrings searchable without a word segmenter.
CREATE VIRTUAL TABLE items_fts USING fts5 (
    body,
    content = '',
    contentless_delete = 1,
    tokenize = 'trigram'
);
