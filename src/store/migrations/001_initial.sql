-- Parley's initial schema: every resource of the Team Chat Service API, the event log and the
-- persisted event-queue descriptors (DESIGN.md §2). Organization-level and user-level settings
-- whose set grows with the API live in jsonb columns validated by zod schemas in src/domain.

-- Organizations ("realms"), chosen by the request's Host.
CREATE TABLE realms (
  id              serial PRIMARY KEY,
  host            text NOT NULL UNIQUE,          -- lower-case host[:port]
  url             text NOT NULL,                 -- canonical URL, e.g. https://chat.example.com
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  icon_url        text,
  deactivated     boolean NOT NULL DEFAULT false,
  settings        jsonb NOT NULL DEFAULT '{}',
  presence_last_update_id bigint NOT NULL DEFAULT 0,
  date_created    timestamptz NOT NULL DEFAULT now()
);

-- Humans and bots.
CREATE TABLE users (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  email           text NOT NULL,                 -- the API email
  delivery_email  text NOT NULL,                 -- the real address
  full_name       text NOT NULL,
  role            smallint NOT NULL DEFAULT 400 CHECK (role IN (100, 200, 300, 400, 600)),
  is_active       boolean NOT NULL DEFAULT true,
  is_bot          boolean NOT NULL DEFAULT false,
  bot_type        smallint,
  bot_owner_id    integer REFERENCES users(id),
  is_imported_stub boolean NOT NULL DEFAULT false,
  date_joined     timestamptz NOT NULL DEFAULT now(),
  timezone        text NOT NULL DEFAULT '',
  avatar_source   text NOT NULL DEFAULT 'G' CHECK (avatar_source IN ('G', 'U')),
  avatar_version  integer NOT NULL DEFAULT 1,
  password_hash   text,
  api_key_hash    bytea NOT NULL,                -- HMAC-SHA256 of the key under the server secret
  api_key_sealed  bytea NOT NULL,                -- nonce || secretbox(key) under the server secret
  can_change_user_emails boolean NOT NULL DEFAULT false,  -- special permission (owners)
  settings        jsonb NOT NULL DEFAULT '{}',
  CHECK ((is_bot AND bot_type IS NOT NULL) OR (NOT is_bot AND bot_type IS NULL))
);
CREATE UNIQUE INDEX users_realm_email ON users (realm_id, lower(email));
CREATE UNIQUE INDEX users_realm_delivery_email ON users (realm_id, lower(delivery_email));
CREATE INDEX users_realm ON users (realm_id);

-- User groups, including the system role groups and the anonymous groups that store
-- group-setting values given as {direct_members, direct_subgroups} (name IS NULL).
CREATE TABLE user_groups (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  name            text,
  description     text NOT NULL DEFAULT '',
  is_system_group boolean NOT NULL DEFAULT false,
  deactivated     boolean NOT NULL DEFAULT false,
  creator_id      integer REFERENCES users(id),
  date_created    timestamptz NOT NULL DEFAULT now(),
  settings        jsonb NOT NULL DEFAULT '{}'    -- can_*_group values (group ids)
);
CREATE UNIQUE INDEX user_groups_realm_name ON user_groups (realm_id, lower(name)) WHERE name IS NOT NULL;

