-- The supplier's own rules, applied after the provider's wherever a send
-- is decided (rules.OurRules): floors and limits, blocks, caps,
-- priorities and our own pauses. One row per rule in force; setting a
-- rule of the same key (kind, scope, target, currency, unit, per)
-- replaces it. Every change is kept in policy_changes.
CREATE TABLE policy_rules (
    rule_id  INTEGER PRIMARY KEY AUTOINCREMENT,
    kind     TEXT NOT NULL,
    scope    TEXT NOT NULL,
    target   TEXT NOT NULL,
    amount   REAL NOT NULL,
    currency TEXT NOT NULL,
    unit     TEXT NOT NULL,
    per      TEXT NOT NULL,
    set_by   TEXT NOT NULL,
    set_at   DATETIME NOT NULL,
    why      TEXT NOT NULL
);
CREATE UNIQUE INDEX policy_rules_key ON policy_rules (kind, scope, target, currency, unit, per);

-- Panelists held or released by hand: a hold keeps the panelist out of
-- every survey (until held_until, when set); a release lifts a quality
-- hold built on reversals recorded before it. One row per panelist: the
-- latest hand's word.
CREATE TABLE panelist_holds (
    panelist_id TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    set_by      TEXT NOT NULL,
    set_at      DATETIME NOT NULL,
    held_until  DATETIME,
    why         TEXT NOT NULL
);

-- The audit of every change of a rule, a pause, a hold or a release:
-- who, when, the value before and after, and why.
CREATE TABLE policy_changes (
    change_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    at           DATETIME NOT NULL,
    by_name      TEXT NOT NULL,
    action       TEXT NOT NULL,
    subject      TEXT NOT NULL,
    rule_kind    TEXT NOT NULL,
    panelist_id  TEXT NOT NULL,
    subsample_id INTEGER NOT NULL,
    before_value TEXT NOT NULL,
    after_value  TEXT NOT NULL,
    why          TEXT NOT NULL
);
CREATE INDEX policy_changes_at ON policy_changes (at);

-- The sends counted against a cap, per rule and window ("2026-12-06T14"
-- for an hour, "2026-12-06" for a day; with the panelist for a cap per
-- panelist): taken in the decision that sends, one statement that adds
-- one only below the cap (store.TakeCap), so two instances never both
-- take the last one.
CREATE TABLE policy_cap_counts (
    rule_id    INTEGER NOT NULL,
    window_key TEXT NOT NULL,
    taken      INTEGER NOT NULL,
    PRIMARY KEY (rule_id, window_key)
);
