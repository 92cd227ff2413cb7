// Realm commands for reusable invitation links: create (endpoint 10), revoke, and accept (the
// sign-up page creates the account with the invited role, groups and channels).
import { errors } from '../../domain/errors.js';
import { invitesChangedEvent } from '../../domain/events/invites.js';
import { userGroupEvent } from '../../domain/events/user-group.js';
import { isAdmin, isOwner, Role } from '../../domain/roles.js';
import { randomAlphanumeric } from '../../domain/secrets.js';
import { addMembers } from '../../store/groups.js';
import * as store from '../../store/invitations.js';
import type { Emit } from '../realm-events.js';
import type { RealmContext } from './actor.js';
import { holdsRealmPermission, mayChangeGroup } from './group-access.js';
import { checkInvitationChannels, subscribeNewAccount } from './invitation-channels.js';
import type { GroupRecord, RealmState, UserRecord } from './state.js';
import { userCommands } from './users.js';

export const INVITE_KEY_LENGTH = 24;

/** Where an invitation link opens the sign-up page. */
export const inviteLink = (realmUrl: string, key: string) => `${realmUrl}/join/${key}/`;

/** Who is told that invitations changed: administrators and the inviter. */
function inviteWatchers(state: RealmState, inviterId: number): number[] {
  const ids = new Set([inviterId]);
  for (const u of state.users.values()) if (u.is_active && isAdmin(u.role)) ids.add(u.id);
  return [...ids];
}

const announce = (emit: Emit, state: RealmState, inviterId: number) =>
  emit(invitesChangedEvent.build({}, { userIds: inviteWatchers(state, inviterId) }));

export interface CreateInviteInput {
  readonly actorId: number;
  readonly inviteAs: Role;
  readonly channelIds: readonly number[];
  readonly groupIds: readonly number[];
  readonly includeRealmDefaultSubscriptions: boolean;
  /** null: never expires. */
  readonly expiresInMinutes: number | null;
  readonly welcomeMessageCustomText: string | null;
}

async function createMultiuseInvite(ctx: RealmContext, input: CreateInviteInput): Promise<{ id: number; link: string }> {
  const { state, services } = ctx;
  const actor = state.user(input.actorId)!;
  if (!holdsRealmPermission(state, actor.id, 'create_multiuse_invite_group')) throw errors.insufficientPermission();
  // Equal or stricter: role codes grow as privileges shrink.
  if (input.inviteAs < actor.role) throw errors.insufficientPermission();
  const channelIds = [...new Set(input.channelIds)];
  checkInvitationChannels(state, actor, channelIds);
  const groupIds = [...new Set(input.groupIds)];
  for (const id of groupIds) {
    const g = state.groups.get(id);
    if (!g || g.name === null) throw errors.invalidUserGroupId(id);
    if (g.deactivated) throw errors.userGroupDeactivated();
    if (g.is_system_group || !mayChangeGroup(state, actor.id, g, 'can_add_members_group')) throw errors.insufficientPermission();
  }
  const now = services.clock.now();
  const row = await ctx.write(async (tx, emit) => {
    const r = await store.insertMultiuseInvite(tx, {
      realmId: state.id,
      key: randomAlphanumeric(INVITE_KEY_LENGTH),
      referredBy: actor.id,
      invitedAs: input.inviteAs,
      includeRealmDefaultSubscriptions: input.includeRealmDefaultSubscriptions,
      // Only administrators choose the welcome text; everyone else gets the organization's.
      welcomeMessageCustomText: isAdmin(actor.role) ? input.welcomeMessageCustomText : null,
      channelIds,
      groupIds,
      nowMs: now,
      expiresAtMs: input.expiresInMinutes === null ? null : now + input.expiresInMinutes * 60_000,
    });
    announce(emit, state, actor.id);
    return r;
  });
  return { id: row.id, link: inviteLink(state.realm.url, row.key) };
}

