-- Drafts (GET/POST /drafts, PATCH/DELETE /drafts/{id}): a user's unsent messages, synchronized
-- between their clients. `to` is the channel's id (type 'stream'), the other participants
-- ('private'; the user alone for a note to self) or empty (unaddressed, type '').
CREATE TABLE drafts (
  id              bigserial PRIMARY KEY,
  user_id         integer NOT NULL REFERENCES users(id),
  type            text NOT NULL CHECK (type IN ('', 'stream', 'private')),
  to_ids          integer[] NOT NULL,
  topic           text NOT NULL,
  content         text NOT NULL,
  last_edit_time  timestamptz NOT NULL
);
CREATE INDEX drafts_user ON drafts (user_id, last_edit_time);
