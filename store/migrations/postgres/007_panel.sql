-- The supplier's panel (migrations/sqlite/007_panel.sql): each panelist's
-- country and locale. panelist_id compares byte by byte (COLLATE "C"), as
-- the profiles' does: a scan of both walks them side by side.
CREATE TABLE panel (
    panelist_id TEXT COLLATE "C" PRIMARY KEY,
    country     TEXT NOT NULL,
    locale      TEXT NOT NULL DEFAULT ''
);
