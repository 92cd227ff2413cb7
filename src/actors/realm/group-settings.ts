// Group-setting values (convention 8) as every `can_*_group` setting stores them: a user-group
// id. A value given as {direct_members, direct_subgroups} is stored as an anonymous group (name
// NULL); reading it back gives the object form again (RealmState.groupSettingValue).
// Call inside the realm actor: anonymous groups are realm state.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { errors } from '../../domain/errors.js';
import { isGuest } from '../../domain/roles.js';
import type { SystemGroupName } from '../../domain/system-groups.js';
import { toGroupRecord, type GroupRecord, type RealmState } from './state.js';

export type GroupSettingInput = number | { readonly direct_members: readonly number[]; readonly direct_subgroups: readonly number[] };

export interface GroupSettingRule {
  /** The setting's name, for messages (e.g. `can_manage_group`). */
  readonly name: string;
  /** System groups this setting may not be set to (e.g. role:internet, role:everyone). */
  readonly forbidden?: readonly SystemGroupName[];
  /** Settings that only accept a system group (no user-defined or anonymous groups). */
  readonly systemGroupsOnly?: boolean;
}

const DEFAULT_FORBIDDEN: readonly SystemGroupName[] = ['role:internet'];

/** Validate a value against the organization and the setting's rule; throws a 400. */
export function checkGroupSetting(state: RealmState, value: GroupSettingInput, rule: GroupSettingRule): void {
  const forbidden = rule.forbidden ?? DEFAULT_FORBIDDEN;
  const checkGroup = (id: number) => {
    const g = state.groups.get(id);
    if (!g || g.name === null) throw errors.invalidUserGroupId(id);
    if (g.deactivated) throw errors.userGroupDeactivated();
    if (g.is_system_group && forbidden.includes(g.name as SystemGroupName)) {
      throw errors.badRequest(`'${rule.name}' setting cannot be set to '${g.name}' group.`);
    }
  };
  if (typeof value === 'number') {
    checkGroup(value);
    if (rule.systemGroupsOnly && !state.groups.get(value)!.is_system_group) {
      throw errors.badRequest(`'${rule.name}' must be a system user group.`);
    }
    return;
  }
  if (rule.systemGroupsOnly) throw errors.badRequest(`'${rule.name}' must be a system user group.`);
  for (const id of value.direct_members) {
    const u = state.user(id);
    if (!u || !u.is_active) throw errors.invalidUserId(id);
  }
  for (const id of value.direct_subgroups) checkGroup(id);
}

/** The canonical form: an object naming exactly one subgroup and no members is that group. */
function canonical(value: GroupSettingInput): GroupSettingInput {
  if (typeof value === 'number') return value;
  if (value.direct_members.length === 0 && value.direct_subgroups.length === 1) return value.direct_subgroups[0]!;
  return value;
}

export interface StoredGroupSetting {
  readonly groupId: number;
  /** A new anonymous group; put it in the cached state after the transaction commits. */
  readonly created: GroupRecord | null;
}

/**
 * Store several settings' checked values inside the write transaction: each setting's group id
 * goes into `into`; returns what was stored, in order (new anonymous groups to cache).
 */
export async function storeGroupSettings<K extends string>(
  tx: CommonQueryMethods,
  state: RealmState,
  values: Iterable<readonly [K, GroupSettingInput]>,
  into: Record<K, number>,
  nowMs: number,
): Promise<StoredGroupSetting[]> {
  const stored: StoredGroupSetting[] = [];
  for (const [name, value] of values) {
    const s = await storeGroupSetting(tx, state, value, nowMs);
    stored.push(s);
    into[name] = s.groupId;
  }
  return stored;
}

