// Realm commands that create accounts, change roles, deactivate and reactivate them, and manage
// their keys and special permissions. Run inside the realm actor (RealmContext). Inputs are
// already validated for shape; these functions check the organization's rules. The cached state
// is updated before the events are released, so presenters see the new state.
import type { EventSpec } from '../event-sequencer.js';
import { errors } from '../../domain/errors.js';
import { apiEmailFor, canSeeDeliveryEmail, dummyEmailDomain, isValidEmail } from '../../domain/emails.js';
import { realmBotEvent, realmUserEvent } from '../../domain/events/users.js';
import { hasVideocallTokenEvent } from '../../domain/events/videocalls.js';
import { canCreateVideoCalls } from '../../domain/videocalls.js';
import { Role, isAdmin, isOwner } from '../../domain/roles.js';
import { generateApiKey, hashApiKey, sealApiKey } from '../../domain/secrets.js';
import { directSystemGroups, isFullMember, SYSTEM_GROUPS } from '../../domain/system-groups.js';
import { EmailVisibility, userSettingsSchema } from '../../domain/user-settings.js';
import { formatUser } from '../../domain/user-view.js';
import { setSystemMemberships } from '../../store/groups.js';
import { deleteUserSessions } from '../../store/sessions.js';
import * as users from '../../store/users.js';
import type { RealmContext } from './actor.js';
import { botDict } from './bot-view.js';
import { directNamedGroups, membershipEvents } from './groups.js';
import { peerEvents } from './peer-events.js';
import { toUserRecord, type RealmState, type UserRecord } from './state.js';

export const MAX_NAME_LENGTH = 100;

export interface CreateUserInput {
  readonly email: string;
  readonly fullName: string;
  readonly role: Role;
  /** scrypt hash made by the caller (hashing is slow; never inside the actor). */
  readonly passwordHash: string | null;
  /** For bots: the bot type and owner; `email` is then the bot's short name. */
  readonly bot?: { readonly type: number; readonly ownerId: number | null } | undefined;
  readonly timezone?: string | undefined;
}

export interface CreatedUser {
  readonly user: UserRecord;
  readonly apiKey: string;
}

export function checkFullName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw errors.badRequest('Name is required');
  if (trimmed.length > MAX_NAME_LENGTH) throw errors.badRequest('Name too long!');
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw errors.badRequest('Invalid characters in name!');
  return trimmed;
}

/** With require_unique_names, no other active account may have the same name. */
export function checkUniqueName(state: RealmState, name: string, selfId: number | null): void {
  if (state.realm.settings.require_unique_names && state.nameTakenByOther(name, selfId)) throw errors.nameNotUnique();
}

export function botEmail(shortName: string, realmHost: string): string {
  const short = shortName.replace(/-bot$/, '');
  if (!/^[a-z0-9][a-z0-9_.-]*$/i.test(short)) throw errors.badRequest('Bad name or username');
  return `${short}-bot@${dummyEmailDomain(realmHost)}`;
}

/** The user ids that administer a bot: active administrators and its active owner. */
export function botAdministrators(state: RealmState, bot: UserRecord): number[] {
  const ids = new Set<number>();
  for (const u of state.users.values()) if (u.is_active && !u.is_bot && isAdmin(u.role)) ids.add(u.id);
  if (bot.bot_owner_id !== null && state.user(bot.bot_owner_id)?.is_active) ids.add(bot.bot_owner_id);
  return [...ids];
}

/** The realm_user add event of a new account: the whole user, real address included. */
export function userAddedEvent(u: UserRecord): EventSpec {
  return realmUserEvent.build(
    { op: 'add', person: formatUser(u, u, { clientExtavatar: false, profileData: u.is_bot ? undefined : {} }) as { user_id: number } },
    { userIds: null },
  );
}

