// Messages and their per-recipient rows (user_messages, flags as bits: src/domain/flags.ts).
// Writes run inside the owning conversation actor's transaction (src/actors/conversations); a
// channel message reaches all its subscribers in one INSERT … SELECT, whatever their number.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Every direct-message conversation of a realm (who has talked to whom: peersOf). */
export function listDmKeys(db: CommonQueryMethods, realmId: number): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ dm_key: z.string() }))`
    SELECT DISTINCT dm_key FROM messages WHERE realm_id = ${realmId} AND dm_key IS NOT NULL`);
}

export const messageRow = z.object({
  id: z.number(),
  realm_id: z.number(),
  sender_id: z.number(),
  channel_id: z.number().nullable(),
  topic: z.string().nullable(),
  dm_key: z.string().nullable(),
  content: z.string(),
  rendered_content: z.string(),
  date_sent: z.number(),
  last_edit_time: z.number().nullable(),
  last_moved_time: z.number().nullable(),
  client: z.string(),
  has_link: z.boolean(),
  has_image: z.boolean(),
  has_attachment: z.boolean(),
  is_me_message: z.boolean(),
  kind: z.number(),
});
export type MessageRow = z.infer<typeof messageRow>;

export const messageColumns = sql.fragment`m.id, m.realm_id, m.sender_id, m.channel_id, m.topic, m.dm_key, m.content,
  m.rendered_content, m.date_sent, m.last_edit_time, m.last_moved_time, m.client, m.has_link, m.has_image,
  m.has_attachment, m.is_me_message, m.kind`;

export interface NewMessage {
  readonly realmId: number;
  readonly senderId: number;
  readonly channelId: number | null;
  readonly topic: string | null;
  readonly dmKey: string | null;
  readonly content: string;
  readonly renderedContent: string;
  readonly client: string;
  readonly hasLink: boolean;
  readonly hasImage: boolean;
  readonly hasAttachment: boolean;
  readonly isMeMessage: boolean;
  readonly kind?: number;
  readonly nowMs: number;
}

/**
 * The statement storing messages in the order given (their ids increase in that order: the rows
 * of a VALUES list are inserted in turn). Also run by the send benchmark's reference
 * (bench/refs/r3-send.ts).
 */
export function insertMessagesQuery(ms: readonly NewMessage[]) {
  const rows = ms.map(
    (m) => sql.fragment`(${m.realmId}, ${m.senderId}, ${m.channelId}, ${m.topic}, ${m.dmKey}, ${m.content}, ${m.renderedContent},
      to_timestamp(${m.nowMs / 1000}), ${m.client}, ${m.hasLink}, ${m.hasImage}, ${m.hasAttachment}, ${m.isMeMessage}, ${m.kind ?? 0})`,
  );
  return sql.type(messageRow)`
    INSERT INTO messages AS m (realm_id, sender_id, channel_id, topic, dm_key, content, rendered_content, date_sent,
                               client, has_link, has_image, has_attachment, is_me_message, kind)
    VALUES ${sql.join(rows, sql.fragment`, `)}
    RETURNING ${messageColumns}`;
}

/** Store messages in one statement; their rows come back in the order given. */
export async function insertMessages(db: CommonQueryMethods, ms: readonly NewMessage[]): Promise<MessageRow[]> {
  // Ids are drawn from the sequence as the rows are inserted, in the list's order.
  const rows = [...(await db.many(insertMessagesQuery(ms)))].sort((a, b) => a.id - b.id);
  rows.forEach((r, i) => {
    if (r.sender_id !== ms[i]!.senderId || r.content !== ms[i]!.content) throw new Error('inserted messages came back out of order');
  });
  return rows;
}

/** How the flags of each recipient of a new message are computed in SQL. */
export interface FlagRule {
  /** Bits every recipient gets (e.g. a channel wildcard mention). */
  readonly common: number;
  readonly senderId: number;
  /** Bits the sender gets (read, unless read_by_sender is false). */
  readonly senderBits: number;
  /** User id → bits for that user alone (mentions, alert words, topic participants). */
  readonly personal: ReadonlyMap<number, number>;
}

/** Who receives a new message, and with which flags. */
export interface NewRecipients {
  readonly messageId: number;
  /** A channel message reaches the channel's active subscribers who are active users, and its sender; */
  readonly channelId: number | null;
  /** a direct message its participants (known to the caller). */
  readonly userIds: readonly number[] | null;
  readonly rule: FlagRule;
}

const recipientRow = z.object({ message_id: z.number(), user_id: z.number(), flags: z.number() });
export type RecipientRow = z.infer<typeof recipientRow>;

/**
 * The statement storing the user_messages rows of new messages, whatever their number and their
 * recipients' (one INSERT … SELECT); it has only the parts its batch needs (a subscribers' part
 * for channel messages, a participants' part for direct ones, personal bits when someone has
 * any), so that a batch of one costs what a statement for one message would. Also run by
 * bench/refs/r3-send.ts.
 */
