// A user's message state for POST /register: unread messages, starred messages, the highest
// message id, recent direct-message conversations, muted channels and topic settings.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { DM_BIT, FLAG_BITS } from '../domain/flags.js';

export function maxMessageId(db: CommonQueryMethods, userId: number): Promise<number> {
  return db.oneFirst(sql.type(z.object({ m: z.number() }))`
    SELECT coalesce(max(message_id), -1)::bigint AS m FROM user_messages WHERE user_id = ${userId}`);
}

const unreadRow = z.object({
  message_id: z.number(),
  flags: z.number(),
  channel_id: z.number().nullable(),
  topic: z.string().nullable(),
  dm_key: z.string().nullable(),
});
export type UnreadRow = z.infer<typeof unreadRow>;

/** The newest `limit` unread messages of a user, newest first. */
export function unreadMessages(db: CommonQueryMethods, userId: number, limit: number): Promise<readonly UnreadRow[]> {
  return db.any(sql.type(unreadRow)`
    SELECT um.message_id, um.flags, m.channel_id, m.topic, m.dm_key
    FROM user_messages um JOIN messages m ON m.id = um.message_id
    WHERE um.user_id = ${userId} AND (um.flags & ${FLAG_BITS.read}) = 0
    ORDER BY um.message_id DESC LIMIT ${limit}`);
}

export function starredMessages(db: CommonQueryMethods, userId: number): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ message_id: z.number() }))`
    SELECT message_id FROM user_messages WHERE user_id = ${userId} AND (flags & ${FLAG_BITS.starred}) <> 0
    ORDER BY message_id`);
}

/** Direct-message conversations among the user's `recent` latest direct messages. */
export function recentDmConversations(db: CommonQueryMethods, userId: number, recent: number): Promise<readonly { dm_key: string; max_id: number }[]> {
  return db.any(sql.type(z.object({ dm_key: z.string(), max_id: z.number() }))`
    SELECT m.dm_key, max(m.id) AS max_id FROM (
      SELECT message_id FROM user_messages WHERE user_id = ${userId} AND (flags & ${DM_BIT}) <> 0
      ORDER BY message_id DESC LIMIT ${recent}
    ) r JOIN messages m ON m.id = r.message_id
    GROUP BY m.dm_key ORDER BY max_id DESC`);
}

const userTopicRow = z.object({
  channel_id: z.number(),
  topic: z.string(),
  visibility_policy: z.number(),
  last_updated: z.number(),
});
export type UserTopicRow = z.infer<typeof userTopicRow>;

export function userTopics(db: CommonQueryMethods, userId: number): Promise<readonly UserTopicRow[]> {
  return db.any(sql.type(userTopicRow)`
    SELECT channel_id, topic, visibility_policy, last_updated FROM user_topics WHERE user_id = ${userId}
    ORDER BY channel_id, lower(topic)`);
}

export function mutedChannels(db: CommonQueryMethods, userId: number): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ channel_id: z.number() }))`
    SELECT channel_id FROM subscriptions WHERE user_id = ${userId} AND active AND is_muted`);
}
