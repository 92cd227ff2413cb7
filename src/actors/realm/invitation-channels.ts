// The channel side of invitations: which channels an inviter may name (checked when the link is
// made, over the cached channel index), and subscribing the new account when it signs up, or when
// an administrator makes it (through the subscription command, so subscribers, peers and the
// caches hear of it).
import { errors } from '../../domain/errors.js';
import type { RealmContext } from './actor.js';
import { canReadChannel } from './channel-view.js';
import { holdsRealmPermission } from './group-access.js';
import type { RealmState, UserRecord } from './state.js';
import { DEFAULT_CREATION, subscriptionCommands } from './subscriptions.js';

/**
 * Every channel must exist, be active and be readable by the inviter; naming any needs
 * permission to subscribe others (can_add_subscribers_group, which covers every channel the
 * inviter can read). Throws the spec's errors.
 */
export function checkInvitationChannels(state: RealmState, actor: UserRecord, channelIds: readonly number[]): void {
  for (const id of channelIds) {
    const c = state.channels.get(id);
    if (!c || c.is_archived || !canReadChannel(state, actor, c)) throw errors.badRequest(`Invalid channel ID ${id}. No invites were sent.`);
  }
  if (channelIds.length > 0 && !holdsRealmPermission(state, actor.id, 'can_add_subscribers_group')) {
    throw errors.badRequest('You do not have permission to subscribe other users to channels.');
  }
}

/**
 * Subscribe a new account to an invitation's channels (and the default channels if asked; POST
 * /users asks for those alone). The inviter's permissions were checked when the link was made;
 * channels archived since are skipped. Call inside the realm actor.
 */
export async function subscribeNewAccount(
  ctx: RealmContext,
  userId: number,
  channelIds: readonly number[],
  includeDefaults: boolean,
): Promise<void> {
  const { state } = ctx;
  const ids = new Set(channelIds);
  if (includeDefaults) for (const id of state.channels.defaultChannelIds) ids.add(id);
  const names = [...ids].flatMap((id) => {
    const c = state.channels.get(id);
    return c && !c.is_archived ? [{ name: c.name }] : [];
  });
  if (names.length === 0) return;
  await subscriptionCommands['subscription.subscribe'](ctx, {
    actorId: userId,
    channels: names,
    principals: null,
    authorizationErrorsFatal: false,
    preauthorized: true,
    creation: DEFAULT_CREATION, // never used: every named channel exists
  });
}
