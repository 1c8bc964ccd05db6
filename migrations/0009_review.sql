-- Review and the auditor's final pass: reviewers' decisions on a revision (never their own), and
-- auditors' sign-offs, which lock an item until an auditor reopens it. Append-only; the latest
-- sign-off row per item stands and is kept on the item for filters and the edit rule.
CREATE TABLE review_decisions (
    id         INTEGER PRIMARY KEY,
    item_id    INTEGER NOT NULL REFERENCES items(id),
    rev        INTEGER NOT NULL,
    decision   TEXT NOT NULL CHECK (decision IN ('approve', 'request_changes')),
    comment    TEXT,
    author_id  INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL
);
CREATE INDEX review_decisions_item ON review_decisions (item_id, id);

CREATE TABLE signoffs (
    id         INTEGER PRIMARY KEY,
    item_id    INTEGER NOT NULL REFERENCES items(id),
    rev        INTEGER NOT NULL,
    signed     INTEGER NOT NULL CHECK (signed IN (0, 1)),
    note       TEXT,
    author_id  INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL
);
CREATE INDEX signoffs_item ON signoffs (item_id, id);

CREATE TRIGGER review_decisions_are_immutable BEFORE UPDATE ON review_decisions
BEGIN SELECT RAISE(ABORT, 'review decisions are append-only'); END;
CREATE TRIGGER review_decisions_are_permanent BEFORE DELETE ON review_decisions
BEGIN SELECT RAISE(ABORT, 'review decisions are append-only'); END;
CREATE TRIGGER signoffs_are_immutable BEFORE UPDATE ON signoffs
BEGIN SELECT RAISE(ABORT, 'sign-offs are append-only'); END;
CREATE TRIGGER signoffs_are_permanent BEFORE DELETE ON signoffs
BEGIN SELECT RAISE(ABORT, 'sign-offs are append-only'); END;

ALTER TABLE items ADD COLUMN signed_off INTEGER NOT NULL DEFAULT 0;
CREATE INDEX items_signed_off ON items (signed_off) WHERE signed_off != 0;
