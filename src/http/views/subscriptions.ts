// A user's channels as the API lists them: their subscriptions, former subscriptions and the
// channels they could join, with subscriber lists as requested (include_subscribers), and the
// channel lists of GET /streams. Shared by the endpoints and POST /register.
import type { RealmHandle } from '../../actors/realm/actor.js';
import type { ChannelRecord } from '../../actors/realm/channel-index.js';
import { activeSubscribers, canReadChannel, canSeeChannel, channelObject, subscriptionObject } from '../../actors/realm/channel-view.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { resolveNotificationDefaults } from '../../domain/events/present.js';
import { recentlyActive, userSubscriptions } from '../../store/channels.js';

/** Below this many subscribers a channel's list is always complete (include_subscribers=partial). */
export const FULL_SUBSCRIBER_LIST_BELOW = 250;
const RECENT_ACTIVITY_MS = 14 * 86_400_000;

export type IncludeSubscribers = 'true' | 'false' | 'partial';

export interface ListOptions {
  readonly includeSubscribers: IncludeSubscribers;
  /** false: archived channels are left out (clients without archived_channels). */
  readonly includeArchived: boolean;
  /** false: null notification settings are replaced by the user's defaults. */
  readonly notificationSettingsNull: boolean;
  readonly nowMs: number;
}

/** `subscribers` or `partial_subscribers` for one channel, per include_subscribers. */
async function subscriberFields(
  realm: RealmHandle,
  viewer: UserRecord,
  c: ChannelRecord,
  mode: IncludeSubscribers,
  nowMs: number,
): Promise<Record<string, number[]>> {
  if (mode === 'false') return {};
  // Users who may not know the subscribers get an empty list, as the reference does.
  if (!canSeeChannel(realm.state, viewer, c)) return { subscribers: [] };
  const all = activeSubscribers(realm.state, c.id);
  if (mode === 'true' || all.length < FULL_SUBSCRIBER_LIST_BELOW) return { subscribers: all };
  const recent = new Set(await recentlyActive(realm.services.db, all, nowMs - RECENT_ACTIVITY_MS));
  return { partial_subscribers: all.filter((u) => recent.has(u) || realm.state.user(u)?.is_bot) };
}

export interface SubscriptionLists {
  readonly subscriptions: Record<string, unknown>[];
  readonly unsubscribed: Record<string, unknown>[];
  readonly never_subscribed: Record<string, unknown>[];
}

export async function gatherSubscriptions(realm: RealmHandle, user: UserRecord, o: ListOptions): Promise<SubscriptionLists> {
  const state = realm.state;
  const rows = await userSubscriptions(realm.services.db, user.id);
  const known = new Set<number>();
  const subscriptions: Record<string, unknown>[] = [];
  const unsubscribed: Record<string, unknown>[] = [];
  const shown = (c: ChannelRecord | undefined): c is ChannelRecord => c !== undefined && (o.includeArchived || !c.is_archived);
  const finish = (sub: Record<string, unknown>) =>
    o.notificationSettingsNull ? sub : resolveNotificationDefaults(sub, user.settings as Readonly<Record<string, unknown>>);
  for (const row of rows) {
    known.add(row.channel_id);
    const c = state.channels.get(row.channel_id);
    if (!shown(c)) continue;
    // The cache, not the row, says whether the subscription is active (it is what events follow).
    const active = state.channels.isSubscribed(user.id, c.id);
    // A former subscription is listed while the user can still see the channel.
    if (!active && !canSeeChannel(state, user, c)) continue;
    const sub = { ...subscriptionObject(state, c, row), ...(await subscriberFields(realm, user, c, o.includeSubscribers, o.nowMs)) };
    (active ? subscriptions : unsubscribed).push(finish(sub));
  }
  const neverSubscribed: Record<string, unknown>[] = [];
  for (const c of state.channels.all()) {
    if (known.has(c.id) || !shown(c) || !canSeeChannel(state, user, c)) continue;
    neverSubscribed.push({ ...channelObject(state, c), ...(await subscriberFields(realm, user, c, o.includeSubscribers, o.nowMs)) });
  }
  const byName = (a: Record<string, unknown>, b: Record<string, unknown>) => String(a.name).localeCompare(String(b.name));
  return { subscriptions: subscriptions.sort(byName), unsubscribed: unsubscribed.sort(byName), never_subscribed: neverSubscribed.sort(byName) };
}

export interface StreamFilter {
  readonly includePublic: boolean;
  readonly includeWebPublic: boolean;
  readonly includeSubscribed: boolean;
  readonly excludeArchived: boolean;
  readonly includeAll: boolean;
  readonly includeOwnerSubscribed: boolean;
  readonly includeCanAccessContent: boolean;
}

/** The channels GET /streams returns for these flags, sorted by name. */
export function listChannels(realm: RealmHandle, user: UserRecord, f: StreamFilter): ChannelRecord[] {
  const state = realm.state;
  const out: ChannelRecord[] = [];
  const owner = user.is_bot && user.bot_owner_id !== null ? state.user(user.bot_owner_id) : undefined;
  for (const c of state.channels.all()) {
    if (f.excludeArchived && c.is_archived) continue;
    let include: boolean;
    if (f.includeAll) include = canSeeChannel(state, user, c);
    else {
      const subscribed = state.channels.isSubscribed(user.id, c.id);
      include =
        (f.includeCanAccessContent && canReadChannel(state, user, c)) ||
        (f.includeSubscribed && subscribed) ||
        (f.includePublic && !c.invite_only && user.role !== 600) ||
        (f.includeWebPublic && c.is_web_public) ||
        (f.includeOwnerSubscribed && owner !== undefined && state.channels.isSubscribed(owner.id, c.id));
    }
    if (include) out.push(c);
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The `streams` member of POST /register: every channel the user may see. */
export function visibleChannels(realm: RealmHandle, user: UserRecord, includeArchived: boolean): Record<string, unknown>[] {
  const state = realm.state;
  const out: Record<string, unknown>[] = [];
  for (const c of state.channels.all()) {
    if (!includeArchived && c.is_archived) continue;
    if (canSeeChannel(state, user, c)) out.push(channelObject(state, c));
  }
  return out;
}
