-- Hedged replies are an outcome of their own, and each result says which version of its
-- scorer's rules produced it (NULL = version 1, results published before versions were kept).
ALTER TABLE run_items DROP CONSTRAINT outcome_known;
ALTER TABLE run_items ADD CONSTRAINT outcome_known
    CHECK (outcome IN ('scored', 'unparsed', 'hedged', 'error', 'skipped'));
ALTER TABLE run_items ADD COLUMN scorer_version integer
    CONSTRAINT scorer_version_positive CHECK (scorer_version IS NULL OR scorer_version > 0);
UPDATE assay_meta SET value = '5' WHERE key = 'schema';
