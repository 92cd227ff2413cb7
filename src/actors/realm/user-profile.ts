// Realm commands that change an existing account's profile: name, real address, personal
// settings (email visibility and time zone included), avatar and password, for the user
// themselves (PATCH /settings) or by an administrator (PATCH /users/{id}). Each change is built
// as a patch plus its events; a command applies all of its changes in one transaction.
import type { EventSpec } from '../event-sequencer.js';
import { apiEmailFor, canSeeDeliveryEmail, isValidEmail } from '../../domain/emails.js';
import { errors } from '../../domain/errors.js';
import { userStatusEvent } from '../../domain/events/personal.js';
import { realmBotEvent, realmUserEvent, userSettingsEvent } from '../../domain/events/users.js';
import { isOwner, type Role } from '../../domain/roles.js';
import {
  EmailVisibility,
  LANGUAGES,
  type UserSettingName,
  type UserSettings,
  type UserSettingValue,
} from '../../domain/user-settings.js';
import { avatarFields } from '../../domain/user-view.js';
import { deleteUserDrafts } from '../../store/drafts.js';
import { deleteUserSessions } from '../../store/sessions.js';
import * as users from '../../store/users.js';
import type { RealmContext } from './actor.js';
import { membershipEvents } from './groups.js';
import type { RealmState, UserRecord } from './state.js';
import { botAdministrators, checkFullName, checkRoleChange, checkUniqueName, roleChangeEvents, roleSync } from './users.js';

/** One change of an account: the record after it, the columns to write, the events to emit. */
interface Change {
  readonly next: UserRecord;
  readonly patch: users.UserPatch;
  readonly events: readonly EventSpec[];
}

const all = { userIds: null };

export function nameChange(state: RealmState, u: UserRecord, name: string, unique = true): Change | null {
  const fullName = checkFullName(name);
  if (fullName === u.full_name) return null;
  if (unique) checkUniqueName(state, fullName, u.id);
  const events = [realmUserEvent.build({ op: 'update', person: { user_id: u.id, full_name: fullName } }, all)];
  if (u.is_bot) {
    events.push(realmBotEvent.build({ op: 'update', bot: { user_id: u.id, full_name: fullName } }, { userIds: botAdministrators(state, u) }));
  }
  return { next: { ...u, full_name: fullName }, patch: { full_name: fullName }, events };
}

/** Everything that follows from a change of the real address or of who may see it. */
function addressEvents(state: RealmState, before: UserRecord, after: UserRecord): EventSpec[] {
  const events: EventSpec[] = [];
  if (before.email !== after.email) {
    events.push(realmUserEvent.build({ op: 'update', person: { user_id: after.id, new_email: after.email } }, all));
  }
  const b = { id: before.id, visibility: before.settings.email_address_visibility };
  const a = { id: after.id, visibility: after.settings.email_address_visibility };
  const addressChanged = before.delivery_email !== after.delivery_email;
  const told: number[] = [];
  for (const v of state.users.values()) {
    if (!v.is_active) continue;
    const could = canSeeDeliveryEmail(v, b);
    const can = canSeeDeliveryEmail(v, a);
    // Viewers who gain or lose sight of the address, and (for a new address) all who see it.
    if (could !== can || (addressChanged && can)) told.push(v.id);
  }
  if (told.length > 0) {
    events.push(realmUserEvent.build({ op: 'update', person: { user_id: after.id, delivery_email: after.delivery_email } }, { userIds: told }));
  }
  // The external avatar's URL is derived from the real address, and client_extavatar clients
  // compute it only while `email` is the real address.
  const computedBefore = before.settings.email_address_visibility === EmailVisibility.everyone;
  const computedAfter = after.settings.email_address_visibility === EmailVisibility.everyone;
  if (after.avatar_source !== 'U' && (addressChanged || computedBefore !== computedAfter)) {
    events.push(realmUserEvent.build({ op: 'update', person: avatarFields(after) }, all));
  }
  return events;
}

export function emailChange(state: RealmState, u: UserRecord, email: string): Change | null {
  const deliveryEmail = email.trim();
  if (deliveryEmail === u.delivery_email) return null;
  if (!isValidEmail(deliveryEmail)) throw errors.badRequest(`Invalid email '${email}'`);
  const other = state.userByDeliveryEmail(deliveryEmail) ?? state.userByEmail(deliveryEmail);
  if (other && other.id !== u.id) throw errors.emailInUse(deliveryEmail);
  const apiEmail = apiEmailFor(u.id, deliveryEmail, u.settings.email_address_visibility, state.realm.host);
  // A new address means a new external avatar: clients must not keep the old one cached.
  const avatarVersion = u.avatar_source === 'U' ? u.avatar_version : u.avatar_version + 1;
  const next: UserRecord = { ...u, delivery_email: deliveryEmail, email: apiEmail, avatar_version: avatarVersion };
  return {
    next,
    patch: { delivery_email: deliveryEmail, email: apiEmail, avatar_version: avatarVersion },
    events: addressEvents(state, u, next),
  };
}

