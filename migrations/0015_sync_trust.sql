-- A replica trusts nothing it pulls: a pulled row it cannot accept is set aside here with the
-- reason (and the sync goes on); a pulled response is kept for its run's trace but is never a
-- cache hit for this machine's evaluations; a run's origin remembers who published it.
CREATE TABLE sync_set_aside (
    tbl        TEXT NOT NULL,
    uid        TEXT NOT NULL,
    seq        INTEGER,
    reason     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tbl, uid)
) WITHOUT ROWID;
ALTER TABLE responses ADD COLUMN from_team TEXT;
ALTER TABLE sync_runs ADD COLUMN author TEXT;
