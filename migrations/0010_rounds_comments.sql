-- Rounds of work with their assignments, and comment threads on items with mentions of who must
-- act. All append-only, like revisions: a round's items and people are fixed when it is made.
CREATE TABLE rounds (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE CHECK (length(trim(name)) > 0),
    purpose    TEXT NOT NULL CHECK (purpose IN ('annotate', 'review', 'audit')),
    overlap    REAL NOT NULL CHECK (overlap >= 0 AND overlap <= 1),
    created_by INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL
);

CREATE TABLE round_items (
    round_id INTEGER NOT NULL REFERENCES rounds(id),
    user_id  INTEGER NOT NULL REFERENCES users(id),
    item_id  INTEGER NOT NULL REFERENCES items(id),
    -- The item's revision when assigned: an annotator is done once they add a later one.
    rev      INTEGER NOT NULL,
    PRIMARY KEY (round_id, user_id, item_id)
) WITHOUT ROWID;
CREATE INDEX round_items_item ON round_items (item_id, round_id);

CREATE TABLE comments (
    id         INTEGER PRIMARY KEY,
    item_id    INTEGER NOT NULL REFERENCES items(id),
    rev        INTEGER NOT NULL,
    body       TEXT NOT NULL CHECK (length(trim(body)) > 0),
    author_id  INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL
);
CREATE INDEX comments_item ON comments (item_id, id);

CREATE TABLE comment_mentions (
    comment_id INTEGER NOT NULL REFERENCES comments(id),
    user_id    INTEGER NOT NULL REFERENCES users(id),
    PRIMARY KEY (comment_id, user_id)
) WITHOUT ROWID;
CREATE INDEX comment_mentions_user ON comment_mentions (user_id, comment_id);

-- The revision a review decision appended, so agreement counts annotators' own revisions and not
-- a reviewer's record of approving them.
ALTER TABLE review_decisions ADD COLUMN made_rev INTEGER;

CREATE TRIGGER rounds_are_immutable BEFORE UPDATE ON rounds
BEGIN SELECT RAISE(ABORT, 'rounds are append-only'); END;
CREATE TRIGGER rounds_are_permanent BEFORE DELETE ON rounds
BEGIN SELECT RAISE(ABORT, 'rounds are append-only'); END;
CREATE TRIGGER round_items_are_immutable BEFORE UPDATE ON round_items
BEGIN SELECT RAISE(ABORT, 'assignments are append-only'); END;
CREATE TRIGGER round_items_are_permanent BEFORE DELETE ON round_items
BEGIN SELECT RAISE(ABORT, 'assignments are append-only'); END;
CREATE TRIGGER comments_are_immutable BEFORE UPDATE ON comments
BEGIN SELECT RAISE(ABORT, 'comments are append-only'); END;
CREATE TRIGGER comments_are_permanent BEFORE DELETE ON comments
BEGIN SELECT RAISE(ABORT, 'comments are append-only'); END;
CREATE TRIGGER comment_mentions_are_immutable BEFORE UPDATE ON comment_mentions
BEGIN SELECT RAISE(ABORT, 'mentions are append-only'); END;
CREATE TRIGGER comment_mentions_are_permanent BEFORE DELETE ON comment_mentions
BEGIN SELECT RAISE(ABORT, 'mentions are append-only'); END;
