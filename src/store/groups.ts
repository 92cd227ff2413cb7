// User groups: the system role groups, named groups and the anonymous groups behind
// group-setting values. Call writes inside the realm actor's transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { SYSTEM_GROUPS, type SystemGroupName } from '../domain/system-groups.js';

export const groupRow = z.object({
  id: z.number(),
  name: z.string().nullable(),
  description: z.string(),
  is_system_group: z.boolean(),
  deactivated: z.boolean(),
  creator_id: z.number().nullable(),
  date_created: z.number(),
  settings: z.unknown(),
  members: z.array(z.number()),
  subgroups: z.array(z.number()),
});
export type GroupRow = z.infer<typeof groupRow>;

/** Creates the role groups of a new organization with their nesting; returns name → id. */
export async function createSystemGroups(
  db: CommonQueryMethods,
  realmId: number,
): Promise<Map<SystemGroupName, number>> {
  const ids = new Map<SystemGroupName, number>();
  for (const g of SYSTEM_GROUPS) {
    const id = await db.oneFirst(sql.type(z.object({ id: z.number() }))`
      INSERT INTO user_groups (realm_id, name, description, is_system_group)
      VALUES (${realmId}, ${g.name}, ${g.description}, true) RETURNING id`);
    ids.set(g.name, id);
  }
  for (const g of SYSTEM_GROUPS) {
    if (g.subgroup) {
      await db.query(sql.unsafe`
        INSERT INTO user_group_subgroups (group_id, subgroup_id) VALUES (${ids.get(g.name)!}, ${ids.get(g.subgroup)!})`);
    }
  }
  return ids;
}

export function listGroups(db: CommonQueryMethods, realmId: number): Promise<readonly GroupRow[]> {
  return db.any(sql.type(groupRow)`
    SELECT g.id, g.name, g.description, g.is_system_group, g.deactivated, g.creator_id, g.date_created, g.settings,
      coalesce((SELECT array_agg(m.user_id ORDER BY m.user_id) FROM user_group_members m WHERE m.group_id = g.id), '{}') AS members,
      coalesce((SELECT array_agg(s.subgroup_id ORDER BY s.subgroup_id) FROM user_group_subgroups s WHERE s.group_id = g.id), '{}') AS subgroups
    FROM user_groups g WHERE g.realm_id = ${realmId} ORDER BY g.id`);
}

/** Replaces a user's direct memberships among the given system groups. */
export async function setSystemMemberships(
  db: CommonQueryMethods,
  userId: number,
  systemGroupIds: readonly number[],
  memberOf: readonly number[],
): Promise<void> {
  await db.query(sql.unsafe`
    DELETE FROM user_group_members WHERE user_id = ${userId} AND group_id = ANY(${sql.array(systemGroupIds, 'int4')})`);
  if (memberOf.length > 0) {
    await db.query(sql.unsafe`
      INSERT INTO user_group_members (group_id, user_id)
      SELECT unnest(${sql.array(memberOf, 'int4')}::int[]), ${userId}`);
  }
}
