// Users' custom profile field values (the `profile_data` of user objects). Reads only here;
// writes belong to the profile-field commands (src/store/profile-fields.ts).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ProfileData, ProfileValue } from '../domain/user-view.js';

const valueRow = z.object({
  user_id: z.number(),
  field_id: z.number(),
  value: z.string(),
  rendered_value: z.string().nullable(),
});

/** profile_data of the realm's users (only the given ones when `userIds` is set), by user id. */
export async function profileDataByUser(
  db: CommonQueryMethods,
  realmId: number,
  userIds?: readonly number[],
): Promise<Map<number, ProfileData>> {
  const rows = await db.any(sql.type(valueRow)`
    SELECT v.user_id, v.field_id, v.value, v.rendered_value
    FROM custom_profile_values v JOIN custom_profile_fields f ON f.id = v.field_id
    WHERE f.realm_id = ${realmId}
      ${userIds ? sql.fragment`AND v.user_id = ANY(${sql.array([...userIds], 'int4')})` : sql.fragment``}
    ORDER BY v.user_id, v.field_id`);
  const out = new Map<number, Record<string, ProfileValue>>();
  for (const r of rows) {
    let data = out.get(r.user_id);
    if (!data) out.set(r.user_id, (data = {}));
    data[String(r.field_id)] = r.rendered_value === null ? { value: r.value } : { value: r.value, rendered_value: r.rendered_value };
  }
  return out;
}
