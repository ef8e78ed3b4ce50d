-- The supplier's respondent history (the spec's rule 4): one row per final
-- status a panelist reached on a subsample, imported from the supplier's
-- own files. Sized for tens of millions of rows, so it is kept lean:
--
-- * WITHOUT ROWID, keyed by (panelist_id, subsample_id, status_id,
--   registered_at): a re-imported file adds nothing (INSERT OR IGNORE), and
--   one panelist's records are one contiguous range of the key, which is all
--   the reads need (a panelist's history, a bulk check of many panelists).
--   No other index: each would cost as much again on every import.
-- * registered_at holds Unix milliseconds, like every DATETIME here.
CREATE TABLE history (
    panelist_id      TEXT NOT NULL,
    subsample_id     INTEGER NOT NULL,
    status_id        INTEGER NOT NULL,
    registered_at    DATETIME NOT NULL,
    event_id         INTEGER NOT NULL,
    category_id      INTEGER NOT NULL,
    research_type_id INTEGER NOT NULL,
    PRIMARY KEY (panelist_id, subsample_id, status_id, registered_at)
) WITHOUT ROWID;
