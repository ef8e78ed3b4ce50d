-- migrations/sqlite/004_version.sql on PostgreSQL: the snapshot version,
-- one row every write of snapshot data moves on.
CREATE TABLE snapshot_version (
    id      BIGINT PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO snapshot_version (id, version) VALUES (1, 0);
