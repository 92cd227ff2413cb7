// Persisted presence: one row per user and the organization's reserved presence sequence
// (realms.presence_last_update_id). Written in batches by the presence actor.
import { sql, type CommonQueryMethods, type DatabasePool } from 'slonik';
import { z } from 'zod';

const presenceRow = z.object({
  user_id: z.number(),
  last_active_ms: z.number().nullable(),
  last_connected_ms: z.number().nullable(),
  last_update_id: z.number(),
});
export type PresenceRow = z.infer<typeof presenceRow>;

export function loadPresence(db: CommonQueryMethods, realmId: number): Promise<readonly PresenceRow[]> {
  return db.any(sql.type(presenceRow)`
    SELECT user_id,
      (extract(epoch FROM last_active_time) * 1000)::float8 AS last_active_ms,
      (extract(epoch FROM last_connected_time) * 1000)::float8 AS last_connected_ms,
      last_update_id
    FROM user_presence WHERE realm_id = ${realmId}`);
}

/** The highest presence id reserved for the organization. */
export function reservedPresenceId(db: CommonQueryMethods, realmId: number): Promise<number> {
  return db.oneFirst(sql.type(z.object({ id: z.number() }))`SELECT presence_last_update_id AS id FROM realms WHERE id = ${realmId}`);
}

export interface PresenceWrite {
  readonly userId: number;
  readonly lastActive: number | null;
  readonly lastConnected: number | null;
  readonly lastUpdateId: number;
}

/** Upsert the rows and raise the reservation (never lowers it), in one transaction. */
export async function savePresence(
  db: DatabasePool,
  realmId: number,
  rows: readonly PresenceWrite[],
  reserveThrough: number | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    if (rows.length > 0) {
      await tx.query(sql.unsafe`
        INSERT INTO user_presence (user_id, realm_id, last_active_time, last_connected_time, last_update_id)
        SELECT u, ${realmId}, to_timestamp(a / 1000.0), to_timestamp(c / 1000.0), i
        FROM unnest(${sql.array(rows.map((r) => r.userId), 'int4')}::int[],
                    ${sql.array(rows.map((r) => r.lastActive), 'float8')}::float8[],
                    ${sql.array(rows.map((r) => r.lastConnected), 'float8')}::float8[],
                    ${sql.array(rows.map((r) => r.lastUpdateId), 'int8')}::bigint[]) AS t(u, a, c, i)
        ON CONFLICT (user_id) DO UPDATE SET
          last_active_time = excluded.last_active_time,
          last_connected_time = excluded.last_connected_time,
          last_update_id = excluded.last_update_id`);
    }
    if (reserveThrough !== null) {
      await tx.query(sql.unsafe`
        UPDATE realms SET presence_last_update_id = greatest(presence_last_update_id, ${reserveThrough}) WHERE id = ${realmId}`);
    }
  });
}
