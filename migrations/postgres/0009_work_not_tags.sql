-- Who wrote a revision's work, the same rule as the replicas' (assay-core
-- store/write_path/rules.rs, `wrote_work`): a member who made a revision in its history that
-- changed the content to exactly this content, or the refinement operation to exactly this
-- operation (clearing it included; an import's empty operation is nobody's). Issue tags are
-- remarks on the work, not the work: before, a colleague's tag made
-- the content "not the author's" any more, so the author could approve her own answer.
CREATE OR REPLACE FUNCTION assay_wrote(rev text, who text) RETURNS boolean LANGUAGE sql VOLATILE
    SECURITY DEFINER SET search_path = public, pg_temp AS $$
    WITH RECURSIVE chain AS (
        SELECT r.uid, r.base_uid, r.author, r.content, r.op
        FROM revisions r WHERE r.uid = rev
        UNION ALL
        SELECT p.uid, p.base_uid, p.author, p.content, p.op
        FROM revisions p JOIN chain c ON p.uid = c.base_uid)
    SELECT EXISTS (
        SELECT 1 FROM chain c
        JOIN revisions h ON h.uid = rev
        LEFT JOIN revisions b ON b.uid = c.base_uid
        WHERE c.author = who
          AND ((c.content = h.content AND (b.uid IS NULL OR b.content <> c.content))
               OR (c.op IS NOT DISTINCT FROM h.op
                   AND ((b.uid IS NOT NULL AND b.op IS DISTINCT FROM c.op)
                        OR (b.uid IS NULL AND c.op IS NOT NULL))))) $$;

UPDATE assay_meta SET value = '9' WHERE key = 'schema';
