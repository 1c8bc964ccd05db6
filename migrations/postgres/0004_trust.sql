-- The team database as the authority for every shared table, against a member who connects with
-- psql and their own login (docs/SECURITY.md). Policies say who may write a row; triggers check
-- what a row may say; positions and times are the server's. The owner (not a member login) is
-- trusted: triggers that judge a member's rows let the owner's publish through.

-- One team, one database: a group role of this database's own, CONNECT for it alone.
DO $$
DECLARE g text := 'assay_team_' || substr(md5(current_database()), 1, 16);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = g) THEN
        EXECUTE format('CREATE ROLE %I NOLOGIN', g);
    END IF;
    INSERT INTO assay_meta (key, value) VALUES ('member_group', g);
    EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), g);
    EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', g);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA public TO %I', g);
    EXECUTE format('GRANT INSERT ON revisions, review_decisions, signoffs, images, models, runs,
                    run_items, responses, comments, rounds TO %I', g);
    EXECUTE format('GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO %I', g);
END $$;
-- Members who joined before this step keep their access through the team's own group.
DO $$
DECLARE
    g text := (SELECT value FROM assay_meta WHERE key = 'member_group');
    r text;
BEGIN
    FOR r IN SELECT m.db_role FROM members m JOIN pg_roles p ON p.rolname = m.db_role LOOP
        EXECUTE format('GRANT %I TO %I', g, r);
    END LOOP;
END $$;
-- The cluster-wide group of schema 1 no longer opens this database.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM assay_member;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM assay_member;
REVOKE ALL ON SCHEMA public FROM assay_member;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

CREATE OR REPLACE FUNCTION assay_me() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    AS $$ SELECT name FROM members WHERE db_role = session_user::text $$;
CREATE OR REPLACE FUNCTION assay_my_role() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    AS $$ SELECT role FROM members WHERE db_role = session_user::text $$;

-- Typed content: a row that is not a JSON object cannot be written at all.
ALTER TABLE revisions ALTER COLUMN content TYPE jsonb USING content::jsonb;
ALTER TABLE revisions ADD CONSTRAINT content_is_object CHECK (jsonb_typeof(content) = 'object');
ALTER TABLE revisions ADD CONSTRAINT status_known
    CHECK (status IN ('todo', 'edited', 'approved', 'flagged'));
ALTER TABLE revisions ADD CONSTRAINT op_known CHECK (op IS NULL OR op IN
    ('identical', 'minor_edit', 'disambiguation', 'answer_correction', 'replacement', 'remove'));
ALTER TABLE revisions ADD CONSTRAINT tags_bits CHECK (tags >= 0 AND tags < 1048576);
CREATE INDEX revisions_item ON revisions (dataset, ext_id, seq);
CREATE INDEX signoffs_revision ON signoffs (revision_uid, seq);
ALTER TABLE rounds ADD CONSTRAINT assignments_are_pairs CHECK (jsonb_typeof(assignments) = 'array');
ALTER TABLE rounds ADD CONSTRAINT overlap_share CHECK (overlap >= 0 AND overlap <= 1);
ALTER TABLE comments ADD CONSTRAINT body_bounded CHECK (length(body) <= 100000);
ALTER TABLE runs ADD CONSTRAINT version_known CHECK (version IN ('before', 'after'));
ALTER TABLE runs ADD CONSTRAINT status_final CHECK (status IN ('complete', 'incomplete', 'cancelled'));
ALTER TABLE runs ADD CONSTRAINT snapshot_of_origin CHECK (snapshot = origin || '@' || finished_at);
ALTER TABLE run_items ADD CONSTRAINT outcome_known
    CHECK (outcome IN ('scored', 'unparsed', 'error', 'skipped'));

-- Positions and times are the server's. Every insert into a shared table takes the push lock
-- first, so positions commit in order (a pull that has read up to N has seen all below N) even
-- for rows written by hand; a client waits at most its lock_timeout and can ask who holds it.
CREATE FUNCTION assay_stamp() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(7412);
    NEW.seq := nextval(pg_get_serial_sequence(TG_TABLE_NAME, 'seq'));
    IF TG_TABLE_NAME <> 'runs' THEN
        NEW.created_at := to_char(clock_timestamp() AT TIME ZONE 'UTC',
                                  'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER a_stamp BEFORE INSERT ON revisions FOR EACH ROW EXECUTE FUNCTION assay_stamp();
CREATE TRIGGER a_stamp BEFORE INSERT ON review_decisions FOR EACH ROW EXECUTE FUNCTION assay_stamp();
CREATE TRIGGER a_stamp BEFORE INSERT ON signoffs FOR EACH ROW EXECUTE FUNCTION assay_stamp();
CREATE TRIGGER a_stamp BEFORE INSERT ON comments FOR EACH ROW EXECUTE FUNCTION assay_stamp();
CREATE TRIGGER a_stamp BEFORE INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION assay_stamp();
CREATE TRIGGER a_stamp BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION assay_stamp();

-- The item's latest revision in the team's order, and whether its latest sign-off locks it.
CREATE FUNCTION assay_head(ds text, ext text) RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
    SELECT uid FROM revisions WHERE dataset = ds AND ext_id = ext ORDER BY seq DESC LIMIT 1 $$;
CREATE FUNCTION assay_locked(ds text, ext text) RETURNS boolean LANGUAGE sql STABLE
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT coalesce((SELECT s.signed FROM signoffs s JOIN revisions r ON r.uid = s.revision_uid
                     WHERE r.dataset = ds AND r.ext_id = ext ORDER BY s.seq DESC LIMIT 1), false) $$;

CREATE FUNCTION assay_refuse(msg text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = msg; END $$;

-- A member's revision: their role at the time, made on a revision of the same item, never on a
-- locked item, and "approved" only as the record of another member's approval.
CREATE FUNCTION assay_check_revision() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE base revisions%ROWTYPE;
BEGIN
    IF assay_me() IS NULL THEN RETURN NEW; END IF;
    -- Already there (a push repeated after a kill): the insert will do nothing.
    IF EXISTS (SELECT 1 FROM revisions WHERE uid = NEW.uid) THEN RETURN NEW; END IF;
    NEW.role := assay_my_role();
    SELECT * INTO base FROM revisions WHERE uid = NEW.base_uid;
    IF NOT FOUND OR base.dataset <> NEW.dataset OR base.ext_id <> NEW.ext_id THEN
        PERFORM assay_refuse(format('revision %s: its base is not a revision of %s / %s',
                                    NEW.uid, NEW.dataset, NEW.ext_id));
    END IF;
    IF assay_locked(NEW.dataset, NEW.ext_id) THEN
        PERFORM assay_refuse(format('%s / %s is signed off: an auditor must reopen it',
                                    NEW.dataset, NEW.ext_id));
    END IF;
    IF NEW.status = 'approved' THEN
        IF base.author IS NULL OR base.author = NEW.author
           OR base.content <> NEW.content OR base.op IS DISTINCT FROM NEW.op
           OR base.tags <> NEW.tags
           OR NOT EXISTS (SELECT 1 FROM review_decisions d
                          WHERE d.made_uid = NEW.uid AND d.revision_uid = NEW.base_uid
                            AND d.decision = 'approve' AND d.author = NEW.author) THEN
            PERFORM assay_refuse(format(
                'revision %s: "approved" is only the record of a review of another member''s revision',
                NEW.uid));
        END IF;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON revisions FOR EACH ROW EXECUTE FUNCTION assay_check_revision();

-- An approval is written before the revision that records it (the revision's check looks for
-- it), so `made_uid` is checked here instead of by a foreign key.
ALTER TABLE review_decisions DROP CONSTRAINT review_decisions_made_uid_fkey;
CREATE INDEX review_decisions_made ON review_decisions (made_uid);
CREATE FUNCTION assay_check_review() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE r revisions%ROWTYPE;
BEGIN
    IF assay_me() IS NULL THEN RETURN NEW; END IF;
    -- Already there (a push repeated after a kill): the insert will do nothing.
    IF EXISTS (SELECT 1 FROM review_decisions WHERE uid = NEW.uid) THEN RETURN NEW; END IF;
    SELECT * INTO r FROM revisions WHERE uid = NEW.revision_uid;
    IF assay_locked(r.dataset, r.ext_id) THEN
        PERFORM assay_refuse(format('%s / %s is signed off: an auditor must reopen it',
                                    r.dataset, r.ext_id));
    END IF;
    IF NEW.made_uid IS NOT NULL AND EXISTS (SELECT 1 FROM revisions WHERE uid = NEW.made_uid) THEN
        PERFORM assay_refuse(format('review %s: it records a revision that already exists', NEW.uid));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON review_decisions FOR EACH ROW
    EXECUTE FUNCTION assay_check_review();

-- A sign-off covers the item's head: what the auditor saw is what is locked.
CREATE FUNCTION assay_check_signoff() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE r revisions%ROWTYPE;
BEGIN
    IF assay_me() IS NULL THEN RETURN NEW; END IF;
    -- Already there (a push repeated after a kill): the insert will do nothing.
    IF EXISTS (SELECT 1 FROM signoffs WHERE uid = NEW.uid) THEN RETURN NEW; END IF;
    SELECT * INTO r FROM revisions WHERE uid = NEW.revision_uid;
    IF NEW.signed AND assay_head(r.dataset, r.ext_id) IS DISTINCT FROM NEW.revision_uid THEN
        PERFORM assay_refuse(format(
            'sign-off %s: %s / %s has a newer revision than the one signed', NEW.uid, r.dataset,
            r.ext_id));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON signoffs FOR EACH ROW EXECUTE FUNCTION assay_check_signoff();

-- Models, images and responses carry their author; each person's configs and responses are
-- their own (another's row under the same name or key changes nothing of theirs).
ALTER TABLE models ADD COLUMN author text REFERENCES members(name);
ALTER TABLE models ALTER COLUMN config TYPE jsonb USING config::jsonb;
ALTER TABLE runs DROP CONSTRAINT runs_model_fkey;
ALTER TABLE models DROP CONSTRAINT models_pkey;
UPDATE models m SET author = (SELECT r.author FROM runs r WHERE r.model = m.name LIMIT 1);
CREATE UNIQUE INDEX models_author_name ON models (coalesce(author, ''), name);
ALTER TABLE images ADD COLUMN author text REFERENCES members(name);
ALTER TABLE images ADD CONSTRAINT bytes_match_hash CHECK (hash = encode(sha256(bytes), 'hex'));
ALTER TABLE responses ADD COLUMN author text REFERENCES members(name);
UPDATE responses x SET author = (SELECT r.author FROM run_items i JOIN runs r ON r.snapshot = i.snapshot
                                 WHERE i.cache_key = x.cache_key LIMIT 1);
ALTER TABLE responses DROP CONSTRAINT responses_pkey;
CREATE UNIQUE INDEX responses_author_key ON responses (coalesce(author, ''), cache_key);

CREATE FUNCTION assay_authored() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
BEGIN
    IF assay_me() IS NOT NULL THEN NEW.author := assay_me(); END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER a_author BEFORE INSERT ON models FOR EACH ROW EXECUTE FUNCTION assay_authored();
CREATE TRIGGER a_author BEFORE INSERT ON images FOR EACH ROW EXECUTE FUNCTION assay_authored();
CREATE TRIGGER a_author BEFORE INSERT ON responses FOR EACH ROW EXECUTE FUNCTION assay_authored();
CREATE TRIGGER models_append_only BEFORE UPDATE OR DELETE ON models
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();
CREATE TRIGGER images_append_only BEFORE UPDATE OR DELETE ON images
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();

ALTER TABLE models ENABLE ROW LEVEL SECURITY;
ALTER TABLE images ENABLE ROW LEVEL SECURITY;
ALTER TABLE responses ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON models FOR SELECT USING (true);
CREATE POLICY write_own ON models FOR INSERT WITH CHECK (author = assay_me());
CREATE POLICY read_all ON images FOR SELECT USING (true);
CREATE POLICY write_own ON images FOR INSERT WITH CHECK (author = assay_me());
CREATE POLICY read_all ON responses FOR SELECT USING (true);
CREATE POLICY write_own ON responses FOR INSERT WITH CHECK (author = assay_me());

-- A run's origin belongs to whoever published it first; its results score revisions of its own
-- dataset, each under the item it names, from responses its author wrote.
CREATE FUNCTION assay_check_run() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
BEGIN
    IF assay_me() IS NULL THEN RETURN NEW; END IF;
    -- Already there (a push repeated after a kill): the insert will do nothing.
    IF EXISTS (SELECT 1 FROM runs WHERE snapshot = NEW.snapshot) THEN RETURN NEW; END IF;
    IF EXISTS (SELECT 1 FROM runs WHERE origin = NEW.origin AND author IS DISTINCT FROM assay_me()) THEN
        PERFORM assay_refuse(format('run %s was published by another member', NEW.origin));
    END IF;
    IF NOT EXISTS (SELECT 1 FROM models WHERE name = NEW.model AND author = assay_me()) THEN
        PERFORM assay_refuse(format('run %s: publish your model %s with it', NEW.origin, NEW.model));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION assay_check_run();

CREATE FUNCTION assay_check_run_item() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE run runs%ROWTYPE;
BEGIN
    IF assay_me() IS NULL THEN RETURN NEW; END IF;
    SELECT * INTO run FROM runs WHERE snapshot = NEW.snapshot;
    IF NOT EXISTS (SELECT 1 FROM revisions WHERE uid = NEW.revision_uid
                   AND dataset = run.dataset AND ext_id = NEW.ext_id) THEN
        PERFORM assay_refuse(format('result %s of run %s: not a revision of that item',
                                    NEW.ext_id, run.origin));
    END IF;
    IF NEW.cache_key IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM responses WHERE cache_key = NEW.cache_key AND author = run.author) THEN
        PERFORM assay_refuse(format('result %s of run %s: its response is not its author''s',
                                    NEW.ext_id, run.origin));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON run_items FOR EACH ROW EXECUTE FUNCTION assay_check_run_item();

-- A round's assignments name members and revisions.
CREATE FUNCTION assay_check_round() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(NEW.assignments) a
               WHERE jsonb_typeof(a) <> 'array' OR jsonb_array_length(a) <> 2
                  OR jsonb_typeof(a->0) <> 'string' OR jsonb_typeof(a->1) <> 'string') THEN
        PERFORM assay_refuse(format('round %s: assignments are [person, revision] pairs', NEW.uid));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON rounds FOR EACH ROW EXECUTE FUNCTION assay_check_round();

REVOKE EXECUTE ON FUNCTION assay_refuse(text) FROM PUBLIC;

UPDATE assay_meta SET value = '4' WHERE key = 'schema';
