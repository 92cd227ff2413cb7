-- Scheduled messages (/scheduled_messages) and reminders (/reminders): messages a user asked to
-- be sent later. A scheduled message is sent as its author's, to `to_ids` (the channel for type
-- 'stream', the other participants for 'private'); a reminder is sent by Notification Bot to its
-- author and links `target_message_id`. Once sent, a row keeps the id of the message it became;
-- a row whose send was refused is `failed` (with the reason) until its author reschedules it.
-- Neither message id is a foreign key: deleting messages does not touch this table, and a
-- reminder whose message is gone (or no longer readable) fails when it is due.
CREATE TABLE scheduled_messages (
  id                  serial PRIMARY KEY,
  realm_id            integer NOT NULL REFERENCES realms(id),
  sender_id           integer NOT NULL REFERENCES users(id),
  kind                text NOT NULL CHECK (kind IN ('message', 'reminder')),
  type                text NOT NULL CHECK (type IN ('stream', 'private')),
  to_ids              integer[] NOT NULL,
  topic               text NOT NULL,
  content             text NOT NULL,
  rendered_content    text NOT NULL,
  deliver_at          timestamptz NOT NULL,
  read_by_sender      boolean NOT NULL,
  client              text NOT NULL,
  target_message_id   bigint,
  failed              boolean NOT NULL DEFAULT false,
  failure_message     text,
  delivered_message_id bigint
);
-- What is still to send, by time: the delivery's next due row and each user's list.
CREATE INDEX scheduled_messages_pending ON scheduled_messages (deliver_at, id) WHERE delivered_message_id IS NULL AND NOT failed;
CREATE INDEX scheduled_messages_sender ON scheduled_messages (sender_id, kind, deliver_at) WHERE delivered_message_id IS NULL;
