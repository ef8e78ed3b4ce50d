-- The way back: a respondent returned from a survey is recorded against
-- the send that took them there (the router's record), and a screened-out
-- one is sent on, a hop of the same session.
--
-- hop: the decision's place in the session (1: the click's or the
-- next-survey answer's send); after_decision: the send whose return this
-- hop followed. return_status, returned_at, return_flag, return_via: the
-- return of the chosen subsample, NULL/'' while none came back.
ALTER TABLE routing_decisions ADD COLUMN hop INTEGER NOT NULL DEFAULT 1;
ALTER TABLE routing_decisions ADD COLUMN after_decision INTEGER;
ALTER TABLE routing_decisions ADD COLUMN return_status INTEGER;
ALTER TABLE routing_decisions ADD COLUMN returned_at DATETIME;
ALTER TABLE routing_decisions ADD COLUMN return_flag TEXT NOT NULL DEFAULT '';
ALTER TABLE routing_decisions ADD COLUMN return_via TEXT NOT NULL DEFAULT '';
-- A return finds the panelist's newest send.
CREATE INDEX routing_decisions_by_panelist ON routing_decisions (panelist_id, at);

-- returned_history: the history records a return wrote, unconfirmed until
-- the supplier's imported history replaces them (an imported record of
-- the same panelist and subsample registered at or after sent_at).
-- Keyed as history is; small: only what the imports have not caught up
-- with.
CREATE TABLE returned_history (
    panelist_id   TEXT NOT NULL,
    subsample_id  INTEGER NOT NULL,
    status_id     INTEGER NOT NULL,
    registered_at DATETIME NOT NULL,
    sent_at       DATETIME NOT NULL,
    decision_id   INTEGER NOT NULL,
    flag          TEXT NOT NULL,
    PRIMARY KEY (panelist_id, subsample_id, status_id, registered_at)
) WITHOUT ROWID;
CREATE INDEX returned_history_by_time ON returned_history (registered_at);
