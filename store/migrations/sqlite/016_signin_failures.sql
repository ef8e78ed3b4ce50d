-- Failed sign-ins (issue 17): the sign-in limits count them in the
-- database, not in one instance's memory, so that a name or an address
-- locked out through one instance is locked out on every instance behind
-- the load balancer. kind is what a limit counts by: 'user' (the name,
-- lower-cased) or 'address' (the client's address, an IPv6 /64 as one).
-- A failure older than the limits' window is deleted by the next one
-- counted of its kind.
CREATE TABLE signin_failures (
    failure_id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind       TEXT NOT NULL,
    key        TEXT NOT NULL,
    at         DATETIME NOT NULL
);
CREATE INDEX signin_failures_by_key ON signin_failures (kind, key, at);
CREATE INDEX signin_failures_by_time ON signin_failures (kind, at);
