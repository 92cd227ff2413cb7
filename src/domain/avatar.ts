// Avatar URLs. Accounts without an uploaded picture use the external avatar service (source
// 'G'); clients that declare client_extavatar compute those URLs themselves and get null.
import { createHash } from 'node:crypto';

export const EXTERNAL_AVATAR_BASE = 'https://secure.gravatar.com/avatar';

export interface AvatarSubject {
  readonly id: number;
  readonly realm_id: number;
  readonly delivery_email: string;
  readonly avatar_source: string;
  readonly avatar_version: number;
}

export function avatarUrl(u: AvatarSubject, clientExtavatar: boolean, medium = false): string | null {
  if (u.avatar_source === 'U') {
    return `/user_avatars/${u.realm_id}/${u.id}${medium ? '-medium' : ''}.png?version=${u.avatar_version}`;
  }
  if (clientExtavatar) return null;
  const hash = createHash('md5').update(u.delivery_email.trim().toLowerCase()).digest('hex');
  return `${EXTERNAL_AVATAR_BASE}/${hash}?d=identicon${medium ? '&s=500' : ''}&version=${u.avatar_version}`;
}
