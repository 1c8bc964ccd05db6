-- The item list sorted by a run's score walks this index: each run's results in the order of
-- the score the table shows (an error counts 0, an unparsed reply 0), ties by item.
CREATE INDEX IF NOT EXISTS run_items_effective ON run_items
    (run_id, (CASE WHEN outcome = 'error' THEN 0 ELSE coalesce(score, 0) END), item_id)
    WHERE outcome != 'skipped';
