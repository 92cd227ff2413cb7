// Realm commands that create and change named user groups: creation, name/description/settings,
// reactivation, members and subgroups, deactivation. Run inside the realm actor; inputs are
// validated for shape at the edge, these functions check the organization's rules. The cached
// groups are replaced (RealmState.putGroup) only after the transaction commits.
import { errors } from '../../domain/errors.js';
import {
  GROUP_PERMISSION_RULES,
  GROUP_SETTING_NAMES,
  groupNameProblem,
  type GroupSettingName,
} from '../../domain/group-permissions.js';
import { userGroupEvent } from '../../domain/events/user-group.js';
import * as store from '../../store/groups.js';
import type { EventSpec } from '../event-sequencer.js';
import type { RealmContext } from './actor.js';
import {
  accessGroupForUpdate,
  formatGroup,
  groupSettingId,
  mayChangeGroup,
  mayCreateGroups,
  namedGroup,
  recursiveSubgroups,
  settingValue,
} from './group-access.js';
import { groupObjections } from './group-usage.js';
import {
  applyReleasedGroupSettings,
  applyStoredGroupSettings,
  checkGroupSetting,
  checkGroupSettingUpdate,
  releaseGroupSetting,
  storeGroupSetting,
  storeGroupSettings,
  type GroupSettingInput,
  type GroupSettingUpdate,
  type StoredGroupSetting,
} from './group-settings.js';
import type { GroupRecord, RealmState } from './state.js';

const unique = (ids: readonly number[]) => [...new Set(ids)];

function checkNewGroupName(state: RealmState, name: string, except?: number): void {
  const problem = groupNameProblem(name);
  if (problem) throw errors.badRequest(problem);
  const lower = name.toLowerCase();
  for (const g of state.groups.values()) {
    if (g.id !== except && g.name !== null && g.name.toLowerCase() === lower) throw errors.userGroupExists(name);
  }
}

function checkActiveUsers(state: RealmState, ids: readonly number[]): void {
  for (const id of ids) if (!state.user(id)?.is_active) throw errors.invalidUserId(id);
}

/** Groups that may be nested in another: named, of this organization, active. */
function checkSubgroupCandidates(state: RealmState, ids: readonly number[]): void {
  for (const id of ids) {
    const g = state.groups.get(id);
    if (!g || g.name === null) throw errors.invalidUserGroupId(id);
    if (g.deactivated) throw errors.userGroupDeactivated();
  }
}

/** Events about a deactivated group reach only clients that keep deactivated groups. */
const mark = (g: GroupRecord) => (g.deactivated ? { _group_deactivated: true as const } : {});

export interface CreateGroupInput {
  readonly actorId: number;
  readonly name: string;
  readonly description: string;
  readonly members: readonly number[];
  readonly subgroups: readonly number[];
  readonly settings: Partial<Record<GroupSettingName, GroupSettingInput>>;
}

async function createGroup(ctx: RealmContext, input: CreateGroupInput): Promise<number> {
  const { state, services } = ctx;
  if (!mayCreateGroups(state, input.actorId)) throw errors.insufficientPermission();
  checkNewGroupName(state, input.name);
  const members = unique(input.members);
  checkActiveUsers(state, members);
  const subgroups = unique(input.subgroups);
  checkSubgroupCandidates(state, subgroups);
  const values = {} as Record<GroupSettingName, GroupSettingInput>;
  for (const name of GROUP_SETTING_NAMES) {
    const rule = GROUP_PERMISSION_RULES[name];
    const given = input.settings[name];
    if (given !== undefined) checkGroupSetting(state, given, rule);
    values[name] =
      given ??
      (rule.defaultForNew === 'creator'
        ? { direct_members: [input.actorId], direct_subgroups: [] }
        : state.systemGroupId(rule.defaultForNew));
  }
  const now = services.clock.now();
  const { record, stored } = await ctx.write(async (tx, emit) => {
    const settings: Record<string, number> = {};
    const stored = await storeGroupSettings(tx, state, GROUP_SETTING_NAMES.map((name) => [name, values[name]] as const), settings, now);
    const id = await store.insertNamedGroup(tx, {
      realmId: state.id,
      name: input.name,
      description: input.description,
      creatorId: input.actorId,
      settings,
      members,
      subgroups,
      nowMs: now,
    });
    const record: GroupRecord = {
      id,
      name: input.name,
      description: input.description,
      is_system_group: false,
      deactivated: false,
      creator_id: input.actorId,
      date_created: now,
      settings,
      members: new Set(members),
      subgroups: new Set(subgroups),
    };
    const pending = new Map(stored.flatMap((s) => (s.created ? [[s.groupId, s.created] as const] : [])));
    emit(userGroupEvent.build({ op: 'add', group: formatGroup(state, record, pending) as never }, { userIds: null }));
    return { record, stored };
  });
  applyStoredGroupSettings(state, stored);
  state.putGroup(record);
  return record.id;
}

