-- Judge panels: several judges' verdicts on the same stored responses of a run, kept apart from
-- the run's own results so the run's numbers never change by being judged again. A verdict is
-- about one response (its cache key) to one revision of the item (the reference it was judged
-- against): when either changes, the old verdicts no longer match and drop out of the panel.
-- `exact`: identification's exact name matches, scored 1 without asking the judge, kept out of
-- the agreement figures.
CREATE TABLE panel_judgements (
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    item_id      INTEGER NOT NULL REFERENCES items(id),
    item_rev     INTEGER NOT NULL,
    response_key TEXT NOT NULL,
    scorer       TEXT NOT NULL,
    judge        TEXT NOT NULL,
    outcome      TEXT NOT NULL CHECK (outcome IN ('scored', 'unparsed', 'error', 'exact')),
    score        REAL CHECK (score IS NULL OR (score >= 0 AND score <= 1)),
    evidence     TEXT,
    judge_key    TEXT,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (run_id, item_id, scorer, judge)
) WITHOUT ROWID;
