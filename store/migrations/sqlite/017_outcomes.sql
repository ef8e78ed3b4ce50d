-- What the sending produced is priced and invoiced from what refreshes
-- saw, kept after a subsample closes (history records name subsamples
-- long closed).
--
-- price_history: a point whenever a refresh read a subsample's currency
-- or CPI different from its last point (or its first), from the time of
-- that refresh: a complete is priced as it was when it was registered
-- (rules.PriceAt).
CREATE TABLE price_history (
    subsample_id INTEGER NOT NULL,
    from_at      DATETIME NOT NULL,
    currency     TEXT NOT NULL,
    cpi          REAL NOT NULL,
    PRIMARY KEY (subsample_id, from_at)
) WITHOUT ROWID;

-- invoice_parties: whom each subsample's completes are invoiced to, its
-- event's billing entity (event/all, or live details when they name one)
-- and job number (live details only: kept from the last refresh that
-- listed it as live).
CREATE TABLE invoice_parties (
    subsample_id   INTEGER PRIMARY KEY,
    event_id       INTEGER NOT NULL,
    billing_entity TEXT NOT NULL,
    job_book_id    TEXT NOT NULL,
    last_seen_at   DATETIME NOT NULL
);

-- The outcomes and the invoice of a period read the records registered in
-- it (one subsample's, for its page, from the same entries), then each of
-- those panelists' records on the same subsample by the primary key. One
-- index: each one more costs every import of history its upkeep.
CREATE INDEX history_by_time ON history (registered_at, subsample_id);

-- The router's record keeps the quota cells it judged the panelist to
-- fall in on the subsample it chose: a quota full there later is a
-- judgement the field proved wrong.
ALTER TABLE routing_decisions ADD COLUMN cells TEXT NOT NULL DEFAULT '';
