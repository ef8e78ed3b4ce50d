-- Elements of the provider's lists that could not be read
-- (migrations/sqlite/010_malformed.sql).
ALTER TABLE refresh_runs ADD COLUMN malformed BIGINT NOT NULL DEFAULT 0;
ALTER TABLE refresh_runs ADD COLUMN malformed_first TEXT NOT NULL DEFAULT '';
ALTER TABLE subsamples ADD COLUMN malformed TEXT NOT NULL DEFAULT '';
