-- Every number traceable to what was asked and the rule that scored it: the request as sent
-- (system and user text, image hashes and the size each was sent at; no image data) kept with
-- its cached response, and the scorer that produced each per-item result.
ALTER TABLE responses ADD COLUMN prompt TEXT;
ALTER TABLE run_items ADD COLUMN scorer TEXT;
