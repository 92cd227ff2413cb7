// Users: reading accounts (GET /users, /users/{id|email}, /users/me), administrators changing
// them (PATCH /users/{id|email}, endpoints 2 and 7), creating, deactivating and reactivating.
import { z } from 'zod';
import { spectatorsAllowed } from '../../actors/realm/channel-view.js';
import type { CommonQueryMethods } from 'slonik';
import type { RealmState, UserRecord } from '../../actors/realm/state.js';
import { accessUser, userByRef } from '../../actors/realm/user-access.js';
import { deleteSentMessages } from '../../actors/conversations/sent-deletion.js';
import { greetNewMember } from '../../actors/conversations/welcome.js';
import { errors } from '../../domain/errors.js';
import { ROLE_CODES, isOwner, type Role } from '../../domain/roles.js';
import { hashPassword } from '../../domain/secrets.js';
import { formatUser, type ProfileData } from '../../domain/user-view.js';
import { profileDataByUser } from '../../store/profile-values.js';
import { listDomains } from '../../store/realm-domains.js';
import { maxMessageId as maxMessageIdOf } from '../../store/unreads.js';
import { isAllowedByDomains } from '../../domain/realm-domains.js';
import { publicEndpoint, userEndpoint, type RequestContext } from '../endpoint.js';
import { requireAdmin } from '../guards.js';
import { p } from '../params.js';
import { profileDataParam } from './profile-fields.js';
import { removeUploadedAvatar } from './avatars.js';

const readParams = {
  client_extavatar: p.bool().default('true'),
  include_custom_profile_fields: p.bool().default('false'),
};

/** The user objects a viewer (null: a spectator) sees, with profile data when asked for. */
async function userObjects(
  ctx: RequestContext,
  state: RealmState,
  viewer: UserRecord | null,
  targets: readonly UserRecord[],
  o: { clientExtavatar: boolean; withProfiles: boolean },
): Promise<Record<string, unknown>[]> {
  const profiles: Map<number, ProfileData> = o.withProfiles
    ? await profileDataByUser(ctx.app.db, state.id, targets.length === 1 ? [targets[0]!.id] : undefined)
    : new Map();
  return targets.map((u) =>
    formatUser(viewer, u, {
      clientExtavatar: o.clientExtavatar,
      profileData: o.withProfiles && !u.is_bot ? (profiles.get(u.id) ?? {}) : undefined,
    }),
  );
}

export const getUsers = publicEndpoint(
  z.object({ ...readParams, user_ids: p.intList().optional() }),
  async (ctx, params) => {
    const state = ctx.realm.state;
    const viewer = ctx.user;
    if (!viewer && !spectatorsAllowed(state)) throw errors.notLoggedIn();
    const wanted = params.user_ids ? new Set(params.user_ids) : null;
    const targets = [...state.users.values()].filter(
      (u) => (!wanted || wanted.has(u.id)) && state.canAccessUser(viewer?.id ?? null, u.id),
    );
    const members = await userObjects(ctx, state, viewer, targets, {
      clientExtavatar: params.client_extavatar,
      withProfiles: params.include_custom_profile_fields,
    });
    return { members };
  },
);

export const getUser = userEndpoint(z.object({ user_id: p.string(), ...readParams }), async (ctx, params) => {
  const state = ctx.realm.state;
  const target = accessUser(state, ctx.user, userByRef(state, ctx.user, params.user_id));
  const [user] = await userObjects(ctx, state, ctx.user, [target], {
    clientExtavatar: params.client_extavatar,
    withProfiles: params.include_custom_profile_fields,
  });
  return { user };
});

export const getOwnUser = userEndpoint(z.object({}), async (ctx) => {
  const { user } = ctx;
  const maxMessageId = await maxMessageIdOf(ctx.app.db, user.id);
  const [me] = await userObjects(ctx, ctx.realm.state, user, [user], { clientExtavatar: false, withProfiles: true });
  return { ...me, max_message_id: maxMessageId };
});

const roleParam = p.int().refine((r): r is Role => (ROLE_CODES as readonly number[]).includes(r), { message: 'Invalid {var}' });

export const updateUser = userEndpoint(
  z.object({
    user_id: p.string(),
    full_name: p.string().optional(),
    role: roleParam.optional(),
    new_email: p.string().optional(),
    profile_data: profileDataParam().optional(),
    // The form before role codes (feature level 8).
    is_admin: p.bool().optional(),
    is_guest: p.bool().optional(),
  }),
  async (ctx, params) => {
    requireAdmin(ctx.user);
    const state = ctx.realm.state;
    const target = accessUser(state, null, userByRef(state, ctx.user, params.user_id));
    const role = params.role ?? legacyRole(target, params.is_admin, params.is_guest);
    await ctx.realm.ask('user.update', {
      actorId: ctx.user.id,
      userId: target.id,
      fullName: params.full_name,
      role,
      newEmail: params.new_email,
    });
    if (params.profile_data) {
      await ctx.realm.ask('profileData.set', { actorId: ctx.user.id, userId: target.id, data: params.profile_data });
    }
    return {};
  },
);

