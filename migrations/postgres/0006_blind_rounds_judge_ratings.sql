-- Blind double annotation (store::blind, docs/SECURITY.md), and people's ratings of a judge.
-- Blind double annotation: In a blind round each assignee's
-- judgement of an item is a row of their own. Against a member with psql and their own login:
-- - nobody reads another member's judgement of an item before every assignee's is in (RLS);
-- - a judgement is written only by an assignee of that item in that blind round, under their
--   own name, and never once every judgement is in (nobody changes their mind after seeing the
--   other's);
-- - an assignee writes no revision of the item until an auditor has adjudicated it (before all
--   are in it would show the other assignee their judgement; after, it would pre-empt the
--   adjudication);
-- - no transaction reads the judgements it opened before it commits (a member cannot record a
--   throwaway last judgement, read the others' and roll back).
-- A judgement becomes readable to the others at `open_seq`, a position drawn under the push lock
-- when the last assignee's judgement arrives, so a replica pulling by position (the readable
-- position, coalesce(open_seq, seq)) receives the others' judgements when they open.
ALTER TABLE rounds ADD COLUMN blind boolean NOT NULL DEFAULT false;

CREATE TABLE blind_annotations (
    seq          bigint UNIQUE NOT NULL,
    uid          text PRIMARY KEY,
    round_uid    text NOT NULL REFERENCES rounds(uid),
    -- The item, by the revision it was assigned at in the round.
    revision_uid text NOT NULL REFERENCES revisions(uid),
    author       text NOT NULL REFERENCES members(name),
    judgement    jsonb NOT NULL,
    created_at   text NOT NULL,
    open_seq     bigint UNIQUE,
    -- The transaction that opened it: until that transaction commits, not even it reads the
    -- others' judgements (else a member inserts a throwaway last judgement, reads, and rolls
    -- back).
    open_xid     xid8,
    CONSTRAINT judgement_is_object CHECK (jsonb_typeof(judgement) = 'object'),
    CONSTRAINT judgement_bounded CHECK (octet_length(judgement::text) <= 1048576)
);
CREATE INDEX blind_annotations_item ON blind_annotations (round_uid, revision_uid);
CREATE INDEX blind_annotations_position ON blind_annotations ((coalesce(open_seq, seq)));

-- Who has which item in which blind round, filled from the round's assignments when it is
-- written, so the rules below are index lookups rather than scans of every round's JSON.
CREATE TABLE blind_assignments (
    round_uid    text NOT NULL REFERENCES rounds(uid),
    person       text NOT NULL,
    revision_uid text NOT NULL REFERENCES revisions(uid),
    dataset      text NOT NULL,
    ext_id       text NOT NULL,
    PRIMARY KEY (round_uid, revision_uid, person)
);
CREATE INDEX blind_assignments_item ON blind_assignments (dataset, ext_id, person);
REVOKE ALL ON blind_assignments FROM PUBLIC;

CREATE FUNCTION assay_blind_assign() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
BEGIN
    IF NEW.blind THEN
        INSERT INTO blind_assignments (round_uid, person, revision_uid, dataset, ext_id)
        SELECT NEW.uid, a->>0, a->>1, v.dataset, v.ext_id
        FROM jsonb_array_elements(NEW.assignments) a JOIN revisions v ON v.uid = a->>1
        ON CONFLICT DO NOTHING;
        IF (SELECT count(*) FROM blind_assignments WHERE round_uid = NEW.uid)
           <> jsonb_array_length(NEW.assignments) THEN
            PERFORM assay_refuse(format('round %s: a blind round assigns revisions of the team, each once',
                                        NEW.uid));
        END IF;
        -- Every assignee can record (a name that is no member would hold the item forever), and
        -- an item is dealt at one revision (else each revision would be a group of one).
        IF EXISTS (SELECT 1 FROM blind_assignments a WHERE a.round_uid = NEW.uid
                   AND NOT EXISTS (SELECT 1 FROM members m WHERE m.name = a.person))
           OR EXISTS (SELECT 1 FROM blind_assignments a WHERE a.round_uid = NEW.uid
                      GROUP BY a.dataset, a.ext_id HAVING count(DISTINCT a.revision_uid) > 1) THEN
            PERFORM assay_refuse(format(
                'round %s: a blind round deals each item at one revision, to members', NEW.uid));
        END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER c_blind_assign AFTER INSERT ON rounds FOR EACH ROW
    EXECUTE FUNCTION assay_blind_assign();

