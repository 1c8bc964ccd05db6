-- How many items have each facet value, kept as items change: with no filter (what the list
-- shows first) the facets are a read of this small table instead of six GROUP BYs and the
-- histograms over every item (3.3 s at 2,000,000 items). One row per (facet, value):
--   facet: a column of items ('dataset_id', 'category', 'op', 'status', 'ref_type', 'has_box'),
--          'tag' (value: the tag's bit; n: items carrying it), or a box metric ('size_ratio',
--          'center_distance', 'saliency'; value: the histogram bar's index over the edges of
--          grounding::metrics, the last bar closed; items without a box are not counted);
--   value: the column's value, X'' for NULL (a key column cannot hold NULL).
-- Rows whose count falls to 0 stay (with n = 0) and are not shown.
--
-- Triggers keep it on every write of one item (an edit, a bulk action, a pulled revision). A
-- bulk import sets facet_state.bulk for the length of its transaction and then adds its new
-- items' counts in one GROUP BY each (store::facet_counts), since ten upserts per row were a
-- large share of an import. Items are never deleted (items_are_permanent).
-- A migration that rebuilds items must recreate these triggers and refill the table.
CREATE TABLE facet_counts (
    facet TEXT NOT NULL,
    value NOT NULL,
    n     INTEGER NOT NULL,
    PRIMARY KEY (facet, value)
) WITHOUT ROWID;

CREATE TABLE facet_state (bulk INTEGER NOT NULL);
INSERT INTO facet_state (bulk) VALUES (0);

INSERT INTO facet_counts (facet, value, n)
SELECT f, v, n FROM (
    SELECT NULL AS f, NULL AS v, 0 AS n WHERE 0
    UNION ALL SELECT 'dataset_id', dataset_id, count(*) FROM items GROUP BY 2
    UNION ALL SELECT 'category', coalesce(category, X''), count(*) FROM items GROUP BY 2
    UNION ALL SELECT 'op', coalesce(op, X''), count(*) FROM items GROUP BY 2
    UNION ALL SELECT 'status', status, count(*) FROM items GROUP BY 2
    UNION ALL SELECT 'ref_type', coalesce(ref_type, X''), count(*) FROM items GROUP BY 2
    UNION ALL SELECT 'has_box', has_box, count(*) FROM items GROUP BY 2
    UNION ALL SELECT 'tag', 1, count(*) FROM items WHERE (tags & 1) != 0
    UNION ALL SELECT 'tag', 2, count(*) FROM items WHERE (tags & 2) != 0
    UNION ALL SELECT 'tag', 4, count(*) FROM items WHERE (tags & 4) != 0
    UNION ALL SELECT 'tag', 8, count(*) FROM items WHERE (tags & 8) != 0
    UNION ALL SELECT 'size_ratio', CASE WHEN size_ratio >= 0.0 AND size_ratio < 0.01 THEN 0 WHEN size_ratio >= 0.01 AND size_ratio < 0.02 THEN 1 WHEN size_ratio >= 0.02 AND size_ratio < 0.05 THEN 2 WHEN size_ratio >= 0.05 AND size_ratio < 0.1 THEN 3 WHEN size_ratio >= 0.1 AND size_ratio < 0.2 THEN 4 WHEN size_ratio >= 0.2 AND size_ratio < 0.3 THEN 5 WHEN size_ratio >= 0.3 AND size_ratio < 0.5 THEN 6 WHEN size_ratio >= 0.5 AND size_ratio <= 1.0 THEN 7 END, count(*) FROM items WHERE size_ratio IS NOT NULL GROUP BY 2
    UNION ALL SELECT 'center_distance', CASE WHEN center_distance >= 0.0 AND center_distance < 0.1 THEN 0 WHEN center_distance >= 0.1 AND center_distance < 0.2 THEN 1 WHEN center_distance >= 0.2 AND center_distance < 0.3 THEN 2 WHEN center_distance >= 0.3 AND center_distance < 0.4 THEN 3 WHEN center_distance >= 0.4 AND center_distance < 0.5 THEN 4 WHEN center_distance >= 0.5 AND center_distance < 0.6 THEN 5 WHEN center_distance >= 0.6 AND center_distance < 0.7 THEN 6 WHEN center_distance >= 0.7 AND center_distance < 0.8 THEN 7 WHEN center_distance >= 0.8 AND center_distance < 0.9 THEN 8 WHEN center_distance >= 0.9 AND center_distance <= 1.0 THEN 9 END, count(*) FROM items WHERE center_distance IS NOT NULL GROUP BY 2
    UNION ALL SELECT 'saliency', CASE WHEN saliency >= 0.0 AND saliency < 0.1 THEN 0 WHEN saliency >= 0.1 AND saliency < 0.2 THEN 1 WHEN saliency >= 0.2 AND saliency < 0.3 THEN 2 WHEN saliency >= 0.3 AND saliency < 0.4 THEN 3 WHEN saliency >= 0.4 AND saliency < 0.5 THEN 4 WHEN saliency >= 0.5 AND saliency < 0.6 THEN 5 WHEN saliency >= 0.6 AND saliency < 0.7 THEN 6 WHEN saliency >= 0.7 AND saliency < 0.8 THEN 7 WHEN saliency >= 0.8 AND saliency < 0.9 THEN 8 WHEN saliency >= 0.9 AND saliency <= 1.0 THEN 9 END, count(*) FROM items WHERE saliency IS NOT NULL GROUP BY 2
) WHERE v IS NOT NULL AND n > 0;

