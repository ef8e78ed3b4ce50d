-- Users, sessions and bearer tokens (migrations/sqlite/006_auth.sql): only
-- hashes of the secrets are stored.
CREATE TABLE users (
    name                TEXT PRIMARY KEY,
    password_hash       TEXT NOT NULL,
    created_at          TIMESTAMPTZ NOT NULL,
    password_changed_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE sessions (
    secret_hash BYTEA PRIMARY KEY,
    user_name   TEXT NOT NULL REFERENCES users (name) ON DELETE CASCADE,
    csrf_token  TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_by_user ON sessions (user_name);

CREATE TABLE api_tokens (
    secret_hash BYTEA PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL
);