export interface UpdateGroupInput {
  readonly actorId: number;
  readonly groupId: number;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly settings: Partial<Record<GroupSettingName, GroupSettingUpdate>>;
  /** false reactivates a deactivated group; true changes nothing (deactivation has its own endpoint). */
  readonly deactivated?: boolean | undefined;
}

async function updateGroup(ctx: RealmContext, input: UpdateGroupInput): Promise<void> {
  const { state, services } = ctx;
  const g = namedGroup(state, input.groupId);
  const settingNames = GROUP_SETTING_NAMES.filter((s) => input.settings[s] !== undefined);
  if (input.name === undefined && input.description === undefined && settingNames.length === 0 && input.deactivated === undefined) {
    throw errors.noNewData();
  }
  accessGroupForUpdate(state, input.actorId, g.id, 'can_manage_group');
  const name = input.name !== undefined && input.name !== g.name ? input.name : undefined;
  if (name !== undefined) checkNewGroupName(state, name, g.id);
  const description = input.description !== undefined && input.description !== g.description ? input.description : undefined;
  const changed = settingNames.filter((s) =>
    checkGroupSettingUpdate(state, groupSettingId(state, g, s), input.settings[s]!, GROUP_PERMISSION_RULES[s]),
  );
  const reactivate = input.deactivated === false && g.deactivated;
  if (name === undefined && description === undefined && changed.length === 0 && !reactivate) return;

  const now = services.clock.now();
  const result = await ctx.write(async (tx, emit) => {
    const stored: StoredGroupSetting[] = [];
    const released: Array<number | null> = [];
    const settings: Record<string, number> = { ...g.settings };
    for (const s of changed) {
      const st = await storeGroupSetting(tx, state, input.settings[s]!.new, now);
      stored.push(st);
      released.push(await releaseGroupSetting(tx, state, settings[s] ?? -1));
      settings[s] = st.groupId;
    }
    await store.updateGroupFields(tx, g.id, {
      name,
      description,
      settings: changed.length > 0 ? settings : undefined,
      deactivated: reactivate ? false : undefined,
    });
    const updated: GroupRecord = {
      ...g,
      name: name ?? g.name,
      description: description ?? g.description,
      settings,
      deactivated: reactivate ? false : g.deactivated,
    };
    const pending = new Map(stored.flatMap((s) => (s.created ? [[s.groupId, s.created] as const] : [])));
    const update = (data: Record<string, unknown>) =>
      emit(userGroupEvent.build({ op: 'update', group_id: g.id, data, ...mark(updated) }, { userIds: null }));
    if (reactivate) {
      const group = formatGroup(state, updated, pending);
      emit(userGroupEvent.build({ op: 'update', group_id: g.id, data: { deactivated: false }, _group: group as never }, { userIds: null }));
    }
    if (name !== undefined) update({ name });
    if (description !== undefined) update({ description });
    for (const s of changed) update({ [s]: settingValue(state, settings[s]!, pending) });
    return { updated, stored, released };
  });
  applyStoredGroupSettings(state, result.stored);
  applyReleasedGroupSettings(state, result.released);
  state.putGroup(result.updated);
}

export interface UpdateMembersInput {
  readonly actorId: number;
  readonly groupId: number;
  readonly add: readonly number[];
  readonly delete: readonly number[];
  readonly addSubgroups: readonly number[];
  readonly deleteSubgroups: readonly number[];
}

/** Self-service (join/leave) or changing others (add/remove members). */
function checkMembershipPermission(
  state: RealmState,
  actorId: number,
  g: GroupRecord,
  ids: readonly number[],
  self: GroupSettingName,
  others: GroupSettingName,
): void {
  const onlySelf = ids.length === 1 && ids[0] === actorId;
  if (onlySelf && mayChangeGroup(state, actorId, g, self)) return;
  if (!mayChangeGroup(state, actorId, g, others)) throw errors.insufficientPermission();
}