CREATE TRIGGER items_count_facets_insert AFTER INSERT ON items
WHEN (SELECT bulk FROM facet_state) = 0
BEGIN
    INSERT INTO facet_counts (facet, value, n)
    SELECT f, v, d FROM (
        SELECT NULL AS f, NULL AS v, 0 AS d WHERE 0
        UNION ALL SELECT 'dataset_id', NEW.dataset_id, 1
        UNION ALL SELECT 'category', coalesce(NEW.category, X''), 1
        UNION ALL SELECT 'op', coalesce(NEW.op, X''), 1
        UNION ALL SELECT 'status', NEW.status, 1
        UNION ALL SELECT 'ref_type', coalesce(NEW.ref_type, X''), 1
        UNION ALL SELECT 'has_box', NEW.has_box, 1
        UNION ALL SELECT 'tag', 1, 1 WHERE (NEW.tags & 1) != 0
        UNION ALL SELECT 'tag', 2, 1 WHERE (NEW.tags & 2) != 0
        UNION ALL SELECT 'tag', 4, 1 WHERE (NEW.tags & 4) != 0
        UNION ALL SELECT 'tag', 8, 1 WHERE (NEW.tags & 8) != 0
        UNION ALL SELECT 'size_ratio', CASE WHEN NEW.size_ratio >= 0.0 AND NEW.size_ratio < 0.01 THEN 0 WHEN NEW.size_ratio >= 0.01 AND NEW.size_ratio < 0.02 THEN 1 WHEN NEW.size_ratio >= 0.02 AND NEW.size_ratio < 0.05 THEN 2 WHEN NEW.size_ratio >= 0.05 AND NEW.size_ratio < 0.1 THEN 3 WHEN NEW.size_ratio >= 0.1 AND NEW.size_ratio < 0.2 THEN 4 WHEN NEW.size_ratio >= 0.2 AND NEW.size_ratio < 0.3 THEN 5 WHEN NEW.size_ratio >= 0.3 AND NEW.size_ratio < 0.5 THEN 6 WHEN NEW.size_ratio >= 0.5 AND NEW.size_ratio <= 1.0 THEN 7 END, 1
        UNION ALL SELECT 'center_distance', CASE WHEN NEW.center_distance >= 0.0 AND NEW.center_distance < 0.1 THEN 0 WHEN NEW.center_distance >= 0.1 AND NEW.center_distance < 0.2 THEN 1 WHEN NEW.center_distance >= 0.2 AND NEW.center_distance < 0.3 THEN 2 WHEN NEW.center_distance >= 0.3 AND NEW.center_distance < 0.4 THEN 3 WHEN NEW.center_distance >= 0.4 AND NEW.center_distance < 0.5 THEN 4 WHEN NEW.center_distance >= 0.5 AND NEW.center_distance < 0.6 THEN 5 WHEN NEW.center_distance >= 0.6 AND NEW.center_distance < 0.7 THEN 6 WHEN NEW.center_distance >= 0.7 AND NEW.center_distance < 0.8 THEN 7 WHEN NEW.center_distance >= 0.8 AND NEW.center_distance < 0.9 THEN 8 WHEN NEW.center_distance >= 0.9 AND NEW.center_distance <= 1.0 THEN 9 END, 1
        UNION ALL SELECT 'saliency', CASE WHEN NEW.saliency >= 0.0 AND NEW.saliency < 0.1 THEN 0 WHEN NEW.saliency >= 0.1 AND NEW.saliency < 0.2 THEN 1 WHEN NEW.saliency >= 0.2 AND NEW.saliency < 0.3 THEN 2 WHEN NEW.saliency >= 0.3 AND NEW.saliency < 0.4 THEN 3 WHEN NEW.saliency >= 0.4 AND NEW.saliency < 0.5 THEN 4 WHEN NEW.saliency >= 0.5 AND NEW.saliency < 0.6 THEN 5 WHEN NEW.saliency >= 0.6 AND NEW.saliency < 0.7 THEN 6 WHEN NEW.saliency >= 0.7 AND NEW.saliency < 0.8 THEN 7 WHEN NEW.saliency >= 0.8 AND NEW.saliency < 0.9 THEN 8 WHEN NEW.saliency >= 0.9 AND NEW.saliency <= 1.0 THEN 9 END, 1
    ) WHERE v IS NOT NULL
    ON CONFLICT (facet, value) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER items_count_facets_update