async function createUser(ctx: RealmContext, input: CreateUserInput): Promise<CreatedUser> {
  const { state, services } = ctx;
  const fullName = checkFullName(input.fullName);
  checkUniqueName(state, fullName, null);
  const deliveryEmail = input.bot ? botEmail(input.email, state.realm.host) : input.email.trim();
  if (!isValidEmail(deliveryEmail)) throw errors.badRequest(`Invalid email '${input.email}'`);
  if (state.userByEmail(deliveryEmail) || state.userByDeliveryEmail(deliveryEmail)) {
    throw input.bot ? errors.badRequest('Username already in use') : errors.emailInUse(deliveryEmail);
  }
  if (input.bot && input.role === Role.owner) throw errors.badRequest('Bots cannot be organization owners');
  const apiKey = generateApiKey();
  // New accounts start from the organization's defaults; bots always show their address.
  const settings = userSettingsSchema.parse({
    ...state.realm.settings.user_settings_defaults,
    timezone: input.timezone ?? '',
    ...(input.bot ? { email_address_visibility: EmailVisibility.everyone } : {}),
  });
  const user = await ctx.write(
    async (tx, emit) => {
      const row = await users.insertUser(tx, {
        realmId: state.id,
        // The API email depends on the id for hidden addresses; fixed up right below.
        email: deliveryEmail,
        deliveryEmail,
        fullName,
        role: input.role,
        isBot: input.bot !== undefined,
        botType: input.bot?.type ?? null,
        botOwnerId: input.bot?.ownerId ?? null,
        passwordHash: input.passwordHash,
        apiKeyHash: hashApiKey(services.secret, apiKey),
        apiKeySealed: sealApiKey(services.secret, apiKey),
        timezone: input.timezone ?? '',
        settings,
        dateJoinedMs: services.clock.now(),
      });
      const apiEmail = apiEmailFor(row.id, deliveryEmail, settings.email_address_visibility, state.realm.host);
      if (apiEmail !== row.email) await users.updateUser(tx, row.id, { email: apiEmail });
      const record = toUserRecord({ ...row, email: apiEmail });
      const groups = await syncSystemGroups(ctx, tx, record);
      emit(userAddedEvent(record));
      if (record.is_bot) {
        emit(realmBotEvent.build({ op: 'add', bot: botDict(record, apiKey) }, { userIds: botAdministrators(state, record) }));
      }
      for (const e of membershipEvents(state, record.id, groups.added, groups.removed)) emit(e);
      return record;
    },
    (record) => {
      state.putUser(record);
      applySystemGroups(ctx, record);
    },
  );
  return { user, apiKey };
}

export interface SetRoleInput {
  readonly userId: number;
  readonly role: Role;
  /** The acting user, or null for the server administrator (CLI). */
  readonly actorId: number | null;
}

/** Check a role change by `actor` (null: the server administrator); throws a 400. */
export function checkRoleChange(state: RealmState, actor: UserRecord | null, target: UserRecord, role: Role): void {
  if (target.role === role) return;
  if (actor && !isOwner(actor.role) && (isOwner(target.role) || isOwner(role))) throw errors.mustBeOwner();
  if (isOwner(target.role) && !isOwner(role) && countActiveOwners(state) <= 1) throw errors.lastOwnerRole();
  if (target.is_bot && role === Role.owner) throw errors.badRequest('Bots cannot be organization owners');
}

/**
 * The events of a role change: the role itself, and for the user whose role changed, the real
 * addresses of others that their new role lets them see or hides from them, and whether they may
 * now create video calls.
 */
export function roleChangeEvents(state: RealmState, before: UserRecord, role: Role, videocallUrl: string | undefined): EventSpec[] {
  const events = [realmUserEvent.build({ op: 'update', person: { user_id: before.id, role } }, { userIds: null })];
  const couldCall = canCreateVideoCalls(videocallUrl, before.role);
  if (couldCall !== canCreateVideoCalls(videocallUrl, role)) {
    events.push(hasVideocallTokenEvent.build({ value: !couldCall }, { userIds: [before.id] }));
  }
  for (const other of state.users.values()) {
    if (other.id === before.id) continue;
    const target = { id: other.id, visibility: other.settings.email_address_visibility };
    if (canSeeDeliveryEmail(before, target) === canSeeDeliveryEmail({ id: before.id, role }, target)) continue;
    events.push(
      realmUserEvent.build({ op: 'update', person: { user_id: other.id, delivery_email: other.delivery_email } }, { userIds: [before.id] }),
    );
  }
  return events;
}

