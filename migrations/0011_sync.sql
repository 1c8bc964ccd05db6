-- Team replicas: every shared row gets a globally unique id the moment it is written, whoever
-- writes it (the triggers below), so a replica can push what is new and recognise its own rows
-- when they come back. Local bookkeeping, not history: these tables may be updated.
CREATE TABLE sync_uids (
    tbl      TEXT NOT NULL,
    local_id INTEGER NOT NULL,
    uid      TEXT NOT NULL UNIQUE,
    -- The revision that was current when this one was written (revisions only).
    base_uid TEXT,
    -- Set once the team database has the row; seq is its position there.
    pushed   INTEGER NOT NULL DEFAULT 0,
    seq      INTEGER,
    PRIMARY KEY (tbl, local_id)
) WITHOUT ROWID;
CREATE INDEX sync_uids_pending ON sync_uids (pushed, tbl) WHERE pushed = 0;

CREATE TABLE sync_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Two revisions written on the same base by different replicas: both kept, the item marked until
-- a person resolves it with a new revision.
CREATE TABLE sync_conflicts (
    id          INTEGER PRIMARY KEY,
    item_id     INTEGER NOT NULL REFERENCES items(id),
    head_uid    TEXT NOT NULL,
    other_uid   TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    resolved_by TEXT
);
CREATE INDEX sync_conflicts_open ON sync_conflicts (item_id) WHERE resolved_by IS NULL;

INSERT INTO sync_uids (tbl, local_id, uid)
    SELECT 'revisions', id, lower(hex(randomblob(16))) FROM revisions;
INSERT INTO sync_uids (tbl, local_id, uid)
    SELECT 'review_decisions', id, lower(hex(randomblob(16))) FROM review_decisions;
INSERT INTO sync_uids (tbl, local_id, uid)
    SELECT 'signoffs', id, lower(hex(randomblob(16))) FROM signoffs;
UPDATE sync_uids SET base_uid = (
    SELECT s.uid FROM revisions r JOIN revisions p ON p.item_id = r.item_id AND p.rev = r.rev - 1
    JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = p.id
    WHERE r.id = sync_uids.local_id)
WHERE tbl = 'revisions';

CREATE TRIGGER revisions_get_uids AFTER INSERT ON revisions
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid, base_uid)
    VALUES ('revisions', NEW.id, lower(hex(randomblob(16))),
            (SELECT s.uid FROM items i JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
             JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = r.id
             WHERE i.id = NEW.item_id AND r.id != NEW.id));
END;
CREATE TRIGGER review_decisions_get_uids AFTER INSERT ON review_decisions
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid) VALUES ('review_decisions', NEW.id, lower(hex(randomblob(16))));
END;
CREATE TRIGGER signoffs_get_uids AFTER INSERT ON signoffs
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid) VALUES ('signoffs', NEW.id, lower(hex(randomblob(16))));
END;
