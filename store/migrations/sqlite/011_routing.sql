-- The router: the keys invitation tokens are signed with, and the record
-- of every click on one. A key is valid until expires_at (NULL: the
-- current one, until the next rotation); the newest valid key signs.
CREATE TABLE routing_keys (
    key_id     INTEGER PRIMARY KEY AUTOINCREMENT,
    secret     BLOB NOT NULL,
    created_at DATETIME NOT NULL,
    expires_at DATETIME
);

-- outcome: intended (sent to the invitation's subsample), next (to the
-- best survey instead), none (no survey would take the panelist).
CREATE TABLE routing_decisions (
    decision_id        INTEGER PRIMARY KEY AUTOINCREMENT,
    at                 DATETIME NOT NULL,
    panelist_id        TEXT NOT NULL,
    intended_subsample INTEGER,
    chosen_subsample   INTEGER,
    outcome            TEXT NOT NULL,
    reason             TEXT NOT NULL
);
CREATE INDEX routing_decisions_by_time ON routing_decisions (at);
CREATE INDEX routing_decisions_by_intended ON routing_decisions (intended_subsample, at);
CREATE INDEX routing_decisions_by_chosen ON routing_decisions (chosen_subsample, at);