async function setRole(ctx: RealmContext, input: SetRoleInput): Promise<UserRecord> {
  const { state } = ctx;
  const target = state.user(input.userId);
  if (!target) throw errors.noSuchUser();
  if (target.role === input.role) return target;
  checkRoleChange(state, input.actorId === null ? null : (state.user(input.actorId) ?? null), target, input.role);
  return ctx.write(
    async (tx, emit) => {
      await users.setRole(tx, target.id, input.role);
      const record: UserRecord = { ...target, role: input.role };
      const groups = await syncSystemGroups(ctx, tx, record);
      for (const e of roleChangeEvents(state, target, input.role, ctx.services.config.videocallUrl)) emit(e);
      for (const e of membershipEvents(state, target.id, groups.added, groups.removed)) emit(e);
      return record;
    },
    (record) => {
      state.putUser(record);
      applySystemGroups(ctx, record);
    },
  );
}

/**
 * subscription peer events for accounts leaving (deactivation) or rejoining (reactivation) the
 * subscriber lists of their channels, archived ones included, to the others who see them.
 */
function peerChanges(state: RealmState, accounts: readonly UserRecord[], joining: boolean): EventSpec[] {
  const byChannel = new Map<number, number[]>();
  for (const u of accounts) {
    for (const channelId of state.channels.subscriptionsOf(u.id)) {
      const users = byChannel.get(channelId);
      if (users) users.push(u.id);
      else byChannel.set(channelId, [u.id]);
    }
  }
  return peerEvents(state, joining ? 'peer_add' : 'peer_remove', byChannel, new Set(accounts.map((u) => u.id)));
}

export interface SetActiveInput {
  readonly userId: number;
  readonly active: boolean;
  readonly actorId: number | null;
}

/**
 * Deactivate or reactivate an account. Deactivating a person deactivates the bots they own
 * first, in the same transaction, and ends their browser sessions; every deactivated account's
 * queues end before its events go out.
 */
async function setActive(ctx: RealmContext, input: SetActiveInput): Promise<UserRecord> {
  const { state } = ctx;
  const target = state.user(input.userId);
  if (!target) throw errors.noSuchUser();
  if (target.is_active === input.active) {
    throw errors.badRequest(input.active ? 'User is already active' : 'User is already deactivated');
  }
  if (!input.active && !target.is_bot) {
    const humans = [...state.users.values()].filter((u) => u.is_active && !u.is_bot).length;
    if (humans <= 1) throw errors.cannotDeactivateLastUser(false);
    if (isOwner(target.role) && countActiveOwners(state) <= 1) throw errors.cannotDeactivateLastUser(true);
  }
  const changed = [
    ...(input.active ? [] : [...state.users.values()].filter((b) => b.is_bot && b.is_active && b.bot_owner_id === target.id)),
    target,
  ];
  const records = await ctx.write(
    async (tx, emit) => {
      const out: UserRecord[] = [];
      if (!input.active) await deleteUserSessions(tx, changed.map((u) => u.id));
      // Subscriber lists hold active accounts only: they leave them before their deactivation is told.
      if (!input.active) for (const e of peerChanges(state, changed, false)) emit(e);
      for (const u of changed) {
        await users.setActive(tx, u.id, input.active);
        emit(realmUserEvent.build({ op: 'update', person: { user_id: u.id, is_active: input.active } }, { userIds: null }));
        if (u.is_bot) {
          emit(realmBotEvent.build({ op: 'update', bot: { user_id: u.id, is_active: input.active } }, { userIds: botAdministrators(state, u) }));
        }
        // Group member lists leave out deactivated users: their memberships disappear and come back.
        const groups = directNamedGroups(state, u.id);
        for (const e of membershipEvents(state, u.id, input.active ? groups : [], input.active ? [] : groups)) emit(e);
        out.push({ ...u, is_active: input.active });
      }
      if (input.active) for (const e of peerChanges(state, changed, true)) emit(e);
      return out;
    },
    // Cut the accounts off before anything else reaches them (their own deactivation included).
    (recs) => {
      for (const r of recs) {
        state.putUser(r);
        if (!input.active) for (const hook of ctx.realm.userDeactivationHooks) hook(r.id);
      }
    },
  );
  return records.at(-1)!;
}

