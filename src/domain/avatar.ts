// Avatar URLs. Accounts without an uploaded picture use the external avatar service (source
// 'G'), keyed by a hash of the real address; clients that declare client_extavatar compute
// those URLs themselves from the user's `email`, which they can only do when that is the real
// address (email_address_visibility "everyone"), so only then do they get null.
import { createHash } from 'node:crypto';
import { EmailVisibility } from './user-settings.js';

export const EXTERNAL_AVATAR_BASE = 'https://secure.gravatar.com/avatar';

export interface AvatarSubject {
  readonly id: number;
  readonly realm_id: number;
  readonly delivery_email: string;
  readonly avatar_source: string;
  readonly avatar_version: number;
}

/** Path of an uploaded avatar under the site root (served by GET /user_avatars/…). */
export function uploadedAvatarPath(realmId: number, userId: number, medium: boolean): string {
  return `/user_avatars/${realmId}/${userId}${medium ? '-medium' : ''}.png`;
}

export function externalAvatarUrl(email: string, version: number, medium = false): string {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return `${EXTERNAL_AVATAR_BASE}/${hash}?d=identicon${medium ? '&s=500' : ''}&version=${version}`;
}

/** The avatar URL; null when the client computes it itself (see clientComputesAvatar). */
export function avatarUrl(u: AvatarSubject, clientComputes: boolean, medium = false): string | null {
  if (u.avatar_source === 'U') return `${uploadedAvatarPath(u.realm_id, u.id, medium)}?version=${u.avatar_version}`;
  if (clientComputes) return null;
  return externalAvatarUrl(u.delivery_email, u.avatar_version, medium);
}

/** Whether a client_extavatar client can compute this user's avatar URL (and so gets null). */
export function clientComputesAvatar(
  u: { readonly avatar_source: string; readonly settings: { readonly email_address_visibility: number } },
  clientExtavatar: boolean,
): boolean {
  return clientExtavatar && u.avatar_source !== 'U' && u.settings.email_address_visibility === EmailVisibility.everyone;
}
