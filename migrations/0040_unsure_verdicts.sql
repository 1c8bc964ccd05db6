-- A verdict its rules are not sure of (issue 49) says so in its evidence (`unsure`: why); the
-- store copies it here when the result is written, so runs and tables count unsure verdicts
-- apart without reading every result's evidence. NULL: sure.
ALTER TABLE run_items ADD COLUMN unsure TEXT;
