-- Who may read the dashboard: users with bcrypt password hashes, their
-- sign-in sessions and the bearer tokens of scripts. Sessions and tokens
-- are stored as SHA-256 hashes of the secret the browser or script holds,
-- so a copy of the database lets nobody in.
CREATE TABLE users (
    name                TEXT PRIMARY KEY,
    password_hash       TEXT NOT NULL,
    created_at          DATETIME NOT NULL,
    password_changed_at DATETIME NOT NULL
);

CREATE TABLE sessions (
    secret_hash BLOB PRIMARY KEY,
    user_name   TEXT NOT NULL REFERENCES users (name) ON DELETE CASCADE,
    csrf_token  TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    expires_at  DATETIME NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_user ON sessions (user_name);

CREATE TABLE api_tokens (
    secret_hash BLOB PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created_at  DATETIME NOT NULL
) WITHOUT ROWID;
