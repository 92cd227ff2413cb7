// Custom profile fields and users' values for them. Call writes inside the realm actor's
// transaction (profile-field commands).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { reorderRows } from './ordering.js';

export const fieldRow = z.object({
  id: z.number(),
  name: z.string(),
  hint: z.string(),
  field_type: z.number(),
  field_data: z.string(),
  sort_order: z.number(),
  display_in_profile_summary: z.boolean(),
  required: z.boolean(),
  editable_by_user: z.boolean(),
  use_for_user_matching: z.boolean(),
});
export type FieldRow = z.infer<typeof fieldRow>;

const columns = sql.fragment`id, name, hint, field_type, field_data, sort_order, display_in_profile_summary,
  required, editable_by_user, use_for_user_matching`;

export function listFields(db: CommonQueryMethods, realmId: number): Promise<readonly FieldRow[]> {
  return db.any(sql.type(fieldRow)`
    SELECT ${columns} FROM custom_profile_fields WHERE realm_id = ${realmId} ORDER BY sort_order, id`);
}

export type FieldSettings = Omit<FieldRow, 'id' | 'sort_order'>;

export function insertField(db: CommonQueryMethods, realmId: number, f: FieldSettings): Promise<FieldRow> {
  return db.one(sql.type(fieldRow)`
    INSERT INTO custom_profile_fields (realm_id, name, hint, field_type, field_data, sort_order,
      display_in_profile_summary, required, editable_by_user, use_for_user_matching)
    VALUES (${realmId}, ${f.name}, ${f.hint}, ${f.field_type}, ${f.field_data},
      (SELECT coalesce(max(sort_order), 0) + 1 FROM custom_profile_fields WHERE realm_id = ${realmId}),
      ${f.display_in_profile_summary}, ${f.required}, ${f.editable_by_user}, ${f.use_for_user_matching})
    RETURNING ${columns}`);
}

export async function updateField(db: CommonQueryMethods, id: number, f: FieldSettings): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE custom_profile_fields SET name = ${f.name}, hint = ${f.hint}, field_data = ${f.field_data},
      display_in_profile_summary = ${f.display_in_profile_summary}, required = ${f.required},
      editable_by_user = ${f.editable_by_user}, use_for_user_matching = ${f.use_for_user_matching}
    WHERE id = ${id}`);
}

/** Deletes the field and, by cascade, every value of it. */
export async function deleteField(db: CommonQueryMethods, id: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM custom_profile_fields WHERE id = ${id}`);
}

/** Give the fields the orders 1, 2, … in the order of `ids`. */
export const reorderFields = (db: CommonQueryMethods, ids: readonly number[]) => reorderRows(db, 'custom_profile_fields', ids);

const valueRow = z.object({ user_id: z.number(), value: z.string(), rendered_value: z.string().nullable() });

/** Every value of one field, by user id. */
export async function fieldValues(db: CommonQueryMethods, fieldId: number): Promise<Map<number, { value: string; rendered_value: string | null }>> {
  const rows = await db.any(sql.type(valueRow)`
    SELECT user_id, value, rendered_value FROM custom_profile_values WHERE field_id = ${fieldId}`);
  return new Map(rows.map((r) => [r.user_id, r]));
}

/** One user's values, by field id. */
export async function userValues(db: CommonQueryMethods, userId: number): Promise<Map<number, string>> {
  const rows = await db.any(sql.type(z.object({ field_id: z.number(), value: z.string() }))`
    SELECT field_id, value FROM custom_profile_values WHERE user_id = ${userId}`);
  return new Map(rows.map((r) => [r.field_id, r.value]));
}

export async function setValue(db: CommonQueryMethods, userId: number, fieldId: number, value: string, rendered: string | null): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO custom_profile_values (user_id, field_id, value, rendered_value)
    VALUES (${userId}, ${fieldId}, ${value}, ${rendered})
    ON CONFLICT (user_id, field_id) DO UPDATE SET value = EXCLUDED.value, rendered_value = EXCLUDED.rendered_value`);
}

export async function removeValue(db: CommonQueryMethods, userId: number, fieldId: number): Promise<void> {
  await db.query(sql.unsafe`DELETE FROM custom_profile_values WHERE user_id = ${userId} AND field_id = ${fieldId}`);
}
