// Realm commands that create and change accounts. Run inside the realm actor (RealmContext).
// Inputs are already validated for shape; these functions check the organization's rules.
import { ApiError, errors } from '../../domain/errors.js';
import { apiEmailFor, dummyEmailDomain, isValidEmail } from '../../domain/emails.js';
import { Role, isOwner } from '../../domain/roles.js';
import { generateApiKey, hashApiKey, sealApiKey } from '../../domain/secrets.js';
import { directSystemGroups, isFullMember, SYSTEM_GROUPS } from '../../domain/system-groups.js';
import { userSettingsSchema } from '../../domain/user-settings.js';
import { formatUser } from '../../domain/user-view.js';
import { setSystemMemberships } from '../../store/groups.js';
import * as users from '../../store/users.js';
import type { RealmContext } from './actor.js';
import { directNamedGroups, membershipEvents } from './groups.js';
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

export function botEmail(shortName: string, realmHost: string): string {
  const short = shortName.replace(/-bot$/, '');
  if (!/^[a-z0-9][a-z0-9_.-]*$/i.test(short)) throw errors.badRequest('Bad name or username');
  return `${short}-bot@${dummyEmailDomain(realmHost)}`;
}

async function createUser(ctx: RealmContext, input: CreateUserInput): Promise<CreatedUser> {
  const { state, services } = ctx;
  const fullName = checkFullName(input.fullName);
  const deliveryEmail = input.bot ? botEmail(input.email, state.realm.host) : input.email.trim();
  if (!isValidEmail(deliveryEmail)) throw errors.badRequest(`Invalid email '${input.email}'`);
  if (state.userByEmail(deliveryEmail) || state.userByDeliveryEmail(deliveryEmail)) {
    throw errors.badRequest(`Email '${deliveryEmail}' already in use`);
  }
  if (input.bot && input.role === Role.owner) throw errors.badRequest('Bots cannot be organization owners');
  const apiKey = generateApiKey();
  const settings = userSettingsSchema.parse({ timezone: input.timezone ?? '' });
  const user = await ctx.write(async (tx, emit) => {
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
    });
    const apiEmail = apiEmailFor(row.id, deliveryEmail, settings.email_address_visibility, state.realm.host);
    if (apiEmail !== row.email) await users.setApiEmail(tx, row.id, apiEmail);
    const record = toUserRecord({ ...row, email: apiEmail });
    const groups = await syncSystemGroups(ctx, tx, record);
    emit({
      type: 'realm_user',
      // The real address travels in the log; presentEvent hides it from viewers who may not see it.
      payload: { op: 'add', person: formatUser(record, record, { clientExtavatar: false, profileData: record.is_bot ? undefined : {} }) },
      userIds: null,
    });
    for (const e of membershipEvents(state, record.id, groups.added, groups.removed)) emit(e);
    return record;
  });
  state.putUser(user);
  applySystemGroups(ctx, user);
  return { user, apiKey };
}

export interface SetRoleInput {
  readonly userId: number;
  readonly role: Role;
  /** The acting user, or null for the server administrator (CLI). */
  readonly actorId: number | null;
}

async function setRole(ctx: RealmContext, input: SetRoleInput): Promise<UserRecord> {
  const { state } = ctx;
  const target = state.user(input.userId);
  if (!target) throw errors.noSuchUser();
  if (target.role === input.role) return target;
  const actor = input.actorId === null ? null : state.user(input.actorId);
  if (actor && !isOwner(actor.role) && (isOwner(target.role) || isOwner(input.role))) throw errors.mustBeOwner();
  if (isOwner(target.role) && !isOwner(input.role) && countActiveOwners(state) <= 1) {
    throw errors.badRequest('The owner permission cannot be removed from the only organization owner.');
  }
  if (target.is_bot && input.role === Role.owner) throw errors.badRequest('Bots cannot be organization owners');
  const updated = await ctx.write(async (tx, emit) => {
    await users.setRole(tx, target.id, input.role);
    const record: UserRecord = { ...target, role: input.role };
    const groups = await syncSystemGroups(ctx, tx, record);
    emit({ type: 'realm_user', payload: { op: 'update', person: { user_id: target.id, role: input.role } }, userIds: null });
    for (const e of membershipEvents(state, target.id, groups.added, groups.removed)) emit(e);
    return record;
  });
  state.putUser(updated);
  applySystemGroups(ctx, updated);
  return updated;
}

export interface SetActiveInput {
  readonly userId: number;
  readonly active: boolean;
  readonly actorId: number | null;
}

async function setActive(ctx: RealmContext, input: SetActiveInput): Promise<UserRecord> {
  const { state } = ctx;
  const target = state.user(input.userId);
  if (!target) throw errors.noSuchUser();
  if (target.is_active === input.active) {
    throw errors.badRequest(input.active ? 'User is already active' : 'User is already deactivated');
  }
  if (!input.active && isOwner(target.role) && countActiveOwners(state) <= 1) {
    throw new ApiError('CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only organization owner', 400, {
      is_last_owner: true,
      entity: 'organization owner',
    });
  }
  const updated = await ctx.write(
    async (tx, emit) => {
      await users.setActive(tx, target.id, input.active);
      emit({
        type: 'realm_user',
        payload: { op: 'update', person: { user_id: target.id, is_active: input.active } },
        userIds: null,
      });
      // Group member lists leave out deactivated users: their memberships disappear and come back.
      const groups = directNamedGroups(state, target.id);
      for (const e of membershipEvents(state, target.id, input.active ? groups : [], input.active ? [] : groups)) emit(e);
      return { ...target, is_active: input.active };
    },
    // Cut the account off before anything else reaches it (its own deactivation included).
    (record) => {
      state.putUser(record);
      if (!input.active) for (const hook of ctx.realm.userDeactivationHooks) hook(record.id);
    },
  );
  return updated;
}

async function regenerateApiKey(ctx: RealmContext, input: { readonly userId: number }): Promise<string> {
  const target = ctx.state.user(input.userId);
  if (!target) throw errors.noSuchUser();
  const apiKey = generateApiKey();
  const hash = hashApiKey(ctx.services.secret, apiKey);
  await ctx.write((tx) => users.setApiKey(tx, target.id, hash, sealApiKey(ctx.services.secret, apiKey)));
  ctx.state.putUser({ ...target, api_key_hash: hash });
  return apiKey;
}

function countActiveOwners(state: RealmState): number {
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

export const userCommands = {
  'user.create': createUser,
  'user.setRole': setRole,
  'user.setActive': setActive,
  'user.regenerateApiKey': regenerateApiKey,
};
