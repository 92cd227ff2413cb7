-- Message retention: a channel's, and an organization's direct messages', oldest messages by
-- the time they were sent, for the sweep that deletes those past their retention period.
CREATE INDEX messages_channel_sent ON messages (channel_id, date_sent) WHERE channel_id IS NOT NULL;
CREATE INDEX messages_dm_sent ON messages (realm_id, date_sent) WHERE dm_key IS NOT NULL;
