// Subscriptions: GET/POST/PATCH/DELETE /users/me/subscriptions (subscribing creates missing
// channels; PATCH subscribes and unsubscribes the caller at once),
// POST /channels/create (one new channel and its first subscribers),
// PATCH /users/me/subscriptions/{stream_id} (one setting, endpoint 12),
// POST /users/me/subscriptions/properties (several), and another user's subscriptions as the
// caller may see them (GET /users/{user_id}/subscriptions/{stream_id}, GET /users/{user_id}/channels).
import { z } from 'zod';
import { announceNewChannels, tellNewSubscribers } from '../../actors/conversations/notices.js';
import type { NewChannelOptions } from '../../actors/realm/channels.js';
import type { GroupSettingInput } from '../../actors/realm/group-settings.js';
import { canSeeChannel } from '../../actors/realm/channel-view.js';
import type { RealmState } from '../../actors/realm/state.js';
import { accessUser } from '../../actors/realm/user-access.js';
import { CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES, type ChannelGroupSetting } from '../../domain/channels.js';
import { errors } from '../../domain/errors.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { j, p } from '../params.js';
import { gatherSubscriptions } from '../views/subscriptions.js';
import { retentionDays, visibleChannel } from './channels.js';

const principalsParam = () => p.json(z.union([z.array(j.int()), z.array(z.string())]));

/** Principals (ids or API emails) as active user ids; anything else is refused as a whole. */
export function resolvePrincipals(state: RealmState, principals: ReadonlyArray<number | string>): number[] {
  return principals.map((pr) => {
    const u = typeof pr === 'number' ? state.user(pr) : state.userByEmail(pr);
    if (!u || !u.is_active) throw errors.invalidPrincipal(pr);
    return u.id;
  });
}

export const getSubscriptions = userEndpoint(
  z.object({ include_subscribers: p.enum(['true', 'false', 'partial']).default('false') }),
  async (ctx, q) => {
    const lists = await gatherSubscriptions(ctx.realm, ctx.user, {
      includeSubscribers: q.include_subscribers,
      includeArchived: true,
      notificationSettingsNull: true,
      nowMs: ctx.app.clock.now(),
    });
    return { subscriptions: lists.subscriptions };
  },
);

/** The options of channels created by a request (subscribing to missing channels, POST /channels/create). */
const creationShape = {
  announce: p.bool().default('false'),
  invite_only: p.bool().default('false'),
  is_web_public: p.bool().default('false'),
  is_default_stream: p.bool().default('false'),
  history_public_to_subscribers: p.bool().optional(),
  message_retention_days: retentionDays().optional(),
  topics_policy: p.enum(TOPICS_POLICIES).optional(),
  folder_id: p.int().optional(),
  send_new_subscription_messages: p.bool().default('true'),
  ...(Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, p.json(j.groupSetting).optional()])) as Record<
    ChannelGroupSetting,
    z.ZodOptional<ReturnType<typeof p.json<ReturnType<() => typeof j.groupSetting>>>>
  >),
};
type CreationParams = z.output<z.ZodObject<typeof creationShape>>;

function creationOptions(q: CreationParams): NewChannelOptions {
  const groupSettings: Partial<Record<ChannelGroupSetting, GroupSettingInput>> = {};
  for (const s of CHANNEL_GROUP_SETTINGS) if (q[s] !== undefined) groupSettings[s] = q[s];
  const inviteOnly = q.invite_only;
  return {
    kind: {
      inviteOnly,
      isWebPublic: q.is_web_public,
      historyPublic: inviteOnly ? (q.history_public_to_subscribers ?? false) : true,
      isDefault: q.is_default_stream,
      messageRetentionDays: q.message_retention_days,
    },
    topicsPolicy: q.topics_policy,
    folderId: q.folder_id ?? null,
    groupSettings,
  };
}

/** Channels to subscribe to, by name: a created one's description, the subscription's colour. */
const channelSpecs = () => p.json(z.array(z.object({ name: z.string(), description: z.string().optional(), color: z.string().optional() })));

const subscribeShape = {
  subscriptions: channelSpecs(),
  principals: principalsParam().optional(),
  authorization_errors_fatal: p.bool().default('true'),
  ...creationShape,
};

