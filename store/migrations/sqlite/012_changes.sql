-- The change feed: what each events refresh found had moved since the one
-- before (rules.Changes), written in the transaction of the snapshot that
-- revealed it. subsample_states keeps, for the next comparison, what the
-- last refresh decided of each subsample: beside its status and
-- sendability, its event, country, price, field end and closed quotas.
-- The feed replaces state_changes, the overview's counts of the last
-- refresh, which it now answers too (by run_id).
ALTER TABLE subsample_states ADD COLUMN event_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE subsample_states ADD COLUMN country TEXT NOT NULL DEFAULT '';
ALTER TABLE subsample_states ADD COLUMN cpi REAL;
ALTER TABLE subsample_states ADD COLUMN currency TEXT NOT NULL DEFAULT '';
ALTER TABLE subsample_states ADD COLUMN field_end DATETIME;
ALTER TABLE subsample_states ADD COLUMN quotas_read INTEGER NOT NULL DEFAULT 0;
ALTER TABLE subsample_states ADD COLUMN closed_quotas TEXT NOT NULL DEFAULT '[]';

DROP TABLE state_changes;

CREATE TABLE changes (
    change_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id       INTEGER NOT NULL,
    at           DATETIME NOT NULL,
    kind         TEXT NOT NULL,
    subsample_id INTEGER NOT NULL,
    event_id     INTEGER NOT NULL,
    country      TEXT NOT NULL,
    quota_id     TEXT NOT NULL DEFAULT '',
    before_value TEXT NOT NULL,
    after_value  TEXT NOT NULL
);
CREATE INDEX changes_by_time ON changes (at);
CREATE INDEX changes_by_run ON changes (run_id);
CREATE INDEX changes_by_subsample ON changes (subsample_id, change_id);
