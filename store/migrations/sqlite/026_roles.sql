-- Roles: what each user and bearer token may do. A viewer reads and
-- downloads; a coordinator also changes data and decisions; an admin also
-- manages users, tokens and webhooks. The users and tokens that existed
-- before roles become admins, so that a current install keeps every right
-- it had (the column's default; the store always names a role).
--
-- A token also records the user who made it (NULL: the command line),
-- whose role bounds its own, and when it was revoked: a revoked token
-- stays listed, and its name stays taken.
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('viewer', 'coordinator', 'admin'));
ALTER TABLE api_tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('viewer', 'coordinator', 'admin'));
ALTER TABLE api_tokens ADD COLUMN created_by TEXT;
ALTER TABLE api_tokens ADD COLUMN revoked_at DATETIME;