export const subscribe = userEndpoint(z.object(subscribeShape), async (ctx, q) => {
  const result = await ctx.realm.ask('subscription.subscribe', {
    actorId: ctx.user.id,
    channels: q.subscriptions,
    principals: q.principals === undefined ? null : resolvePrincipals(ctx.realm.state, q.principals),
    authorizationErrorsFatal: q.authorization_errors_fatal,
    creation: creationOptions(q),
  });
  if (q.announce) await announceNewChannels(ctx.realm, ctx.user, result.created);
  if (!q.send_new_subscription_messages) return { ...result.result };
  const sent = await tellNewSubscribers(ctx.realm, ctx.user, result.result.subscribed, result.created);
  return { ...result.result, new_subscription_messages_sent: sent };
});

const createChannelShape = {
  name: p.string(),
  description: p.string().default(''),
  subscribers: p.json(z.array(j.int())),
  ...creationShape,
};

/** POST /channels/create: a new channel (a taken name is a 409), subscribing the users listed. */
export const createChannel = userEndpoint(z.object(createChannelShape), async (ctx, q) => {
  const { id } = await ctx.realm.ask('channel.create', {
    actorId: ctx.user.id,
    name: q.name,
    description: q.description,
    subscribers: resolvePrincipals(ctx.realm.state, q.subscribers),
    creation: creationOptions(q),
  });
  if (q.announce) await announceNewChannels(ctx.realm, ctx.user, [id]);
  return { id };
});

export const unsubscribe = userEndpoint(
  z.object({ subscriptions: p.json(z.array(z.string())), principals: principalsParam().optional() }),
  async (ctx, q) => ({
    ...(await ctx.realm.ask('subscription.unsubscribe', {
      actorId: ctx.user.id,
      names: q.subscriptions,
      principals: q.principals === undefined ? null : resolvePrincipals(ctx.realm.state, q.principals),
    })),
  }),
);

/** PATCH /users/me/subscriptions: subscribe to some channels and leave others, all or nothing. */
export const updateSubscriptions = userEndpoint(
  z.object({ add: channelSpecs().optional(), delete: p.json(z.array(z.string())).optional() }),
  async (ctx, q) => {
    const add = q.add ?? [];
    const del = q.delete ?? [];
    if (add.length === 0 && del.length === 0) throw errors.badRequest('Nothing to do. Specify at least one of "add" or "delete".');
    return { ...(await ctx.realm.ask('subscription.updateOwn', { actorId: ctx.user.id, add, delete: del })) };
  },
);

/** `value` of endpoint 12 arrives as text: booleans as "true"/"false", colours as they are. */
function propertyValue(property: string, raw: string): unknown {
  if (property === 'color') return raw;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return raw;
}

export const updateSubscription = userEndpoint(
  z.object({ stream_id: p.int(), property: p.string(), value: p.string() }),
  async (ctx, q) => {
    await ctx.realm.ask('subscription.setProperties', {
      userId: ctx.user.id,
      changes: [{ channelId: q.stream_id, property: q.property, value: propertyValue(q.property, q.value) }],
    });
    return {};
  },
);

export const updateSubscriptionProperties = userEndpoint(
  z.object({
    subscription_data: p.json(
      z.array(z.object({ stream_id: j.int(), property: z.string(), value: z.union([z.boolean(), z.string()]) })),
    ),
  }),
  async (ctx, q) => {
    await ctx.realm.ask('subscription.setProperties', {
      userId: ctx.user.id,
      changes: q.subscription_data.map((d) => ({ channelId: d.stream_id, property: d.property, value: d.value })),
    });
    return { subscription_data: q.subscription_data };
  },
);

/** Whose subscriptions are asked about: an active user (bots too) the caller may see. */
const targetUser = (ctx: UserContext, userId: number) =>
  accessUser(ctx.realm.state, ctx.user, ctx.realm.state.user(userId), { allowDeactivated: false });

export const getSubscriptionStatus = userEndpoint(z.object({ user_id: p.int(), stream_id: p.int() }), async (ctx, q) => {
  const target = targetUser(ctx, q.user_id);
  const c = visibleChannel(ctx, q.stream_id);
  return { is_subscribed: ctx.realm.state.channels.isSubscribed(target.id, c.id) };
});

/** The channels the user follows, of those whose metadata the caller may see (an administrator: all). */
export const getUserChannels = userEndpoint(z.object({ user_id: p.int() }), async (ctx, q) => {
  const target = targetUser(ctx, q.user_id);
  const state = ctx.realm.state;
  const ids: number[] = [];
  for (const id of state.channels.subscriptionsOf(target.id)) {
    const c = state.channels.get(id);
    if (c && canSeeChannel(state, ctx.user, c)) ids.push(id);
  }
  return { subscribed_channel_ids: ids.sort((a, b) => a - b) };
});
