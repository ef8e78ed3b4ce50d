-- Leases (issue 17): which one of several instances on one database runs
-- a job that must run once at a time (the refresh, the webhook worker).
-- A lease is free when holder is '' or expires_at has passed; its holder
-- renews it before then. token moves on each time the lease is taken
-- anew, not when it is renewed: a fencing token, which a write made under
-- the lease checks in its own transaction, so a holder that lost the
-- lease (paused, cut off) writes nothing after another took it. Times
-- come from the instances' clocks, not the database's.
CREATE TABLE leases (
    name        TEXT PRIMARY KEY,
    holder      TEXT NOT NULL DEFAULT '',
    token       INTEGER NOT NULL DEFAULT 0,
    acquired_at DATETIME NOT NULL,
    expires_at  DATETIME NOT NULL
);
