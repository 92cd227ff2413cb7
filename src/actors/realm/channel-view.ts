// The API's channel and subscription objects, built from cached realm state, and the access
// questions every channel endpoint asks about a user. Used by the realm actor (event payloads),
// handlers and POST /register alike.
import {
  CHANNEL_GROUP_SETTINGS,
  canAccessFullHistory,
  canAdministerChannel,
  hasContentAccess,
  hasMetadataAccess,
  streamPostPolicy,
  type ChannelViewer,
} from '../../domain/channels.js';
import type { SubscriptionRow } from '../../store/channels.js';
import type { ChannelRecord } from './channel-index.js';
import type { RealmState, UserRecord } from './state.js';

/** Subscriber ids of a channel that are active users, ascending. */
export function activeSubscribers(state: RealmState, channelId: number): number[] {
  const out: number[] = [];
  for (const u of state.channels.subscribers(channelId)) if (state.user(u)?.is_active) out.push(u);
  return out.sort((a, b) => a - b);
}

/**
 * How many of a channel's subscribers are active users: activeSubscribers' length without the
 * list (every channel object has it; for a channel of 100,000 subscribers, 3.2 ms against 7.0).
 */
export function activeSubscriberCount(state: RealmState, channelId: number): number {
  let n = 0;
  for (const u of state.channels.subscribers(channelId)) if (state.user(u)?.is_active) n++;
  return n;
}

/** The channel object of GET /streams, `streams` in register and stream events. */
export function channelObject(state: RealmState, c: ChannelRecord): Record<string, unknown> {
  const sendGroup = state.groups.get(c.settings.can_send_message_group);
  const policy = streamPostPolicy(sendGroup?.is_system_group ? sendGroup.name : null);
  const out: Record<string, unknown> = {
    stream_id: c.id,
    name: c.name,
    is_archived: c.is_archived,
    description: c.description,
    rendered_description: c.rendered_description,
    date_created: Math.floor(c.date_created / 1000),
    creator_id: c.creator_id,
    invite_only: c.invite_only,
    is_web_public: c.is_web_public,
    stream_post_policy: policy,
    is_announcement_only: policy === 2,
    message_retention_days: c.message_retention_days,
    history_public_to_subscribers: c.history_public_to_subscribers,
    topics_policy: c.topics_policy,
    first_message_id: c.first_message_id,
    folder_id: c.folder_id,
    // Activity is not tracked yet: every channel counts as recently active.
    is_recently_active: true,
  };
  for (const s of CHANNEL_GROUP_SETTINGS) out[s] = state.groupSettingValue(c.settings[s]);
  out.subscriber_count = activeSubscriberCount(state, c.id);
  // Traffic statistics are not kept: "too little data" (null) is the honest answer.
  out.stream_weekly_traffic = null;
  return out;
}

/** The subscription object (channel fields plus the user's settings for it). */
export function subscriptionObject(state: RealmState, c: ChannelRecord, sub: SubscriptionRow): Record<string, unknown> {
  const { stream_id: _, ...channel } = channelObject(state, c);
  return {
    stream_id: c.id,
    ...channel,
    desktop_notifications: sub.desktop_notifications,
    email_notifications: sub.email_notifications,
    push_notifications: sub.push_notifications,
    audible_notifications: sub.audible_notifications,
    wildcard_mentions_notify: sub.wildcard_mentions_notify,
    pin_to_top: sub.pin_to_top,
    is_muted: sub.is_muted,
    in_home_view: !sub.is_muted,
    color: sub.color,
  };
}

/** The viewer as the channel rules see them. */
export function viewerOf(state: RealmState, user: Pick<UserRecord, 'id' | 'role'>, channelId: number): ChannelViewer {
  return { id: user.id, role: user.role, subscribed: state.channels.isSubscribed(user.id, channelId) };
}

export function canSeeChannel(state: RealmState, user: Pick<UserRecord, 'id' | 'role'>, c: ChannelRecord): boolean {
  return hasMetadataAccess(state, c, viewerOf(state, user, c.id));
}

export function canReadChannel(state: RealmState, user: Pick<UserRecord, 'id' | 'role'>, c: ChannelRecord): boolean {
  return hasContentAccess(state, c, viewerOf(state, user, c.id));
}

export function canReadFullHistory(state: RealmState, user: Pick<UserRecord, 'id' | 'role'>, c: ChannelRecord): boolean {
  return canAccessFullHistory(state, c, viewerOf(state, user, c.id));
}

/** Whether spectators (requests without credentials) may read anything: allowed and active. */
export function spectatorsAllowed(state: RealmState): boolean {
  return state.realm.settings.enable_spectator_access && !state.realm.deactivated;
}

/**
 * Whether spectators may read this channel's messages: a web-public channel that is not archived
 * (archived channels are left out of what spectators see, as in their register `streams`).
 */
export function spectatorCanRead(state: RealmState, c: ChannelRecord): boolean {
  return spectatorsAllowed(state) && c.is_web_public && !c.invite_only && !c.is_archived;
}

export function canAdminister(state: RealmState, user: Pick<UserRecord, 'id' | 'role'>, c: ChannelRecord): boolean {
  return canAdministerChannel(state, c, viewerOf(state, user, c.id));
}

/**
 * Active users who may see this channel's metadata: recipients of its stream and peer events.
 * It walks every user: with 100,000 that took 3.6 ms (4.1–4.5 when the channel's subscribers
 * were looked up once a user rather than once a walk). Where a change can alter only some users'
 * sight of the channel, ask about those (seeingAmong).
 */
export function metadataAudience(state: RealmState, c: ChannelRecord): number[] {
  const subscribers = state.channels.subscribers(c.id);
  const out: number[] = [];
  for (const u of state.users.values()) {
    if (u.is_active && hasMetadataAccess(state, c, { id: u.id, role: u.role, subscribed: subscribers.has(u.id) })) out.push(u.id);
  }
  return out;
}

/** Those of `userIds` who are active and may see this channel's metadata. */
export function seeingAmong(state: RealmState, c: ChannelRecord, userIds: Iterable<number>): Set<number> {
  const out = new Set<number>();
  for (const id of userIds) {
    const u = state.user(id);
    if (u?.is_active && canSeeChannel(state, u, c)) out.add(id);
  }
  return out;
}

