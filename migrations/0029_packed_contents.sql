-- Dictionaries that imported originals are packed against (store/packed.rs): each import of
-- enough items learns one from its first items. A revision's content is plain JSON (TEXT) or
-- packed (a BLOB naming its dictionary); statements read it through revision_json(content).
-- A dictionary is part of the contents packed with it, so like them it never changes.
CREATE TABLE content_dicts (
    id   INTEGER PRIMARY KEY,
    dict BLOB NOT NULL
);
CREATE TRIGGER content_dicts_are_immutable BEFORE UPDATE ON content_dicts
BEGIN
    SELECT RAISE(ABORT, 'content dictionaries are immutable');
END;
CREATE TRIGGER content_dicts_are_permanent BEFORE DELETE ON content_dicts
BEGIN
    SELECT RAISE(ABORT, 'content dictionaries cannot be deleted');
END;