CREATE TABLE user_group_members (
  group_id        integer NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  user_id         integer NOT NULL REFERENCES users(id),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX user_group_members_user ON user_group_members (user_id);

CREATE TABLE user_group_subgroups (
  group_id        integer NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  subgroup_id     integer NOT NULL REFERENCES user_groups(id),
  PRIMARY KEY (group_id, subgroup_id),
  CHECK (group_id <> subgroup_id)
);

CREATE TABLE channel_folders (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  rendered_description text NOT NULL DEFAULT '',
  creator_id      integer REFERENCES users(id),
  date_created    timestamptz NOT NULL DEFAULT now(),
  is_archived     boolean NOT NULL DEFAULT false,
  sort_order      integer NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX channel_folders_realm_name ON channel_folders (realm_id, lower(name));

-- Channels ("streams" in the API).
CREATE TABLE channels (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  rendered_description text NOT NULL DEFAULT '',
  date_created    timestamptz NOT NULL DEFAULT now(),
  creator_id      integer REFERENCES users(id),
  invite_only     boolean NOT NULL DEFAULT false,
  is_web_public   boolean NOT NULL DEFAULT false,
  history_public_to_subscribers boolean NOT NULL DEFAULT true,
  message_retention_days integer,
  topics_policy   text NOT NULL DEFAULT 'inherit'
                  CHECK (topics_policy IN ('inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only')),
  folder_id       integer REFERENCES channel_folders(id),
  is_archived     boolean NOT NULL DEFAULT false,
  first_message_id bigint,
  settings        jsonb NOT NULL DEFAULT '{}'    -- can_*_group values (group ids)
);
CREATE UNIQUE INDEX channels_realm_name ON channels (realm_id, lower(name));

CREATE TABLE default_channels (
  realm_id        integer NOT NULL REFERENCES realms(id),
  channel_id      integer NOT NULL REFERENCES channels(id),
  PRIMARY KEY (realm_id, channel_id)
);

CREATE TABLE subscriptions (
  user_id         integer NOT NULL REFERENCES users(id),
  channel_id      integer NOT NULL REFERENCES channels(id),
  active          boolean NOT NULL DEFAULT true,  -- false after unsubscribing; settings are kept
  is_muted        boolean NOT NULL DEFAULT false,
  pin_to_top      boolean NOT NULL DEFAULT false,
  color           text NOT NULL DEFAULT '#c2c2c2',
  desktop_notifications  boolean,
  email_notifications    boolean,
  push_notifications     boolean,
  audible_notifications  boolean,
  wildcard_mentions_notify boolean,
  date_subscribed timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, channel_id)
);
CREATE INDEX subscriptions_channel_active ON subscriptions (channel_id) WHERE active;

-- Messages. Direct messages have channel_id NULL, topic NULL and dm_key, the sorted ids of all
-- participants joined by commas (the sender alone for notes to self).
CREATE TABLE messages (
  id              bigserial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  sender_id       integer NOT NULL REFERENCES users(id),
  channel_id      integer REFERENCES channels(id),
  topic           text,
  dm_key          text,
  content         text NOT NULL,
  rendered_content text NOT NULL,
  date_sent       timestamptz NOT NULL DEFAULT now(),
  last_edit_time  timestamptz,
  last_moved_time timestamptz,
  client          text NOT NULL DEFAULT 'API',
  has_link        boolean NOT NULL DEFAULT false,
  has_image       boolean NOT NULL DEFAULT false,
  has_attachment  boolean NOT NULL DEFAULT false,
  is_me_message   boolean NOT NULL DEFAULT false,
  search_tsv      tsvector GENERATED ALWAYS AS (
                    to_tsvector('simple', coalesce(topic, '') || ' ' || content)) STORED,
  CHECK ((channel_id IS NOT NULL AND topic IS NOT NULL AND dm_key IS NULL)
      OR (channel_id IS NULL AND topic IS NULL AND dm_key IS NOT NULL))
);
CREATE INDEX messages_channel_topic ON messages (channel_id, lower(topic), id) WHERE channel_id IS NOT NULL;
CREATE INDEX messages_dm ON messages (realm_id, dm_key, id) WHERE dm_key IS NOT NULL;
CREATE INDEX messages_sender ON messages (sender_id, id);
CREATE INDEX messages_search ON messages USING gin (search_tsv);

-- Per-recipient rows with the message flags as a bit set (src/domain/flags.ts).
CREATE TABLE user_messages (
  user_id         integer NOT NULL REFERENCES users(id),
  message_id      bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  flags           integer NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, message_id)
);
CREATE INDEX user_messages_message ON user_messages (message_id);
CREATE INDEX user_messages_unread ON user_messages (user_id, message_id) WHERE (flags & 1) = 0;
CREATE INDEX user_messages_starred ON user_messages (user_id, message_id) WHERE (flags & 2) <> 0;

-- A retried send with the same Idempotency-Key returns the stored message.
CREATE TABLE idempotency_keys (
  user_id         integer NOT NULL REFERENCES users(id),
  key             text NOT NULL,
  message_id      bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);

