-- A local row the team database refused (pushed = 2): kept here with PostgreSQL's reason, so a
-- push goes on without it and a person can see why.
ALTER TABLE sync_uids ADD COLUMN refusal TEXT;
