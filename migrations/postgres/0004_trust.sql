-- The team database as the authority for every shared table, against a member who connects with
-- psql and their own login (docs/SECURITY.md). Policies say who may write a row; triggers check
-- what a row may say; positions and times are the server's. The owner (not a member login) is
-- trusted: triggers that judge a member's rows let the owner's publish through.

-- One team, one database: a group role of this database's own, CONNECT for it alone.
-- The name is drawn at random, never derived from the database's: a database dropped and made
-- again under the same name must not let the old team's logins in.
DO $$
DECLARE g text := 'assay_team_' || substr(md5(random()::text || clock_timestamp()::text), 1, 16);
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = g) THEN
        RAISE EXCEPTION 'role % exists already', g;
    END IF;
    EXECUTE format('CREATE ROLE %I NOLOGIN', g);
    INSERT INTO assay_meta (key, value) VALUES ('member_group', g);
    EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), g);
    EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', g);
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA public TO %I', g);
    -- Images are published with the project by its owner; positions are drawn by the team's
    -- trigger, so members need no sequence at all (nextval would let them burn positions).
    EXECUTE format('GRANT INSERT ON revisions, review_decisions, signoffs, models, runs,
                    run_items, responses, comments, rounds TO %I', g);
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
-- Advisory locks only through the team's functions, where the owner may revoke them (a
-- superuser owner can; on a managed server the revoke may be refused, and the bounded wait and
-- assay_break_stale_lock below still hold).
DO $$
DECLARE f text;
BEGIN
    FOR f IN SELECT p.oid::regprocedure::text FROM pg_proc p
             WHERE p.proname LIKE 'pg\_%advisory\_%' AND p.pronamespace = 'pg_catalog'::regnamespace
    LOOP
        BEGIN
            EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f);
        EXCEPTION WHEN insufficient_privilege THEN NULL;
        END;
    END LOOP;
END $$;

CREATE OR REPLACE FUNCTION assay_author_of(rev text) RETURNS text LANGUAGE sql STABLE
    SECURITY DEFINER SET search_path = public, pg_temp
    AS $$ SELECT author FROM revisions WHERE uid = rev $$;
CREATE OR REPLACE FUNCTION assay_run_author(snap text) RETURNS text LANGUAGE sql STABLE
    SECURITY DEFINER SET search_path = public, pg_temp
    AS $$ SELECT author FROM runs WHERE snapshot = snap $$;
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
ALTER TABLE comments ADD CONSTRAINT body_bounded
    CHECK (btrim(body) <> '' AND length(body) <= 100000);
ALTER TABLE comments ADD CONSTRAINT mentions_are_names
    CHECK (coalesce(array_ndims(mentions), 1) = 1 AND array_position(mentions, NULL) IS NULL
           AND cardinality(mentions) <= 100);
ALTER TABLE rounds ADD CONSTRAINT name_given CHECK (btrim(name) <> '' AND length(name) <= 200);
ALTER TABLE revisions ADD CONSTRAINT content_bounded CHECK (octet_length(content::text) <= 4194304);
ALTER TABLE revisions ADD CONSTRAINT note_bounded CHECK (length(note) <= 100000);
ALTER TABLE runs ADD CONSTRAINT version_known CHECK (version IN ('before', 'after'));
ALTER TABLE runs ADD CONSTRAINT status_final CHECK (status IN ('complete', 'incomplete', 'cancelled'));
ALTER TABLE runs ADD CONSTRAINT snapshot_of_origin CHECK (snapshot = origin || '@' || finished_at);
ALTER TABLE run_items ADD CONSTRAINT outcome_known
    CHECK (outcome IN ('scored', 'unparsed', 'error', 'skipped'));
ALTER TABLE run_items ADD CONSTRAINT score_finite
    CHECK (score IS NULL OR score::text NOT IN ('NaN', 'Infinity', '-Infinity'));
ALTER TABLE responses ADD CONSTRAINT text_bounded CHECK (octet_length(text) <= 16777216);

