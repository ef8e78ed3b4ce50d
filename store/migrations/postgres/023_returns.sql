-- The way back: returns recorded against the router's sends
-- (migrations/sqlite/023_returns.sql).
ALTER TABLE routing_decisions ADD COLUMN hop INTEGER NOT NULL DEFAULT 1;
ALTER TABLE routing_decisions ADD COLUMN after_decision BIGINT;
ALTER TABLE routing_decisions ADD COLUMN return_status BIGINT;
ALTER TABLE routing_decisions ADD COLUMN returned_at TIMESTAMPTZ;
ALTER TABLE routing_decisions ADD COLUMN return_flag TEXT NOT NULL DEFAULT '';
ALTER TABLE routing_decisions ADD COLUMN return_via TEXT NOT NULL DEFAULT '';
CREATE INDEX routing_decisions_by_panelist ON routing_decisions (panelist_id, at);

CREATE TABLE returned_history (
    panelist_id   TEXT COLLATE "C" NOT NULL,
    subsample_id  BIGINT NOT NULL,
    status_id     BIGINT NOT NULL,
    registered_at TIMESTAMPTZ NOT NULL,
    sent_at       TIMESTAMPTZ NOT NULL,
    decision_id   BIGINT NOT NULL,
    flag          TEXT NOT NULL,
    PRIMARY KEY (panelist_id, subsample_id, status_id, registered_at)
);
CREATE INDEX returned_history_by_time ON returned_history (registered_at);
