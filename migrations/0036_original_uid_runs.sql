-- Originals' team uids as runs, not rows. An import used to write a `sync_uids` row for each
-- original it made (the uid, its unique index, the pending index: 142 MB at a million items, a
-- ninth of the project file). An original's uid is its writer's random prefix and its revision
-- id (`prefix || printf('%016x', id)`), so one row per run of consecutive revision ids says the
-- same. The rows are written from the runs (store/original_uids.rs) before anything reads
-- `sync_uids` for a team: publishing and syncing. Until then the runs count as pending
-- and the edit trigger below takes a base's uid from them.
CREATE TABLE IF NOT EXISTS original_uid_runs (
    first_id INTEGER PRIMARY KEY,
    last_id  INTEGER NOT NULL,
    prefix   TEXT NOT NULL,
    CHECK (last_id >= first_id)
);
-- The one definition of a run's uids, for the trigger below and for writing the rows.
CREATE VIEW IF NOT EXISTS original_run_uids AS
    SELECT r.id AS local_id, o.prefix || printf('%016x', r.id) AS uid
    FROM original_uid_runs o JOIN revisions r ON r.id BETWEEN o.first_id AND o.last_id
    WHERE r.rev = 0;

DROP TRIGGER IF EXISTS revisions_get_uids;
CREATE TRIGGER revisions_get_uids AFTER INSERT ON revisions WHEN NEW.rev > 0
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid, base_uid)
    VALUES ('revisions', NEW.id, lower(hex(randomblob(16))),
            (SELECT coalesce(s.uid, (SELECT v.uid FROM original_run_uids v WHERE v.local_id = r.id))
             FROM items i JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
             LEFT JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = r.id
             WHERE i.id = NEW.item_id AND r.id != NEW.id));
END;
