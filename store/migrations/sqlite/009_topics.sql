-- What each subsample was seen to be about, kept across refreshes as the
-- category tree is: a history record that gives no category or research
-- type (0) takes its subsample's, and a category rule compares every
-- category of the record's subsample, not only the one on the record.
CREATE TABLE subsample_topics (
    subsample_id     INTEGER PRIMARY KEY,
    research_type_id INTEGER NOT NULL,
    last_seen_at     DATETIME NOT NULL
);

CREATE TABLE subsample_categories (
    subsample_id INTEGER NOT NULL,
    category_id  INTEGER NOT NULL,
    PRIMARY KEY (subsample_id, category_id)
) WITHOUT ROWID;
