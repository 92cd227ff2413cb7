// Changing and deleting stored messages: content edits with their flags, moves between topics
// and channels with the recipients' rows they imply, edit history, and deletion. Call inside the
// owning conversation actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { FLAG_BITS } from '../domain/flags.js';
import { lockAttachments } from './attachments.js';
import { claimAttachments, messageColumns, messageRow, type MessageRow } from './messages.js';

/**
 * The messages of a topic the user may move: all of them, or (protected history) only those
 * the user received. Optionally only from `fromId` on. Locked for the caller's transaction.
 */
export function lockTopicMessages(
  db: CommonQueryMethods,
  channelId: number,
  topic: string,
  o: { fromId?: number; onlyReceivedBy?: number },
): Promise<readonly MessageRow[]> {
  const from = o.fromId !== undefined ? sql.fragment`AND m.id >= ${o.fromId}` : sql.fragment``;
  const received =
    o.onlyReceivedBy !== undefined
      ? sql.fragment`AND EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ${o.onlyReceivedBy})`
      : sql.fragment``;
  return db.any(sql.type(messageRow)`
    SELECT ${messageColumns} FROM messages m
    WHERE m.channel_id = ${channelId} AND lower(m.topic) = lower(${topic}) ${from} ${received}
    ORDER BY m.id FOR UPDATE`);
}

/** Ids and send times of a topic's messages visible to the mover (time-limit checks). */
export function topicMessageTimes(
  db: CommonQueryMethods,
  channelId: number,
  topic: string,
  onlyReceivedBy: number | null,
): Promise<readonly { id: number; date_sent: number }[]> {
  const received =
    onlyReceivedBy !== null
      ? sql.fragment`AND EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ${onlyReceivedBy})`
      : sql.fragment``;
  return db.any(sql.type(z.object({ id: z.number(), date_sent: z.number() }))`
    SELECT m.id, m.date_sent FROM messages m
    WHERE m.channel_id = ${channelId} AND lower(m.topic) = lower(${topic}) ${received} ORDER BY m.id`);
}

export interface ContentChange {
  readonly content: string;
  readonly renderedContent: string;
  readonly hasLink: boolean;
  readonly hasImage: boolean;
  readonly hasAttachment: boolean;
  readonly isMeMessage: boolean;
  readonly nowMs: number;
}

export async function updateContent(db: CommonQueryMethods, id: number, c: ContentChange): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE messages SET content = ${c.content}, rendered_content = ${c.renderedContent}, has_link = ${c.hasLink},
      has_image = ${c.hasImage}, has_attachment = ${c.hasAttachment}, is_me_message = ${c.isMeMessage},
      last_edit_time = to_timestamp(${c.nowMs / 1000})
    WHERE id = ${id}`);
}

/** Move messages to a channel and topic; `markMoved` false for resolving and unresolving. */
export async function moveMessages(
  db: CommonQueryMethods,
  ids: readonly number[],
  channelId: number,
  topic: string,
  nowMs: number,
  markMoved: boolean,
): Promise<void> {
  const moved = markMoved ? sql.fragment`, last_moved_time = to_timestamp(${nowMs / 1000})` : sql.fragment``;
  await db.query(sql.unsafe`
    UPDATE messages SET channel_id = ${channelId}, topic = ${topic} ${moved} WHERE id = ANY(${sql.array(ids, 'int8')})`);
}

/** Recompute the mention and alert-word bits of a message's rows; returns the changed rows. */
export function rewriteMentionFlags(
  db: CommonQueryMethods,
  messageId: number,
  bits: { readonly common: number; readonly personal: ReadonlyMap<number, number> },
): Promise<readonly { user_id: number; flags: number }[]> {
  const mask = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.has_alert_word;
  const ids = [...bits.personal.keys()];
  const values = [...bits.personal.values()];
  return db.any(sql.type(z.object({ user_id: z.number(), flags: z.number() }))`
    UPDATE user_messages um SET flags = (um.flags & ~${mask}::int) | ${bits.common}::int | coalesce(p.bits, 0)
    FROM (SELECT um2.user_id, x.bits FROM user_messages um2
          LEFT JOIN unnest(${sql.array(ids, 'int4')}::int[], ${sql.array(values, 'int4')}::int[]) AS x(user_id, bits)
            ON x.user_id = um2.user_id
          WHERE um2.message_id = ${messageId}) p
    WHERE um.message_id = ${messageId} AND um.user_id = p.user_id
    RETURNING um.user_id, um.flags`);
}

/** Everyone holding a row for any of these messages, with their rows' flags. */
export function rowsOf(db: CommonQueryMethods, messageIds: readonly number[]): Promise<readonly { user_id: number; message_id: number; flags: number }[]> {
  return db.any(sql.type(z.object({ user_id: z.number(), message_id: z.number(), flags: z.number() }))`
    SELECT user_id, message_id, flags FROM user_messages WHERE message_id = ANY(${sql.array(messageIds, 'int8')})`);
}

/** Drop the rows of users who are not active subscribers of `channelId` (a move out). */
export function dropRowsOutside(db: CommonQueryMethods, messageIds: readonly number[], channelId: number): Promise<readonly number[]> {
  return db.anyFirst(sql.type(z.object({ user_id: z.number() }))`
    DELETE FROM user_messages um
    WHERE um.message_id = ANY(${sql.array(messageIds, 'int8')})
      AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = um.user_id AND s.channel_id = ${channelId} AND s.active)
    RETURNING um.user_id`);
}

/**
 * Give every subscriber of a channel who is an active user a (read) row for these messages;
 * deactivated users receive nothing while away, as with messages sent then.
 */
export async function addRowsForSubscribers(db: CommonQueryMethods, messageIds: readonly number[], channelId: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO user_messages (user_id, message_id, flags)
    SELECT s.user_id, m.id, ${FLAG_BITS.read}::int FROM subscriptions s
    JOIN users u ON u.id = s.user_id AND u.is_active
    CROSS JOIN unnest(${sql.array(messageIds, 'int8')}::bigint[]) AS m(id)
    WHERE s.channel_id = ${channelId} AND s.active
    ON CONFLICT DO NOTHING`);
}

