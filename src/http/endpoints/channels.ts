// Channels: GET /streams, GET/PATCH/DELETE /streams/{id}, GET /get_stream_id,
// GET /streams/{id}/members, POST/DELETE /default_streams, POST /streams/{id}/delete_topic.
import { z } from 'zod';
import type { ChannelRecord } from '../../actors/realm/channel-index.js';
import type { GroupSettingInput } from '../../actors/realm/group-settings.js';
import { activeSubscribers, canReadChannel, canSeeChannel, channelObject } from '../../actors/realm/channel-view.js';
import { CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES, type ChannelGroupSetting } from '../../domain/channels.js';
import { errors } from '../../domain/errors.js';
import { topicFromClient } from '../../domain/events/topics.js';
import { isAdmin } from '../../domain/roles.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { requireAdmin } from '../guards.js';
import { j, p } from '../params.js';
import { listChannels } from '../views/subscriptions.js';
import { tellChannelChanges } from '../../actors/conversations/notices.js';

/** message_retention_days: "realm_default" (null), "unlimited"/"forever" (-1) or a number of days. */
export const retentionDays = () =>
  p.string().transform((s, c): number | null => {
    if (s === 'realm_default') return null;
    if (s === 'unlimited' || s === 'forever') return -1;
    const n = /^\d{1,9}$/.test(s) ? Number(s) : NaN;
    if (n >= 1) return n;
    c.addIssue({ code: 'custom', message: `Bad value for '{var}': ${s}` });
    return z.NEVER;
  });

/** The channel a user may see (metadata access), or "Invalid channel ID". */
export function visibleChannel(ctx: UserContext, channelId: number): ChannelRecord {
  const c = ctx.realm.state.channels.get(channelId);
  if (!c || !canSeeChannel(ctx.realm.state, ctx.user, c)) throw errors.invalidChannelId();
  return c;
}

/** The channel a user may read (content access), or "Invalid channel ID". */
export function readableChannel(ctx: UserContext, channelId: number): ChannelRecord {
  const c = ctx.realm.state.channels.get(channelId);
  if (!c || !canReadChannel(ctx.realm.state, ctx.user, c)) throw errors.invalidChannelId();
  return c;
}

const flag = (d: 'true' | 'false') => p.bool().default(d);

export const getStreams = userEndpoint(
  z.object({
    include_public: flag('true'),
    include_web_public: flag('false'),
    include_subscribed: flag('true'),
    exclude_archived: flag('true'),
    include_all: flag('false'),
    include_all_active: flag('false'),
    include_default: flag('false'),
    include_owner_subscribed: flag('false'),
    include_can_access_content: flag('false'),
  }),
  async (ctx, q) => {
    if (q.include_all_active && !isAdmin(ctx.user.role)) throw errors.badRequest('User not authorized for this query');
    const channels = listChannels(ctx.realm, ctx.user, {
      includePublic: q.include_public,
      includeWebPublic: q.include_web_public,
      includeSubscribed: q.include_subscribed,
      excludeArchived: q.exclude_archived,
      includeAll: q.include_all || q.include_all_active,
      includeOwnerSubscribed: q.include_owner_subscribed,
      includeCanAccessContent: q.include_can_access_content,
    });
    const defaults = ctx.realm.state.channels.defaultChannelIds;
    return {
      streams: channels.map((c) => {
        const o = channelObject(ctx.realm.state, c);
        return q.include_default ? { ...o, is_default: defaults.has(c.id) } : o;
      }),
    };
  },
);

export const getStream = userEndpoint(z.object({ stream_id: p.int() }), async (ctx, q) => ({
  stream: channelObject(ctx.realm.state, visibleChannel(ctx, q.stream_id)),
}));

export const getStreamId = userEndpoint(z.object({ stream: p.string() }), async (ctx, q) => {
  const c = ctx.realm.state.channels.byName(q.stream);
  if (!c || !canReadChannel(ctx.realm.state, ctx.user, c)) throw errors.invalidChannelName(q.stream);
  return { stream_id: c.id };
});

