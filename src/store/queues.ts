// Persisted event-queue descriptors (DESIGN.md §2). Cursors and contact times are written in
// batches by the realm's queue manager, never one round trip per poll.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const queueRow = z.object({
  id: z.string(),
  realm_id: z.number(),
  user_id: z.number().nullable(),
  /** The jsonb as Postgres prints it (keys in its canonical order): equal descriptors, equal text. */
  descriptor: z.string(),
  start_event_id: z.number(),
  acked_event_id: z.number(),
  idle_timeout_secs: z.number(),
  last_contact: z.number(),
});
export type QueueRow = z.infer<typeof queueRow>;

export async function insertQueue(
  db: CommonQueryMethods,
  q: { id: string; realmId: number; userId: number; descriptor: unknown; startEventId: number; idleTimeoutSecs: number; lastContactMs: number },
): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO event_queues (id, realm_id, user_id, descriptor, start_event_id, acked_event_id, idle_timeout_secs, last_contact)
    VALUES (${q.id}, ${q.realmId}, ${q.userId}, ${sql.jsonb(q.descriptor as never)}, ${q.startEventId}, ${q.startEventId},
            ${q.idleTimeoutSecs}, to_timestamp(${q.lastContactMs / 1000}))`);
}

export function findQueue(db: CommonQueryMethods, realmId: number, id: string): Promise<QueueRow | null> {
  return db.maybeOne(sql.type(queueRow)`
    SELECT id::text, realm_id, user_id, descriptor::text, start_event_id, acked_event_id, idle_timeout_secs, last_contact
    FROM event_queues WHERE id = ${id}::uuid AND realm_id = ${realmId}`);
}

/**
 * Every queue of a realm still within its idle time at `nowMs` (start-up restore). The server's
 * clock, not the database's: the on-demand restore, the ticks and the sweep judge expiry by it.
 */
export function liveQueues(db: CommonQueryMethods, realmId: number, nowMs: number): Promise<readonly QueueRow[]> {
  return db.any(sql.type(queueRow)`
    SELECT id::text, realm_id, user_id, descriptor::text, start_event_id, acked_event_id, idle_timeout_secs, last_contact
    FROM event_queues
    WHERE realm_id = ${realmId} AND user_id IS NOT NULL
      AND last_contact + idle_timeout_secs * interval '1 second' >= to_timestamp(${nowMs / 1000})`);
}

/**
 * Where the event log must be read from for these queues: the least of their cursors, each the
 * later of its start and what its client acknowledged. A loop, not Math.min(...): spreading an
 * array passes each element as an argument on the stack, which overflows at some 150,000 (a
 * large organization's queues, whose restore then failed the whole start).
 */
export function logCursor(rows: Iterable<Pick<QueueRow, 'start_event_id' | 'acked_event_id'>>): number {
  let oldest = Infinity;
  for (const r of rows) oldest = Math.min(oldest, Math.max(r.start_event_id, r.acked_event_id));
  return oldest;
}

/** One probe of event_queues_realm per organization, not a scan of every queue (45 ms at 10,000). */
export function realmsWithQueues(db: CommonQueryMethods): Promise<readonly number[]> {
  return db.anyFirst(
    sql.type(z.object({ id: z.number() }))`SELECT r.id FROM realms r WHERE EXISTS (SELECT 1 FROM event_queues q WHERE q.realm_id = r.id) ORDER BY r.id`,
  );
}

export async function deleteQueues(db: CommonQueryMethods, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(sql.unsafe`DELETE FROM event_queues WHERE id = ANY(${sql.array(ids as string[], 'uuid')})`);
}

export async function deleteRealmQueues(db: CommonQueryMethods, realmId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM event_queues WHERE realm_id = ${realmId}`);
}

/** One statement for every dirty queue's cursor and last contact. */
export async function saveCursors(
  db: CommonQueryMethods,
  rows: ReadonlyArray<{ id: string; acked: number; lastContactMs: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(sql.unsafe`
    UPDATE event_queues q SET acked_event_id = greatest(q.acked_event_id, c.acked), last_contact = to_timestamp(c.ms / 1000.0)
    FROM ${sql.unnest(rows.map((r) => [r.id, r.acked, r.lastContactMs]), ['uuid', 'int8', 'float8'])} AS c(id, acked, ms)
    WHERE q.id = c.id`);
}

/**
 * Queues of a realm whose idle time ran out by `nowMs`, except `keep`. Contact times are written
 * from the server's clock, so they are judged by it too, not by the database's.
 */
export async function deleteExpiredQueues(db: CommonQueryMethods, realmId: number, keep: readonly string[], nowMs: number): Promise<number> {
  const r = await db.query(sql.unsafe`
    DELETE FROM event_queues
    WHERE realm_id = ${realmId} AND last_contact + idle_timeout_secs * interval '1 second' < to_timestamp(${nowMs / 1000})
      AND NOT (id = ANY(${sql.array(keep as string[], 'uuid')}))`);
  return r.rowCount;
}

/** Drop log rows no queue of the realm can still need. */
export async function trimEventLog(db: CommonQueryMethods, realmId: number, releasedThrough: number): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM events WHERE realm_id = ${realmId} AND id <= coalesce(
      (SELECT min(least(acked_event_id, ${releasedThrough})) FROM event_queues WHERE realm_id = ${realmId}),
      ${releasedThrough})`);
}

export function userQueueIds(db: CommonQueryMethods, userId: number): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ id: z.string() }))`SELECT id::text AS id FROM event_queues WHERE user_id = ${userId}`);
}

const aliveRow = z.object({ value: z.number() });

/** How long the server was down: since the last flush marked it alive (0 on a first start). */
export async function downtime(db: CommonQueryMethods, nowMs: number): Promise<number> {
  const last = await db.maybeOneFirst(sql.type(aliveRow)`SELECT (value #>> '{}')::float8 AS value FROM server_state WHERE key = 'last_alive'`);
  return last === null || last >= nowMs ? 0 : nowMs - last;
}

/**
 * After a restart, give every queue back the time the server was down (see downtime), so that
 * clients who could not reach a stopped server do not find their queues expired.
 */
export async function creditDowntime(db: CommonQueryMethods, downMs: number, nowMs: number): Promise<void> {
  // Together or not at all: a credit without its mark would be given again at the next start.
  await db.transaction(async (t) => {
    await t.query(sql.unsafe`UPDATE event_queues SET last_contact = last_contact + ${downMs / 1000} * interval '1 second'`);
    await markAlive(t, nowMs);
  });
}

export async function markAlive(db: CommonQueryMethods, nowMs: number): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO server_state (key, value) VALUES ('last_alive', ${sql.jsonb(nowMs)})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`);
}