/** May this user see and revoke the invitation? (Owner invitations only for owners.) */
export function mayManageInvite(actor: UserRecord, invite: store.InviteRow): boolean {
  if (invite.invited_as === Role.owner && !isOwner(actor.role)) return false;
  return invite.referred_by === actor.id || isAdmin(actor.role);
}

async function revokeMultiuseInvite(ctx: RealmContext, input: { readonly actorId: number; readonly inviteId: number }): Promise<void> {
  const { state, services } = ctx;
  const actor = state.user(input.actorId)!;
  const invite = await store.findInvite(services.db, state.id, input.inviteId);
  if (!invite || invite.kind !== 'multiuse') throw errors.badRequest('No such invitation');
  if (invite.referred_by !== actor.id && !isAdmin(actor.role)) throw errors.unauthorizedPrincipal();
  if (invite.invited_as === Role.owner && !isOwner(actor.role)) throw errors.mustBeOwner();
  if (invite.revoked) throw errors.badRequest('Invitation has already been revoked');
  await ctx.write(async (tx, emit) => {
    await store.revokeInvite(tx, invite.id);
    announce(emit, state, invite.referred_by);
  });
}

/** Why a link cannot be used now, or null when it can. */
export function inviteProblem(invite: store.InviteRow | null, nowMs: number): string | null {
  if (!invite || invite.kind !== 'multiuse') return 'This invitation link is not valid.';
  if (invite.revoked) return 'This invitation link has been revoked.';
  if (invite.expires_at !== null && invite.expires_at <= nowMs) return 'This invitation link has expired.';
  return null;
}

export interface AcceptInviteInput {
  readonly key: string;
  readonly email: string;
  readonly fullName: string;
  /** scrypt hash made by the caller (never inside the actor). */
  readonly passwordHash: string;
}

export interface AcceptedInvite {
  readonly user: UserRecord;
  /** What Welcome Bot should say to the new account ('' = nothing). */
  readonly welcomeText: string;
}

/**
 * Create the invited account: the invited role, then its groups, then its channels. These are
 * separate transactions (account creation and subscriptions belong to their own commands).
 */
async function acceptMultiuseInvite(ctx: RealmContext, input: AcceptInviteInput): Promise<AcceptedInvite> {
  const { state, services } = ctx;
  const invite = await store.findInviteByKey(services.db, state.id, input.key);
  const problem = inviteProblem(invite, services.clock.now());
  if (problem || !invite) throw errors.badRequest(problem ?? 'This invitation link is not valid.');
  const { user } = await userCommands['user.create'](ctx, {
    email: input.email,
    fullName: input.fullName,
    role: invite.invited_as as Role,
    passwordHash: input.passwordHash,
  });
  // Groups deactivated or deleted since the link was made are skipped.
  const groups = invite.group_ids.map((id) => state.groups.get(id)).filter((g): g is GroupRecord => g !== undefined && !g.deactivated);
  const updated = await ctx.write(async (tx, emit) => {
    const out: GroupRecord[] = [];
    for (const g of groups) {
      await addMembers(tx, g.id, [user.id]);
      emit(userGroupEvent.build({ op: 'add_members', group_id: g.id, user_ids: [user.id] }, { userIds: null }));
      out.push({ ...g, members: new Set([...g.members, user.id]) });
    }
    await store.countInviteUse(tx, invite.id);
    return out;
  });
  for (const g of updated) state.putGroup(g);
  await subscribeNewAccount(ctx, user.id, invite.channel_ids, invite.include_realm_default_subscriptions);
  // null: the organization's text; '' (either): no message.
  return { user, welcomeText: invite.welcome_message_custom_text ?? state.realm.settings.welcome_message_custom_text };
}

export const invitationCommands = {
  'invite.createMultiuse': createMultiuseInvite,
  'invite.revokeMultiuse': revokeMultiuseInvite,
  'invite.acceptMultiuse': acceptMultiuseInvite,
};