CREATE TABLE reactions (
  message_id      bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  user_id         integer NOT NULL REFERENCES users(id),
  emoji_name      text NOT NULL,
  emoji_code      text NOT NULL,
  reaction_type   text NOT NULL CHECK (reaction_type IN ('unicode_emoji', 'realm_emoji', 'service_extra_emoji')),
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, user_id, reaction_type, emoji_code)
);

-- One row per edit; the original message is reconstructed from the first edit's prev_* values.
CREATE TABLE message_edits (
  id              bigserial PRIMARY KEY,
  message_id      bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  user_id         integer REFERENCES users(id),
  edited_at       timestamptz NOT NULL DEFAULT now(),
  prev_content    text,
  prev_rendered_content text,
  prev_topic      text,
  prev_channel_id integer,
  topic           text,
  channel_id      integer
);
CREATE INDEX message_edits_message ON message_edits (message_id, id);

CREATE TABLE attachments (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  owner_id        integer NOT NULL REFERENCES users(id),
  path_id         text NOT NULL UNIQUE,
  file_name       text NOT NULL,
  content_type    text NOT NULL DEFAULT 'application/octet-stream',
  size            bigint NOT NULL,
  create_time     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_owner ON attachments (owner_id);

CREATE TABLE attachment_messages (
  attachment_id   integer NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
  message_id      bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  PRIMARY KEY (attachment_id, message_id)
);
CREATE INDEX attachment_messages_message ON attachment_messages (message_id);

-- Muted, unmuted and followed topics.
CREATE TABLE user_topics (
  user_id         integer NOT NULL REFERENCES users(id),
  channel_id      integer NOT NULL REFERENCES channels(id),
  topic           text NOT NULL,
  visibility_policy smallint NOT NULL,
  last_updated    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX user_topics_key ON user_topics (user_id, channel_id, lower(topic));

CREATE TABLE custom_profile_fields (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  name            text NOT NULL,
  hint            text NOT NULL DEFAULT '',
  field_type      smallint NOT NULL,
  field_data      text NOT NULL DEFAULT '',
  sort_order      integer NOT NULL DEFAULT 0,
  display_in_profile_summary boolean NOT NULL DEFAULT false,
  required        boolean NOT NULL DEFAULT false,
  editable_by_user boolean NOT NULL DEFAULT true
);
CREATE UNIQUE INDEX custom_profile_fields_name ON custom_profile_fields (realm_id, lower(name));

CREATE TABLE custom_profile_values (
  user_id         integer NOT NULL REFERENCES users(id),
  field_id        integer NOT NULL REFERENCES custom_profile_fields(id) ON DELETE CASCADE,
  value           text NOT NULL,
  rendered_value  text,
  PRIMARY KEY (user_id, field_id)
);

CREATE TABLE user_presence (
  user_id         integer PRIMARY KEY REFERENCES users(id),
  realm_id        integer NOT NULL REFERENCES realms(id),
  last_active_time    timestamptz,
  last_connected_time timestamptz,
  last_update_id  bigint NOT NULL DEFAULT 0
);
CREATE INDEX user_presence_update ON user_presence (realm_id, last_update_id);

-- End-to-end-encrypted push registrations (one per user and device).
CREATE TABLE push_devices (
  id              serial PRIMARY KEY,
  user_id         integer NOT NULL REFERENCES users(id),
  device_id       bigint NOT NULL,
  push_key_id     bigint,
  push_key        bytea,
  token_kind      text CHECK (token_kind IN ('fcm', 'apns')),
  token_id        text,
  bouncer_public_key text,
  encrypted_push_registration text,
  date_created    timestamptz NOT NULL DEFAULT now(),
  date_updated    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, device_id)
);

-- Legacy (unencrypted) push tokens.
CREATE TABLE push_device_tokens (
  id              serial PRIMARY KEY,
  user_id         integer NOT NULL REFERENCES users(id),
  kind            text NOT NULL CHECK (kind IN ('apns', 'fcm')),
  token           text NOT NULL,
  ios_app_id      text,
  date_created    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, kind, token)
);