export interface EditRecord {
  readonly messageId: number;
  readonly userId: number;
  readonly nowMs: number;
  readonly prevContent?: string | undefined;
  readonly prevRenderedContent?: string | undefined;
  readonly prevTopic?: string | undefined;
  readonly topic?: string | undefined;
  readonly prevChannelId?: number | undefined;
  readonly channelId?: number | undefined;
}

export async function recordEdits(db: CommonQueryMethods, edits: readonly EditRecord[]): Promise<void> {
  for (const e of edits) {
    await db.query(sql.unsafe`
      INSERT INTO message_edits (message_id, user_id, edited_at, prev_content, prev_rendered_content, prev_topic, topic,
                                 prev_channel_id, channel_id)
      VALUES (${e.messageId}, ${e.userId}, to_timestamp(${e.nowMs / 1000}), ${e.prevContent ?? null}, ${e.prevRenderedContent ?? null},
              ${e.prevTopic ?? null}, ${e.topic ?? null}, ${e.prevChannelId ?? null}, ${e.channelId ?? null})`);
  }
}

const editRow = z.object({
  user_id: z.number().nullable(),
  edited_at: z.number(),
  prev_content: z.string().nullable(),
  prev_rendered_content: z.string().nullable(),
  prev_topic: z.string().nullable(),
  topic: z.string().nullable(),
  prev_channel_id: z.number().nullable(),
  channel_id: z.number().nullable(),
});
export type EditRow = z.infer<typeof editRow>;

export function editsOf(db: CommonQueryMethods, messageId: number): Promise<readonly EditRow[]> {
  return db.any(sql.type(editRow)`
    SELECT user_id, edited_at, prev_content, prev_rendered_content, prev_topic, topic, prev_channel_id, channel_id
    FROM message_edits WHERE message_id = ${messageId} ORDER BY id`);
}

const placedRow = z.object({ id: z.number(), channel_id: z.number().nullable(), topic: z.string().nullable(), dm_key: z.string().nullable() });
/** A message and where it is: a channel's topic, or a direct conversation. */
export type PlacedMessage = z.infer<typeof placedRow>;

/**
 * The newest `limit` messages of a channel's topic (in any case), with their topics as stored,
 * in id order; with `receivedBy`, only those that user has a row of.
 */
export function topicBatch(
  db: CommonQueryMethods,
  channelId: number,
  topic: string,
  limit: number,
  receivedBy: number | null,
): Promise<readonly PlacedMessage[]> {
  const received = receivedBy === null ? sql.fragment`` : sql.fragment`AND EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ${receivedBy})`;
  return db.any(sql.type(placedRow)`
    SELECT * FROM (
      SELECT m.id, m.channel_id, m.topic, m.dm_key FROM messages m WHERE m.channel_id = ${channelId} AND lower(m.topic) = lower(${topic}) ${received}
      ORDER BY m.id DESC LIMIT ${limit} FOR UPDATE
    ) newest ORDER BY id`);
}

/** Every message these users sent in the organization, where each is now, oldest first. */
export function sentBy(db: CommonQueryMethods, realmId: number, senderIds: readonly number[]): Promise<readonly PlacedMessage[]> {
  return db.any(sql.type(placedRow)`
    SELECT id, channel_id, topic, dm_key FROM messages
    WHERE realm_id = ${realmId} AND sender_id = ANY(${sql.array(senderIds, 'int4')}) ORDER BY id`);
}

