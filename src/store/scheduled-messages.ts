// Scheduled messages and reminders: messages to send later. Writes run in the actor that owns
// the author's personal data; the delivery reads what is due across organizations.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export type ScheduledKind = 'message' | 'reminder';

const scheduledRow = z.object({
  id: z.number(),
  realm_id: z.number(),
  sender_id: z.number(),
  kind: z.enum(['message', 'reminder']),
  type: z.enum(['stream', 'private']),
  to_ids: z.array(z.number()),
  topic: z.string(),
  content: z.string(),
  rendered_content: z.string(),
  deliver_at: z.number(),
  read_by_sender: z.boolean(),
  client: z.string(),
  target_message_id: z.number().nullable(),
  failed: z.boolean(),
  delivered_message_id: z.number().nullable(),
});
export type ScheduledRow = z.infer<typeof scheduledRow>;

/** What a scheduled message or reminder says and where it goes, checked by the caller. */
export interface ScheduledData {
  readonly type: ScheduledRow['type'];
  readonly to: readonly number[];
  readonly topic: string;
  readonly content: string;
  readonly rendered: string;
  /** Epoch milliseconds. */
  readonly deliverAtMs: number;
}

const columns = sql.fragment`id, realm_id, sender_id, kind, type, to_ids, topic, content, rendered_content, deliver_at,
  read_by_sender, client, target_message_id, failed, delivered_message_id`;

/** A user's unsent scheduled messages (or reminders), the soonest first; failed ones included. */
export function listPending(db: CommonQueryMethods, userId: number, kind: ScheduledKind): Promise<readonly ScheduledRow[]> {
  return db.any(sql.type(scheduledRow)`
    SELECT ${columns} FROM scheduled_messages
    WHERE sender_id = ${userId} AND kind = ${kind} AND delivered_message_id IS NULL
    ORDER BY deliver_at, id`);
}

/** The row if it is still to send by `nowMs` (unsent, not failed, due). */
export function getDue(db: CommonQueryMethods, id: number, nowMs: number): Promise<ScheduledRow | null> {
  return db.maybeOne(sql.type(scheduledRow)`
    SELECT ${columns} FROM scheduled_messages
    WHERE id = ${id} AND delivered_message_id IS NULL AND NOT failed AND deliver_at <= to_timestamp(${nowMs / 1000})`);
}

/** One of the user's unsent scheduled messages (or reminders); null when there is none of that id. */
export function getPending(db: CommonQueryMethods, userId: number, kind: ScheduledKind, id: number): Promise<ScheduledRow | null> {
  return db.maybeOne(sql.type(scheduledRow)`
    SELECT ${columns} FROM scheduled_messages
    WHERE id = ${id} AND sender_id = ${userId} AND kind = ${kind} AND delivered_message_id IS NULL`);
}

export function insertScheduled(
  db: CommonQueryMethods,
  row: ScheduledData & {
    readonly realmId: number;
    readonly senderId: number;
    readonly kind: ScheduledKind;
    readonly readBySender: boolean;
    readonly client: string;
    readonly targetMessageId: number | null;
  },
): Promise<ScheduledRow> {
  return db.one(sql.type(scheduledRow)`
    INSERT INTO scheduled_messages (realm_id, sender_id, kind, type, to_ids, topic, content, rendered_content, deliver_at,
      read_by_sender, client, target_message_id)
    VALUES (${row.realmId}, ${row.senderId}, ${row.kind}, ${row.type}, ${sql.array(row.to, 'int4')}, ${row.topic}, ${row.content},
      ${row.rendered}, to_timestamp(${row.deliverAtMs / 1000}), ${row.readBySender}, ${row.client}, ${row.targetMessageId})
    RETURNING ${columns}`);
}

/** Rewrites one of the user's unsent scheduled messages and clears a failure; null when there is none of that id. */
export function updateScheduled(db: CommonQueryMethods, userId: number, id: number, d: ScheduledData): Promise<ScheduledRow | null> {
  return db.maybeOne(sql.type(scheduledRow)`
    UPDATE scheduled_messages SET type = ${d.type}, to_ids = ${sql.array(d.to, 'int4')}, topic = ${d.topic}, content = ${d.content},
      rendered_content = ${d.rendered}, deliver_at = to_timestamp(${d.deliverAtMs / 1000}), failed = false, failure_message = NULL
    WHERE id = ${id} AND sender_id = ${userId} AND kind = 'message' AND delivered_message_id IS NULL
    RETURNING ${columns}`);
}

/** Whether the user had an unsent row of that id (now deleted). */
export async function deletePending(db: CommonQueryMethods, userId: number, kind: ScheduledKind, id: number): Promise<boolean> {
  const r = await db.query(sql.unsafe`
    DELETE FROM scheduled_messages WHERE id = ${id} AND sender_id = ${userId} AND kind = ${kind} AND delivered_message_id IS NULL`);
  return r.rowCount > 0;
}

export async function markDelivered(db: CommonQueryMethods, id: number, messageId: number): Promise<void> {
  await db.query(sql.unsafe`UPDATE scheduled_messages SET delivered_message_id = ${messageId} WHERE id = ${id}`);
}

export function markFailed(db: CommonQueryMethods, id: number, reason: string): Promise<ScheduledRow> {
  return db.one(sql.type(scheduledRow)`
    UPDATE scheduled_messages SET failed = true, failure_message = ${reason} WHERE id = ${id} RETURNING ${columns}`);
}

const dueRow = z.object({ id: z.number(), realm_id: z.number(), sender_id: z.number() });
export type DueRow = z.infer<typeof dueRow>;

/** Rows to send by `nowMs`, the longest due first. */
export function dueScheduled(db: CommonQueryMethods, nowMs: number, limit: number): Promise<readonly DueRow[]> {
  return db.any(sql.type(dueRow)`
    SELECT id, realm_id, sender_id FROM scheduled_messages
    WHERE delivered_message_id IS NULL AND NOT failed AND deliver_at <= to_timestamp(${nowMs / 1000})
    ORDER BY deliver_at, id LIMIT ${limit}`);
}

/** When the next row is due (epoch milliseconds); null when nothing waits. */
export async function nextDue(db: CommonQueryMethods): Promise<number | null> {
  const at = await db.oneFirst(sql.type(z.object({ at: z.number().nullable() }))`
    SELECT min(deliver_at) AS at FROM scheduled_messages WHERE delivered_message_id IS NULL AND NOT failed`);
  return at;
}
