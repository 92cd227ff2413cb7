// Realm commands for subscriptions: subscribe (creating missing channels), unsubscribe, both at
// once for oneself, creating one channel, and a user's settings for their subscriptions. Run
// inside the realm actor; subscriber sets are realm state (peersOf, fan-out audiences), so they
// change here and nowhere else. As in channels.ts, the cached state is updated at the end of the
// write and the events are built from it.
import { pickColor, isHexColor } from '../../domain/channel-colors.js';
import { checkChannelDescription, checkChannelName } from '../../domain/channels.js';
import { errors } from '../../domain/errors.js';
import { defaultStreams, streamCreate } from '../../domain/events/channels.js';
import { subscriptionAdd, subscriptionRemove, subscriptionUpdate } from '../../domain/events/subscriptions.js';
import { isAdmin } from '../../domain/roles.js';
import * as store from '../../store/channels.js';
import type { RealmContext } from './actor.js';
import type { ChannelRecord } from './channel-index.js';
import { activeSubscribers, canAdminister, canReadChannel, canSeeChannel, channelObject, metadataAudience, seeingAmong, subscriptionObject } from './channel-view.js';
import { actorOf, checkNewChannelOptions, emitVisibilityChange, insertChannels, type NewChannelOptions } from './channels.js';
import { applyStoredGroupSettings } from './group-settings.js';
import { renderData } from './markdown-context.js';
import { peerEvents } from './peer-events.js';
import type { RealmState, UserRecord } from './state.js';

export interface SubscribeInput {
  readonly actorId: number;
  /** By name; `color` is the new subscriptions' colour (else one picked), `description` a created channel's. */
  readonly channels: ReadonlyArray<{ readonly name: string; readonly description?: string | undefined; readonly color?: string | undefined }>;
  /** Users to subscribe (validated active users); null = the actor. */
  readonly principals: readonly number[] | null;
  readonly authorizationErrorsFatal: boolean;
  readonly creation: NewChannelOptions;
  /**
   * The access and subscribe-others checks were made by the caller on someone's behalf (an
   * invitation checked its inviter's permissions when it was created): skip them.
   */
  readonly preauthorized?: boolean | undefined;
}

export interface SubscribeResult {
  readonly subscribed: Record<string, string[]>;
  readonly already_subscribed: Record<string, string[]>;
  readonly unauthorized?: string[];
}

/** May the actor add other users to this channel (which they can read)? */
function canAddSubscribers(state: RealmState, actor: UserRecord, c: ChannelRecord): boolean {
  if (isAdmin(actor.role) || state.hasRealmPermission(actor.id, 'can_add_subscribers_group')) return true;
  if (actor.role === 600) return false;
  return canAdminister(state, actor, c) || state.isInGroup(actor.id, c.settings.can_add_subscribers_group);
}

const push = (m: Record<string, string[]>, userId: number, name: string) => (m[String(userId)] ??= []).push(name);

/** The API's answer, and the ids of the channels the request created (for their announcement). */
export interface SubscribeOutcome {
  readonly result: SubscribeResult;
  readonly created: readonly number[];
}