async function updateMembers(ctx: RealmContext, input: UpdateMembersInput): Promise<void> {
  const { state } = ctx;
  const g = namedGroup(state, input.groupId);
  if (g.is_system_group) throw errors.insufficientPermission();
  const add = unique(input.add);
  const del = unique(input.delete);
  const addSub = unique(input.addSubgroups);
  const delSub = unique(input.deleteSubgroups);

  const members = new Set(g.members);
  if (add.length > 0) {
    checkMembershipPermission(state, input.actorId, g, add, 'can_join_group', 'can_add_members_group');
    checkActiveUsers(state, add);
    for (const id of add) {
      if (members.has(id)) throw errors.badRequest(`User ${id} is already a member of this group`);
      members.add(id);
    }
  }
  if (del.length > 0) {
    checkMembershipPermission(state, input.actorId, g, del, 'can_leave_group', 'can_remove_members_group');
    checkActiveUsers(state, del);
    for (const id of del) {
      if (!members.has(id)) throw errors.badRequest(`There is no member '${id}' in this user group`);
      members.delete(id);
    }
  }
  const subgroups = new Set(g.subgroups);
  if (addSub.length > 0) {
    if (!mayChangeGroup(state, input.actorId, g, 'can_add_members_group')) throw errors.insufficientPermission();
    checkSubgroupCandidates(state, addSub);
    for (const id of addSub) {
      if (subgroups.has(id)) throw errors.badRequest(`User group ${id} is already a subgroup of this group.`);
    }
    const cyclic = addSub.filter((id) => id === g.id || recursiveSubgroups(state, id).includes(g.id));
    if (cyclic.length > 0) {
      throw errors.badRequest(`User group ${g.id} is already a subgroup of one of the following groups: ${cyclic.join(', ')}.`);
    }
    for (const id of addSub) subgroups.add(id);
  }
  if (delSub.length > 0) {
    if (!mayChangeGroup(state, input.actorId, g, 'can_remove_members_group')) throw errors.insufficientPermission();
    for (const id of delSub) {
      const s = state.groups.get(id);
      if (!s || s.name === null) throw errors.invalidUserGroupId(id);
      if (!subgroups.has(id)) throw errors.badRequest(`User group ${id} is not a subgroup of this group.`);
      subgroups.delete(id);
    }
  }

  const updated = await ctx.write(async (tx, emit) => {
    await store.addMembers(tx, g.id, add);
    await store.removeMembers(tx, g.id, del);
    await store.addSubgroups(tx, g.id, addSub);
    await store.removeSubgroups(tx, g.id, delSub);
    const to = { userIds: null };
    const m = mark(g);
    if (add.length > 0) emit(userGroupEvent.build({ op: 'add_members', group_id: g.id, user_ids: add, ...m }, to));
    if (del.length > 0) emit(userGroupEvent.build({ op: 'remove_members', group_id: g.id, user_ids: del, ...m }, to));
    if (addSub.length > 0) emit(userGroupEvent.build({ op: 'add_subgroups', group_id: g.id, direct_subgroup_ids: addSub, ...m }, to));
    if (delSub.length > 0) emit(userGroupEvent.build({ op: 'remove_subgroups', group_id: g.id, direct_subgroup_ids: delSub, ...m }, to));
    return { ...g, members, subgroups };
  });
  state.putGroup(updated);
}

async function deactivateGroup(ctx: RealmContext, input: { readonly actorId: number; readonly groupId: number }): Promise<void> {
  const { state } = ctx;
  const g = accessGroupForUpdate(state, input.actorId, input.groupId, 'can_manage_group');
  if (g.deactivated) throw errors.badRequest('User group is already deactivated.');
  const objections = groupObjections(state, g);
  if (objections.length > 0) throw errors.groupInUse(objections);
  const updated = await ctx.write(async (tx, emit) => {
    await store.updateGroupFields(tx, g.id, { deactivated: true });
    emit(userGroupEvent.build({ op: 'update', group_id: g.id, data: { deactivated: true } }, { userIds: null }));
    return { ...g, deactivated: true };
  });
  state.putGroup(updated);
}

export const groupCommands = {
  'group.create': createGroup,
  'group.update': updateGroup,
  'group.updateMembers': updateMembers,
  'group.deactivate': deactivateGroup,
};

/**
 * user_group events for one user's membership changes made outside the group commands (system
 * groups following a role, deactivation and reactivation). Emit after the realm_user event.
 */
export function membershipEvents(state: RealmState, userId: number, added: readonly number[], removed: readonly number[]): EventSpec[] {
  const spec = (op: 'add_members' | 'remove_members', groupId: number) => {
    const g = state.groups.get(groupId);
    return userGroupEvent.build({ op, group_id: groupId, user_ids: [userId], ...(g ? mark(g) : {}) }, { userIds: null });
  };
  return [...added.map((id) => spec('add_members', id)), ...removed.map((id) => spec('remove_members', id))];
}

/** Named groups the user belongs to directly (deactivation hides these memberships). */
export function directNamedGroups(state: RealmState, userId: number): number[] {
  const out: number[] = [];
  for (const g of state.groups.values()) if (g.name !== null && g.members.has(userId)) out.push(g.id);
  return out.sort((a, b) => a - b);
}
