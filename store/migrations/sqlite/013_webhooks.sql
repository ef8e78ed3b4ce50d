-- Webhooks (issue 16): subscriptions to the change feed, and the queue of
-- their deliveries. A change's deliveries are queued in the transaction of
-- the snapshot that revealed it (one row per matching subscription), so a
-- crash loses none; a worker sends them at least once. events is a comma-
-- separated list of change kinds ('' for all), country a country code
-- ('' for all). A delivery of a change keeps its change_id (changes with a
-- pending delivery are not pruned); a test event has none. message_id is
-- the webhook-id header, the same on every attempt.
CREATE TABLE webhook_subscriptions (
    subscription_id INTEGER PRIMARY KEY AUTOINCREMENT,
    url             TEXT NOT NULL,
    secret          TEXT NOT NULL,
    events          TEXT NOT NULL DEFAULT '',
    country         TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL,
    disabled_at     DATETIME,
    disabled_reason TEXT NOT NULL DEFAULT ''
);

CREATE TABLE webhook_deliveries (
    delivery_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    subscription_id  INTEGER NOT NULL REFERENCES webhook_subscriptions (subscription_id) ON DELETE CASCADE,
    change_id        INTEGER,
    kind             TEXT NOT NULL,
    message_id       TEXT NOT NULL,
    created_at       DATETIME NOT NULL,
    status           TEXT NOT NULL DEFAULT 'pending', -- pending, delivered, failed
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  DATETIME NOT NULL,
    last_attempt_at  DATETIME,
    last_status_code INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (subscription_id, delivery_id);
CREATE INDEX webhook_deliveries_by_change ON webhook_deliveries (change_id);
