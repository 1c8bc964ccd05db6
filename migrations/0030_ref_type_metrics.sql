-- Box metrics by referring-expression type (CRAG-MM-Diagnostics reads accuracy by both): a
-- type with a metric range is one range of this index, counted without reading the items
-- (at a million items: size ratio < 0.05 among the ambiguous, 150 -> 10 ms). `items_ref_type`
-- stays: its entries are in id order, so a page filtered by the type alone needs no sort.
CREATE INDEX items_ref_type_metrics ON items (ref_type, size_ratio, center_distance, saliency);
