-- The named protocol a run was made under (a seed's preset), carried to every replica so the
-- table never compares runs of different protocols. NULL: set up by hand.
ALTER TABLE runs ADD COLUMN protocol text
    CONSTRAINT protocol_known
    CHECK (protocol IS NULL OR protocol IN ('jammeval', 'haerae-vision', 'crag-mm', 'vague'));
UPDATE assay_meta SET value = '12' WHERE key = 'schema';
