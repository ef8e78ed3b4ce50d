-- Quota cells closed for routing by the field
-- (migrations/sqlite/024_field_closures.sql).
CREATE TABLE field_closures (
    subsample_id        BIGINT NOT NULL,
    quota_id            BIGINT NOT NULL,
    quota_name          TEXT NOT NULL,
    closed_at           TIMESTAMPTZ NOT NULL,
    closed_until        TIMESTAMPTZ NOT NULL,
    achieved            BIGINT NOT NULL,
    remaining_exclusive BIGINT NOT NULL,
    remaining_shared    BIGINT NOT NULL,
    PRIMARY KEY (subsample_id, quota_id)
);
