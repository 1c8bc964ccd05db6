-- Saved views (store::saved_views): a named filter with its table columns, by its author. A
-- shared view is read by every member; a private one only by its author (who keeps it across
-- their machines). Append-only like everything else: the latest row per author and name is the
-- view, a deletion is a row saying so. Against a member with psql: nobody writes a view under
-- another's name, nobody reads another's private view, nobody changes or deletes a row.
CREATE TABLE saved_views (
    seq        bigint UNIQUE NOT NULL,
    uid        text PRIMARY KEY,
    name       text NOT NULL CONSTRAINT name_bounded CHECK (length(name) BETWEEN 1 AND 80),
    -- The filter with dataset ids replaced by names (ids are each replica's own).
    filter     jsonb NOT NULL,
    datasets   jsonb NOT NULL DEFAULT '[]',
    columns    jsonb NOT NULL,
    author     text NOT NULL REFERENCES members(name),
    shared     boolean NOT NULL,
    deleted    boolean NOT NULL DEFAULT false,
    created_at text NOT NULL,
    CONSTRAINT filter_is_object CHECK (jsonb_typeof(filter) = 'object'),
    CONSTRAINT lists_are_arrays CHECK (jsonb_typeof(datasets) = 'array' AND jsonb_typeof(columns) = 'array'),
    CONSTRAINT view_bounded CHECK (octet_length(filter::text) + octet_length(datasets::text)
                                   + octet_length(columns::text) <= 65536)
);
CREATE TRIGGER a_stamp BEFORE INSERT ON saved_views FOR EACH ROW
    EXECUTE FUNCTION assay_stamp();
CREATE TRIGGER saved_views_append_only BEFORE UPDATE OR DELETE ON saved_views
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();

ALTER TABLE saved_views ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_shared_or_own ON saved_views FOR SELECT USING (shared OR author = assay_me());
CREATE POLICY write_own ON saved_views FOR INSERT WITH CHECK (author = assay_me());
DO $$
DECLARE g text := (SELECT value FROM assay_meta WHERE key = 'member_group');
BEGIN
    EXECUTE format('GRANT SELECT, INSERT ON saved_views TO %I', g);
END $$;


-- Who wrote a revision's content: a member who made a revision in its history that changed the
-- content, operation or tags to exactly these. A revision that only changes the status (a
-- review's record, a flag, a bulk "to do") writes nothing, and an undo or restore bringing back
-- someone's content leaves them its writer; before, the walk stopped at the first revision that
-- was not a review's record, so a colleague's flag let the author approve their own work.
CREATE OR REPLACE FUNCTION assay_wrote(rev text, who text) RETURNS boolean LANGUAGE sql VOLATILE
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
    WITH RECURSIVE chain AS (
        SELECT r.uid, r.base_uid, r.author, r.content, r.op, r.tags
        FROM revisions r WHERE r.uid = rev
        UNION ALL
        SELECT p.uid, p.base_uid, p.author, p.content, p.op, p.tags
        FROM revisions p JOIN chain c ON p.uid = c.base_uid)
    SELECT EXISTS (
        SELECT 1 FROM chain c
        JOIN revisions h ON h.uid = rev
        LEFT JOIN revisions b ON b.uid = c.base_uid
        WHERE c.author = who
          AND c.content = h.content AND c.op IS NOT DISTINCT FROM h.op AND c.tags = h.tags
          AND (b.uid IS NULL OR b.content <> c.content OR b.op IS DISTINCT FROM c.op
               OR b.tags <> c.tags)) $$;

UPDATE assay_meta SET value = '7' WHERE key = 'schema';
