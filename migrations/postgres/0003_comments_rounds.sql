-- Comment threads (with the names they mention) and rounds (with their assignments, fixed when
-- the round is made) shared by the team.
CREATE TABLE comments (
    seq          bigserial UNIQUE NOT NULL,
    uid          text PRIMARY KEY,
    revision_uid text NOT NULL REFERENCES revisions(uid),
    body         text NOT NULL,
    mentions     text[] NOT NULL,
    author       text NOT NULL REFERENCES members(name),
    created_at   text NOT NULL
);

CREATE TABLE rounds (
    seq         bigserial UNIQUE NOT NULL,
    uid         text PRIMARY KEY,
    name        text NOT NULL,
    purpose     text NOT NULL CHECK (purpose IN ('annotate', 'review', 'audit')),
    overlap     double precision NOT NULL,
    created_by  text NOT NULL REFERENCES members(name),
    created_at  text NOT NULL,
    -- [[person, revision uid], ...]: who has which item, at the revision it was assigned on.
    assignments jsonb NOT NULL
);

CREATE TRIGGER comments_append_only BEFORE UPDATE OR DELETE ON comments
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();
CREATE TRIGGER rounds_append_only BEFORE UPDATE OR DELETE ON rounds
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();

GRANT SELECT, INSERT ON comments, rounds TO assay_member;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO assay_member;

ALTER TABLE comments ENABLE ROW LEVEL SECURITY;
ALTER TABLE rounds ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON comments FOR SELECT USING (true);
CREATE POLICY write_own ON comments FOR INSERT WITH CHECK (author = assay_me());
CREATE POLICY read_all ON rounds FOR SELECT USING (true);
-- Only auditors lead rounds, as in the store.
CREATE POLICY auditors_lead ON rounds FOR INSERT WITH CHECK (
    created_by = assay_me() AND assay_my_role() = 'auditor'
);

UPDATE assay_meta SET value = '3' WHERE key = 'schema';
