-- subsample.at_risk in the change feed (migrations/sqlite/014_at_risk.sql).
ALTER TABLE subsample_states ADD COLUMN at_risk TEXT NOT NULL DEFAULT '';