-- Positions and times are the server's, like every shared table.
CREATE TRIGGER a_stamp BEFORE INSERT ON blind_annotations FOR EACH ROW
    EXECUTE FUNCTION assay_stamp();

CREATE FUNCTION assay_check_blind() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE
    me text := assay_me();
    assigned integer;
    others integer;
    r record;
BEGIN
    -- Already there (a push repeated after a kill): the insert will do nothing.
    IF EXISTS (SELECT 1 FROM blind_annotations WHERE uid = NEW.uid) THEN RETURN NEW; END IF;
    NEW.open_seq := NULL;
    NEW.open_xid := NULL;
    IF NOT coalesce((SELECT blind FROM rounds WHERE uid = NEW.round_uid), false) THEN
        PERFORM assay_refuse(format('judgement %s: its round is not blind', NEW.uid));
    END IF;
    IF me IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM blind_assignments WHERE round_uid = NEW.round_uid
          AND revision_uid = NEW.revision_uid AND person = NEW.author) THEN
        PERFORM assay_refuse(format('judgement %s: %s was not assigned that item in that round',
                                    NEW.uid, NEW.author));
    END IF;
    IF EXISTS (SELECT 1 FROM blind_annotations WHERE round_uid = NEW.round_uid
               AND revision_uid = NEW.revision_uid AND open_seq IS NOT NULL) THEN
        IF me IS NOT NULL THEN
            PERFORM assay_refuse(format(
                'judgement %s: every judgement of that item is in; an auditor adjudicates it',
                NEW.uid));
        END IF;
        -- The owner publishing a replica's history: the row is readable as its group is.
        NEW.open_seq := nextval('assay_position');
        NEW.open_xid := pg_current_xact_id();
        RETURN NEW;
    END IF;
    SELECT count(*) INTO assigned FROM blind_assignments
        WHERE round_uid = NEW.round_uid AND revision_uid = NEW.revision_uid;
    SELECT count(DISTINCT author) INTO others FROM blind_annotations
        WHERE round_uid = NEW.round_uid AND revision_uid = NEW.revision_uid
          AND author <> NEW.author;
    IF others + 1 >= assigned THEN
        -- The last judgement: every judgement of the item opens, in the order written, and
        -- this one last, each at a position of its own drawn under the push lock.
        FOR r IN SELECT uid FROM blind_annotations WHERE round_uid = NEW.round_uid
                 AND revision_uid = NEW.revision_uid ORDER BY seq LOOP
            UPDATE blind_annotations SET open_seq = nextval('assay_position'),
                                         open_xid = pg_current_xact_id()
             WHERE uid = r.uid;
        END LOOP;
        NEW.open_seq := nextval('assay_position');
        NEW.open_xid := pg_current_xact_id();
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON blind_annotations FOR EACH ROW
    EXECUTE FUNCTION assay_check_blind();

-- Append-only, but for the one change the team makes itself: a judgement opening.
CREATE FUNCTION assay_blind_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
CREATE TRIGGER blind_append_only BEFORE UPDATE OR DELETE ON blind_annotations
    FOR EACH ROW EXECUTE FUNCTION assay_blind_fixed();

