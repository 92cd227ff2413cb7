// The message members of POST /register: max_message_id, unread_msgs (with both `message` and
// `update_message_flags` requested), starred_messages, recent_private_conversations and
// user_topics.
import { dmKeyUsers } from '../../actors/realm/channel-index.js';
import { FLAG_BITS } from '../../domain/flags.js';
import * as store from '../../store/unreads.js';
import type { StateContext, StateProvider } from './state.js';

/** The most recent unread messages reported; beyond them old_unreads_missing is true. */
export const MAX_UNREAD_MESSAGES = 50_000;
/** How many of a user's latest direct messages define their "recent" conversations. */
export const RECENT_DIRECT_MESSAGES = 1000;

const VISIBILITY = { muted: 1, unmuted: 2, followed: 3 } as const;

/** Topic names as the client shows them (convention 9). */
function topicShown(ctx: StateContext, topic: string): string {
  return topic === '' && !ctx.options.capabilities.empty_topic_name ? ctx.realm.state.realm.settings.empty_topic_display_name : topic;
}

async function unreadMsgs(ctx: StateContext): Promise<Record<string, unknown>> {
  const { realm } = ctx;
  const user = ctx.user!;
  const db = realm.services.db;
  const [rows, mutedChannels, topics] = await Promise.all([
    store.unreadMessages(db, user.id, MAX_UNREAD_MESSAGES + 1),
    store.mutedChannels(db, user.id),
    store.userTopics(db, user.id),
  ]);
  const missing = rows.length > MAX_UNREAD_MESSAGES;
  const unread = [...rows.slice(0, MAX_UNREAD_MESSAGES)].reverse();
  const muted = new Set(mutedChannels);
  const policy = new Map(topics.map((t) => [`${t.channel_id}:${t.topic.toLowerCase()}`, t.visibility_policy]));
  const isMuted = (channelId: number, topic: string) => {
    const p = policy.get(`${channelId}:${topic.toLowerCase()}`);
    if (p === VISIBILITY.muted) return true;
    return muted.has(channelId) && p !== VISIBILITY.unmuted && p !== VISIBILITY.followed;
  };
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const mentions: number[] = [];
  let count = 0;
  for (const r of unread) {
    const mentionedDirectly = (r.flags & FLAG_BITS.mentioned) !== 0;
    const wildcard = (r.flags & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0;
    if (r.channel_id !== null) {
      if (!realm.state.channels.isSubscribed(user.id, r.channel_id)) continue;
      const topic = r.topic ?? '';
      const mutedHere = isMuted(r.channel_id, topic);
      const key = `${r.channel_id}:${topic}`;
      let s = streams.get(key);
      if (!s) streams.set(key, (s = { stream_id: r.channel_id, topic: topicShown(ctx, topic), unread_message_ids: [] }));
      s.unread_message_ids.push(r.message_id);
      if (!mutedHere) count++;
      if (mentionedDirectly || (wildcard && !mutedHere)) mentions.push(r.message_id);
      continue;
    }
    count++;
    if (mentionedDirectly || wildcard) mentions.push(r.message_id);
    const users = dmKeyUsers(r.dm_key!);
    if (users.length <= 2) {
      const other = users.find((u) => u !== user.id) ?? user.id;
      let l = pms.get(other);
      if (!l) pms.set(other, (l = []));
      l.push(r.message_id);
    } else {
      let l = huddles.get(r.dm_key!);
      if (!l) huddles.set(r.dm_key!, (l = []));
      l.push(r.message_id);
    }
  }
  return {
    count,
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    // One entry per channel and topic, in the order their first unread message arrived.
    streams: [...streams.values()],
    huddles: [...huddles].map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    old_unreads_missing: missing,
  };
}

export const messageState: StateProvider = {
  types: ['message'],
  spectators: false,
  async fetch(ctx) {
    const out: Record<string, unknown> = { max_message_id: await store.maxMessageId(ctx.realm.services.db, ctx.user!.id) };
    if (ctx.wants('update_message_flags')) out.unread_msgs = await unreadMsgs(ctx);
    return out;
  },
};

export const starredState: StateProvider = {
  types: ['starred_messages'],
  spectators: false,
  async fetch(ctx) {
    return { starred_messages: [...(await store.starredMessages(ctx.realm.services.db, ctx.user!.id))] };
  },
};

export const recentPrivateState: StateProvider = {
  types: ['recent_private_conversations'],
  spectators: false,
  async fetch(ctx) {
    const me = ctx.user!.id;
    const rows = await store.recentDmConversations(ctx.realm.services.db, me, RECENT_DIRECT_MESSAGES);
    return {
      recent_private_conversations: rows.map((r) => ({
        max_message_id: r.max_id,
        user_ids: dmKeyUsers(r.dm_key).filter((u) => u !== me),
      })),
    };
  },
};

export const userTopicState: StateProvider = {
  types: ['user_topic'],
  spectators: false,
  async fetch(ctx) {
    const rows = await store.userTopics(ctx.realm.services.db, ctx.user!.id);
    return {
      user_topics: rows.map((t) => ({
        stream_id: t.channel_id,
        topic_name: topicShown(ctx, t.topic),
        last_updated: Math.floor(t.last_updated / 1000),
        visibility_policy: t.visibility_policy,
      })),
    };
  },
};