-- Positions and times are the server's. Every insert into a shared table takes the push lock
-- first, so positions commit in order (a pull that has read up to N has seen all below N) even
-- for rows written by hand; a client waits at most its lock_timeout and can ask who holds it.
-- One sequence for all of them: the team's order is one order, so a replica applies a sign-off,
-- a reopening and the edit after it in the order they were made. It starts past every position
-- a database of schema 3 handed out, so replicas' saved positions stay valid.
CREATE SEQUENCE assay_position;
SELECT setval('assay_position', greatest(1, (SELECT max(m) FROM (
    SELECT max(seq) AS m FROM revisions UNION ALL SELECT max(seq) FROM review_decisions
    UNION ALL SELECT max(seq) FROM signoffs UNION ALL SELECT max(seq) FROM comments
    UNION ALL SELECT max(seq) FROM rounds UNION ALL SELECT max(seq) FROM runs) x)));
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['revisions', 'review_decisions', 'signoffs', 'comments', 'rounds', 'runs']
    LOOP
        EXECUTE format('ALTER TABLE %I ALTER COLUMN seq DROP DEFAULT', t);
    END LOOP;
END $$;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC;

-- Every insert takes the push lock here, first: positions then commit in order. A snapshot
-- taken before the lock would judge a row against a team state that has moved on (a sign-off
-- committed meanwhile), so team writes run in READ COMMITTED, where each check below reads
-- what is committed once the lock is held.
CREATE FUNCTION assay_stamp() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
            MESSAGE = 'team writes run in READ COMMITTED';
    END IF;
    PERFORM pg_advisory_xact_lock(7412);
    NEW.seq := nextval('assay_position');
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
CREATE FUNCTION assay_head(ds text, ext text) RETURNS text LANGUAGE sql VOLATILE SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
    SELECT uid FROM revisions WHERE dataset = ds AND ext_id = ext ORDER BY seq DESC LIMIT 1 $$;
CREATE FUNCTION assay_locked(ds text, ext text) RETURNS boolean LANGUAGE sql VOLATILE
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
    SELECT coalesce((SELECT s.signed FROM signoffs s JOIN revisions r ON r.uid = s.revision_uid
                     WHERE r.dataset = ds AND r.ext_id = ext ORDER BY s.seq DESC LIMIT 1), false) $$;

-- Whether `who` wrote the content of revision `rev`: its author, or, when `rev` is a review's
-- own record (a flag or an approval, which repeats content, op and tags), the author of the
-- revision it records, back to the first that is not such a record. So nobody approves their
-- own work by having someone else flag it first.
CREATE FUNCTION assay_wrote(rev text, who text) RETURNS boolean LANGUAGE sql VOLATILE
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
    WITH RECURSIVE chain AS (
        SELECT r.uid, r.base_uid, r.author, r.content, r.op, r.tags,
               EXISTS (SELECT 1 FROM review_decisions d WHERE d.made_uid = r.uid) AS record
        FROM revisions r WHERE r.uid = rev
        UNION ALL
        SELECT p.uid, p.base_uid, p.author, p.content, p.op, p.tags,
               EXISTS (SELECT 1 FROM review_decisions d WHERE d.made_uid = p.uid)
        FROM revisions p JOIN chain c ON p.uid = c.base_uid
        WHERE c.record AND p.content = c.content AND p.op IS NOT DISTINCT FROM c.op
          AND p.tags = c.tags)
    SELECT EXISTS (SELECT 1 FROM chain WHERE author = who AND NOT record) $$;

