-- migrations/sqlite/003_states.sql on PostgreSQL.
CREATE TABLE subsample_states (
    subsample_id BIGINT PRIMARY KEY,
    status       TEXT NOT NULL,
    sendability  TEXT NOT NULL
);

CREATE TABLE state_changes (
    subsample_id BIGINT NOT NULL,
    kind         TEXT NOT NULL,
    from_state   TEXT NOT NULL,
    to_state     TEXT NOT NULL,
    PRIMARY KEY (subsample_id, kind)
);
