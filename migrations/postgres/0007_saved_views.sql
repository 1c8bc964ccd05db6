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
    CONSTRAINT view_bounded CHECK (octet_length(filter::text) + octet_length(columns::text) <= 262144)
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

UPDATE assay_meta SET value = '7' WHERE key = 'schema';