async function regenerateApiKey(ctx: RealmContext, input: { readonly userId: number }): Promise<string> {
  const { state } = ctx;
  const target = state.user(input.userId);
  if (!target) throw errors.noSuchUser();
  const apiKey = generateApiKey();
  const hash = hashApiKey(ctx.services.secret, apiKey);
  await ctx.write(
    async (tx, emit) => {
      await users.setApiKey(tx, target.id, hash, sealApiKey(ctx.services.secret, apiKey));
      if (target.is_bot) {
        emit(realmBotEvent.build({ op: 'update', bot: { user_id: target.id, api_key: apiKey } }, { userIds: botAdministrators(state, target) }));
      }
    },
    () => state.putUser({ ...target, api_key_hash: hash }),
  );
  return apiKey;
}

export interface SpecialPermissionsInput {
  readonly userId: number;
  readonly canChangeUserEmails?: boolean | undefined;
  readonly canCreateUsers?: boolean | undefined;
}

/** Server-administrator permissions (CLI only): no event, clients never see them. */
async function setSpecialPermissions(ctx: RealmContext, input: SpecialPermissionsInput): Promise<UserRecord> {
  const target = ctx.state.user(input.userId);
  if (!target) throw errors.noSuchUser();
  const next: UserRecord = {
    ...target,
    can_change_user_emails: input.canChangeUserEmails ?? target.can_change_user_emails,
    can_create_users: input.canCreateUsers ?? target.can_create_users,
  };
  return ctx.write(
    async (tx) => {
      await users.updateUser(tx, target.id, {
        can_change_user_emails: next.can_change_user_emails,
        can_create_users: next.can_create_users,
      });
      return next;
    },
    (record) => ctx.state.putUser(record),
  );
}

export function countActiveOwners(state: RealmState): number {
  let n = 0;
  for (const u of state.users.values()) if (u.is_active && isOwner(u.role) && !u.is_bot) n++;
  return n;
}

function memberships(state: RealmState, u: UserRecord, nowMs: number): { all: number[]; mine: number[] } {
  const full = isFullMember(u.date_joined, state.realm.settings.waiting_period_threshold, nowMs);
  return {
    all: SYSTEM_GROUPS.map((g) => state.systemGroupId(g.name)),
    mine: directSystemGroups(u.role, full).map((g) => state.systemGroupId(g)),
  };
}

/** Set the user's direct system-group memberships; returns what changed against the cache. */
async function syncSystemGroups(ctx: RealmContext, tx: Parameters<typeof setSystemMemberships>[0], u: UserRecord) {
  const m = memberships(ctx.state, u, ctx.services.clock.now());
  await setSystemMemberships(tx, u.id, m.all, m.mine);
  const mine = new Set(m.mine);
  const had = (id: number) => ctx.state.groups.get(id)?.members.has(u.id) ?? false;
  return { added: m.mine.filter((id) => !had(id)), removed: m.all.filter((id) => had(id) && !mine.has(id)) };
}

/** Mirror syncSystemGroups in the cached groups (after commit). */
function applySystemGroups(ctx: RealmContext, u: UserRecord): void {
  const { state } = ctx;
  // A member who is not yet a full member becomes one when the waiting period ends.
  if (u.role === Role.member) ctx.realm.fullMembers.noteJoined(u.date_joined);
  const m = memberships(state, u, ctx.services.clock.now());
  const mine = new Set(m.mine);
  for (const id of m.all) {
    const g = state.groups.get(id)!;
    const has = g.members.has(u.id);
    if (has === mine.has(id)) continue;
    const members = new Set(g.members);
    if (has) members.delete(u.id);
    else members.add(u.id);
    state.putGroup({ ...g, members });
  }
}

/** Role changes inside another command's transaction (user.update). */
export const roleSync = { syncSystemGroups, applySystemGroups };

export const userCommands = {
  'user.create': createUser,
  'user.setRole': setRole,
  'user.setActive': setActive,
  'user.regenerateApiKey': regenerateApiKey,
  'user.setSpecialPermissions': setSpecialPermissions,
};