export function settingChange(state: RealmState, u: UserRecord, name: UserSettingName | 'timezone', value: UserSettingValue): Change | null {
  if (u.settings[name] === value) return null;
  const settings = { ...u.settings, [name]: value } as UserSettings;
  let next: UserRecord = { ...u, settings };
  const patch: { -readonly [K in keyof users.UserPatch]: users.UserPatch[K] } = { settings };
  const events: EventSpec[] = [
    userSettingsEvent.build(
      name === 'default_language'
        ? { op: 'update', property: name, value, language_name: LANGUAGES[value as string] ?? String(value) }
        : { op: 'update', property: name, value },
      { userIds: [u.id] },
    ),
  ];
  if (name === 'timezone') {
    next = { ...next, timezone: value as string };
    patch.timezone = value as string;
    events.push(realmUserEvent.build({ op: 'update', person: { user_id: u.id, email: u.email, timezone: value as string } }, all));
  }
  if (name === 'presence_enabled') {
    // A status "away" is the inverse of presence_enabled (the legacy form clients still read).
    events.push(userStatusEvent.build({ user_id: u.id, away: !value }, all));
  }
  if (name === 'email_address_visibility') {
    next = { ...next, email: apiEmailFor(u.id, u.delivery_email, value as number, state.realm.host) };
    patch.email = next.email;
    events.push(...addressEvents(state, u, next));
  }
  return { next, patch, events };
}

export function avatarChange(u: UserRecord, source: 'G' | 'U'): Change {
  const next: UserRecord = { ...u, avatar_source: source, avatar_version: u.avatar_version + 1 };
  return {
    next,
    patch: { avatar_source: source, avatar_version: next.avatar_version },
    events: [realmUserEvent.build({ op: 'update', person: avatarFields(next) }, all)],
  };
}

type Step = (u: UserRecord) => Change | null;

interface ApplyOptions {
  /** More writes in the same transaction. */
  readonly extra?: Parameters<RealmContext['write']>[0] | undefined;
  /** More cache updates after commit, before the events go out. */
  readonly after?: ((record: UserRecord) => void) | undefined;
}

/** Apply the steps in order, each to the record the previous one produced, in one transaction. */
async function applyChanges(ctx: RealmContext, target: UserRecord, steps: readonly Step[], o: ApplyOptions = {}) {
  const { extra } = o;
  const changes: Change[] = [];
  let current = target;
  for (const step of steps) {
    const c = step(current);
    if (c) {
      changes.push(c);
      current = c.next;
    }
  }
  const final = current;
  if (changes.length === 0 && !extra) return final;
  return ctx.write(
    async (tx, emit) => {
      if (extra) await extra(tx, emit);
      // The settings column is rewritten whole; merge patches so the last value wins.
      const patch = Object.assign({}, ...changes.map((c) => c.patch)) as users.UserPatch;
      await users.updateUser(tx, target.id, patch.settings ? { ...patch, settings: final.settings } : patch);
      for (const c of changes) for (const e of c.events) emit(e);
      return final;
    },
    (record) => {
      ctx.state.putUser(record);
      o.after?.(record);
    },
  );
}

export interface UpdateOwnInput {
  readonly userId: number;
  readonly fullName?: string | undefined;
  /** Settings in the order given; the time zone included. */
  readonly settings: ReadonlyArray<readonly [UserSettingName | 'timezone', UserSettingValue]>;
  /** A new password, hashed by the caller after it checked the old one. */
  readonly passwordHash?: string | undefined;
}

