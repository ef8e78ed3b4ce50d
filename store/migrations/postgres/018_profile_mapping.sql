-- Profiles in the supplier's own codes and the supplier's mapping to the
-- provider's ids (migrations/sqlite/018_profile_mapping.sql says what each
-- table holds). Texts keyed by panelist compare byte by byte (COLLATE
-- "C"), as the profiles' and the panel's do.
CREATE TABLE profile_mapping (
    code        TEXT NOT NULL,
    value       TEXT NOT NULL,
    question_id BIGINT NOT NULL,
    answer_id   BIGINT NOT NULL,
    country     TEXT NOT NULL,
    PRIMARY KEY (code, value, country, question_id, answer_id)
);

CREATE TABLE own_profiles (
    panelist_id TEXT COLLATE "C" NOT NULL,
    code        TEXT NOT NULL,
    value       TEXT NOT NULL,
    import_id   BIGINT NOT NULL,
    state       INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (panelist_id, code, value)
);

CREATE INDEX own_profiles_by_import ON own_profiles (import_id, panelist_id);

CREATE INDEX own_profiles_unmapped ON own_profiles (code, value) WHERE state = 1;

CREATE TABLE own_translations (
    panelist_id TEXT COLLATE "C" PRIMARY KEY,
    country     TEXT NOT NULL,
    answers     BYTEA NOT NULL
);
