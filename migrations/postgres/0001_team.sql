-- Assay's team database: the shared, append-only rows of one project. Each person logs in with
-- their own role (a member of assay_member); row-level security decides what they may write:
-- only rows authored by themselves, never a review of their own revision, sign-offs only by
-- auditors, and no UPDATE or DELETE of anything shared. The owner (who ran `assay team init`)
-- publishes the project and adds members.
CREATE TABLE assay_meta (key text PRIMARY KEY, value text NOT NULL);

CREATE TABLE members (
    name    text PRIMARY KEY,
    role    text NOT NULL CHECK (role IN ('annotator', 'auditor', 'researcher')),
    db_role text NOT NULL UNIQUE
);

CREATE TABLE datasets (name text PRIMARY KEY, layout text NOT NULL);

CREATE TABLE items (
    dataset text NOT NULL REFERENCES datasets(name),
    ext_id  text NOT NULL,
    seq     bigint NOT NULL,
    PRIMARY KEY (dataset, ext_id)
);

CREATE TABLE images (
    hash   text PRIMARY KEY,
    width  integer NOT NULL,
    height integer NOT NULL,
    format text NOT NULL,
    bytes  bytea NOT NULL
);

CREATE TABLE revisions (
    seq        bigserial UNIQUE NOT NULL,
    uid        text PRIMARY KEY,
    dataset    text NOT NULL,
    ext_id     text NOT NULL,
    base_uid   text REFERENCES revisions(uid),
    author     text REFERENCES members(name),
    role       text,
    created_at text NOT NULL,
    op         text,
    tags       bigint NOT NULL,
    status     text NOT NULL,
    note       text,
    content    text NOT NULL,
    FOREIGN KEY (dataset, ext_id) REFERENCES items(dataset, ext_id)
);

CREATE TABLE review_decisions (
    seq          bigserial UNIQUE NOT NULL,
    uid          text PRIMARY KEY,
    revision_uid text NOT NULL REFERENCES revisions(uid),
    made_uid     text REFERENCES revisions(uid),
    decision     text NOT NULL CHECK (decision IN ('approve', 'request_changes')),
    comment      text,
    author       text NOT NULL REFERENCES members(name),
    created_at   text NOT NULL
);

CREATE TABLE signoffs (
    seq          bigserial UNIQUE NOT NULL,
    uid          text PRIMARY KEY,
    revision_uid text NOT NULL REFERENCES revisions(uid),
    signed       boolean NOT NULL,
    note         text,
    author       text NOT NULL REFERENCES members(name),
    created_at   text NOT NULL
);

-- Who is asking: the member whose database role opened the session.
CREATE FUNCTION assay_me() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public AS $$ SELECT name FROM members WHERE db_role = session_user::text $$;
CREATE FUNCTION assay_my_role() RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public AS $$ SELECT role FROM members WHERE db_role = session_user::text $$;
CREATE FUNCTION assay_author_of(rev text) RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public AS $$ SELECT author FROM revisions WHERE uid = rev $$;

-- History is permanent for everyone, the owner included.
CREATE FUNCTION assay_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$;
CREATE TRIGGER revisions_append_only BEFORE UPDATE OR DELETE ON revisions
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();
CREATE TRIGGER review_decisions_append_only BEFORE UPDATE OR DELETE ON review_decisions
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();
CREATE TRIGGER signoffs_append_only BEFORE UPDATE OR DELETE ON signoffs
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();

DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'assay_member') THEN
        CREATE ROLE assay_member NOLOGIN;
    END IF;
END $$;
GRANT USAGE ON SCHEMA public TO assay_member;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO assay_member;
GRANT INSERT ON revisions, review_decisions, signoffs, images TO assay_member;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO assay_member;

ALTER TABLE revisions ENABLE ROW LEVEL SECURITY;
ALTER TABLE review_decisions ENABLE ROW LEVEL SECURITY;
ALTER TABLE signoffs ENABLE ROW LEVEL SECURITY;

CREATE POLICY read_all ON revisions FOR SELECT USING (true);
-- Own authorship only; approving is a review, so no one writes "approved" on their own work.
CREATE POLICY write_own ON revisions FOR INSERT WITH CHECK (
    author = assay_me()
    AND (status <> 'approved' OR assay_author_of(base_uid) IS DISTINCT FROM assay_me())
);

CREATE POLICY read_all ON review_decisions FOR SELECT USING (true);
CREATE POLICY review_others ON review_decisions FOR INSERT WITH CHECK (
    author = assay_me() AND assay_author_of(revision_uid) IS DISTINCT FROM assay_me()
);

CREATE POLICY read_all ON signoffs FOR SELECT USING (true);
CREATE POLICY auditors_sign ON signoffs FOR INSERT WITH CHECK (
    author = assay_me() AND assay_my_role() = 'auditor'
);

INSERT INTO assay_meta (key, value) VALUES ('schema', '1');
