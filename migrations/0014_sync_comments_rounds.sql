-- Comment threads and rounds travel to the team too: ids for the rows already there and for
-- every new one, like revisions (0011).
INSERT INTO sync_uids (tbl, local_id, uid)
    SELECT 'comments', id, lower(hex(randomblob(16))) FROM comments;
INSERT INTO sync_uids (tbl, local_id, uid)
    SELECT 'rounds', id, lower(hex(randomblob(16))) FROM rounds;

CREATE TRIGGER comments_get_uids AFTER INSERT ON comments
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid) VALUES ('comments', NEW.id, lower(hex(randomblob(16))));
END;
CREATE TRIGGER rounds_get_uids AFTER INSERT ON rounds
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid) VALUES ('rounds', NEW.id, lower(hex(randomblob(16))));
END;