AFTER UPDATE OF dataset_id, category, op, status, ref_type, has_box, tags, size_ratio,
                center_distance, saliency ON items
BEGIN
    INSERT INTO facet_counts (facet, value, n)
    SELECT f, v, d FROM (
        SELECT NULL AS f, NULL AS v, 0 AS d WHERE 0
        UNION ALL SELECT 'dataset_id', OLD.dataset_id, -1 WHERE OLD.dataset_id IS NOT NEW.dataset_id
        UNION ALL SELECT 'category', coalesce(OLD.category, X''), -1 WHERE OLD.category IS NOT NEW.category
        UNION ALL SELECT 'op', coalesce(OLD.op, X''), -1 WHERE OLD.op IS NOT NEW.op
        UNION ALL SELECT 'status', OLD.status, -1 WHERE OLD.status IS NOT NEW.status
        UNION ALL SELECT 'ref_type', coalesce(OLD.ref_type, X''), -1 WHERE OLD.ref_type IS NOT NEW.ref_type
        UNION ALL SELECT 'has_box', OLD.has_box, -1 WHERE OLD.has_box IS NOT NEW.has_box
        UNION ALL SELECT 'tag', 1, -1 WHERE (OLD.tags & 1) != 0 AND (OLD.tags & 1) != (NEW.tags & 1)
        UNION ALL SELECT 'tag', 2, -1 WHERE (OLD.tags & 2) != 0 AND (OLD.tags & 2) != (NEW.tags & 2)
        UNION ALL SELECT 'tag', 4, -1 WHERE (OLD.tags & 4) != 0 AND (OLD.tags & 4) != (NEW.tags & 4)
        UNION ALL SELECT 'tag', 8, -1 WHERE (OLD.tags & 8) != 0 AND (OLD.tags & 8) != (NEW.tags & 8)
        UNION ALL SELECT 'size_ratio', CASE WHEN OLD.size_ratio >= 0.0 AND OLD.size_ratio < 0.01 THEN 0 WHEN OLD.size_ratio >= 0.01 AND OLD.size_ratio < 0.02 THEN 1 WHEN OLD.size_ratio >= 0.02 AND OLD.size_ratio < 0.05 THEN 2 WHEN OLD.size_ratio >= 0.05 AND OLD.size_ratio < 0.1 THEN 3 WHEN OLD.size_ratio >= 0.1 AND OLD.size_ratio < 0.2 THEN 4 WHEN OLD.size_ratio >= 0.2 AND OLD.size_ratio < 0.3 THEN 5 WHEN OLD.size_ratio >= 0.3 AND OLD.size_ratio < 0.5 THEN 6 WHEN OLD.size_ratio >= 0.5 AND OLD.size_ratio <= 1.0 THEN 7 END, -1 WHERE OLD.size_ratio IS NOT NEW.size_ratio
        UNION ALL SELECT 'center_distance', CASE WHEN OLD.center_distance >= 0.0 AND OLD.center_distance < 0.1 THEN 0 WHEN OLD.center_distance >= 0.1 AND OLD.center_distance < 0.2 THEN 1 WHEN OLD.center_distance >= 0.2 AND OLD.center_distance < 0.3 THEN 2 WHEN OLD.center_distance >= 0.3 AND OLD.center_distance < 0.4 THEN 3 WHEN OLD.center_distance >= 0.4 AND OLD.center_distance < 0.5 THEN 4 WHEN OLD.center_distance >= 0.5 AND OLD.center_distance < 0.6 THEN 5 WHEN OLD.center_distance >= 0.6 AND OLD.center_distance < 0.7 THEN 6 WHEN OLD.center_distance >= 0.7 AND OLD.center_distance < 0.8 THEN 7 WHEN OLD.center_distance >= 0.8 AND OLD.center_distance < 0.9 THEN 8 WHEN OLD.center_distance >= 0.9 AND OLD.center_distance <= 1.0 THEN 9 END, -1 WHERE OLD.center_distance IS NOT NEW.center_distance
        UNION ALL SELECT 'saliency', CASE WHEN OLD.saliency >= 0.0 AND OLD.saliency < 0.1 THEN 0 WHEN OLD.saliency >= 0.1 AND OLD.saliency < 0.2 THEN 1 WHEN OLD.saliency >= 0.2 AND OLD.saliency < 0.3 THEN 2 WHEN OLD.saliency >= 0.3 AND OLD.saliency < 0.4 THEN 3 WHEN OLD.saliency >= 0.4 AND OLD.saliency < 0.5 THEN 4 WHEN OLD.saliency >= 0.5 AND OLD.saliency < 0.6 THEN 5 WHEN OLD.saliency >= 0.6 AND OLD.saliency < 0.7 THEN 6 WHEN OLD.saliency >= 0.7 AND OLD.saliency < 0.8 THEN 7 WHEN OLD.saliency >= 0.8 AND OLD.saliency < 0.9 THEN 8 WHEN OLD.saliency >= 0.9 AND OLD.saliency <= 1.0 THEN 9 END, -1 WHERE OLD.saliency IS NOT NEW.saliency
    ) WHERE v IS NOT NULL
    ON CONFLICT (facet, value) DO UPDATE SET n = n + excluded.n;
    INSERT INTO facet_counts (facet, value, n)
    SELECT f, v, d FROM (
        SELECT NULL AS f, NULL AS v, 0 AS d WHERE 0
        UNION ALL SELECT 'dataset_id', NEW.dataset_id, 1 WHERE OLD.dataset_id IS NOT NEW.dataset_id
        UNION ALL SELECT 'category', coalesce(NEW.category, X''), 1 WHERE OLD.category IS NOT NEW.category
        UNION ALL SELECT 'op', coalesce(NEW.op, X''), 1 WHERE OLD.op IS NOT NEW.op
        UNION ALL SELECT 'status', NEW.status, 1 WHERE OLD.status IS NOT NEW.status
        UNION ALL SELECT 'ref_type', coalesce(NEW.ref_type, X''), 1 WHERE OLD.ref_type IS NOT NEW.ref_type
        UNION ALL SELECT 'has_box', NEW.has_box, 1 WHERE OLD.has_box IS NOT NEW.has_box
        UNION ALL SELECT 'tag', 1, 1 WHERE (NEW.tags & 1) != 0 AND (OLD.tags & 1) != (NEW.tags & 1)
        UNION ALL SELECT 'tag', 2, 1 WHERE (NEW.tags & 2) != 0 AND (OLD.tags & 2) != (NEW.tags & 2)
        UNION ALL SELECT 'tag', 4, 1 WHERE (NEW.tags & 4) != 0 AND (OLD.tags & 4) != (NEW.tags & 4)
        UNION ALL SELECT 'tag', 8, 1 WHERE (NEW.tags & 8) != 0 AND (OLD.tags & 8) != (NEW.tags & 8)
        UNION ALL SELECT 'size_ratio', CASE WHEN NEW.size_ratio >= 0.0 AND NEW.size_ratio < 0.01 THEN 0 WHEN NEW.size_ratio >= 0.01 AND NEW.size_ratio < 0.02 THEN 1 WHEN NEW.size_ratio >= 0.02 AND NEW.size_ratio < 0.05 THEN 2 WHEN NEW.size_ratio >= 0.05 AND NEW.size_ratio < 0.1 THEN 3 WHEN NEW.size_ratio >= 0.1 AND NEW.size_ratio < 0.2 THEN 4 WHEN NEW.size_ratio >= 0.2 AND NEW.size_ratio < 0.3 THEN 5 WHEN NEW.size_ratio >= 0.3 AND NEW.size_ratio < 0.5 THEN 6 WHEN NEW.size_ratio >= 0.5 AND NEW.size_ratio <= 1.0 THEN 7 END, 1 WHERE OLD.size_ratio IS NOT NEW.size_ratio
        UNION ALL SELECT 'center_distance', CASE WHEN NEW.center_distance >= 0.0 AND NEW.center_distance < 0.1 THEN 0 WHEN NEW.center_distance >= 0.1 AND NEW.center_distance < 0.2 THEN 1 WHEN NEW.center_distance >= 0.2 AND NEW.center_distance < 0.3 THEN 2 WHEN NEW.center_distance >= 0.3 AND NEW.center_distance < 0.4 THEN 3 WHEN NEW.center_distance >= 0.4 AND NEW.center_distance < 0.5 THEN 4 WHEN NEW.center_distance >= 0.5 AND NEW.center_distance < 0.6 THEN 5 WHEN NEW.center_distance >= 0.6 AND NEW.center_distance < 0.7 THEN 6 WHEN NEW.center_distance >= 0.7 AND NEW.center_distance < 0.8 THEN 7 WHEN NEW.center_distance >= 0.8 AND NEW.center_distance < 0.9 THEN 8 WHEN NEW.center_distance >= 0.9 AND NEW.center_distance <= 1.0 THEN 9 END, 1 WHERE OLD.center_distance IS NOT NEW.center_distance
        UNION ALL SELECT 'saliency', CASE WHEN NEW.saliency >= 0.0 AND NEW.saliency < 0.1 THEN 0 WHEN NEW.saliency >= 0.1 AND NEW.saliency < 0.2 THEN 1 WHEN NEW.saliency >= 0.2 AND NEW.saliency < 0.3 THEN 2 WHEN NEW.saliency >= 0.3 AND NEW.saliency < 0.4 THEN 3 WHEN NEW.saliency >= 0.4 AND NEW.saliency < 0.5 THEN 4 WHEN NEW.saliency >= 0.5 AND NEW.saliency < 0.6 THEN 5 WHEN NEW.saliency >= 0.6 AND NEW.saliency < 0.7 THEN 6 WHEN NEW.saliency >= 0.7 AND NEW.saliency < 0.8 THEN 7 WHEN NEW.saliency >= 0.8 AND NEW.saliency < 0.9 THEN 8 WHEN NEW.saliency >= 0.9 AND NEW.saliency <= 1.0 THEN 9 END, 1 WHERE OLD.saliency IS NOT NEW.saliency
    ) WHERE v IS NOT NULL
    ON CONFLICT (facet, value) DO UPDATE SET n = n + excluded.n;
END;
