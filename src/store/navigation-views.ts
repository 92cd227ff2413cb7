// Users' navigation views. Writes happen in the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const viewRow = z.object({ fragment: z.string(), is_pinned: z.boolean(), name: z.string().nullable() });
export type ViewRow = z.infer<typeof viewRow>;

export function listViews(db: CommonQueryMethods, userId: number): Promise<readonly ViewRow[]> {
  return db.any(sql.type(viewRow)`
    SELECT fragment, is_pinned, name FROM navigation_views WHERE user_id = ${userId} ORDER BY fragment`);
}

export async function insertView(db: CommonQueryMethods, userId: number, v: ViewRow): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO navigation_views (user_id, fragment, is_pinned, name) VALUES (${userId}, ${v.fragment}, ${v.is_pinned}, ${v.name})`);
}

export async function updateView(db: CommonQueryMethods, userId: number, v: ViewRow): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE navigation_views SET is_pinned = ${v.is_pinned}, name = ${v.name} WHERE user_id = ${userId} AND fragment = ${v.fragment}`);
}

export async function deleteView(db: CommonQueryMethods, userId: number, fragment: string): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM navigation_views WHERE user_id = ${userId} AND fragment = ${fragment}`);
}
