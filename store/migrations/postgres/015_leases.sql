-- Leases: which one of several instances runs a job that must run once at
-- a time (migrations/sqlite/015_leases.sql).
CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL DEFAULT '',
    token       BIGINT NOT NULL DEFAULT 0,
    acquired_at TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
