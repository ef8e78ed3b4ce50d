-- A counter that every write of snapshot data moves on, so a reader can
-- tell in one cheap query whether what it cached is still current, even
-- when another process (fieldboard refresh) wrote.
CREATE TABLE snapshot_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO snapshot_version (id, version) VALUES (1, 0);
