-- The team service (`assay serve`): members sign in to the service, never to this database; the
-- service alone holds a login (the owner's) and runs each member's request as that member:
-- `SET LOCAL ROLE` to the member's role (which has no login), and `assay.member_role` naming it
-- for the rules below, which used to read the member from the session's login.

-- Who a session writes as: a member's own login (a team made before the service), or, for the
-- service's login, the member it set for this transaction. The setting is read only when the
-- login is not a member's, so a member with a login of their own cannot claim another with it.
-- A plain SQL function (no SECURITY DEFINER, no SET), so the planner can inline it into the
-- rules' statements: it runs for every row written, and a definer function's setup per call
-- doubled the time to publish 100,000 items. It reads only `members`, which every member role
-- and the owner may read, by qualified names.
CREATE FUNCTION assay_session_member() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN EXISTS (SELECT 1 FROM public.members WHERE db_role = session_user::text)
                THEN session_user::text
                ELSE nullif(pg_catalog.current_setting('assay.member_role', true), '') END $$;

CREATE OR REPLACE FUNCTION assay_me() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    AS $$ SELECT name FROM members WHERE db_role = assay_session_member() $$;

CREATE OR REPLACE FUNCTION assay_my_role() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public, pg_temp
    AS $$ SELECT role FROM members WHERE db_role = assay_session_member() $$;

CREATE OR REPLACE FUNCTION assay_check_revision() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE
    base record;
    me text;
    my_role text;
BEGIN
    -- The member once per row (this runs for every revision written).
    SELECT name, role INTO me, my_role FROM members WHERE db_role = assay_session_member();
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

CREATE OR REPLACE FUNCTION assay_lock_items(ds text[], ext text[], revs text[], whole_team boolean)
    RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE b integer;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM members WHERE db_role = assay_session_member()) THEN RETURN; END IF;
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
    IF NOT EXISTS (SELECT 1 FROM members WHERE db_role = assay_session_member()) THEN
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
DECLARE me xid8 := pg_current_xact_id();
BEGIN
    IF NOT EXISTS (SELECT 1 FROM members WHERE db_role = assay_session_member()) THEN
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


-- The service's members: a credential each (an argon2 hash of a token the member's machine
-- keeps), one-time invitations, and revocation. No member role can read these.
CREATE TABLE service_credentials (
    id          text PRIMARY KEY,
    member      text NOT NULL REFERENCES members(name),
    hash        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE INDEX service_credentials_member ON service_credentials (member);
-- A lead manages the team's members through the service (invites, roles, revocation); only
-- the owner makes leads.
ALTER TABLE members ADD COLUMN lead boolean NOT NULL DEFAULT false;
CREATE TABLE service_invitations (
    id          text PRIMARY KEY,
    member      text NOT NULL CHECK (length(member) BETWEEN 1 AND 63),
    role        text NOT NULL CHECK (role IN ('annotator', 'auditor', 'researcher')),
    hash        text NOT NULL,
    lead        boolean NOT NULL DEFAULT false,
    -- The lead who made it (none: the owner); revoking a lead voids what they handed out.
    invited_by  text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz
);
REVOKE ALL ON service_credentials, service_invitations FROM PUBLIC;
DO $$
DECLARE g text := (SELECT value FROM assay_meta WHERE key = 'member_group');
BEGIN
    EXECUTE format('REVOKE ALL ON service_credentials, service_invitations FROM %I', g);
END $$;
-- Lookups the service makes: a join's pages of items in (dataset, seq) order.
CREATE INDEX items_by_seq ON items (dataset, seq);
UPDATE assay_meta SET value = '10' WHERE key = 'schema';