CREATE FUNCTION assay_refuse(msg text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege', MESSAGE = msg; END $$;

-- A member's revision: their role at the time, made on a revision of the same item, never on a
-- locked item, and "approved" only as the record of another member's approval.
CREATE FUNCTION assay_check_revision() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE
    base record;
    me text;
    my_role text;
BEGIN
    -- The member once per row (this runs for every revision written).
    SELECT name, role INTO me, my_role FROM members WHERE db_role = session_user::text;
    IF me IS NULL THEN RETURN NEW; END IF;
    -- Already there (a push repeated after a kill): the insert will do nothing.
    IF EXISTS (SELECT 1 FROM revisions WHERE uid = NEW.uid) THEN RETURN NEW; END IF;
    NEW.role := my_role;
    SELECT uid, dataset, ext_id, op, tags INTO base FROM revisions WHERE uid = NEW.base_uid;
    IF NOT FOUND OR base.dataset <> NEW.dataset OR base.ext_id <> NEW.ext_id THEN
        PERFORM assay_refuse(format('revision %s: its base is not a revision of %s / %s',
                                    NEW.uid, NEW.dataset, NEW.ext_id));
    END IF;
    IF coalesce((SELECT s.signed FROM signoffs s JOIN revisions r ON r.uid = s.revision_uid
                 WHERE r.dataset = NEW.dataset AND r.ext_id = NEW.ext_id
                 ORDER BY s.seq DESC LIMIT 1), false) THEN
        PERFORM assay_refuse(format('%s / %s is signed off: an auditor must reopen it',
                                    NEW.dataset, NEW.ext_id));
    END IF;
    -- A revision a review decision names as its record is exactly that decision's record.
    IF EXISTS (SELECT 1 FROM review_decisions d WHERE d.made_uid = NEW.uid
               AND (d.revision_uid IS DISTINCT FROM NEW.base_uid OR d.author <> NEW.author)) THEN
        PERFORM assay_refuse(format('revision %s: a review decision records another revision',
                                    NEW.uid));
    END IF;
    IF NEW.status = 'approved' THEN
        IF assay_wrote(base.uid, NEW.author)
           OR assay_head(NEW.dataset, NEW.ext_id) IS DISTINCT FROM base.uid
           OR (SELECT content FROM revisions WHERE uid = base.uid) <> NEW.content
           OR base.op IS DISTINCT FROM NEW.op
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
    IF NEW.decision = 'approve' AND assay_wrote(NEW.revision_uid, assay_me()) THEN
        PERFORM assay_refuse(format('review %s: nobody approves their own work', NEW.uid));
    END IF;
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
ALTER TABLE runs ADD COLUMN xid xid8;
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
    NEW.xid := pg_current_xact_id();
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION assay_check_run();

CREATE FUNCTION assay_check_run_item() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE run runs%ROWTYPE;
BEGIN
    IF assay_me() IS NULL THEN RETURN NEW; END IF;
    SELECT * INTO run FROM runs WHERE snapshot = NEW.snapshot;
    -- A snapshot is final: its results are written with it, never added later.
    IF run.xid IS DISTINCT FROM pg_current_xact_id() THEN
        PERFORM assay_refuse(format('run %s: results are published with their snapshot',
                                    run.origin));
    END IF;
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

-- A member who holds the push lock in a transaction left idle longer than `idle_secs` loses that
-- session: a pusher who timed out calls this, then tries again. Needs the owner to be allowed to
-- signal members' sessions (a superuser, or a member of pg_signal_backend).
CREATE FUNCTION assay_break_stale_lock(idle_secs integer) RETURNS text LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE h record; broken text := '';
BEGIN
    IF assay_me() IS NULL THEN RETURN ''; END IF;
    FOR h IN SELECT a.pid, a.usename::text AS who FROM pg_locks l
             JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND l.objid = 7412 AND l.granted
               AND a.pid <> pg_backend_pid()
               AND a.usename::text IN (SELECT db_role FROM members)
               AND a.state IN ('idle', 'idle in transaction', 'idle in transaction (aborted)')
               AND clock_timestamp() - a.state_change > make_interval(secs => greatest(idle_secs, 1))
    LOOP
        PERFORM pg_terminate_backend(h.pid);
        broken := broken || h.who || ' ';
    END LOOP;
    RETURN btrim(broken);
END $$;

REVOKE EXECUTE ON FUNCTION assay_refuse(text) FROM PUBLIC;

UPDATE assay_meta SET value = '4' WHERE key = 'schema';
