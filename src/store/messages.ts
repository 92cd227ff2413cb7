// Messages and their per-recipient rows. Writes run inside the owning conversation actor's
// transaction (src/actors/conversations).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** Every direct-message conversation of a realm (who has talked to whom: peersOf). */
export function listDmKeys(db: CommonQueryMethods, realmId: number): Promise<readonly string[]> {
  return db.anyFirst(sql.type(z.object({ dm_key: z.string() }))`
    SELECT DISTINCT dm_key FROM messages WHERE realm_id = ${realmId} AND dm_key IS NOT NULL`);
}
