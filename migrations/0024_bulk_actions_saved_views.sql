-- Bulk actions on a selection of items (set the operation, tags or status, keep or drop at a
-- stage): each is one transaction, and what it did is kept here so it can be undone as one
-- step. Local to this project file: the revisions and stage decisions it made are what syncs.
CREATE TABLE bulk_actions (
    id         INTEGER PRIMARY KEY,
    label      TEXT NOT NULL,
    author_id  INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL,
    -- The bulk action this one undid (an undo is itself undoable: that is redo).
    undo_of    INTEGER REFERENCES bulk_actions(id),
    undone_by  INTEGER REFERENCES bulk_actions(id)
);
CREATE TABLE bulk_action_items (
    action_id  INTEGER NOT NULL REFERENCES bulk_actions(id),
    item_id    INTEGER NOT NULL REFERENCES items(id),
    -- Revision changes: the revision before and the one the action wrote.
    rev_before INTEGER,
    rev_after  INTEGER,
    -- Stage decisions: the stage, the decision before (NULL: none) and the one made.
    stage_id   INTEGER REFERENCES stages(id),
    keep_before INTEGER,
    keep_after INTEGER,
    PRIMARY KEY (action_id, item_id)
) WITHOUT ROWID;

-- Saved views: a named filter (with its order) and the table's columns. Shared views are
-- offered to everyone in the project (and, in a team, pushed to the team database).
CREATE TABLE saved_views (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    filter     TEXT NOT NULL,
    columns    TEXT NOT NULL,
    author_id  INTEGER NOT NULL REFERENCES users(id),
    shared     INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    -- Latest wins per (author, name); deleting sets this rather than removing the row, so the
    -- deletion syncs like any other change.
    deleted    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX saved_views_name ON saved_views (author_id, name, id);
CREATE TRIGGER saved_views_get_uids AFTER INSERT ON saved_views
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid) VALUES ('saved_views', NEW.id, lower(hex(randomblob(16))));
END;
