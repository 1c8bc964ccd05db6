-- What each member sent the team service in a day (UTC): the bytes of their pushes and runs,
-- held against the service's daily quota per member. Only the service (the owner) reads it.
CREATE TABLE service_usage (
    member  text NOT NULL,
    day     date NOT NULL,
    bytes   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (member, day)
);
REVOKE ALL ON service_usage FROM PUBLIC;
DO $$
DECLARE g text := (SELECT value FROM assay_meta WHERE key = 'member_group');
BEGIN
    EXECUTE format('REVOKE ALL ON service_usage FROM %I', g);
END $$;
-- A revision's content size as text, kept beside it: a pull page counts rows' bytes before it
-- fetches their content, and measuring jsonb means converting it to text. A plain column, set on
-- insert by a trigger and filled for the rows already there in batches after this step
-- (`schema::fill_content_bytes`): a stored generated column would rewrite the whole table under
-- an exclusive lock, stopping every member of a large team for minutes. (A team that took this
-- step in an earlier build has the generated column; both hold the same numbers.) Until the fill
-- is done, readers measure a row that has none.
ALTER TABLE revisions ADD COLUMN content_bytes integer;
CREATE FUNCTION assay_content_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.content_bytes := octet_length(NEW.content::text);
    RETURN NEW;
END $$;
-- Named to run after every other BEFORE INSERT trigger on revisions (they fire in name order).
CREATE TRIGGER z_content_bytes BEFORE INSERT ON revisions
    FOR EACH ROW EXECUTE FUNCTION assay_content_bytes();
-- Two updates of an append-only row are allowed: the placement at commit, which changes its
-- position only (a generated size is not computed yet when this runs: NULL in NEW), and filling
-- a size never set with the true one.
CREATE OR REPLACE FUNCTION assay_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    n jsonb;
    o jsonb;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        n := to_jsonb(NEW);
        o := to_jsonb(OLD);
        IF current_setting('assay.placing', true) = pg_current_xact_id()::text
           AND n - 'seq' - 'content_bytes' = o - 'seq' - 'content_bytes'
           AND coalesce(n -> 'content_bytes', 'null') IN ('null', coalesce(o -> 'content_bytes', 'null')) THEN
            RETURN NEW;
        END IF;
        IF o -> 'content_bytes' = 'null'
           AND n - 'content_bytes' = o - 'content_bytes'
           AND (n ->> 'content_bytes')::int = octet_length((n -> 'content')::text) THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;
UPDATE assay_meta SET value = '11' WHERE key = 'schema';
