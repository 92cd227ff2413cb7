// The organization's code playgrounds. Writes happen in the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const playgroundRow = z.object({ id: z.number(), name: z.string(), pygments_language: z.string(), url_template: z.string() });
export type PlaygroundRow = z.infer<typeof playgroundRow>;

const columns = sql.fragment`id, name, pygments_language, url_template`;

export function listPlaygrounds(db: CommonQueryMethods, realmId: number): Promise<readonly PlaygroundRow[]> {
  return db.any(sql.type(playgroundRow)`SELECT ${columns} FROM realm_playgrounds WHERE realm_id = ${realmId} ORDER BY id`);
}

/** The new playground, or null when the organization has one of that name for that language. */
export function insertPlayground(
  db: CommonQueryMethods,
  realmId: number,
  p: { name: string; language: string; urlTemplate: string },
): Promise<PlaygroundRow | null> {
  return db.maybeOne(sql.type(playgroundRow)`
    INSERT INTO realm_playgrounds (realm_id, name, pygments_language, url_template)
    VALUES (${realmId}, ${p.name}, ${p.language}, ${p.urlTemplate})
    ON CONFLICT (realm_id, pygments_language, name) DO NOTHING
    RETURNING ${columns}`);
}

/** Whether the organization had a playground of that id. */
export async function deletePlayground(db: CommonQueryMethods, realmId: number, id: number): Promise<boolean> {
  const r = await db.query(sql.unsafe`DELETE FROM realm_playgrounds WHERE realm_id = ${realmId} AND id = ${id}`);
  return r.rowCount > 0;
}
