-- Evaluation runs as snapshots: each finished state of a run, published once by whoever ran it,
-- with its results (each tied to the revision it scored) and the responses they came from.
CREATE TABLE models (
    name   text PRIMARY KEY,
    config text NOT NULL
);

CREATE TABLE runs (
    seq         bigserial UNIQUE NOT NULL,
    -- origin || '@' || finished_at: one row per published state.
    snapshot    text PRIMARY KEY,
    origin      text NOT NULL,
    model       text NOT NULL REFERENCES models(name),
    dataset     text NOT NULL REFERENCES datasets(name),
    version     text NOT NULL,
    variant     text NOT NULL,
    run_index   integer NOT NULL,
    template    text NOT NULL,
    scorer      text NOT NULL,
    source      text NOT NULL,
    status      text NOT NULL,
    created_at  text NOT NULL,
    finished_at text NOT NULL,
    author      text REFERENCES members(name) DEFAULT assay_me()
);

CREATE TABLE run_items (
    snapshot     text NOT NULL REFERENCES runs(snapshot),
    ext_id       text NOT NULL,
    revision_uid text NOT NULL REFERENCES revisions(uid),
    cache_key    text,
    outcome      text NOT NULL,
    from_cache   boolean NOT NULL,
    score        double precision,
    parsed       text,
    evidence     text,
    error        text,
    scorer       text,
    PRIMARY KEY (snapshot, ext_id)
);

CREATE TABLE responses (
    cache_key         text PRIMARY KEY,
    text              text NOT NULL,
    prompt_tokens     bigint,
    completion_tokens bigint,
    created_at        text NOT NULL,
    prompt            text
);

CREATE FUNCTION assay_run_author(snap text) RETURNS text LANGUAGE sql STABLE SECURITY DEFINER
    SET search_path = public AS $$ SELECT author FROM runs WHERE snapshot = snap $$;

CREATE TRIGGER runs_append_only BEFORE UPDATE OR DELETE ON runs
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();
CREATE TRIGGER run_items_append_only BEFORE UPDATE OR DELETE ON run_items
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();
CREATE TRIGGER responses_append_only BEFORE UPDATE OR DELETE ON responses
    FOR EACH ROW EXECUTE FUNCTION assay_append_only();

GRANT SELECT ON models, runs, run_items, responses TO assay_member;
GRANT INSERT ON models, runs, run_items, responses TO assay_member;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO assay_member;

ALTER TABLE runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE run_items ENABLE ROW LEVEL SECURITY;
CREATE POLICY read_all ON runs FOR SELECT USING (true);
CREATE POLICY publish_own ON runs FOR INSERT WITH CHECK (author = assay_me());
CREATE POLICY read_all ON run_items FOR SELECT USING (true);
CREATE POLICY results_of_own ON run_items FOR INSERT WITH CHECK (assay_run_author(snapshot) = assay_me());

UPDATE assay_meta SET value = '2' WHERE key = 'schema';
