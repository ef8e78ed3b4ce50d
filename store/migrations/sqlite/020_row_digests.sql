-- A snapshot write writes only the rows that differ from the snapshot it
-- replaces (store/snapshot_digest.go): each row of the event list, each
-- live subsample with its categories, countries and locales, each quota
-- and each subsample's eligibility rules keep the digest of the values
-- they were written with. NULL (a row written before) differs from every
-- digest, so the first write after this migration writes every row.
ALTER TABLE subsamples ADD COLUMN digest INTEGER;
ALTER TABLE live_subsamples ADD COLUMN digest INTEGER;
ALTER TABLE quotas ADD COLUMN digest INTEGER;
ALTER TABLE subsample_fetches ADD COLUMN rules_digest INTEGER;
