-- Positions at commit, locks per item (issue 24: fifty annotators through one database).
--
-- Before: every insert took the one push lock (7412) and held it to the end of its transaction,
-- so each push's round trips and rule checks ran one member at a time and throughput fell as
-- members were added. Now a member's insert takes only what its rules read:
-- - the item's lock (7413, one of 256 by a hash of dataset and item; a run's origin under 7415), so the rules
--   that read an item's state (its head, its sign-off, its blind judgements, who wrote it) still
--   see every earlier writer of that item committed, one writer per item at a time;
-- - the team lock shared (7412); a round, whose blind assignments the revision rules of every
--   item read, takes it exclusively;
-- and draws a provisional position (after the item's lock, so per item positions still follow
-- the order the item was written in). At commit a deferred trigger takes the commit lock (7414),
-- held only from there to the end of the commit, and moves every row the transaction wrote to a
-- fresh position in the order written. Positions therefore still become visible in order (a
-- pull that has read up to N has seen everything below N), but members wait for each other only
-- for the length of a commit, or for the items they both write.
--
-- The owner (publishing, or writing by hand) takes the team lock and the commit lock for the
-- whole transaction and draws final positions at once, as before.
--
-- A member can still hold a lock by leaving a transaction open: an item's lock (blocking that
-- item only), or the commit lock with SET CONSTRAINTS ALL IMMEDIATE (the placement then runs at
-- the statement's end). Waits stay bounded by lock_timeout, and assay_break_stale_lock ends an
-- idle holder of any of these locks.

-- An item's lock is one of 256 (a hash of dataset and item): a push of a few items takes a few
-- locks and rarely meets another's, and a bulk push of thousands takes at most 256 (PostgreSQL's
-- lock table is shared and bounded) and then simply runs alone, as every push did before.
CREATE FUNCTION assay_item_bucket(ds text, ext text) RETURNS integer LANGUAGE sql IMMUTABLE
    AS $$ SELECT hashtext(ds || chr(31) || ext) & 255 $$;

-- A push's items locked up front, in one order for every client, so two pushes that share items
-- wait for each other instead of deadlocking (the triggers then find each lock already held).
-- Items by name, and by a revision of theirs (what a review, a sign-off or a judgement names).
-- A push that writes a round (an auditor's) takes the team lock exclusively up front, rather
-- than upgrading from shared at the round's insert (two such upgrades deadlock).
CREATE FUNCTION assay_lock_items(ds text[], ext text[], revs text[], whole_team boolean)
    RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE b integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM members WHERE db_role = session_user::text) THEN RETURN; END IF;
    IF whole_team AND assay_my_role() = 'auditor' THEN
        PERFORM pg_advisory_xact_lock(7412);
    ELSE
        PERFORM pg_advisory_xact_lock_shared(7412);
    END IF;
    FOR b IN SELECT x.b FROM (
                 SELECT assay_item_bucket(d, e) AS b FROM unnest(ds, ext) AS u(d, e)
                 UNION
                 SELECT assay_item_bucket(r.dataset, r.ext_id) FROM revisions r
                 WHERE r.uid = ANY(revs)) x
             ORDER BY x.b LOOP
        PERFORM pg_advisory_xact_lock(7413, b);
    END LOOP;
END $$;

