-- The GIN index on events.user_ids answered no query: a queue's restore filters its events with
-- `user_id = ANY(user_ids)`, which a GIN index cannot serve (the scan is bounded by
-- events_realm_id instead). It still cost every logged event one entry per recipient, written to
-- the index's pending list and merged into the index by whichever insert found the list full: a
-- send to a channel of 1,000 subscribers, after sends to 10,000, waited about 30 ms for the merge,
-- once in some twenty sends.
DROP INDEX IF EXISTS events_user_ids;
