-- Box metrics (CRAG-MM-Diagnostics' size ratio, distance to centre, saliency) of each item's
-- primary target box, kept with the current state so filters and histograms read columns.
-- NULL when the item has no box. Filled for existing items by the migration step in migrate.rs,
-- computed by assay-core's grounding::metrics (one definition for the store and the UI).
ALTER TABLE items ADD COLUMN size_ratio REAL;
ALTER TABLE items ADD COLUMN center_distance REAL;
ALTER TABLE items ADD COLUMN saliency REAL;
CREATE INDEX items_size_ratio ON items (size_ratio) WHERE size_ratio IS NOT NULL;
CREATE INDEX items_saliency ON items (saliency) WHERE saliency IS NOT NULL;