CREATE OR REPLACE FUNCTION assay_stamp() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE
    ds text;
    ext text;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION USING ERRCODE = 'insufficient_privilege',
            MESSAGE = 'team writes run in READ COMMITTED';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM members WHERE db_role = session_user::text) THEN
        PERFORM pg_advisory_xact_lock(7412);
        PERFORM pg_advisory_xact_lock(7414);
    ELSIF TG_TABLE_NAME = 'rounds' AND assay_my_role() = 'auditor' THEN
        -- (Only auditors write rounds; anyone else's is refused, and takes nothing exclusive.)
        PERFORM pg_advisory_xact_lock(7412);
    ELSE
        PERFORM pg_advisory_xact_lock_shared(7412);
        IF TG_TABLE_NAME = 'revisions' THEN
            ds := NEW.dataset;
            ext := NEW.ext_id;
        ELSIF TG_TABLE_NAME IN ('review_decisions', 'signoffs', 'blind_annotations') THEN
            SELECT dataset, ext_id INTO ds, ext FROM revisions WHERE uid = NEW.revision_uid;
            IF TG_TABLE_NAME = 'blind_annotations' THEN
                -- The judgement's uid too: its rules open the others' judgements as a side
                -- effect, so they run only once an insert of the same uid elsewhere (another
                -- item, another bucket) is decided; else a twin insert with ON CONFLICT DO
                -- NOTHING would open them without any judgement of its own going in.
                PERFORM pg_advisory_xact_lock(7416, hashtext(NEW.uid));
            END IF;
        ELSIF TG_TABLE_NAME = 'runs' THEN
            PERFORM pg_advisory_xact_lock(7415, hashtext(NEW.origin) & 255);
        END IF;
        IF ext IS NOT NULL THEN
            PERFORM pg_advisory_xact_lock(7413, assay_item_bucket(ds, ext));
        END IF;
    END IF;
    NEW.seq := nextval('assay_position');
    IF TG_TABLE_NAME <> 'runs' THEN
        NEW.created_at := to_char(clock_timestamp() AT TIME ZONE 'UTC',
                                  'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    END IF;
    RETURN NEW;
END $$;

-- At commit (deferred), a member's row moves to a position drawn under the commit lock; the lock
-- is held to the end of the commit, so positions become visible in the order they were drawn.
-- Deferred events fire in the order they were queued: a transaction's rows keep their order.
CREATE FUNCTION assay_place() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE me xid8 := pg_current_xact_id();
BEGIN
    IF NOT EXISTS (SELECT 1 FROM members WHERE db_role = session_user::text) THEN
        RETURN NULL;
    END IF;
    PERFORM pg_advisory_xact_lock(7414);
    -- A review decision and the revision that records it may be written under two items'
    -- locks (a decision on one item naming a revision of another as its record): placements run
    -- one at a time, so here each sees the other and the pair must match.
    -- (Nested: a condition naming NEW's fields fails on a table without them.)
    IF TG_TABLE_NAME = 'revisions' THEN
        IF EXISTS (SELECT 1 FROM review_decisions d WHERE d.made_uid = NEW.uid
                     AND (d.revision_uid IS DISTINCT FROM NEW.base_uid
                          OR d.author <> NEW.author)) THEN
            PERFORM assay_refuse(format(
                'revision %s: a review decision records another revision', NEW.uid));
        END IF;
    ELSIF TG_TABLE_NAME = 'review_decisions' THEN
        IF EXISTS (SELECT 1 FROM revisions r WHERE r.uid = NEW.made_uid
                     AND (r.base_uid IS DISTINCT FROM NEW.revision_uid
                          OR r.author <> NEW.author)) THEN
            PERFORM assay_refuse(format(
                'review %s: it records a revision that already exists', NEW.uid));
        END IF;
    END IF;
    PERFORM set_config('assay.placing', me::text, true);
    IF TG_TABLE_NAME = 'runs' THEN
        UPDATE runs SET seq = nextval('assay_position') WHERE snapshot = NEW.snapshot;
    ELSIF TG_TABLE_NAME = 'blind_annotations' AND TG_OP = 'UPDATE' THEN
        -- A judgement opened by this transaction: readable at a position drawn now.
        UPDATE blind_annotations SET open_seq = nextval('assay_position')
         WHERE uid = NEW.uid AND open_xid = me;
    ELSIF TG_TABLE_NAME = 'blind_annotations' THEN
        UPDATE blind_annotations
           SET seq = nextval('assay_position'),
               open_seq = CASE WHEN open_xid = me THEN nextval('assay_position') END
         WHERE uid = NEW.uid;
    ELSE
        EXECUTE format('UPDATE %I SET seq = nextval(''assay_position'') WHERE uid = $1',
                       TG_TABLE_NAME) USING NEW.uid;
    END IF;
    PERFORM set_config('assay.placing', '', true);
    RETURN NULL;
END $$;
REVOKE EXECUTE ON FUNCTION assay_place() FROM PUBLIC;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['revisions', 'review_decisions', 'signoffs', 'comments', 'rounds',
                             'runs', 'blind_annotations', 'judge_ratings', 'saved_views']
    LOOP
        EXECUTE format('CREATE CONSTRAINT TRIGGER z_place AFTER INSERT ON %I
                        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION assay_place()', t);
    END LOOP;
END $$;
CREATE CONSTRAINT TRIGGER z_place_opened AFTER UPDATE ON blind_annotations
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.open_seq IS NULL AND NEW.open_seq IS NOT NULL)
    EXECUTE FUNCTION assay_place();

-- History is permanent for everyone, the owner included; the one change is the placement above,
-- which moves a row written by this same transaction and changes nothing but its position.
-- (Members hold no UPDATE privilege on any of these tables: only the team's own functions,
-- running as the owner, update.)
CREATE OR REPLACE FUNCTION assay_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND current_setting('assay.placing', true) = pg_current_xact_id()::text
       AND to_jsonb(NEW) - 'seq' = to_jsonb(OLD) - 'seq' THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;

CREATE OR REPLACE FUNCTION assay_blind_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND current_setting('assay.placing', true) = pg_current_xact_id()::text
       AND to_jsonb(NEW) - 'seq' - 'open_seq' = to_jsonb(OLD) - 'seq' - 'open_seq'
       AND (NEW.open_seq IS NULL) = (OLD.open_seq IS NULL) THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' OR OLD.open_seq IS NOT NULL OR NEW.open_seq IS NULL
       OR NEW.open_xid IS NULL
       OR (NEW.uid, NEW.seq, NEW.round_uid, NEW.revision_uid, NEW.author, NEW.judgement,
           NEW.created_at)
          IS DISTINCT FROM (OLD.uid, OLD.seq, OLD.round_uid, OLD.revision_uid, OLD.author,
                            OLD.judgement, OLD.created_at) THEN
        RAISE EXCEPTION 'blind_annotations is append-only';
    END IF;
    RETURN NEW;
END $$;

-- A member who holds any of the team's locks in a transaction left idle longer than `idle_secs`
-- loses that session: a pusher who timed out calls this, then tries again.
CREATE OR REPLACE FUNCTION assay_break_stale_lock(idle_secs integer) RETURNS text LANGUAGE plpgsql
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE h record; broken text := '';
BEGIN
    IF assay_me() IS NULL THEN RETURN ''; END IF;
    FOR h IN SELECT DISTINCT a.pid, a.usename::text AS who FROM pg_locks l
             JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND l.granted
               AND ((l.objsubid = 1 AND l.objid IN (7412, 7414))
                    OR (l.objsubid = 2 AND l.classid IN (7413, 7415)))
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

UPDATE assay_meta SET value = '8' WHERE key = 'schema';
