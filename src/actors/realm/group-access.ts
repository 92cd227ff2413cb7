// Reading user groups out of the cached realm state: lookups, who may change a group, and the
// API's group object. Used by the group commands, their handlers and the register provider.
import { errors } from '../../domain/errors.js';
import {
  GROUP_PERMISSION_RULES,
  GROUP_SETTING_NAMES,
  REALM_SETTINGS_EXCLUDING_GUESTS,
  type GroupSettingName,
} from '../../domain/group-permissions.js';
import { allMembers } from '../../domain/group-membership.js';
import { isGuest } from '../../domain/roles.js';
import { holdsGroupPermission } from './group-settings.js';
import type { GroupRecord, RealmState } from './state.js';

/** A named group of the organization (system or user-defined, active or deactivated). */
export function namedGroup(state: RealmState, groupId: number): GroupRecord {
  const g = state.groups.get(groupId);
  if (!g || g.name === null) throw errors.badRequest('Invalid user group');
  return g;
}

/** The group id a group's permission setting holds (system groups report fixed defaults). */
export function groupSettingId(state: RealmState, g: GroupRecord, setting: GroupSettingName): number {
  if (g.is_system_group) return state.systemGroupId(GROUP_PERMISSION_RULES[setting].defaultForSystemGroups);
  return g.settings[setting] ?? state.systemGroupId('role:nobody');
}

/** An organization-level group permission, with guests excluded where the setting excludes them. */
export function holdsRealmPermission(state: RealmState, userId: number, setting: string): boolean {
  const groupId = state.realm.settings.groups[setting];
  if (groupId === undefined) return false;
  return holdsGroupPermission(state, userId, groupId, !REALM_SETTINGS_EXCLUDING_GUESTS.has(setting));
}

/** Does the user hold this permission of the group (can_manage_group and can_manage_all_groups grant all)? */
export function mayChangeGroup(state: RealmState, userId: number, g: GroupRecord, permission: GroupSettingName): boolean {
  if (holdsRealmPermission(state, userId, 'can_manage_all_groups')) return true;
  const manage = GROUP_PERMISSION_RULES.can_manage_group;
  if (holdsGroupPermission(state, userId, groupSettingId(state, g, 'can_manage_group'), manage.allowEveryone)) return true;
  if (permission === 'can_manage_group') return false;
  return holdsGroupPermission(state, userId, groupSettingId(state, g, permission), GROUP_PERMISSION_RULES[permission].allowEveryone);
}

/**
 * The group a user wants to change, if the permission allows it. System groups change only with
 * roles. Throws 'Invalid user group' or 'Insufficient permission'.
 */
export function accessGroupForUpdate(
  state: RealmState,
  userId: number,
  groupId: number,
  permission: GroupSettingName,
): GroupRecord {
  const g = namedGroup(state, groupId);
  if (g.is_system_group) throw errors.insufficientPermission();
  if (!mayChangeGroup(state, userId, g, permission)) throw errors.insufficientPermission();
  return g;
}

/** May the user create groups (can_create_groups; never guests)? */
export function mayCreateGroups(state: RealmState, userId: number): boolean {
  const u = state.user(userId);
  return u !== undefined && !isGuest(u.role) && holdsRealmPermission(state, userId, 'can_create_groups');
}

const byNumber = (a: number, b: number) => a - b;

/** Active direct members of a group. */
export function activeDirectMembers(state: RealmState, g: GroupRecord): number[] {
  return [...g.members].filter((id) => state.user(id)?.is_active === true).sort(byNumber);
}

/** Active members, directly or through subgroups. */
export function activeMembers(state: RealmState, groupId: number): number[] {
  return [...allMembers(state.groups, groupId)].filter((id) => state.user(id)?.is_active === true).sort(byNumber);
}

/** Every group nested in this one, at any depth (itself excluded). */
export function recursiveSubgroups(state: RealmState, groupId: number): number[] {
  const seen = new Set<number>();
  const stack = [...(state.groups.get(groupId)?.subgroups ?? [])];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id) || id === groupId) continue;
    seen.add(id);
    for (const s of state.groups.get(id)?.subgroups ?? []) stack.push(s);
  }
  return [...seen].sort(byNumber);
}

/**
 * The API's user group object. `pending` holds anonymous groups written in the current
 * transaction and not yet in the cached state.
 */
export function formatGroup(state: RealmState, g: GroupRecord, pending?: ReadonlyMap<number, GroupRecord>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: g.id,
    name: g.name,
    description: g.description,
    date_created: Math.floor(g.date_created / 1000),
    creator_id: g.creator_id,
    members: activeDirectMembers(state, g),
    direct_subgroup_ids: [...g.subgroups].sort(byNumber),
    is_system_group: g.is_system_group,
    deactivated: g.deactivated,
  };
  for (const s of GROUP_SETTING_NAMES) out[s] = settingValue(state, groupSettingId(state, g, s), pending);
  return out;
}

/** A group-setting value in API form, seeing groups of the current transaction. */
export function settingValue(state: RealmState, groupId: number, pending?: ReadonlyMap<number, GroupRecord>) {
  const p = pending?.get(groupId);
  if (!p || p.name !== null) return state.groupSettingValue(groupId);
  return { direct_members: [...p.members].sort(byNumber), direct_subgroups: [...p.subgroups].sort(byNumber) };
}

/** Named groups as the API lists them, by id. */
export function listNamedGroups(state: RealmState, includeDeactivated: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const g of state.groups.values()) {
    if (g.name === null || (g.deactivated && !includeDeactivated)) continue;
    out.push(formatGroup(state, g));
  }
  return out.sort((a, b) => (a.id as number) - (b.id as number));
}
