-- What each subsample was seen to be about (migrations/sqlite/009_topics.sql).
CREATE TABLE subsample_topics (
    subsample_id     BIGINT PRIMARY KEY,
    research_type_id BIGINT NOT NULL,
    last_seen_at     TIMESTAMPTZ NOT NULL
);

CREATE TABLE subsample_categories (
    subsample_id BIGINT NOT NULL,
    category_id  BIGINT NOT NULL,
    PRIMARY KEY (subsample_id, category_id)
);