-- An assignee does not revise an item of their blind round until an auditor has adjudicated
-- it: a revision after the one dealt, by a member the team holds as an auditor (the role is the
-- team's, set by b_rules), recording the adjudication.
CREATE FUNCTION assay_check_blind_hold() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
DECLARE me text := assay_me();
BEGIN
    IF me IS NULL THEN RETURN NEW; END IF;
    IF EXISTS (SELECT 1 FROM revisions WHERE uid = NEW.uid) THEN RETURN NEW; END IF;
    IF EXISTS (SELECT 1 FROM blind_assignments a JOIN revisions dealt ON dealt.uid = a.revision_uid
               WHERE a.dataset = NEW.dataset AND a.ext_id = NEW.ext_id AND a.person = me
                 AND NOT EXISTS (SELECT 1 FROM revisions r
                                 WHERE r.dataset = a.dataset AND r.ext_id = a.ext_id
                                   AND r.seq > dealt.seq AND r.role = 'auditor'
                                   AND r.note LIKE 'adjudicated %')) THEN
        PERFORM assay_refuse(format(
            'revision %s: %s / %s is in your blind round; record your judgement there, the item is revised once an auditor has adjudicated it',
            NEW.uid, NEW.dataset, NEW.ext_id));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER c_blind BEFORE INSERT ON revisions FOR EACH ROW
    EXECUTE FUNCTION assay_check_blind_hold();

ALTER TABLE blind_annotations ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_or_open ON blind_annotations FOR SELECT
    USING (author = assay_me()
           OR (open_seq IS NOT NULL AND open_xid IS DISTINCT FROM pg_current_xact_id_if_assigned()));
CREATE POLICY write_own ON blind_annotations FOR INSERT WITH CHECK (author = assay_me());

DO $$
DECLARE g text := (SELECT value FROM assay_meta WHERE key = 'member_group');
BEGIN
    EXECUTE format('GRANT SELECT, INSERT ON blind_annotations TO %I', g);
    EXECUTE format('REVOKE ALL ON blind_assignments FROM %I', g);
END $$;

-- People's 1-5 ratings of a judge's decisions (store::judge_ratings): each by its author, of a
-- judged result the team holds (the run snapshot, the item's revision and the response the judge
-- decided on), rated 1 to 5.
CREATE TABLE judge_ratings (
    seq          bigint UNIQUE NOT NULL,
    uid          text PRIMARY KEY,
    snapshot     text NOT NULL REFERENCES runs(snapshot),
    ext_id       text NOT NULL,
    revision_uid text NOT NULL REFERENCES revisions(uid),
    response_key text,
    judge_score  double precision,
    rating       integer NOT NULL CONSTRAINT rating_1_to_5 CHECK (rating BETWEEN 1 AND 5),
    note         text CONSTRAINT note_bounded CHECK (length(note) <= 100000),
    author       text NOT NULL REFERENCES members(name),
    created_at   text NOT NULL
);
CREATE TRIGGER a_stamp BEFORE INSERT ON judge_ratings FOR EACH ROW
    EXECUTE FUNCTION assay_stamp();
CREATE TRIGGER judge_ratings_append_only BEFORE UPDATE OR DELETE ON judge_ratings
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();

CREATE FUNCTION assay_check_judge_rating() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = public, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM judge_ratings WHERE uid = NEW.uid) THEN RETURN NEW; END IF;
    IF split_part(coalesce((SELECT scorer FROM runs WHERE snapshot = NEW.snapshot), ''), '+', 1)
       NOT IN ('judge', 'checklist_judge', 'rating', 'identification') THEN
        PERFORM assay_refuse(format('rating %s: that run is not scored by a judge', NEW.uid));
    END IF;
    IF NOT EXISTS (SELECT 1 FROM run_items WHERE snapshot = NEW.snapshot AND ext_id = NEW.ext_id
                     AND revision_uid = NEW.revision_uid AND outcome = 'scored'
                     AND cache_key IS NOT DISTINCT FROM NEW.response_key
                     AND score IS NOT DISTINCT FROM NEW.judge_score
                     -- identification's exact names are the rule's, not the judge's
                     AND NOT (coalesce(evidence, '') LIKE '%"accepted":%'
                              AND coalesce(evidence, '') NOT LIKE '%"judge_model":%')) THEN
        PERFORM assay_refuse(format('rating %s: the run has no such judged result', NEW.uid));
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER b_rules BEFORE INSERT ON judge_ratings FOR EACH ROW
    EXECUTE FUNCTION assay_check_judge_rating();

ALTER TABLE judge_ratings ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON judge_ratings FOR SELECT USING (true);
CREATE POLICY write_own ON judge_ratings FOR INSERT WITH CHECK (author = assay_me());
DO $$
DECLARE g text := (SELECT value FROM assay_meta WHERE key = 'member_group');
BEGIN
    EXECUTE format('GRANT SELECT, INSERT ON judge_ratings TO %I', g);
END $$;

UPDATE assay_meta SET value = '6' WHERE key = 'schema';
