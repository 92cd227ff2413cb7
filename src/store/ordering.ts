// Lists that clients order (profile fields, linkifiers): rows get sort_order 1, 2, … in the
// order of the given ids. Call inside the owning actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';

export type OrderedTable = 'custom_profile_fields' | 'linkifiers';

export async function reorderRows(db: CommonQueryMethods, table: OrderedTable, ids: readonly number[]): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE ${sql.identifier([table])} t SET sort_order = o.n
    FROM unnest(${sql.array([...ids], 'int4')}::int[]) WITH ORDINALITY AS o(id, n)
    WHERE t.id = o.id`);
}
