-- Profiles in the supplier's own codes ("gender"="F", "dob"="1984-03-02")
-- and the supplier's mapping from them to the provider's question and
-- answer ids (store/profiles_own.go). What the mapping translates lands in
-- the profiles rows (005) beside the answers imported by provider ids, so
-- that every reader of profiles matches it unchanged; what it does not is
-- kept here as the supplier sent it, so that a mapping imported later
-- translates it without the profiles being imported again. A question that
-- holds answers imported by provider ids gets no translated answer.

-- profile_mapping: the supplier's whole mapping table, as its last import
-- gave it (an import replaces every row). country is '' for a row that
-- holds in every country; a row for the age question (-1) has value '' and
-- answer_id 0: its code's values are birth dates.
CREATE TABLE profile_mapping (
    code        TEXT NOT NULL,
    value       TEXT NOT NULL,
    question_id INTEGER NOT NULL,
    answer_id   INTEGER NOT NULL,
    country     TEXT NOT NULL,
    PRIMARY KEY (code, value, country, question_id, answer_id)
) WITHOUT ROWID;

-- own_profiles: each panelist's own answers as the supplier sent them, one
-- row per (panelist, code, value). import_id is the own import that wrote
-- the row (a row of profile_imports): an import replaces the values of a
-- (panelist, code) pair an earlier import wrote, and adds up the values it
-- gives itself (a multi-valued code over several lines). state is what the
-- last translation made of the row: 0 translated, 1 no mapping row covers
-- it for the panelist's country, or none of the answers its rows reach is
-- known in that country's locales (UnmappedCodes lists those), 2 a row
-- covers it but it was not applied (a birth date that is not one, one of
-- two birth dates, answers that disagree on a question that is not
-- Multiple Punch, or a question the panelist has answers to imported in
-- the provider's ids, which win). Only state 0 counts as translated.
CREATE TABLE own_profiles (
    panelist_id TEXT NOT NULL,
    code        TEXT NOT NULL,
    value       TEXT NOT NULL,
    import_id   INTEGER NOT NULL,
    state       INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (panelist_id, code, value)
) WITHOUT ROWID;

-- The rows one import wrote: the panelists it translates again, read in
-- panelist order a chunk at a time (a range of this index each).
CREATE INDEX own_profiles_by_import ON own_profiles (import_id, panelist_id);

-- The unmapped rows only, by code: what UnmappedCodes reads.
CREATE INDEX own_profiles_unmapped ON own_profiles (code, value) WHERE state = 1;

-- own_translations: per panelist with own answers, the country the last
-- translation used ('' when none was on file; a panel import that changes
-- it translates again) and the answers that translation wrote into the
-- panelist's profiles row, packed as profiles.answers is (005): the next
-- translation removes those before writing its own, so that the answers
-- imported by provider ids are kept.
CREATE TABLE own_translations (
    panelist_id TEXT PRIMARY KEY,
    country     TEXT NOT NULL,
    answers     BLOB NOT NULL
) WITHOUT ROWID;
