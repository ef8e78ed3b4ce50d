-- The supplier's respondent history (migrations/sqlite/002_history.sql):
-- keyed by (panelist_id, subsample_id, status_id, registered_at), no other
-- index. panelist_id compares byte by byte (COLLATE "C"), as on SQLite,
-- whatever the database's collation: the scans walk panelists in that
-- order.
CREATE TABLE history (
    panelist_id      TEXT COLLATE "C" NOT NULL,
    subsample_id     BIGINT NOT NULL,
    status_id        BIGINT NOT NULL,
    registered_at    TIMESTAMPTZ NOT NULL,
    event_id         BIGINT NOT NULL,
    category_id      BIGINT NOT NULL,
    research_type_id BIGINT NOT NULL,
    PRIMARY KEY (panelist_id, subsample_id, status_id, registered_at)
);
