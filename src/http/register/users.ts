// The `realm_user` members of POST /register (the people the user may see, and the user's own
// account fields), the bots the user administers (`realm_bot`) and the `user_settings` object.
import { botDict } from '../../actors/realm/bot-view.js';
import { canAdministerBot } from '../../actors/realm/bots.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { avatarUrl, clientComputesAvatar } from '../../domain/avatar.js';
import { isAdmin, isGuest, isModerator, isOwner } from '../../domain/roles.js';
import { unsealApiKey } from '../../domain/secrets.js';
import { EMOJISETS, NOTIFICATION_SOUNDS } from '../../domain/user-settings.js';
import { formatUser, inaccessibleUser, type ProfileData } from '../../domain/user-view.js';
import { profileDataByUser } from '../../store/profile-values.js';
import { sealedApiKeys } from '../../store/users.js';
import type { StateContext, StateProvider } from './state.js';

/** The user objects this viewer may see: placeholders or omissions per user_list_incomplete. */
export function visibleUsers(ctx: StateContext, users: Iterable<UserRecord>, profiles: ReadonlyMap<number, ProfileData>): Record<string, unknown>[] {
  const { realm, user: viewer, options } = ctx;
  const state = realm.state;
  const out: Record<string, unknown>[] = [];
  for (const u of users) {
    if (viewer && !state.canAccessUser(viewer.id, u.id)) {
      if (options.capabilities.user_list_incomplete) continue;
      out.push(inaccessibleUser(u.id, state.realm.host));
      continue;
    }
    const o = formatUser(viewer, u, { clientExtavatar: options.clientExtavatar, profileData: u.is_bot ? undefined : (profiles.get(u.id) ?? {}) });
    if (options.capabilities.user_avatar_url_field_optional && o.avatar_url === null) delete o.avatar_url;
    out.push(o);
  }
  return out;
}

export const realmUserState: StateProvider = {
  types: ['realm_user'],
  spectators: false,
  async fetch(ctx) {
    const state = ctx.realm.state;
    const me = ctx.user!;
    const all = [...state.users.values()];
    const profiles = await profileDataByUser(ctx.app.db, state.id);
    return {
      realm_users: visibleUsers(ctx, all.filter((u) => u.is_active), profiles),
      realm_non_active_users: visibleUsers(ctx, all.filter((u) => !u.is_active), profiles),
      cross_realm_bots: [],
      user_id: me.id,
      email: me.email,
      delivery_email: me.delivery_email,
      full_name: me.full_name,
      is_admin: isAdmin(me.role),
      is_owner: isOwner(me.role),
      is_moderator: isModerator(me.role),
      is_guest: isGuest(me.role),
      avatar_source: me.avatar_source,
      avatar_url: avatarUrl(me, clientComputesAvatar(me, ctx.options.clientExtavatar)),
      avatar_url_medium: avatarUrl(me, false, true),
      avatar_version: me.avatar_version,
      can_create_streams:
        state.hasRealmPermission(me.id, 'can_create_public_channel_group') ||
        state.hasRealmPermission(me.id, 'can_create_private_channel_group'),
      can_create_public_streams: state.hasRealmPermission(me.id, 'can_create_public_channel_group'),
      can_create_private_streams: state.hasRealmPermission(me.id, 'can_create_private_channel_group'),
      can_create_web_public_streams:
        state.realm.settings.enable_spectator_access && state.hasRealmPermission(me.id, 'can_create_web_public_channel_group'),
      can_subscribe_other_users: state.hasRealmPermission(me.id, 'can_add_subscribers_group'),
      can_invite_others_to_realm: state.hasRealmPermission(me.id, 'can_invite_users_group'),
    };
  },
};

/** The bots the user administers (all of them for administrators), deactivated ones included. */
export const realmBotState: StateProvider = {
  types: ['realm_bot'],
  spectators: false,
  async fetch(ctx) {
    const me = ctx.user!;
    const bots = [...ctx.realm.state.users.values()].filter((u) => u.is_bot && canAdministerBot(me, u));
    const keys = await sealedApiKeys(ctx.app.db, bots.map((b) => b.id));
    return { realm_bots: bots.map((b) => botDict(b, unsealApiKey(ctx.app.secret, keys.get(b.id)!))) };
  },
};

export const userSettingsState: StateProvider = {
  types: ['user_settings'],
  spectators: false,
  fetch(ctx) {
    return {
      user_settings: {
        ...ctx.user!.settings,
        available_notification_sounds: [...NOTIFICATION_SOUNDS],
        emojiset_choices: EMOJISETS.map((e) => ({ ...e })),
      },
    };
  },
};