export const getSubscribers = userEndpoint(z.object({ stream_id: p.int() }), async (ctx, q) => ({
  subscribers: activeSubscribers(ctx.realm.state, visibleChannel(ctx, q.stream_id).id),
}));

const groupChange = () => p.json(z.object({ new: j.groupSetting, old: j.groupSetting.optional() }).strict());

const updateShape = {
  stream_id: p.int(),
  description: p.string().optional(),
  new_name: p.string().optional(),
  is_private: p.bool().optional(),
  is_web_public: p.bool().optional(),
  history_public_to_subscribers: p.bool().optional(),
  is_default_stream: p.bool().optional(),
  message_retention_days: retentionDays().optional(),
  is_archived: p.bool().optional(),
  folder_id: p.json(z.number().int().nullable()).optional(),
  topics_policy: p.enum(TOPICS_POLICIES).optional(),
  ...(Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((s) => [s, groupChange().optional()])) as Record<
    ChannelGroupSetting,
    z.ZodOptional<ReturnType<typeof groupChange>>
  >),
};

export const updateStream = userEndpoint(z.object(updateShape), async (ctx, q) => {
  const groupSettings: Partial<Record<ChannelGroupSetting, { new: GroupSettingInput; old?: GroupSettingInput | undefined }>> = {};
  for (const s of CHANNEL_GROUP_SETTINGS) if (q[s] !== undefined) groupSettings[s] = q[s];
  const changed = await ctx.realm.ask('channel.update', {
    actorId: ctx.user.id,
    channelId: q.stream_id,
    name: q.new_name,
    description: q.description,
    isPrivate: q.is_private,
    isWebPublic: q.is_web_public,
    historyPublic: q.history_public_to_subscribers,
    isDefault: q.is_default_stream,
    messageRetentionDays: q.message_retention_days,
    isArchived: q.is_archived,
    folderId: q.folder_id,
    topicsPolicy: q.topics_policy,
    groupSettings,
  });
  if (changed) await tellChannelChanges(ctx.realm, ctx.user, changed);
  return {};
});

export const archiveStream = userEndpoint(z.object({ stream_id: p.int() }), async (ctx, q) => {
  const archived = await ctx.realm.ask('channel.archive', { actorId: ctx.user.id, channelId: q.stream_id });
  await tellChannelChanges(ctx.realm, ctx.user, archived);
  return {};
});

export const addDefaultStream = userEndpoint(z.object({ stream_id: p.int() }), async (ctx, q) => {
  await ctx.realm.ask('channel.setDefault', { actorId: ctx.user.id, channelId: q.stream_id, isDefault: true });
  return {};
});

export const removeDefaultStream = userEndpoint(z.object({ stream_id: p.int() }), async (ctx, q) => {
  await ctx.realm.ask('channel.setDefault', { actorId: ctx.user.id, channelId: q.stream_id, isDefault: false });
  return {};
});

/**
 * POST /streams/{id}/delete_topic (administrators): every message of the topic the administrator
 * may read goes, newest first, in batches; `complete: false` asks the client to repeat the
 * request for the rest.
 */
export const deleteTopic = userEndpoint(z.object({ stream_id: p.int(), topic_name: p.string() }), async (ctx, q) => {
  requireAdmin(ctx.user);
  const c = readableChannel(ctx, q.stream_id);
  const topic = topicFromClient(q.topic_name.trim(), ctx.realm.state.realm.settings.empty_topic_display_name);
  // Protected history: only the messages the administrator received.
  const receivedBy = c.history_public_to_subscribers ? null : ctx.user.id;
  return ctx.realm.conversations.ask({ kind: 'channel', channelId: c.id }, 'deleteTopic', { channelId: c.id, topic, receivedBy });
});
