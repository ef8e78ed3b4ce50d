-- Fieldboard's first schema: the provider's snapshot tables, the refresh log
-- and the bounded quota history. Times are DATETIME columns holding Unix
-- milliseconds (the driver converts them to time.Time).

-- One row per dataset the refresher keeps: events (event lists, quotas and
-- eligibility rules), library (questions and answers) and reference
-- (countries, locales, statuses).
CREATE TABLE datasets (
    name                TEXT PRIMARY KEY,
    current_run_id      INTEGER,
    last_success_at     DATETIME,
    last_attempt_at     DATETIME,
    last_error          TEXT NOT NULL DEFAULT '',
    last_error_at       DATETIME,
    last_error_endpoint TEXT NOT NULL DEFAULT ''
);

-- Every refresh attempt, successful or not.
CREATE TABLE refresh_runs (
    run_id          INTEGER PRIMARY KEY,
    dataset         TEXT NOT NULL,
    started_at      DATETIME NOT NULL,
    finished_at     DATETIME NOT NULL,
    ok              INTEGER NOT NULL,
    requests        INTEGER NOT NULL DEFAULT 0,
    failed_requests INTEGER NOT NULL DEFAULT 0,
    error           TEXT NOT NULL DEFAULT '',
    endpoint        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX refresh_runs_dataset ON refresh_runs (dataset, run_id);

-- POST /supplier/v1/event/all: every subsample the supplier has or had an
-- allocation in.
CREATE TABLE subsamples (
    subsample_id   INTEGER PRIMARY KEY,
    event_id       INTEGER NOT NULL,
    name           TEXT NOT NULL,
    status         TEXT NOT NULL,
    billing_entity TEXT NOT NULL,
    country_id     INTEGER NOT NULL,
    country_code   TEXT NOT NULL,
    country_name   TEXT NOT NULL,
    country_region TEXT NOT NULL,
    field_start    DATETIME,
    field_end      DATETIME
);
CREATE INDEX subsamples_event ON subsamples (event_id);

-- POST /supplier/v1/event/live-details, one row per subsample; its arrays
-- are the live_* child tables below.
CREATE TABLE live_subsamples (
    subsample_id           INTEGER PRIMARY KEY,
    event_id               INTEGER NOT NULL,
    event_name             TEXT NOT NULL,
    name                   TEXT NOT NULL,
    status                 TEXT NOT NULL,
    job_book_id            TEXT,
    billing_entity         TEXT,
    primary_manager        TEXT,
    secondary_manager      TEXT,
    contact_email          TEXT,
    group_id               INTEGER,
    allow_desktop          INTEGER NOT NULL,
    allow_mobile           INTEGER NOT NULL,
    allow_tablet           INTEGER NOT NULL,
    field_start            DATETIME,
    field_end              DATETIME,
    api_compatible         INTEGER NOT NULL,
    requires_flash         INTEGER NOT NULL,
    child_survey           INTEGER,
    collect_pii            INTEGER NOT NULL,
    facial_coding          INTEGER NOT NULL,
    sample_category_id     INTEGER,
    sample_sub_category_id INTEGER,
    research_type          TEXT NOT NULL,
    research_type_id       INTEGER NOT NULL,
    interview_type         INTEGER,
    expected_loi           REAL,
    expected_incidence     REAL,
    currency               TEXT NOT NULL,
    cpi                    REAL NOT NULL,
    auto_increment         TEXT,
    feasibility_id         INTEGER,
    automation             INTEGER,
    marketplace_enabled    INTEGER,
    need_recontact         INTEGER
);
CREATE INDEX live_subsamples_event ON live_subsamples (event_id);

CREATE TABLE live_categories (
    subsample_id INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    main_id      INTEGER NOT NULL,
    main         TEXT NOT NULL,
    generic_id   INTEGER NOT NULL,
    generic      TEXT NOT NULL,
    category_id  INTEGER NOT NULL,
    category     TEXT NOT NULL,
    PRIMARY KEY (subsample_id, position)
) WITHOUT ROWID;

CREATE TABLE live_countries (
    subsample_id INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    country_id   INTEGER NOT NULL,
    code         TEXT NOT NULL,
    name         TEXT NOT NULL,
    region       TEXT NOT NULL,
    PRIMARY KEY (subsample_id, position)
) WITHOUT ROWID;

CREATE TABLE live_locales (
    subsample_id INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    locale       TEXT NOT NULL,
    live_link    TEXT NOT NULL,
    testing_link TEXT NOT NULL,
    PRIMARY KEY (subsample_id, position)
) WITHOUT ROWID;

-- The category tree as seen in live details, kept across refreshes so that
-- a history record's specific category can be traced to its parents.
CREATE TABLE categories (
    category_id  INTEGER PRIMARY KEY,
    category     TEXT NOT NULL,
    generic_id   INTEGER NOT NULL,
    generic      TEXT NOT NULL,
    main_id      INTEGER NOT NULL,
    main         TEXT NOT NULL,
    last_seen_at DATETIME NOT NULL
);

-- GET /supplier/v1/subsamples/{id}/quotas of each live subsample. questions
-- holds the quota's conditions as the provider's JSON.
CREATE TABLE quotas (
    subsample_id        INTEGER NOT NULL,
    quota_id            INTEGER NOT NULL,
    position            INTEGER NOT NULL,
    table_id            INTEGER NOT NULL,
    table_name          TEXT NOT NULL,
    quota_name          TEXT NOT NULL,
    quota_type          TEXT NOT NULL,
    subsample_status    TEXT NOT NULL,
    achieved            INTEGER NOT NULL,
    remaining_exclusive INTEGER NOT NULL,
    remaining_shared    INTEGER NOT NULL,
    actual_incidence    REAL NOT NULL,
    actual_conversion   REAL NOT NULL,
    actual_abandon      REAL NOT NULL,
    estimated_incidence REAL NOT NULL,
    actual_loi          REAL NOT NULL,
    estimated_loi       REAL NOT NULL,
    questions           TEXT NOT NULL,
    PRIMARY KEY (subsample_id, quota_id)
) WITHOUT ROWID;

-- GET /supplier/v1/subsamples/{id}/eligibility-rules, one row per entry.
-- kind is surveys, researchTypes, categories or events; ref_id is the
-- entry's Id (null for categories); return_codes is a JSON array.
CREATE TABLE eligibility_rules (
    subsample_id         INTEGER NOT NULL,
    kind                 TEXT NOT NULL,
    position             INTEGER NOT NULL,
    ref_id               INTEGER,
    name                 TEXT,
    main_category_id     INTEGER,
    generic_category_id  INTEGER,
    specific_category_id INTEGER,
    num_days             INTEGER NOT NULL,
    return_codes         TEXT NOT NULL,
    PRIMARY KEY (subsample_id, kind, position)
) WITHOUT ROWID;

-- Whether the last fetch of a live subsample's quotas and rules worked. A
-- failed fetch keeps the earlier rows in quotas/eligibility_rules, which are
-- then stale: the rules treat them as unknown.
CREATE TABLE subsample_fetches (
    subsample_id  INTEGER PRIMARY KEY,
    quotas_ok     INTEGER NOT NULL,
    quotas_error  TEXT NOT NULL DEFAULT '',
    quotas_at     DATETIME NOT NULL,
    rules_ok      INTEGER NOT NULL,
    rules_error   TEXT NOT NULL DEFAULT '',
    rules_at      DATETIME NOT NULL
);

-- Quota counts over time, a row when a quota's counts changed; pruned to
-- the configured retention.
CREATE TABLE quota_history (
    subsample_id        INTEGER NOT NULL,
    quota_id            INTEGER NOT NULL,
    at                  DATETIME NOT NULL,
    achieved            INTEGER NOT NULL,
    remaining_exclusive INTEGER NOT NULL,
    remaining_shared    INTEGER NOT NULL,
    PRIMARY KEY (subsample_id, quota_id, at)
) WITHOUT ROWID;
CREATE INDEX quota_history_at ON quota_history (at);

-- The question library, per locale.
CREATE TABLE questions (
    locale      TEXT NOT NULL,
    question_id INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    type        TEXT NOT NULL,
    name        TEXT NOT NULL,
    text        TEXT NOT NULL,
    translation TEXT NOT NULL,
    PRIMARY KEY (locale, question_id)
) WITHOUT ROWID;

CREATE TABLE answers (
    locale       TEXT NOT NULL,
    question_id  INTEGER NOT NULL,
    answer_id    INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    type         TEXT NOT NULL,
    name         TEXT NOT NULL,
    text         TEXT NOT NULL,
    translation  TEXT NOT NULL,
    is_exclusive INTEGER NOT NULL,
    PRIMARY KEY (locale, question_id, answer_id)
) WITHOUT ROWID;

-- When each locale's library was last fetched, and whether it worked.
CREATE TABLE library_fetches (
    locale     TEXT PRIMARY KEY,
    fetched_at DATETIME NOT NULL,
    ok         INTEGER NOT NULL,
    error      TEXT NOT NULL DEFAULT ''
);

CREATE TABLE countries (
    country_id INTEGER PRIMARY KEY,
    code       TEXT NOT NULL,
    name       TEXT NOT NULL,
    region     TEXT NOT NULL
);

CREATE TABLE locales (
    locale_id        INTEGER PRIMARY KEY,
    country_id       INTEGER NOT NULL,
    name             TEXT NOT NULL,
    name_translation TEXT NOT NULL,
    locale           TEXT NOT NULL,
    short_locale     TEXT NOT NULL,
    country_default  INTEGER NOT NULL,
    country_name     TEXT NOT NULL,
    country_code     TEXT NOT NULL,
    region           TEXT NOT NULL
);

CREATE TABLE survey_statuses (
    status_id INTEGER PRIMARY KEY,
    name      TEXT NOT NULL
);
