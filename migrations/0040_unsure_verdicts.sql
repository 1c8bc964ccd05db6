-- A verdict its rules are not sure of (issue 49) says so in its evidence (`unsure`: why); the
-- store copies it here when the result is written, so runs and tables count unsure verdicts
-- apart without reading every result's evidence. NULL: sure.
ALTER TABLE run_items ADD COLUMN unsure TEXT;
-- Few verdicts are unsure: a partial index finds them per run without reading every result
-- (the column sits after the evidence, so reading it for each result would read the evidence).
CREATE INDEX run_items_unsure ON run_items (run_id, item_id) WHERE unsure IS NOT NULL;
