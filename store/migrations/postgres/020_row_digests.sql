-- A snapshot write writes only the rows that differ from the snapshot it
-- replaces (migrations/sqlite/020_row_digests.sql).
ALTER TABLE subsamples ADD COLUMN digest BIGINT;
ALTER TABLE live_subsamples ADD COLUMN digest BIGINT;
ALTER TABLE quotas ADD COLUMN digest BIGINT;
ALTER TABLE subsample_fetches ADD COLUMN rules_digest BIGINT;
