// How a request names another account: by id, or by email (the real address only when the
// viewer may see it, or the dummy `user{id}@{host}` form), and whether the viewer may address
// it at all. Read-only rules over the cached state; handlers and commands share them.
import { canSeeDeliveryEmail, parseDummyEmail } from '../../domain/emails.js';
import { errors } from '../../domain/errors.js';
import type { RealmState, UserRecord } from './state.js';

/** An account by API or real address as the viewer may name it, or undefined. */
export function userByEmailFor(state: RealmState, viewer: UserRecord | null, email: string): UserRecord | undefined {
  const dummyId = parseDummyEmail(email, state.realm.host);
  if (dummyId !== null) return state.user(dummyId);
  const byApi = state.userByEmail(email);
  if (byApi) return byApi;
  const u = state.userByDeliveryEmail(email);
  if (u && canSeeDeliveryEmail(viewer, { id: u.id, visibility: u.settings.email_address_visibility })) return u;
  return undefined;
}

/** A path segment naming an account: digits are an id, anything else an email. */
export function userByRef(state: RealmState, viewer: UserRecord | null, ref: string): UserRecord | undefined {
  return /^\d{1,10}$/.test(ref) ? state.user(Number(ref)) : userByEmailFor(state, viewer, ref);
}

export interface AccessOptions {
  readonly allowDeactivated?: boolean;
  readonly allowBots?: boolean;
}

/**
 * The account a viewer reads or changes: "No such user" when it does not exist (or is a bot and
 * bots are not allowed), "User is deactivated" when that is not allowed, "Insufficient
 * permission" when the viewer may not access it (can_access_all_users_group).
 */
export function accessUser(state: RealmState, viewer: UserRecord | null, target: UserRecord | undefined, o: AccessOptions = {}): UserRecord {
  if (!target || (target.is_bot && o.allowBots === false)) throw errors.noSuchUser();
  if (!target.is_active && o.allowDeactivated === false) throw errors.userIsDeactivated();
  if (viewer && !state.canAccessUser(viewer.id, target.id)) throw errors.insufficientPermission();
  return target;
}
