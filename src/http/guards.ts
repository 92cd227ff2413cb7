// Role requirements of endpoints, checked before anything else a handler does.
import type { UserRecord } from '../actors/realm/state.js';
import { errors } from '../domain/errors.js';
import { isAdmin, isGuest, isOwner } from '../domain/roles.js';

/** Administrator-only endpoints answer UNAUTHORIZED_PRINCIPAL to everyone else. */
export function requireAdmin(user: UserRecord): void {
  if (!isAdmin(user.role)) throw errors.unauthorizedPrincipal();
}

export function requireOwner(user: UserRecord): void {
  if (!isOwner(user.role)) throw errors.mustBeOwner();
}

/** Members and above, and no bots (bot and guest management endpoints). */
export function requireMemberOrAbove(user: UserRecord): void {
  if (user.is_bot) throw errors.notAllowedForBots();
  if (isGuest(user.role)) throw errors.notAllowedForGuests();
}