-- Invitations: reusable links and single-address invitations.
CREATE TABLE invitations (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  kind            text NOT NULL CHECK (kind IN ('multiuse', 'email')),
  key             text NOT NULL UNIQUE,
  email           text,
  referred_by     integer NOT NULL REFERENCES users(id),
  invited_as      smallint NOT NULL DEFAULT 400,
  include_realm_default_subscriptions boolean NOT NULL DEFAULT false,
  welcome_message_custom_text text,
  channel_ids     integer[] NOT NULL DEFAULT '{}',
  group_ids       integer[] NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz,
  revoked         boolean NOT NULL DEFAULT false,
  used_count      integer NOT NULL DEFAULT 0
);

CREATE TABLE realm_domains (
  realm_id        integer NOT NULL REFERENCES realms(id),
  domain          text NOT NULL,
  allow_subdomains boolean NOT NULL DEFAULT false,
  PRIMARY KEY (realm_id, domain)
);

CREATE TABLE realm_emoji (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  name            text NOT NULL,
  author_id       integer REFERENCES users(id),
  file_name       text NOT NULL,
  is_animated     boolean NOT NULL DEFAULT false,
  deactivated     boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (realm_id, name) WHERE NOT deactivated;

CREATE TABLE linkifiers (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  pattern         text NOT NULL,
  url_template    text NOT NULL,
  sort_order      integer NOT NULL DEFAULT 0
);

CREATE TABLE alert_words (
  user_id         integer NOT NULL REFERENCES users(id),
  word            text NOT NULL,
  PRIMARY KEY (user_id, word)
);

CREATE TABLE user_status (
  user_id         integer PRIMARY KEY REFERENCES users(id),
  status_text     text NOT NULL DEFAULT '',
  emoji_name      text NOT NULL DEFAULT '',
  emoji_code      text NOT NULL DEFAULT '',
  reaction_type   text NOT NULL DEFAULT 'unicode_emoji',
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE saved_snippets (
  id              serial PRIMARY KEY,
  user_id         integer NOT NULL REFERENCES users(id),
  title           text NOT NULL,
  content         text NOT NULL,
  date_created    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_snippets_user ON saved_snippets (user_id);

CREATE TABLE navigation_views (
  user_id         integer NOT NULL REFERENCES users(id),
  fragment        text NOT NULL,
  is_pinned       boolean NOT NULL,
  name            text,
  PRIMARY KEY (user_id, fragment)
);

CREATE TABLE muted_users (
  user_id         integer NOT NULL REFERENCES users(id),
  muted_user_id   integer NOT NULL REFERENCES users(id),
  date_muted      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, muted_user_id)
);

-- The event log (outbox). A mutation writes its events in its own transaction; ids come from
-- event_id_blocks in blocks reserved ahead by each process (src/actors/event-sequencer.ts), so
-- they increase in commit-release order within a realm. user_ids NULL = every user of the realm.
CREATE SEQUENCE event_id_blocks INCREMENT BY 1024 START WITH 1024;

CREATE TABLE events (
  id              bigint PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  type            text NOT NULL,
  user_ids        integer[],
  public_channel_id integer,                     -- message events of public channels (all_public_streams)
  payload         jsonb NOT NULL,
  per_user        jsonb,                         -- user id -> fields that differ per recipient
  span_ids        bigint[],                      -- ids before `id` reserved by a multi-id event
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_realm_id ON events (realm_id, id);
CREATE INDEX events_user_ids ON events USING gin (user_ids);

-- Event queues survive restarts: their filters and capabilities (descriptor), where they
-- started, how far the client acknowledged, and when it last made contact.
CREATE TABLE event_queues (
  id              uuid PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  user_id         integer REFERENCES users(id),   -- NULL for unauthenticated (web-public) queues
  descriptor      jsonb NOT NULL,
  start_event_id  bigint NOT NULL,
  acked_event_id  bigint NOT NULL,
  idle_timeout_secs integer NOT NULL,
  last_contact    timestamptz NOT NULL DEFAULT now(),
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_queues_user ON event_queues (user_id);
CREATE INDEX event_queues_realm ON event_queues (realm_id);

-- Process-level facts that outlive a restart (e.g. when the server was last known alive).
CREATE TABLE server_state (
  key             text PRIMARY KEY,
  value           jsonb NOT NULL
);
