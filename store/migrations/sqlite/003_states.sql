-- The sendability of every subsample as the last events refresh decided it,
-- and what that refresh changed, for the overview's "since the previous
-- refresh" counts.
CREATE TABLE subsample_states (
    subsample_id INTEGER PRIMARY KEY,
    status       TEXT NOT NULL,
    sendability  TEXT NOT NULL
);

-- One row per subsample whose state the last events refresh changed. kind
-- is new, sendable (became sendable), paused (became paused) or closed
-- (left Live or Live for testing, or the event list).
CREATE TABLE state_changes (
    subsample_id INTEGER NOT NULL,
    kind         TEXT NOT NULL,
    from_state   TEXT NOT NULL,
    to_state     TEXT NOT NULL,
    PRIMARY KEY (subsample_id, kind)
) WITHOUT ROWID;
