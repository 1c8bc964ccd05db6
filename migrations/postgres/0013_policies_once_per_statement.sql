-- A policy that compares a row with assay_me() called the function (SECURITY DEFINER, so the
-- planner cannot inline it) for every row it checked, and, while planning, once more for each
-- selectivity estimate: every pull runs as the member, so every one of its statements was
-- planned afresh and paid for those calls (a third of the team database's planning time with
-- fifty members). As a scalar subquery the call is made once per statement (an InitPlan) and
-- the planner does not run it. What each policy allows is unchanged.
ALTER POLICY write_own ON revisions WITH CHECK (
    author = (SELECT assay_me())
    AND (status <> 'approved' OR assay_author_of(base_uid) IS DISTINCT FROM (SELECT assay_me()))
);
ALTER POLICY review_others ON review_decisions WITH CHECK (
    author = (SELECT assay_me())
    AND assay_author_of(revision_uid) IS DISTINCT FROM (SELECT assay_me())
);
ALTER POLICY auditors_sign ON signoffs WITH CHECK (
    author = (SELECT assay_me()) AND (SELECT assay_my_role()) = 'auditor'
);
ALTER POLICY publish_own ON runs WITH CHECK (author = (SELECT assay_me()));
ALTER POLICY results_of_own ON run_items WITH CHECK (
    assay_run_author(snapshot) = (SELECT assay_me())
);
ALTER POLICY write_own ON comments WITH CHECK (author = (SELECT assay_me()));
ALTER POLICY auditors_lead ON rounds WITH CHECK (
    created_by = (SELECT assay_me()) AND (SELECT assay_my_role()) = 'auditor'
);
ALTER POLICY write_own ON models WITH CHECK (author = (SELECT assay_me()));
ALTER POLICY write_own ON images WITH CHECK (author = (SELECT assay_me()));
ALTER POLICY write_own ON responses WITH CHECK (author = (SELECT assay_me()));
ALTER POLICY own_or_open ON blind_annotations USING (
    author = (SELECT assay_me())
    OR (open_seq IS NOT NULL AND open_xid IS DISTINCT FROM pg_current_xact_id_if_assigned())
);
ALTER POLICY write_own ON blind_annotations WITH CHECK (author = (SELECT assay_me()));
ALTER POLICY write_own ON judge_ratings WITH CHECK (author = (SELECT assay_me()));
ALTER POLICY read_shared_or_own ON saved_views USING (shared OR author = (SELECT assay_me()));
ALTER POLICY write_own ON saved_views WITH CHECK (author = (SELECT assay_me()));

UPDATE assay_meta SET value = '13' WHERE key = 'schema';
