-- `items.thumb_hash` holds a lower-case SHA-256 hex as its 32 bytes (store::items::
-- stored_thumb_hash): 64 characters of text in every row of the largest table were ~5 % of a
-- project's file. Any other text stays as it is; readers take either.
UPDATE items SET thumb_hash = unhex(thumb_hash)
WHERE typeof(thumb_hash) = 'text' AND length(thumb_hash) = 64
  AND thumb_hash = lower(thumb_hash) AND unhex(thumb_hash) IS NOT NULL;