/** Store a checked value inside the write transaction; returns the group id to keep. */
export async function storeGroupSetting(
  tx: CommonQueryMethods,
  state: RealmState,
  value: GroupSettingInput,
  nowMs: number,
): Promise<StoredGroupSetting> {
  const v = canonical(value);
  if (typeof v === 'number') return { groupId: v, created: null };
  const members = [...new Set(v.direct_members)].sort((a, b) => a - b);
  const subgroups = [...new Set(v.direct_subgroups)].sort((a, b) => a - b);
  const id = await tx.oneFirst(sql.type(z.object({ id: z.number() }))`
    INSERT INTO user_groups (realm_id, name, description, is_system_group, date_created)
    VALUES (${state.id}, NULL, '', false, to_timestamp(${nowMs / 1000})) RETURNING id`);
  if (members.length > 0) {
    await tx.query(sql.unsafe`
      INSERT INTO user_group_members (group_id, user_id) SELECT ${id}, unnest(${sql.array(members, 'int4')}::int[])`);
  }
  if (subgroups.length > 0) {
    await tx.query(sql.unsafe`
      INSERT INTO user_group_subgroups (group_id, subgroup_id) SELECT ${id}, unnest(${sql.array(subgroups, 'int4')}::int[])`);
  }
  return {
    groupId: id,
    created: toGroupRecord({
      id,
      name: null,
      description: '',
      is_system_group: false,
      deactivated: false,
      creator_id: null,
      date_created: nowMs,
      settings: {},
      members,
      subgroups,
    }),
  };
}

/** After commit: make new anonymous groups visible in the cached state. */
export function applyStoredGroupSettings(state: RealmState, stored: readonly StoredGroupSetting[]): void {
  for (const s of stored) if (s.created) state.putGroup(s.created);
}

/** Two values denote the same setting (for "nothing changed" checks). */
export function sameGroupSetting(state: RealmState, groupId: number, value: GroupSettingInput): boolean {
  const current = state.groupSettingValue(groupId);
  const next = canonical(value);
  if (typeof current === 'number' || typeof next === 'number') return current === next;
  const same = (a: readonly number[], b: readonly number[]) =>
    a.length === b.length && [...a].sort((x, y) => x - y).every((x, i) => x === [...b].sort((p, q) => p - q)[i]);
  return same(current.direct_members, next.direct_members) && same(current.direct_subgroups, next.direct_subgroups);
}

/** An update of a group-setting value (PATCH endpoints): the new value and, optionally, the expected current one. */
export interface GroupSettingUpdate {
  readonly new: GroupSettingInput;
  readonly old?: GroupSettingInput | undefined;
}

/**
 * Check an update against the setting's current group: `old`, when given, must denote the
 * current value. Returns whether anything changes. Throws a 400.
 */
export function checkGroupSettingUpdate(
  state: RealmState,
  currentGroupId: number,
  update: GroupSettingUpdate,
  rule: GroupSettingRule,
): boolean {
  if (update.old !== undefined && !sameGroupSetting(state, currentGroupId, update.old)) {
    throw errors.badRequest("'old' value does not match the expected value.");
  }
  if (sameGroupSetting(state, currentGroupId, update.new)) return false;
  checkGroupSetting(state, update.new, rule);
  return true;
}

/**
 * A setting moved away from this group: an anonymous group (which only that setting used) is
 * deleted inside the transaction. Returns the id to drop from the cached state, if any.
 */
export async function releaseGroupSetting(tx: CommonQueryMethods, state: RealmState, groupId: number): Promise<number | null> {
  const g = state.groups.get(groupId);
  if (!g || g.name !== null) return null;
  await tx.query(sql.unsafe`DELETE FROM user_groups WHERE id = ${groupId} AND name IS NULL`);
  return groupId;
}

/** After commit: forget anonymous groups released by releaseGroupSetting. */
export function applyReleasedGroupSettings(state: RealmState, released: ReadonlyArray<number | null>): void {
  for (const id of released) if (id !== null) state.groups.delete(id);
}

/**
 * Does the user hold a permission whose value is this group? Guests never do when the setting
 * excludes them (allow_everyone_group false), whatever the value names.
 */
export function holdsGroupPermission(state: RealmState, userId: number, groupId: number, allowEveryone: boolean): boolean {
  const u = state.user(userId);
  if (!u || !u.is_active) return false;
  if (!allowEveryone && isGuest(u.role)) return false;
  return state.isInGroup(userId, groupId);
}