/** PATCH /settings: the user's own name, settings and password. */
async function updateOwn(ctx: RealmContext, input: UpdateOwnInput): Promise<UserRecord> {
  const { state } = ctx;
  const u = state.user(input.userId);
  if (!u) throw errors.noSuchUser();
  const steps: Step[] = [];
  if (input.fullName !== undefined) {
    const fullName = input.fullName;
    steps.push((cur) => nameChange(state, cur, fullName));
  }
  for (const [name, value] of input.settings) steps.push((cur) => settingChange(state, cur, name, value));
  const passwordHash = input.passwordHash;
  // Drafts stop being synchronized: those on the server go, without events (the clients keep
  // theirs; nothing was deleted by the user).
  const dropDrafts = u.settings.enable_drafts_synchronization && input.settings.some(([n, v]) => n === 'enable_drafts_synchronization' && v === false);
  return applyChanges(ctx, u, steps, {
    extra:
      passwordHash === undefined && !dropDrafts
        ? undefined
        : async (tx) => {
            // A new password ends every browser session: a stolen cookie does not outlive the change.
            if (passwordHash !== undefined) {
              await users.setPasswordHash(tx, u.id, passwordHash);
              await deleteUserSessions(tx, [u.id]);
            }
            if (dropDrafts) await deleteUserDrafts(tx, u.id);
          },
  });
}

export interface UpdateUserInput {
  readonly actorId: number;
  readonly userId: number;
  readonly fullName?: string | undefined;
  readonly role?: Role | undefined;
  readonly newEmail?: string | undefined;
}

/** PATCH /users/{id}: an administrator changes another account (the actor's rights checked here). */
async function updateUser(ctx: RealmContext, input: UpdateUserInput): Promise<UserRecord> {
  const { state } = ctx;
  const actor = state.user(input.actorId);
  const target = state.user(input.userId);
  if (!actor) throw errors.noSuchUser();
  if (!target) throw errors.noSuchUser();
  if (input.newEmail !== undefined && !(actor.can_change_user_emails && isOwner(actor.role))) throw errors.cannotChangeUserEmails();
  const role = input.role;
  if (role !== undefined) checkRoleChange(state, actor, target, role);
  const steps: Step[] = [];
  if (role !== undefined && role !== target.role) {
    steps.push((cur) => ({ next: { ...cur, role }, patch: {}, events: roleChangeEvents(state, cur, role, ctx.services.config.videocallUrl) }));
  }
  // A blank name is ignored here, as the reference server does for administrators.
  const fullName = input.fullName;
  if (fullName !== undefined && fullName.trim() !== '') steps.push((cur) => nameChange(state, cur, fullName));
  const newEmail = input.newEmail;
  if (newEmail !== undefined) steps.push((cur) => emailChange(state, cur, newEmail));
  if (role === undefined || role === target.role) return applyChanges(ctx, target, steps);
  return applyChanges(ctx, target, steps, {
    extra: async (tx, emit) => {
      await users.setRole(tx, target.id, role);
      const groups = await roleSync.syncSystemGroups(ctx, tx, { ...target, role });
      for (const e of membershipEvents(state, target.id, groups.added, groups.removed)) emit(e);
    },
    after: (record) => roleSync.applySystemGroups(ctx, record),
  });
}

/** avatarChange, with the realm_bot event a bot's administrators get. */
function accountAvatarChange(state: RealmState, u: UserRecord, source: 'G' | 'U'): Change {
  const change = avatarChange(u, source);
  if (!u.is_bot) return change;
  const url = avatarFields(change.next).avatar_url!;
  const botEvent = realmBotEvent.build({ op: 'update', bot: { user_id: u.id, avatar_url: url } }, { userIds: botAdministrators(state, u) });
  return { ...change, events: [...change.events, botEvent] };
}

async function setAvatar(ctx: RealmContext, input: { readonly userId: number; readonly source: 'G' | 'U' }): Promise<UserRecord> {
  const u = ctx.state.user(input.userId);
  if (!u) throw errors.noSuchUser();
  return applyChanges(ctx, u, [(cur) => accountAvatarChange(ctx.state, cur, input.source)]);
}

/** The name a deactivation's delete_profile gives an account. */
const DELETED_USER_NAME = 'Deleted user';

/**
 * A deactivation's delete_profile: the account is renamed DELETED_USER_NAME (however many
 * accounts already are: it names no one) and loses an uploaded avatar. The caller removes the
 * image itself.
 */
async function deleteProfile(ctx: RealmContext, input: { readonly userId: number }): Promise<UserRecord> {
  const u = ctx.state.user(input.userId);
  if (!u) throw errors.noSuchUser();
  const steps: Step[] = [(cur) => nameChange(ctx.state, cur, DELETED_USER_NAME, false)];
  if (u.avatar_source === 'U') steps.push((cur) => accountAvatarChange(ctx.state, cur, 'G'));
  return applyChanges(ctx, u, steps);
}

export const userProfileCommands = {
  'user.updateOwn': updateOwn,
  'user.update': updateUser,
  'user.setAvatar': setAvatar,
  'user.deleteProfile': deleteProfile,
};
