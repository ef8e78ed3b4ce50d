-- Roles of users and bearer tokens (migrations/sqlite/026_roles.sql): the
-- users and tokens that existed before roles become admins, so that a
-- current install keeps every right it had; from here on the store names
-- a role, and the default is dropped. A token records its maker (NULL:
-- the command line) and when it was revoked.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('viewer', 'coordinator', 'admin'));
ALTER TABLE users ALTER COLUMN role DROP DEFAULT;
ALTER TABLE api_tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('viewer', 'coordinator', 'admin'));
ALTER TABLE api_tokens ALTER COLUMN role DROP DEFAULT;
ALTER TABLE api_tokens ADD COLUMN created_by TEXT;
ALTER TABLE api_tokens ADD COLUMN revoked_at TIMESTAMPTZ;
