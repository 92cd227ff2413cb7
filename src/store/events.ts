// The event log (DESIGN.md §2): rows written in the transaction of the change they describe.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { PublishedEvent } from '../actors/event-sequencer.js';

/**
 * The statement writing events to the log (at least one). Also run by R3. Payloads go as JSON
 * text cast to jsonb: sql.jsonb's serializer sorts every object's keys first, which jsonb does
 * not keep anyway.
 */
export function insertEventsQuery(realmId: number, events: readonly PublishedEvent[]) {
  const rows = events.map(
    (e) => sql.fragment`(${e.id}, ${realmId}, ${e.type},
      ${e.userIds === null ? null : sql.array(e.userIds as number[], 'int4')},
      ${e.publicChannelId ?? null}, ${JSON.stringify(e.payload)}::jsonb,
      ${e.perUser ? JSON.stringify(e.perUser) : null}::jsonb,
      ${e.spanIds && e.spanIds.length > 0 ? sql.array(e.spanIds as number[], 'int8') : null})`,
  );
  return sql.unsafe`
    INSERT INTO events (id, realm_id, type, user_ids, public_channel_id, payload, per_user, span_ids)
    VALUES ${sql.join(rows, sql.fragment`, `)}`;
}

/** Insert persisted events; call inside the mutation's transaction. */
export async function insertEvents(db: CommonQueryMethods, realmId: number, events: readonly PublishedEvent[]): Promise<void> {
  if (events.length > 0) await db.query(insertEventsQuery(realmId, events));
}

/** Is this event in the log (did the transaction that wrote it commit)? */
export async function eventLogged(db: CommonQueryMethods, realmId: number, id: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM events WHERE realm_id = ${realmId} AND id = ${id}`);
}

export const loggedEventRow = z.object({
  id: z.number(),
  type: z.string(),
  user_ids: z.array(z.number()).nullable(),
  public_channel_id: z.number().nullable(),
  payload: z.record(z.unknown()),
  per_user: z.record(z.record(z.unknown())).nullable(),
  span_ids: z.array(z.number()).nullable(),
});
export type LoggedEventRow = z.infer<typeof loggedEventRow>;

/**
 * Every logged event of a realm with an id in (afterId, upTo]: the start-up restore of all its
 * queues at once. A queue restored from the log reads up to the realm's release watermark at its
 * registration: what lies above reaches it live. (A committed event above the watermark may
 * still wait for a lower one in flight; read from the log, it would pass that one, which the
 * queue would then skip.)
 */
export function eventsAfter(db: CommonQueryMethods, realmId: number, afterId: number, upTo: number): Promise<readonly LoggedEventRow[]> {
  return db.any(sql.type(loggedEventRow)`
    SELECT id, type, user_ids, public_channel_id, payload, per_user, span_ids FROM events
    WHERE realm_id = ${realmId} AND id > ${afterId} AND id <= ${upTo} ORDER BY id`);
}

/**
 * Logged events in (afterId, upTo] that a queue of `userId` may receive: addressed to the user,
 * to everyone, or (with allPublic) message events of public channels.
 */
export function eventsForQueue(
  db: CommonQueryMethods,
  realmId: number,
  userId: number | null,
  range: { readonly afterId: number; readonly upTo: number },
  allPublic: boolean,
): Promise<readonly LoggedEventRow[]> {
  const mine = userId === null ? sql.fragment`false` : sql.fragment`${userId} = ANY(user_ids)`;
  return db.any(sql.type(loggedEventRow)`
    SELECT id, type, user_ids, public_channel_id, payload, per_user, span_ids FROM events
    WHERE realm_id = ${realmId} AND id > ${range.afterId} AND id <= ${range.upTo}
      AND (user_ids IS NULL OR ${mine} OR (${allPublic} AND public_channel_id IS NOT NULL))
    ORDER BY id`);
}
