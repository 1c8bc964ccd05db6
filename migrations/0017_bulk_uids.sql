-- Originals (revision 0) get their team uid from the importer, written with the batch in uid
-- order (a random prefix per import and the revision's id), instead of a trigger per row that
-- looked up a base and inserted a random uid into the unique index: that trigger made a bulk
-- import about three times slower. Edits (revision > 0) keep the trigger, which records the
-- revision they were based on.
DROP TRIGGER revisions_get_uids;
CREATE TRIGGER revisions_get_uids AFTER INSERT ON revisions WHEN NEW.rev > 0
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid, base_uid)
    VALUES ('revisions', NEW.id, lower(hex(randomblob(16))),
            (SELECT s.uid FROM items i JOIN revisions r ON r.item_id = i.id AND r.rev = i.rev
             JOIN sync_uids s ON s.tbl = 'revisions' AND s.local_id = r.id
             WHERE i.id = NEW.item_id AND r.id != NEW.id));
END;
