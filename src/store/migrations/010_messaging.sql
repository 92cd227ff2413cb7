-- Indexes and columns the messaging layer reads on its hot paths (channels, subscriptions,
-- message history, flags, topics, uploads).

-- A channel's history in id order (channel narrows, first_message_id, moves).
CREATE INDEX messages_channel_id ON messages (channel_id, id) WHERE channel_id IS NOT NULL;
-- Everything a realm has, newest first (shared-history searches over public channels).
CREATE INDEX messages_realm_id ON messages (realm_id, id);

-- A user's subscriptions (register, peersOf).
CREATE INDEX subscriptions_user_active ON subscriptions (user_id) WHERE active;

-- Messages that mention a user (unread_msgs mentions, is:mentioned); 56 = the three mention bits.
CREATE INDEX user_messages_mentions ON user_messages (user_id, message_id) WHERE (flags & 56) <> 0;

-- A user's direct messages (bit 256 marks rows of direct messages; never shown to clients).
CREATE INDEX user_messages_dm ON user_messages (user_id, message_id) WHERE (flags & 256) <> 0;

-- Topic moves carry user_topics rows along; lookups by channel and topic.
CREATE INDEX user_topics_channel_topic ON user_topics (channel_id, lower(topic));

-- Attachments by message owner (detached uploads) and by realm.
CREATE INDEX attachments_realm ON attachments (realm_id);

-- The kind of an automated message (e.g. the resolve-topic notice), so that an undo shortly after
-- can remove it instead of adding another one.
ALTER TABLE messages ADD COLUMN kind smallint NOT NULL DEFAULT 0;

-- Idempotency keys expire; the sweep deletes old ones.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
