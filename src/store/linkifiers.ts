// Linkifiers of organizations, in their order. Call writes inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { reorderRows } from './ordering.js';

export const linkifierRow = z.object({ id: z.number(), pattern: z.string(), url_template: z.string(), sort_order: z.number() });

export function listLinkifiers(db: CommonQueryMethods, realmId: number) {
  return db.any(sql.type(linkifierRow)`
    SELECT id, pattern, url_template, sort_order FROM linkifiers WHERE realm_id = ${realmId} ORDER BY sort_order, id`);
}

/** A new linkifier goes last. */
export function insertLinkifier(db: CommonQueryMethods, realmId: number, pattern: string, urlTemplate: string) {
  return db.one(sql.type(linkifierRow)`
    INSERT INTO linkifiers (realm_id, pattern, url_template, sort_order)
    VALUES (${realmId}, ${pattern}, ${urlTemplate},
      (SELECT coalesce(max(sort_order), 0) + 1 FROM linkifiers WHERE realm_id = ${realmId}))
    RETURNING id, pattern, url_template, sort_order`);
}

export async function updateLinkifier(db: CommonQueryMethods, id: number, pattern: string, urlTemplate: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE linkifiers SET pattern = ${pattern}, url_template = ${urlTemplate} WHERE id = ${id}`);
}

export async function deleteLinkifier(db: CommonQueryMethods, id: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM linkifiers WHERE id = ${id}`);
}

/** Orders 1, 2, … in the order of `ids`. */
export const reorderLinkifiers = (db: CommonQueryMethods, ids: readonly number[]) => reorderRows(db, 'linkifiers', ids);
