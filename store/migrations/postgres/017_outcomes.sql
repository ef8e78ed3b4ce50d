-- Price history and invoice parties (migrations/sqlite/017_outcomes.sql).
CREATE TABLE price_history (
    subsample_id BIGINT NOT NULL,
    from_at      TIMESTAMPTZ NOT NULL,
    currency     TEXT NOT NULL,
    cpi          DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (subsample_id, from_at)
);

CREATE TABLE invoice_parties (
    subsample_id   BIGINT PRIMARY KEY,
    event_id       BIGINT NOT NULL,
    billing_entity TEXT NOT NULL,
    job_book_id    TEXT NOT NULL,
    last_seen_at   TIMESTAMPTZ NOT NULL
);

CREATE INDEX history_by_time ON history (registered_at, subsample_id);

ALTER TABLE routing_decisions ADD COLUMN cells TEXT NOT NULL DEFAULT '';
