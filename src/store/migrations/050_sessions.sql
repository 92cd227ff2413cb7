-- Browser sessions (GET/POST /login): the cookie carries a random token; only its HMAC under the
-- server secret is stored, so a copy of the database cannot be replayed as a cookie. Sessions
-- authenticate the site-root pages and files a browser loads directly, never /api/v1.
CREATE TABLE sessions (
  token_hash  bytea PRIMARY KEY,
  realm_id    integer NOT NULL REFERENCES realms(id),
  user_id     integer NOT NULL REFERENCES users(id),
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_realm ON sessions (realm_id);
CREATE INDEX sessions_expires ON sessions (expires_at);