async function subscribe(ctx: RealmContext, input: SubscribeInput): Promise<SubscribeOutcome> {
  const { state } = ctx;
  const actor = actorOf(state, input.actorId);
  const principals = [...new Set(input.principals ?? [actor.id])];
  const others = principals.some((id) => id !== actor.id);

  // Requested names, deduplicated case-insensitively; existing channels and the ones to create.
  const requested = new Map<string, { name: string; description: string; color: string | undefined }>();
  for (const c of input.channels) {
    const name = checkChannelName(c.name);
    if (c.color !== undefined && !isHexColor(c.color)) throw errors.badRequest('color is not a valid hex color code');
    if (!requested.has(name.toLowerCase())) {
      requested.set(name.toLowerCase(), { name, description: checkChannelDescription(c.description ?? ''), color: c.color });
    }
  }
  const existing: ChannelRecord[] = [];
  const missing: Array<{ name: string; description: string }> = [];
  for (const spec of requested.values()) {
    const c = state.channels.byName(spec.name);
    if (c) existing.push(c);
    else missing.push(spec);
  }
  if (missing.length > 0) checkNewChannelOptions(state, actor, input.creation);

  const authorized: ChannelRecord[] = [];
  const unauthorized: ChannelRecord[] = [];
  const allowed = (c: ChannelRecord) => input.preauthorized === true || canReadChannel(state, actor, c);
  for (const c of existing) (allowed(c) && !c.is_archived ? authorized : unauthorized).push(c);
  if (unauthorized.length > 0 && input.authorizationErrorsFatal) {
    throw errors.badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
  }
  if (others && input.preauthorized !== true && authorized.some((c) => !canAddSubscribers(state, actor, c))) {
    throw errors.badRequest('You do not have permission to subscribe other users to channels.');
  }

  const result: SubscribeResult = {
    subscribed: {},
    already_subscribed: {},
    ...(input.authorizationErrorsFatal ? {} : { unauthorized: unauthorized.map((c) => c.name) }),
  };
  const data = missing.length > 0 ? renderData(state) : null;
  const used = await colorsInUse(ctx, principals);

  const made = await ctx.write(async (tx, emit) => {
    const made = data ? await insertChannels(ctx, tx, actor, missing, input.creation, data) : { created: [], groups: [] };
    const targets = [...made.created, ...authorized];
    const added = new Map<number, number[]>();
    for (const c of targets) {
      const current = state.channels.subscribers(c.id);
      const fresh = principals.filter((u) => !current.has(u));
      for (const u of principals) if (current.has(u)) push(result.already_subscribed, u, c.name);
      const asked = requested.get(c.name.toLowerCase())?.color;
      const activated = await store.activateSubscriptions(
        tx,
        c.id,
        fresh.map((userId) => {
          const mine = used.get(userId) ?? new Set<string>();
          const color = asked ?? pickColor(mine);
          mine.add(color);
          used.set(userId, mine);
          return { userId, color };
        }),
      );
      for (const u of activated) push(result.subscribed, u, c.name);
      added.set(c.id, activated);
    }

    // The new state, then the events that describe it. New channels are announced before they
    // have subscribers (as creation and subscription are two steps for clients: create, then
    // peer_add), existing ones to whoever gains sight of them through this subscription.
    const rows = await subscriptionRowsFor(tx, added);
    applyStoredGroupSettings(state, made.groups);
    // Who of the users subscribed sees each channel before: theirs is the only sight that changes.
    const before = new Map<number, Set<number>>();
    for (const c of made.created) {
      state.channels.put(c);
      emit(streamCreate.build({ op: 'create', streams: [channelObject(state, c)] }, { userIds: metadataAudience(state, c) }));
      before.set(c.id, seeingAmong(state, c, added.get(c.id) ?? []));
    }
    for (const c of authorized) before.set(c.id, seeingAmong(state, c, added.get(c.id) ?? []));
    const newDefaults = made.created.length > 0 && input.creation.kind.isDefault;
    if (newDefaults) {
      state.channels.setDefaults([...state.channels.defaultChannelIds, ...made.created.map((c) => c.id)]);
    }
    for (const [channelId, users] of added) state.channels.addSubscribers(channelId, users);
    for (const c of targets) emitVisibilityChange(state, emit, c, before.get(c.id)!, added.get(c.id) ?? []);
    for (const c of targets) {
      const users = added.get(c.id) ?? [];
      if (users.length === 0) continue;
      const subscribers = activeSubscribers(state, c.id);
      for (const u of users) {
        const sub = rows.get(`${c.id}:${u}`)!;
        emit(subscriptionAdd.build({ op: 'add', subscriptions: [{ ...subscriptionObject(state, c, sub), subscribers }] }, { userIds: [u] }));
      }
    }
    for (const e of peerEvents(state, 'peer_add', added)) emit(e);
    if (newDefaults) {
      emit(defaultStreams.build({ default_streams: [...state.channels.defaultChannelIds].sort((a, b) => a - b) }, { userIds: null }));
    }
    return made;
  });
  return { result, created: made.created.map((c) => c.id) };
}

/**
 * POST /channels/create: one new channel, created with these subscribers (none, its creator,
 * others) as subscribing to a missing channel would. A name already taken is refused.
 */
