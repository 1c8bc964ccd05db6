-- The named protocol (a seed's preset: jammeval, haerae-vision, crag-mm, vague) a run was made
-- under; NULL for a run set up by hand. The table never compares runs of different protocols.
ALTER TABLE runs ADD COLUMN protocol TEXT
    CHECK (protocol IS NULL OR protocol IN ('jammeval', 'haerae-vision', 'crag-mm', 'vague'));