export function insertRecipientsQuery(batch: readonly NewRecipients[]) {
  const personal = batch.flatMap((b) => [...b.rule.personal].map(([userId, bits]) => ({ messageId: b.messageId, userId, bits })));
  const inChannels = batch.filter((b) => b.channelId !== null);
  const direct = batch.flatMap((b) => (b.userIds ?? []).map((userId) => ({ messageId: b.messageId, userId })));
  const parts = [];
  if (inChannels.length > 0) {
    // The channels named outright, so that subscriptions are read through their channel index
    // (a join on the CTE alone lets the planner scan the whole table).
    const channelIds = [...new Set(inChannels.map((b) => b.channelId!))];
    parts.push(sql.fragment`
      SELECT m.id AS message_id, s.user_id FROM msgs m
      JOIN subscriptions s ON s.channel_id = m.channel_id AND s.active
      JOIN users u ON u.id = s.user_id AND u.is_active
      WHERE s.channel_id = ANY(${sql.array(channelIds, 'int4')}::int[])
      UNION SELECT m.id, m.sender_id FROM msgs m WHERE m.channel_id IS NOT NULL`);
  }
  if (direct.length > 0) {
    parts.push(sql.fragment`
      SELECT * FROM unnest(${sql.array(direct.map((d) => d.messageId), 'int8')}::bigint[],
                           ${sql.array(direct.map((d) => d.userId), 'int4')}::int[]) AS d(message_id, user_id)`);
  }
  const personalCte =
    personal.length === 0
      ? sql.fragment``
      : sql.fragment`, personal AS (
      SELECT * FROM unnest(${sql.array(personal.map((p) => p.messageId), 'int8')}::bigint[],
                           ${sql.array(personal.map((p) => p.userId), 'int4')}::int[],
                           ${sql.array(personal.map((p) => p.bits), 'int4')}::int[]) AS p(message_id, user_id, bits))`;
  return sql.type(recipientRow)`
    WITH msgs AS (
      SELECT * FROM unnest(${sql.array(batch.map((b) => b.messageId), 'int8')}::bigint[],
                           ${sql.array(batch.map((b) => b.channelId), 'int4')}::int[],
                           ${sql.array(batch.map((b) => b.rule.senderId), 'int4')}::int[],
                           ${sql.array(batch.map((b) => b.rule.senderBits), 'int4')}::int[],
                           ${sql.array(batch.map((b) => b.rule.common), 'int4')}::int[]) AS m(id, channel_id, sender_id, sender_bits, common)
    )${personalCte}, recipients AS (${sql.join(parts, sql.fragment` UNION `)})
    INSERT INTO user_messages (user_id, message_id, flags)
    SELECT r.user_id, r.message_id,
           m.common | CASE WHEN r.user_id = m.sender_id THEN m.sender_bits ELSE 0 END
           | ${personal.length === 0 ? sql.fragment`0` : sql.fragment`coalesce((SELECT p.bits FROM personal p WHERE p.message_id = r.message_id AND p.user_id = r.user_id), 0)`}
    FROM recipients r JOIN msgs m ON m.id = r.message_id
    RETURNING message_id, user_id, flags`;
}

/** Store the recipients of new messages; each message's rows, by its id. */
export async function insertRecipients(db: CommonQueryMethods, batch: readonly NewRecipients[]): Promise<Map<number, RecipientRow[]>> {
  const out = new Map<number, RecipientRow[]>(batch.map((b) => [b.messageId, []]));
  for (const r of await db.any(insertRecipientsQuery(batch))) out.get(r.message_id)!.push(r);
  return out;
}

const alertRow = z.object({ user_id: z.number(), words: z.array(z.string()) });

/** Alert words of a channel's active subscribers (only those who have any). Also run by R3. */
export const channelAlertWordsQuery = (channelId: number) => sql.type(alertRow)`
  SELECT a.user_id, array_agg(a.word) AS words FROM alert_words a
  JOIN subscriptions s ON s.user_id = a.user_id AND s.channel_id = ${channelId} AND s.active
  GROUP BY a.user_id`;

export function channelAlertWords(db: CommonQueryMethods, channelId: number): Promise<readonly z.infer<typeof alertRow>[]> {
  return db.any(channelAlertWordsQuery(channelId));
}

/** Alert words of these users (only those who have any). Also run by R3. */
export const usersAlertWordsQuery = (userIds: readonly number[]) => sql.type(alertRow)`
  SELECT user_id, array_agg(word) AS words FROM alert_words
  WHERE user_id = ANY(${sql.array(userIds, 'int4')}) GROUP BY user_id`;

export function usersAlertWords(db: CommonQueryMethods, userIds: readonly number[]): Promise<readonly z.infer<typeof alertRow>[]> {
  return db.any(usersAlertWordsQuery(userIds));
}

/** Who took part in a topic: its senders and the users who reacted in it (topic wildcards). */
export function topicParticipants(db: CommonQueryMethods, channelId: number, topic: string): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.number() }))`
    SELECT sender_id AS user_id FROM messages WHERE channel_id = ${channelId} AND lower(topic) = lower(${topic})
    UNION
    SELECT r.user_id FROM reactions r JOIN messages m ON m.id = r.message_id
    WHERE m.channel_id = ${channelId} AND lower(m.topic) = lower(${topic})`);
}

