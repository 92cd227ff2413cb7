// User groups: create (endpoint 8), list, update, members and subgroups (read and change),
// membership check (endpoint 20), deactivate. Changes go to the realm actor; reads come from its
// cached state.
import { z } from 'zod';
import {
  activeDirectMembers,
  activeMembers,
  listNamedGroups,
  namedGroup,
  recursiveSubgroups,
} from '../../actors/realm/group-access.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { errors } from '../../domain/errors.js';
import { botsAreMembershipTargets, botsMayCallGroupEndpoints, MAX_GROUP_DESCRIPTION_LENGTH } from '../../domain/group-permissions.js';
import { isGuest } from '../../domain/roles.js';
import { SERVICE_FEATURE_LEVEL } from '../../version.js';
import { userEndpoint } from '../endpoint.js';
import { j, p } from '../params.js';

/** Guests never use these endpoints; bots only from the feature level that admitted them. */
export function checkGroupCaller(user: UserRecord, featureLevel = SERVICE_FEATURE_LEVEL): void {
  if (isGuest(user.role)) throw errors.notAllowedForGuests();
  if (user.is_bot && !botsMayCallGroupEndpoints(featureLevel)) throw errors.notAllowedForBots();
}

const settingUpdate = z.object({ new: j.groupSetting, old: j.groupSetting.optional() }).strict();

const createSettings = {
  can_add_members_group: p.json(j.groupSetting).optional(),
  can_join_group: p.json(j.groupSetting).optional(),
  can_leave_group: p.json(j.groupSetting).optional(),
  can_manage_group: p.json(j.groupSetting).optional(),
  can_mention_group: p.json(j.groupSetting).optional(),
  can_remove_members_group: p.json(j.groupSetting).optional(),
};

const updateSettings = {
  can_add_members_group: p.json(settingUpdate).optional(),
  can_join_group: p.json(settingUpdate).optional(),
  can_leave_group: p.json(settingUpdate).optional(),
  can_manage_group: p.json(settingUpdate).optional(),
  can_mention_group: p.json(settingUpdate).optional(),
  can_remove_members_group: p.json(settingUpdate).optional(),
};

const groupId = { user_group_id: p.int() };

export const createUserGroup = userEndpoint(
  z.object({
    name: p.string(),
    description: p.string({ max: MAX_GROUP_DESCRIPTION_LENGTH }),
    members: p.intList(),
    subgroups: p.intList().default('[]'),
    ...createSettings,
  }),
  async (ctx, { name, description, members, subgroups, ...settings }) => {
    checkGroupCaller(ctx.user);
    const id = await ctx.realm.ask('group.create', { actorId: ctx.user.id, name, description, members, subgroups, settings });
    return { group_id: id };
  },
);

export const getUserGroups = userEndpoint(
  z.object({ include_deactivated_groups: p.bool().default('false') }),
  async (ctx, params) => {
    checkGroupCaller(ctx.user);
    return { user_groups: listNamedGroups(ctx.realm.state, params.include_deactivated_groups) };
  },
);

export const updateUserGroup = userEndpoint(
  z.object({
    ...groupId,
    name: p.string().optional(),
    description: p.string({ max: MAX_GROUP_DESCRIPTION_LENGTH }).optional(),
    deactivated: p.bool().optional(),
    ...updateSettings,
  }),
  async (ctx, { user_group_id, name, description, deactivated, ...settings }) => {
    checkGroupCaller(ctx.user);
    await ctx.realm.ask('group.update', { actorId: ctx.user.id, groupId: user_group_id, name, description, deactivated, settings });
    return {};
  },
);

export const deactivateUserGroup = userEndpoint(z.object(groupId), async (ctx, { user_group_id }) => {
  checkGroupCaller(ctx.user);
  await ctx.realm.ask('group.deactivate', { actorId: ctx.user.id, groupId: user_group_id });
  return {};
});

export const updateUserGroupMembers = userEndpoint(
  z.object({
    ...groupId,
    add: p.intList().default('[]'),
    delete: p.intList().default('[]'),
    add_subgroups: p.intList().default('[]'),
    delete_subgroups: p.intList().default('[]'),
  }),
  async (ctx, params) => {
    checkGroupCaller(ctx.user);
    if (params.add.length + params.delete.length + params.add_subgroups.length + params.delete_subgroups.length === 0) {
      throw errors.badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
    }
    await ctx.realm.ask('group.updateMembers', {
      actorId: ctx.user.id,
      groupId: params.user_group_id,
      add: params.add,
      delete: params.delete,
      addSubgroups: params.add_subgroups,
      deleteSubgroups: params.delete_subgroups,
    });
    return {};
  },
);

export const getUserGroupMembers = userEndpoint(
  z.object({ ...groupId, direct_member_only: p.bool().default('false') }),
  async (ctx, params) => {
    checkGroupCaller(ctx.user);
    const state = ctx.realm.state;
    const g = namedGroup(state, params.user_group_id);
    return { members: params.direct_member_only ? activeDirectMembers(state, g) : activeMembers(state, g.id) };
  },
);

export const updateUserGroupSubgroups = userEndpoint(
  z.object({ ...groupId, add: p.intList().default('[]'), delete: p.intList().default('[]') }),
  async (ctx, params) => {
    checkGroupCaller(ctx.user);
    if (params.add.length + params.delete.length === 0) {
      throw errors.badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    }
    await ctx.realm.ask('group.updateMembers', {
      actorId: ctx.user.id,
      groupId: params.user_group_id,
      add: [],
      delete: [],
      addSubgroups: params.add,
      deleteSubgroups: params.delete,
    });
    return {};
  },
);

export const getUserGroupSubgroups = userEndpoint(
  z.object({ ...groupId, direct_subgroup_only: p.bool().default('false') }),
  async (ctx, params) => {
    checkGroupCaller(ctx.user);
    const state = ctx.realm.state;
    const g = namedGroup(state, params.user_group_id);
    return { subgroups: params.direct_subgroup_only ? [...g.subgroups].sort((a, b) => a - b) : recursiveSubgroups(state, g.id) };
  },
);

export const getUserGroupMembership = userEndpoint(
  z.object({ ...groupId, user_id: p.int(), direct_member_only: p.bool().default('false') }),
  async (ctx, params) => {
    checkGroupCaller(ctx.user);
    const state = ctx.realm.state;
    const g = namedGroup(state, params.user_group_id);
    const target = state.user(params.user_id);
    if (!target || (target.is_bot && !botsAreMembershipTargets(SERVICE_FEATURE_LEVEL))) throw errors.noSuchUser();
    // Deactivated accounts are members of nothing.
    const member = target.is_active && (params.direct_member_only ? g.members.has(target.id) : state.isInGroup(target.id, g.id));
    return { is_user_group_member: member };
  },
);
