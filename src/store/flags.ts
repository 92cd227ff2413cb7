// Changing a user's message flags. Writes run in the actor that owns the user's personal data.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { FLAG_BITS } from '../domain/flags.js';

/** Set or clear one flag bit; returns the messages whose bit changed. */
export function changeFlag(db: CommonQueryMethods, userId: number, messageIds: readonly number[], bit: number, add: boolean): Promise<readonly number[]> {
  const change = add ? sql.fragment`flags | ${bit}::int` : sql.fragment`flags & ~${bit}::int`;
  const unchanged = add ? sql.fragment`(flags & ${bit}) = 0` : sql.fragment`(flags & ${bit}) <> 0`;
  return db.anyFirst(sql.type(z.object({ message_id: z.number() }))`
    UPDATE user_messages SET flags = ${change}
    WHERE user_id = ${userId} AND message_id = ANY(${sql.array(messageIds, 'int8')}) AND ${unchanged}
    RETURNING message_id`);
}

/** Historical rows for messages a user may read but never received (starring shared history). */
export async function addHistoricalRows(db: CommonQueryMethods, userId: number, messageIds: readonly number[]): Promise<void> {
  if (messageIds.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO user_messages (user_id, message_id, flags)
    SELECT ${userId}, m, ${FLAG_BITS.read | FLAG_BITS.historical}::int FROM unnest(${sql.array(messageIds, 'int8')}::bigint[]) AS m
    ON CONFLICT DO NOTHING`);
}

/** Mark unread messages read: all of them, or in a channel, or in one topic of it, or one sender's. */
export function markRead(db: CommonQueryMethods, userId: number, scope: { channelId?: number; topic?: string; senderId?: number }): Promise<readonly number[]> {
  const channel = scope.channelId !== undefined ? sql.fragment`AND m.channel_id = ${scope.channelId}` : sql.fragment``;
  const topic = scope.topic !== undefined ? sql.fragment`AND lower(m.topic) = lower(${scope.topic})` : sql.fragment``;
  const sender = scope.senderId !== undefined ? sql.fragment`AND m.sender_id = ${scope.senderId}` : sql.fragment``;
  return db.anyFirst(sql.type(z.object({ message_id: z.number() }))`
    UPDATE user_messages um SET flags = um.flags | ${FLAG_BITS.read}::int
    FROM messages m
    WHERE um.user_id = ${userId} AND (um.flags & ${FLAG_BITS.read}) = 0 AND m.id = um.message_id ${channel} ${topic} ${sender}
    RETURNING um.message_id`);
}

const detailRow = z.object({
  id: z.number(),
  channel_id: z.number().nullable(),
  topic: z.string().nullable(),
  dm_key: z.string().nullable(),
  flags: z.number(),
});

/** What marking messages unread tells clients about them. */
export function unreadDetails(db: CommonQueryMethods, userId: number, messageIds: readonly number[]): Promise<readonly z.infer<typeof detailRow>[]> {
  return db.any(sql.type(detailRow)`
    SELECT m.id, m.channel_id, m.topic, m.dm_key, um.flags FROM messages m
    JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${userId}
    WHERE m.id = ANY(${sql.array(messageIds, 'int8')})`);
}

/** Where messages are (to skip channels a user is not subscribed to). */
export function messageChannels(db: CommonQueryMethods, messageIds: readonly number[]): Promise<readonly { id: number; channel_id: number | null }[]> {
  return db.any(sql.type(z.object({ id: z.number(), channel_id: z.number().nullable() }))`
    SELECT id, channel_id FROM messages WHERE id = ANY(${sql.array(messageIds, 'int8')})`);
}

export function topicHasMessagesFor(db: CommonQueryMethods, userId: number, channelId: number, topic: string): Promise<boolean> {
  return db.exists(sql.unsafe`
    SELECT 1 FROM messages m JOIN user_messages um ON um.message_id = m.id AND um.user_id = ${userId}
    WHERE m.channel_id = ${channelId} AND lower(m.topic) = lower(${topic})`);
}
