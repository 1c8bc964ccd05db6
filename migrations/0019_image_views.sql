-- Images as an input variant shows them to a model (the target highlighted, the target
-- cropped), made once from the stored image and kept like previews: a derived cache, never
-- synced, safe to drop.
CREATE TABLE image_views (
    hash TEXT NOT NULL,
    view TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (hash, view)
) WITHOUT ROWID;