async function createChannel(
  ctx: RealmContext,
  input: Omit<SubscribeInput, 'channels' | 'principals' | 'authorizationErrorsFatal'> & {
    readonly name: string;
    readonly description: string;
    readonly subscribers: readonly number[];
  },
): Promise<{ id: number }> {
  const name = checkChannelName(input.name);
  if (ctx.state.channels.byName(name)) throw errors.channelAlreadyExists(name);
  await subscribe(ctx, {
    ...input,
    channels: [{ name, description: input.description }],
    principals: input.subscribers,
    authorizationErrorsFatal: true,
  });
  return { id: ctx.state.channels.byName(name)!.id };
}

/** The options of a channel created without any asked for: public, as by default. */
export const DEFAULT_CREATION: NewChannelOptions = {
  kind: { inviteOnly: false, isWebPublic: false, historyPublic: true, isDefault: false, messageRetentionDays: undefined },
  topicsPolicy: undefined,
  folderId: null,
  groupSettings: {},
};

/**
 * PATCH /users/me/subscriptions: the actor subscribes to `add` (creating missing channels) and
 * leaves `delete`, in one turn of the realm actor. Every refusal comes before the first write:
 * the names to leave are checked first (a channel being added counts as existing), then the
 * subscription checks and writes, then the unsubscription, which has nothing left to refuse.
 */
async function updateOwnSubscriptions(
  ctx: RealmContext,
  input: { readonly actorId: number; readonly add: SubscribeInput['channels']; readonly delete: readonly string[] },
): Promise<SubscribeResult & { removed: string[]; not_removed: string[] }> {
  const adding = new Set(input.add.map((c) => c.name.trim().toLowerCase()));
  const missing = input.delete.map((n) => n.trim()).filter((n) => !ctx.state.channels.byName(n) && !adding.has(n.toLowerCase()));
  if (missing.length > 0) throw errors.channelsDoNotExist(missing);
  const added =
    input.add.length > 0
      ? (await subscribe(ctx, { actorId: input.actorId, channels: input.add, principals: null, authorizationErrorsFatal: true, creation: DEFAULT_CREATION })).result
      : { subscribed: {}, already_subscribed: {} };
  const removed = input.delete.length > 0 ? await unsubscribe(ctx, { actorId: input.actorId, names: input.delete, principals: null }) : { removed: [], not_removed: [] };
  return { ...added, ...removed };
}

async function subscriptionRowsFor(
  tx: Parameters<typeof store.subscriptionsFor>[0],
  added: ReadonlyMap<number, readonly number[]>,
): Promise<Map<string, store.SubscriptionRow>> {
  const out = new Map<string, store.SubscriptionRow>();
  for (const [channelId, users] of added) {
    if (users.length === 0) continue;
    for (const row of await store.subscriptionsFor(tx, channelId, users)) out.set(`${channelId}:${row.user_id}`, row);
  }
  return out;
}

async function colorsInUse(ctx: RealmContext, userIds: readonly number[]): Promise<Map<number, Set<string>>> {
  const out = new Map<number, Set<string>>();
  for (const r of await store.usedColors(ctx.services.db, userIds)) {
    let s = out.get(r.user_id);
    if (!s) out.set(r.user_id, (s = new Set()));
    s.add(r.color);
  }
  return out;
}

export interface UnsubscribeInput {
  readonly actorId: number;
  readonly names: readonly string[];
  readonly principals: readonly number[] | null;
}

/** May the actor remove other users from this channel? */
function canRemoveSubscribers(state: RealmState, actor: UserRecord, c: ChannelRecord): boolean {
  if (isAdmin(actor.role)) return true;
  if (actor.role === 600) return false;
  if (state.isInGroup(actor.id, c.settings.can_administer_channel_group)) return true;
  return canSeeChannel(state, actor, c) && state.isInGroup(actor.id, c.settings.can_remove_subscribers_group);
}

