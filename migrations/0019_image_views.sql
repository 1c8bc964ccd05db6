-- Images as an input variant sends them to a model (the target highlighted, the target
-- cropped), encoded at the size sent (a few hundred KB, never the full-size original), kept
-- like previews: a derived cache, never synced, safe to drop. `view` names the view, the size
-- sent and the encoding.
CREATE TABLE image_views (
    hash TEXT NOT NULL,
    view TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (hash, view)
) WITHOUT ROWID;
