-- Messages whose push notification a user's devices may still show: written when a notification
-- is sent, deleted when the user reads the message or the message is deleted (and a removal is
-- sent to their devices). Only with a push service configured.
CREATE TABLE push_active (
  user_id     integer NOT NULL,
  message_id  bigint NOT NULL,
  PRIMARY KEY (user_id, message_id)
);
CREATE INDEX push_active_message ON push_active (message_id);