export function topicExists(db: CommonQueryMethods, channelId: number, topic: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM messages WHERE channel_id = ${channelId} AND lower(topic) = lower(${topic})`);
}

export function dmConversationExists(db: CommonQueryMethods, realmId: number, dmKey: string): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM messages WHERE realm_id = ${realmId} AND dm_key = ${dmKey}`);
}

export function messagesByIds(db: CommonQueryMethods, ids: readonly number[]): Promise<readonly MessageRow[]> {
  return db.any(sql.type(messageRow)`
    SELECT ${messageColumns} FROM messages m WHERE m.id = ANY(${sql.array(ids, 'int8')}) ORDER BY m.id`);
}

export function messageById(db: CommonQueryMethods, id: number, forUpdate = false): Promise<MessageRow | null> {
  return forUpdate
    ? db.maybeOne(sql.type(messageRow)`SELECT ${messageColumns} FROM messages m WHERE m.id = ${id} FOR UPDATE`)
    : db.maybeOne(sql.type(messageRow)`SELECT ${messageColumns} FROM messages m WHERE m.id = ${id}`);
}

const reactionRow = z.object({
  message_id: z.number(),
  user_id: z.number(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.string(),
});
export type ReactionRow = z.infer<typeof reactionRow>;

export function reactionsFor(db: CommonQueryMethods, messageIds: readonly number[]): Promise<readonly ReactionRow[]> {
  return db.any(sql.type(reactionRow)`
    SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions
    WHERE message_id = ANY(${sql.array(messageIds, 'int8')}) ORDER BY created_at, user_id`);
}

/** A user's flag bits for these messages; messages without a row are absent. */
export async function flagsFor(db: CommonQueryMethods, userId: number, messageIds: readonly number[]): Promise<Map<number, number>> {
  const rows = await db.any(sql.type(z.object({ message_id: z.number(), flags: z.number() }))`
    SELECT message_id, flags FROM user_messages WHERE user_id = ${userId} AND message_id = ANY(${sql.array(messageIds, 'int8')})`);
  return new Map(rows.map((r) => [r.message_id, r.flags]));
}

// Idempotent sends

/** The message already sent under each (user, key), in the order asked (undefined where none), in one query. */
export async function findIdempotentSends(
  db: CommonQueryMethods,
  keys: ReadonlyArray<{ readonly userId: number; readonly key: string }>,
): Promise<Array<number | undefined>> {
  if (keys.length === 0) return [];
  const rows = await db.any(sql.type(z.object({ user_id: z.number(), key: z.string(), message_id: z.number() }))`
    SELECT k.user_id, k.key, k.message_id FROM idempotency_keys k
    JOIN unnest(${sql.array(keys.map((k) => k.userId), 'int4')}::int[], ${sql.array(keys.map((k) => k.key), 'text')}::text[]) AS w(user_id, key)
      ON k.user_id = w.user_id AND k.key = w.key`);
  const found = new Map(rows.map((r) => [`${r.user_id} ${r.key}`, r.message_id]));
  return keys.map((k) => found.get(`${k.userId} ${k.key}`));
}

/** Claim the key for this message; false when another send holds it (that one wins). */
export async function claimIdempotencyKey(db: CommonQueryMethods, userId: number, key: string, messageId: number): Promise<boolean> {
  const rows = await db.anyFirst(sql.type(z.object({ key: z.string() }))`
    INSERT INTO idempotency_keys (user_id, key, message_id) VALUES (${userId}, ${key}, ${messageId})
    ON CONFLICT (user_id, key) DO NOTHING RETURNING key`);
  return rows.length === 1;
}

/** Forget a realm's idempotency keys older than `beforeMs` (retries come within minutes). */
export async function deleteOldIdempotencyKeys(db: CommonQueryMethods, realmId: number, beforeMs: number): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM idempotency_keys k USING users u
    WHERE u.id = k.user_id AND u.realm_id = ${realmId} AND k.created_at < to_timestamp(${beforeMs / 1000})`);
}

/**
 * Link uploads referenced by a message: the author's own, and others' the author may see (a
 * message the author received references them). Returns the linked ids.
 */
export function claimAttachments(
  db: CommonQueryMethods,
  realmId: number,
  senderId: number,
  messageId: number,
  pathIds: readonly string[],
): Promise<readonly number[]> {
  if (pathIds.length === 0) return Promise.resolve([]);
  return db.anyFirst(sql.type(z.object({ attachment_id: z.number() }))`
    INSERT INTO attachment_messages (attachment_id, message_id)
    SELECT a.id, ${messageId}::bigint FROM attachments a
    WHERE a.realm_id = ${realmId} AND a.path_id = ANY(${sql.array(pathIds, 'text')})
      AND (a.owner_id = ${senderId} OR EXISTS (
        SELECT 1 FROM attachment_messages am JOIN user_messages um ON um.message_id = am.message_id
        WHERE am.attachment_id = a.id AND um.user_id = ${senderId}))
    ON CONFLICT DO NOTHING
    RETURNING attachment_id`);
}
