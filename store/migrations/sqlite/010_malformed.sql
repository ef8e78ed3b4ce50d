-- Elements of the provider's lists that could not be read (a field of the
-- wrong type, or one the decision needs absent) are dropped one by one:
-- each refresh counts them and keeps the first one's description, and a
-- subsample whose element was dropped keeps why, so that it is decided
-- unknown rather than left out.
ALTER TABLE refresh_runs ADD COLUMN malformed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refresh_runs ADD COLUMN malformed_first TEXT NOT NULL DEFAULT '';
ALTER TABLE subsamples ADD COLUMN malformed TEXT NOT NULL DEFAULT '';
