// The API's user object as a given viewer sees it (GET /users, /users/me, realm_users, events).
import { avatarUrl, clientComputesAvatar } from './avatar.js';
import { canSeeDeliveryEmail, dummyEmail } from './emails.js';
import { roleFlags } from './roles.js';

export interface ViewableUser {
  readonly id: number;
  readonly realm_id: number;
  readonly email: string;
  readonly delivery_email: string;
  readonly full_name: string;
  readonly role: number;
  readonly is_active: boolean;
  readonly is_bot: boolean;
  readonly bot_type: number | null;
  readonly bot_owner_id: number | null;
  readonly is_imported_stub: boolean;
  readonly date_joined: number;
  readonly timezone: string;
  readonly avatar_source: string;
  readonly avatar_version: number;
  readonly settings: { readonly email_address_visibility: number; readonly timezone?: string };
}

/** A custom profile field value as user objects carry it (keyed by field id). */
export interface ProfileValue {
  readonly value: string;
  readonly rendered_value?: string;
}
export type ProfileData = Readonly<Record<string, ProfileValue>>;

export interface UserViewOptions {
  readonly clientExtavatar: boolean;
  /** Custom profile data (humans only), keyed by field id; omitted when undefined. */
  readonly profileData?: ProfileData | undefined;
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

export function formatUser(
  viewer: { id: number; role: number } | null,
  u: ViewableUser,
  o: UserViewOptions,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    user_id: u.id,
    email: u.email,
    delivery_email: canSeeDeliveryEmail(viewer, { id: u.id, visibility: u.settings.email_address_visibility })
      ? u.delivery_email
      : null,
    full_name: u.full_name,
    role: u.role,
    ...roleFlags(u.role),
    is_active: u.is_active,
    is_bot: u.is_bot,
    bot_type: u.bot_type,
    is_imported_stub: u.is_imported_stub,
    date_joined: isoDate(u.date_joined),
    timezone: u.timezone,
    avatar_url: avatarUrl(u, clientComputesAvatar(u, o.clientExtavatar)),
    avatar_version: u.avatar_version,
  };
  if (u.is_bot) out.bot_owner_id = u.bot_owner_id;
  if (!u.is_bot && o.profileData !== undefined) out.profile_data = o.profileData;
  return out;
}

/** The avatar fields of a realm_user update after an avatar (or its URL's inputs) changed. */
export function avatarFields(u: ViewableUser) {
  return {
    user_id: u.id,
    avatar_source: u.avatar_source,
    avatar_url: avatarUrl(u, false),
    avatar_url_medium: avatarUrl(u, false, true),
    avatar_version: u.avatar_version,
  };
}

/**
 * A stand-in for a user the viewer may not access (can_access_all_users_group), for clients
 * without user_list_incomplete: nothing about the real account but its id.
 */
export function inaccessibleUser(userId: number, realmHost: string): Record<string, unknown> {
  return {
    user_id: userId,
    email: dummyEmail(userId, realmHost),
    delivery_email: null,
    full_name: 'Unknown user',
    role: 400,
    is_active: true,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: false,
    bot_type: null,
    is_imported_stub: false,
    timezone: '',
    avatar_url: null,
    avatar_version: 1,
    date_joined: '1970-01-01T00:00:00+00:00',
    profile_data: {},
  };
}