async function unsubscribe(ctx: RealmContext, input: UnsubscribeInput): Promise<{ removed: string[]; not_removed: string[] }> {
  const { state } = ctx;
  const actor = actorOf(state, input.actorId);
  const principals = [...new Set(input.principals ?? [actor.id])];
  const channels: ChannelRecord[] = [];
  const missing: string[] = [];
  for (const raw of input.names) {
    const name = raw.trim();
    const c = state.channels.byName(name);
    if (c) {
      if (!channels.includes(c)) channels.push(c);
    } else missing.push(name);
  }
  if (missing.length > 0) throw errors.channelsDoNotExist(missing);
  const others = principals.some((id) => id !== actor.id);
  if (others && !channels.every((c) => canRemoveSubscribers(state, actor, c))) throw errors.insufficientPermission();

  const removed: string[] = [];
  const notRemoved: string[] = [];
  await ctx.write(async (tx, emit) => {
    const gone = new Map<number, number[]>();
    for (const c of channels) {
      const users = await store.deactivateSubscriptions(tx, c.id, principals);
      gone.set(c.id, users);
      for (const u of principals) (users.includes(u) ? removed : notRemoved).push(c.name);
    }
    // Who of the users removed saw each channel before: theirs is the only sight that changes.
    const before = new Map(channels.map((c) => [c.id, seeingAmong(state, c, gone.get(c.id)!)]));
    for (const [channelId, users] of gone) state.channels.removeSubscribers(channelId, users);
    for (const c of channels) {
      const users = gone.get(c.id)!;
      if (users.length === 0) continue;
      for (const u of users) emit(subscriptionRemove.build({ op: 'remove', subscriptions: [{ stream_id: c.id, name: c.name }] }, { userIds: [u] }));
      emitVisibilityChange(state, emit, c, before.get(c.id)!, users);
    }
    // Like peer_add, peer_remove is for the others: the removed users had their remove event.
    for (const e of peerEvents(state, 'peer_remove', gone)) emit(e);
  });
  return { removed, not_removed: notRemoved };
}

export const SUBSCRIPTION_PROPERTIES = [
  'color',
  'is_muted',
  'in_home_view',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;
export type SubscriptionProperty = (typeof SUBSCRIPTION_PROPERTIES)[number];

export interface PropertyChange {
  readonly channelId: number;
  readonly property: string;
  readonly value: unknown;
}

/** Validate one change; returns the column and the stored value. */
function checkPropertyChange(state: RealmState, user: UserRecord, ch: PropertyChange): { column: store.SubscriptionColumn; value: string | boolean } {
  const c = state.channels.get(ch.channelId);
  if (!c || !canReadChannel(state, user, c)) throw errors.invalidChannelId();
  if (!state.channels.isSubscribed(user.id, c.id)) throw errors.notSubscribed(c.id);
  if (!(SUBSCRIPTION_PROPERTIES as readonly string[]).includes(ch.property)) {
    throw errors.badRequest(`Unknown subscription property: ${ch.property}`);
  }
  if (ch.property === 'color') {
    if (typeof ch.value !== 'string' || !isHexColor(ch.value)) throw errors.badRequest('color is not a valid hex color code');
    return { column: 'color', value: ch.value };
  }
  if (typeof ch.value !== 'boolean') throw errors.badRequest(`${ch.property} is not a boolean`);
  if (ch.property === 'in_home_view') return { column: 'is_muted', value: !ch.value };
  return { column: ch.property as store.SubscriptionColumn, value: ch.value };
}

async function setProperties(ctx: RealmContext, input: { userId: number; changes: readonly PropertyChange[] }): Promise<void> {
  const { state } = ctx;
  const user = actorOf(state, input.userId);
  const checked = input.changes.map((ch) => ({ ch, ...checkPropertyChange(state, user, ch) }));
  await ctx.write(async (tx, emit) => {
    for (const { ch, column, value } of checked) {
      await store.setSubscriptionProperty(tx, user.id, ch.channelId, column, value);
      const to = { userIds: [user.id] };
      if (column === 'is_muted') {
        // Both spellings, so that clients of either generation update (feature level 139).
        emit(subscriptionUpdate.build({ op: 'update', stream_id: ch.channelId, property: 'is_muted', value }, to));
        emit(subscriptionUpdate.build({ op: 'update', stream_id: ch.channelId, property: 'in_home_view', value: !value }, to));
      } else {
        emit(subscriptionUpdate.build({ op: 'update', stream_id: ch.channelId, property: column, value }, to));
      }
    }
  });
}

export const subscriptionCommands = {
  'subscription.subscribe': subscribe,
  'channel.create': createChannel,
  'subscription.unsubscribe': unsubscribe,
  'subscription.updateOwn': updateOwnSubscriptions,
  'subscription.setProperties': setProperties,
};
