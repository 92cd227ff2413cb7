// Organizations. Call writes inside the realm actor's transaction (or, for creation, from the
// realm directory which owns the set of realms).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const realmRow = z.object({
  id: z.number(),
  host: z.string(),
  url: z.string(),
  name: z.string(),
  description: z.string(),
  icon_url: z.string().nullable(),
  deactivated: z.boolean(),
  settings: z.unknown(),
  presence_last_update_id: z.number(),
  date_created: z.number(),
});
export type RealmRow = z.infer<typeof realmRow>;

const columns = sql.fragment`id, host, url, name, description, icon_url, deactivated, settings,
  presence_last_update_id, date_created`;

export async function insertRealm(
  db: CommonQueryMethods,
  r: { host: string; url: string; name: string; description?: string },
): Promise<RealmRow> {
  return db.one(sql.type(realmRow)`
    INSERT INTO realms (host, url, name, description)
    VALUES (${r.host}, ${r.url}, ${r.name}, ${r.description ?? ''})
    RETURNING ${columns}`);
}

export function findRealmByHost(db: CommonQueryMethods, host: string): Promise<RealmRow | null> {
  return db.maybeOne(sql.type(realmRow)`SELECT ${columns} FROM realms WHERE host = ${host}`);
}

export function getRealm(db: CommonQueryMethods, id: number): Promise<RealmRow> {
  return db.one(sql.type(realmRow)`SELECT ${columns} FROM realms WHERE id = ${id}`);
}

export function listRealms(db: CommonQueryMethods): Promise<readonly RealmRow[]> {
  return db.any(sql.type(realmRow)`SELECT ${columns} FROM realms ORDER BY id`);
}

export function countRealms(db: CommonQueryMethods): Promise<number> {
  return db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM realms`);
}

export async function updateRealmSettings(db: CommonQueryMethods, id: number, settings: unknown): Promise<void> {
  await db.query(sql.unsafe`UPDATE realms SET settings = ${sql.jsonb(settings as never)} WHERE id = ${id}`);
}

export async function setRealmDeactivated(db: CommonQueryMethods, id: number, deactivated: boolean): Promise<void> {
  await db.query(sql.unsafe`UPDATE realms SET deactivated = ${deactivated} WHERE id = ${id}`);
}

/** Change the organization's name, description and settings (only the given ones). */
export async function updateRealm(
  db: CommonQueryMethods,
  id: number,
  r: { name?: string | undefined; description?: string | undefined; settings?: unknown },
): Promise<void> {
  const sets = [
    ...(r.name === undefined ? [] : [sql.fragment`name = ${r.name}`]),
    ...(r.description === undefined ? [] : [sql.fragment`description = ${r.description}`]),
    ...(r.settings === undefined ? [] : [sql.fragment`settings = ${sql.jsonb(r.settings as never)}`]),
  ];
  if (sets.length === 0) return;
  await db.query(sql.unsafe`UPDATE realms SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${id}`);
}

/** Does the organization have this (active or archived) channel? */
export function channelExists(db: CommonQueryMethods, realmId: number, channelId: number): Promise<boolean> {
  return db.exists(sql.unsafe`SELECT 1 FROM channels WHERE id = ${channelId} AND realm_id = ${realmId}`);
}
