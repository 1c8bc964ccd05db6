-- Step 11 as builds before 2026-12-06 wrote it (a generated size column): kept so the upgrade
-- test can make a team that took it.
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
-- fetches their content, and measuring jsonb means converting it to text.
ALTER TABLE revisions
    ADD COLUMN content_bytes integer GENERATED ALWAYS AS (octet_length(content::text)) STORED;
-- The placement at commit changes a row's position only; a generated column is not computed yet
-- when this runs (NULL in NEW), and follows the content, which is compared.
CREATE OR REPLACE FUNCTION assay_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND current_setting('assay.placing', true) = pg_current_xact_id()::text
       AND to_jsonb(NEW) - 'seq' - 'content_bytes' = to_jsonb(OLD) - 'seq' - 'content_bytes' THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;
UPDATE assay_meta SET value = '11' WHERE key = 'schema';
