-- Evaluation runs travel to the team as snapshots: a run is mutable here (resumed, run again),
-- so each finished state is published once, under the run's identity across replicas (origin).
-- Local bookkeeping.
CREATE TABLE sync_runs (
    run_id   INTEGER PRIMARY KEY REFERENCES runs(id),
    origin   TEXT NOT NULL UNIQUE,
    -- finished_at of the last snapshot exchanged with the team (pushed or pulled).
    snapshot TEXT,
    seq      INTEGER
);