/** The role meant by the legacy is_admin/is_guest pair, relative to the current one. */
function legacyRole(target: UserRecord, isAdmin: boolean | undefined, isGuest: boolean | undefined): Role | undefined {
  if (isAdmin === true && isGuest === true) throw errors.guestAsAdmin();
  if (isAdmin === true) return 200;
  if (isGuest === true) return 600;
  if (isAdmin === false && target.role <= 200) return 400;
  if (isGuest === false && target.role === 600) return 400;
  return undefined;
}

export const MIN_PASSWORD_LENGTH = 6;
export const MAX_PASSWORD_LENGTH = 100;

export function checkPasswordStrength(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) throw errors.weakPassword();
}

export const createUser = userEndpoint(
  z.object({ email: p.string({ trim: true }), password: p.string(), full_name: p.string() }),
  async (ctx, params) => {
    if (!ctx.user.can_create_users) throw errors.notAuthorizedForQuery();
    checkPasswordStrength(params.password);
    await checkEmailAllowed(ctx.app.db, ctx.realm.state, params.email);
    const { user, welcomeText } = await ctx.realm.ask('user.signUp', {
      email: params.email,
      fullName: params.full_name,
      passwordHash: await hashPassword(params.password),
    });
    await greetNewMember(ctx.realm, user, welcomeText, ctx.log);
    return { user_id: user.id };
  },
);

/** With emails_restricted_to_domains, only addresses in the allowed domains may join. */
export async function checkEmailAllowed(db: CommonQueryMethods, state: RealmState, email: string): Promise<void> {
  if (!state.realm.settings.emails_restricted_to_domains) return;
  if (!isAllowedByDomains(email, await listDomains(db, state.id))) throw errors.badRequest(`Email '${email}' not allowed in this organization`);
}

/** What a deactivation also does (feature level 459), each off unless given. */
const deactivationActions = z
  .object({
    delete_profile: z.boolean(),
    delete_public_channel_messages: z.boolean(),
    delete_private_channel_messages: z.boolean(),
    delete_direct_messages: z.boolean(),
  })
  .partial()
  .strict();

export const deactivateUser = userEndpoint(
  z.object({
    user_id: p.int(),
    deactivation_notification_comment: p.string({ max: 2000 }).optional(),
    actions: p.json(deactivationActions).optional(),
  }),
  async (ctx, params) => {
    requireAdmin(ctx.user);
    const state = ctx.realm.state;
    const target = accessUser(state, null, state.user(params.user_id), { allowBots: false, allowDeactivated: false });
    if (isOwner(target.role) && !isOwner(ctx.user.role)) throw errors.mustBeOwner();
    if (isOwner(target.role) && [...state.users.values()].filter((u) => u.is_active && !u.is_bot && isOwner(u.role)).length <= 1) {
      throw errors.lastOwnerDeactivation();
    }
    await ctx.realm.ask('user.setActive', { userId: target.id, active: false, actorId: ctx.user.id });
    const actions = params.actions ?? {};
    // As the deactivation itself, the actions reach the account's bots first.
    const accounts = [...[...state.users.values()].filter((u) => u.is_bot && u.bot_owner_id === target.id).map((b) => b.id), target.id];
    if (actions.delete_profile) {
      for (const id of accounts) {
        await ctx.realm.ask('user.deleteProfile', { userId: id });
        await removeUploadedAvatar(ctx, id);
      }
    }
    const kinds = {
      publicChannels: actions.delete_public_channel_messages === true,
      privateChannels: actions.delete_private_channel_messages === true,
      directMessages: actions.delete_direct_messages === true,
    };
    if (kinds.publicChannels || kinds.privateChannels || kinds.directMessages) await deleteSentMessages(ctx.realm, accounts, kinds);
    return {};
  },
);

export const reactivateUser = userEndpoint(z.object({ user_id: p.int() }), async (ctx, params) => {
  requireAdmin(ctx.user);
  const state = ctx.realm.state;
  const target = accessUser(state, null, state.user(params.user_id));
  if (isOwner(target.role) && !isOwner(ctx.user.role)) throw errors.mustBeOwner();
  if (target.is_bot && target.bot_owner_id !== null && !state.user(target.bot_owner_id)?.is_active) {
    throw errors.badRequest('Cannot reactivate a bot whose owner is deactivated.');
  }
  await ctx.realm.ask('user.setActive', { userId: target.id, active: true, actorId: ctx.user.id });
  return {};
});

export const deactivateOwnUser = userEndpoint(z.object({}), async (ctx) => {
  await ctx.realm.ask('user.setActive', { userId: ctx.user.id, active: false, actorId: ctx.user.id });
  return {};
});
