-- The service's writes take their final positions at insert (issue 47: the service's pushes).
--
-- A member's row took a provisional position at insert and moved to its final one at commit
-- (0008): so that members writing through their own logins wait for each other only for a
-- commit. The service writes every member's push one group at a time (it holds its replica for
-- the whole check and write), so that concurrency bought it nothing, and the move cost an
-- UPDATE of every row (a second row version, every index again, the append-only trigger) at
-- every commit. Now a write through the service's login (the owner's, which is no member's)
-- locks as the owner's own writes do, the team lock and the commit lock up front, and draws
-- final positions at insert; the rules still run as the member the service set
-- (`assay.member_role`), exactly as before. At commit only the pair check of a review decision
-- and the revision recording it runs for such rows; runs and blind judgements are placed as
-- before (a judgement opened by the transaction is readable at a position drawn then).
-- A member with a login of their own (a team not yet migrated) is unchanged.

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
        -- The owner's login: the owner writing, or the service writing as a member.
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

CREATE OR REPLACE FUNCTION assay_place() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE
    me xid8 := pg_current_xact_id();
    at_insert boolean := NOT EXISTS (SELECT 1 FROM members WHERE db_role = session_user::text);
BEGIN
    IF at_insert AND NOT EXISTS (SELECT 1 FROM members WHERE db_role = assay_session_member()) THEN
        RETURN NULL;  -- the owner's own write
    END IF;
    IF NOT at_insert THEN
        PERFORM pg_advisory_xact_lock(7414);
    END IF;
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
    IF at_insert AND TG_TABLE_NAME NOT IN ('runs', 'blind_annotations') THEN
        RETURN NULL;  -- placed at insert, under the commit lock held since
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

-- A push's locks up front: for the service writing as a member, the ones its first insert takes
-- (so it never holds an item's lock and then waits to take the team lock exclusively, which two
-- writers doing the same would deadlock on); for the owner, none, as before; for a member's own
-- login, unchanged.
CREATE OR REPLACE FUNCTION assay_lock_items(ds text[], ext text[], revs text[], whole_team boolean)
    RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE b integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM members WHERE db_role = session_user::text) THEN
        IF EXISTS (SELECT 1 FROM members WHERE db_role = assay_session_member()) THEN
            PERFORM pg_advisory_xact_lock(7412);
            PERFORM pg_advisory_xact_lock(7414);
        END IF;
        RETURN;
    END IF;
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

UPDATE assay_meta SET value = '14' WHERE key = 'schema';
