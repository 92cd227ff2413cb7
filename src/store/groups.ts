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

export interface NewNamedGroup {
  readonly realmId: number;
  readonly name: string;
  readonly description: string;
  readonly creatorId: number | null;
  readonly settings: Readonly<Record<string, number>>;
  readonly members: readonly number[];
  readonly subgroups: readonly number[];
  readonly nowMs: number;
}

/** Insert a named group with its members and subgroups; returns its id. */
export async function insertNamedGroup(db: CommonQueryMethods, g: NewNamedGroup): Promise<number> {
  const id = await db.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO user_groups (realm_id, name, description, is_system_group, creator_id, date_created, settings)
    VALUES (${g.realmId}, ${g.name}, ${g.description}, false, ${g.creatorId}, to_timestamp(${g.nowMs / 1000}),
            ${sql.jsonb(g.settings as Record<string, number>)})
    RETURNING id`);
  await addMembers(db, id, g.members);
  await addSubgroups(db, id, g.subgroups);
  return id;
}

export interface GroupFieldChanges {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly settings?: Readonly<Record<string, number>> | undefined;
  readonly deactivated?: boolean | undefined;
}

export async function updateGroupFields(db: CommonQueryMethods, groupId: number, c: GroupFieldChanges): Promise<void> {
  const sets = [
    c.name === undefined ? null : sql.fragment`name = ${c.name}`,
    c.description === undefined ? null : sql.fragment`description = ${c.description}`,
    c.settings === undefined ? null : sql.fragment`settings = ${sql.jsonb(c.settings as Record<string, number>)}`,
    c.deactivated === undefined ? null : sql.fragment`deactivated = ${c.deactivated}`,
  ].filter((f) => f !== null);
  if (sets.length === 0) return;
  await db.query(sql.unsafe`UPDATE user_groups SET ${sql.join(sets, sql.fragment`, `)} WHERE id = ${groupId}`);
}

export async function addMembers(db: CommonQueryMethods, groupId: number, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO user_group_members (group_id, user_id)
    SELECT ${groupId}, unnest(${sql.array(userIds, 'int4')}::int[]) ON CONFLICT DO NOTHING`);
}

export async function removeMembers(db: CommonQueryMethods, groupId: number, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(sql.unsafe`
    DELETE FROM user_group_members WHERE group_id = ${groupId} AND user_id = ANY(${sql.array(userIds, 'int4')})`);
}

export async function addSubgroups(db: CommonQueryMethods, groupId: number, subgroupIds: readonly number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO user_group_subgroups (group_id, subgroup_id)
    SELECT ${groupId}, unnest(${sql.array(subgroupIds, 'int4')}::int[]) ON CONFLICT DO NOTHING`);
}

export async function removeSubgroups(db: CommonQueryMethods, groupId: number, subgroupIds: readonly number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await db.query(sql.unsafe`
    DELETE FROM user_group_subgroups WHERE group_id = ${groupId} AND subgroup_id = ANY(${sql.array(subgroupIds, 'int4')})`);
}

/** Add many new users to the same groups (bulk seeding; the users belong to none yet). */
export async function addMembersToGroups(db: CommonQueryMethods, groupIds: readonly number[], userIds: readonly number[]): Promise<void> {
  if (groupIds.length === 0 || userIds.length === 0) return;
  await db.query(sql.unsafe`
    INSERT INTO user_group_members (group_id, user_id)
    SELECT g, u FROM unnest(${sql.array(groupIds, 'int4')}::int[]) AS g, unnest(${sql.array(userIds, 'int4')}::int[]) AS u`);
}
