-- A replica trusts nothing it pulls: a pulled row it cannot accept is set aside here with the
-- reason (and the sync goes on); a run's origin remembers who published it. (Pulled responses
-- are stored under `team:MEMBER:KEY`, a key no local request has, so they are never cache hits.)
CREATE TABLE sync_set_aside (
    tbl        TEXT NOT NULL,
    uid        TEXT NOT NULL,
    seq        INTEGER,
    reason     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (tbl, uid)
) WITHOUT ROWID;
ALTER TABLE sync_runs ADD COLUMN author TEXT;
