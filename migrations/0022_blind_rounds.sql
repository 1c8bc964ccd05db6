-- Blind double annotation: in a blind round each assignee records their judgement of an item
-- (op, tags, referring-expression type, phase-1 flags, checklist ratings, a box) as a row of
-- their own, never as the item's next revision, so two people's judgements are independent.
-- Nobody is shown another's judgement on an item until every assignee of it has recorded one;
-- an auditor then adjudicates by writing the item's revision. Append-only, like revisions.
ALTER TABLE rounds ADD COLUMN blind INTEGER NOT NULL DEFAULT 0 CHECK (blind IN (0, 1));

CREATE TABLE blind_annotations (
    id         INTEGER PRIMARY KEY,
    round_id   INTEGER NOT NULL REFERENCES rounds(id),
    item_id    INTEGER NOT NULL REFERENCES items(id),
    user_id    INTEGER NOT NULL REFERENCES users(id),
    -- The judgement as JSON (BlindJudgement); the latest row per person counts.
    judgement  TEXT NOT NULL CHECK (json_valid(judgement)),
    created_at TEXT NOT NULL
);
CREATE INDEX blind_annotations_item ON blind_annotations (round_id, item_id, user_id, id);

CREATE TRIGGER blind_annotations_are_immutable BEFORE UPDATE ON blind_annotations
BEGIN SELECT RAISE(ABORT, 'blind annotations are append-only'); END;
CREATE TRIGGER blind_annotations_are_permanent BEFORE DELETE ON blind_annotations
BEGIN SELECT RAISE(ABORT, 'blind annotations are append-only'); END;
CREATE TRIGGER blind_annotations_get_uids AFTER INSERT ON blind_annotations
BEGIN
    INSERT INTO sync_uids (tbl, local_id, uid) VALUES ('blind_annotations', NEW.id, lower(hex(randomblob(16))));
END;
