-- Quota cells closed for routing by the field: a quota full came back for
-- a send judged to fall surely in the cell while the provider still
-- showed it open (checks.Service.CloseFromField). achieved and the two
-- remaining counts are the quota's as the snapshot had them at closing:
-- a later quota read that finds them otherwise lifts the closure, as
-- does closed_until passing (liftFieldClosures).
CREATE TABLE field_closures (
    subsample_id        INTEGER NOT NULL,
    quota_id            INTEGER NOT NULL,
    quota_name          TEXT NOT NULL,
    closed_at           DATETIME NOT NULL,
    closed_until        DATETIME NOT NULL,
    achieved            INTEGER NOT NULL,
    remaining_exclusive INTEGER NOT NULL,
    remaining_shared    INTEGER NOT NULL,
    PRIMARY KEY (subsample_id, quota_id)
);