/**
 * The oldest messages sent before `beforeMs` in a channel (a number) or among the organization's
 * direct messages (null): at most `limit`, oldest first (message retention).
 */
export function sentBefore(db: CommonQueryMethods, realmId: number, channelId: number | null, beforeMs: number, limit: number): Promise<readonly PlacedMessage[]> {
  const where = channelId === null ? sql.fragment`realm_id = ${realmId} AND dm_key IS NOT NULL` : sql.fragment`channel_id = ${channelId}`;
  return db.any(sql.type(placedRow)`
    SELECT id, channel_id, topic, dm_key FROM messages
    WHERE ${where} AND date_sent < to_timestamp(${beforeMs / 1000}) ORDER BY date_sent, id LIMIT ${limit}`);
}

/**
 * Of these messages, locked, those still in one channel (`channelId`) or, with null, those that
 * are direct messages.
 */
export function lockPlaced(db: CommonQueryMethods, realmId: number, ids: readonly number[], channelId: number | null): Promise<readonly PlacedMessage[]> {
  const where = channelId === null ? sql.fragment`channel_id IS NULL` : sql.fragment`channel_id = ${channelId}`;
  return db.any(sql.type(placedRow)`
    SELECT id, channel_id, topic, dm_key FROM messages
    WHERE realm_id = ${realmId} AND id = ANY(${sql.array(ids, 'int8')}) AND ${where} ORDER BY id FOR UPDATE`);
}

/** Delete messages (rows, reactions, history and upload links go with them). */
export async function deleteMessages(db: CommonQueryMethods, ids: readonly number[]): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM messages WHERE id = ANY(${sql.array(ids, 'int8')})`);
}

/** The last message of a topic (undoing a resolve within the grace period). */
export function lastTopicMessage(db: CommonQueryMethods, channelId: number, topic: string): Promise<MessageRow | null> {
  return db.maybeOne(sql.type(messageRow)`
    SELECT ${messageColumns} FROM messages m WHERE m.channel_id = ${channelId} AND lower(m.topic) = lower(${topic})
    ORDER BY m.id DESC LIMIT 1`);
}

// Uploads referenced by an edited message

const attachmentRow = z.object({
  id: z.number(),
  file_name: z.string(),
  path_id: z.string(),
  size: z.number(),
  create_time: z.number(),
  owner_id: z.number(),
});
export type AttachmentRow = z.infer<typeof attachmentRow>;

/**
 * Re-link a message's uploads after a content edit. Returns the uploads whose links changed
 * (their owners are told), and those of `ownerId` that this edit left referenced by no message at
 * all (detached_uploads).
 */
export async function relinkAttachments(
  db: CommonQueryMethods,
  realmId: number,
  messageId: number,
  editorId: number,
  pathIds: readonly string[],
): Promise<{ changed: readonly number[]; detached: readonly AttachmentRow[] }> {
  await lockAttachments(db, realmId, { pathIds, messageIds: [messageId] });
  const unlinked = await db.anyFirst(sql.type(z.object({ attachment_id: z.number() }))`
    DELETE FROM attachment_messages am USING attachments a
    WHERE am.message_id = ${messageId} AND a.id = am.attachment_id AND NOT (a.path_id = ANY(${sql.array(pathIds, 'text')}))
    RETURNING am.attachment_id`);
  const changed = [...unlinked, ...(await claimAttachments(db, realmId, editorId, messageId, pathIds))];
  if (unlinked.length === 0) return { changed, detached: [] };
  const detached = await db.any(sql.type(attachmentRow)`
    SELECT a.id, a.file_name, a.path_id, a.size, a.create_time, a.owner_id FROM attachments a
    WHERE a.id = ANY(${sql.array(unlinked, 'int4')}) AND a.owner_id = ${editorId}
      AND NOT EXISTS (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id)
    ORDER BY a.id`);
  return { changed, detached };
}

/** A channel's topics, newest first, named as in their latest message; `onlyReceivedBy`: protected history. */
export function channelTopics(db: CommonQueryMethods, channelId: number, onlyReceivedBy: number | null): Promise<readonly { name: string; max_id: number }[]> {
  const received =
    onlyReceivedBy !== null
      ? sql.fragment`AND EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = ${onlyReceivedBy})`
      : sql.fragment``;
  return db.any(sql.type(z.object({ name: z.string(), max_id: z.number() }))`
    SELECT t.topic AS name, g.max_id FROM (
      SELECT max(m.id) AS max_id FROM messages m WHERE m.channel_id = ${channelId} ${received} GROUP BY lower(m.topic)
    ) g JOIN messages t ON t.id = g.max_id ORDER BY g.max_id DESC`);
}
