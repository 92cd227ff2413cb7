// Reducers for message events: message, update_message, delete_message,
// update_message_flags, reaction, typing, user_topic — how a client keeps max_message_id,
// unread_msgs, starred_messages, recent_private_conversations and user_topics current.
import type { Reducer, RegisterState } from './types.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MUTED = 1;
const UNMUTED = 2;
const FOLLOWED = 3;

function topicPolicy(state: RegisterState, streamId: number, topic: string): number | undefined {
  return (state.user_topics as Obj[] | undefined)?.find((t) => t.stream_id === streamId && t.topic_name.toLowerCase() === topic.toLowerCase())
    ?.visibility_policy;
}

function isMutedTopic(state: RegisterState, streamId: number, topic: string): boolean {
  const p = topicPolicy(state, streamId, topic);
  if (p === MUTED) return true;
  const sub = (state.subscriptions as Obj[] | undefined)?.find((s) => s.stream_id === streamId);
  return sub?.is_muted === true && p !== UNMUTED && p !== FOLLOWED;
}

function isSubscribed(state: RegisterState, streamId: number): boolean {
  const subs = state.subscriptions as Obj[] | undefined;
  return subs === undefined || subs.some((s) => s.stream_id === streamId);
}

/** The unread bookkeeping of one message, as the client derives it from the message. */
export interface UnreadInfo {
  readonly id: number;
  readonly type: 'stream' | 'private';
  readonly streamId?: number;
  readonly topic?: string;
  readonly recipientIds?: number[];
  readonly flags: readonly string[];
}

export function addUnread(state: RegisterState, m: UnreadInfo): void {
  const u = state.unread_msgs as Obj | undefined;
  if (!u) return;
  const direct = m.flags.includes('mentioned');
  const wildcard = m.flags.includes('stream_wildcard_mentioned') || m.flags.includes('topic_wildcard_mentioned');
  const insertSorted = (list: number[], id: number) => {
    if (list.includes(id)) return false;
    list.push(id);
    list.sort((a, b) => a - b);
    return true;
  };
  if (m.type === 'stream') {
    if (!isSubscribed(state, m.streamId!)) return;
    const muted = isMutedTopic(state, m.streamId!, m.topic!);
    let entry = (u.streams as Obj[]).find((s) => s.stream_id === m.streamId && s.topic === m.topic);
    if (!entry) {
      entry = { stream_id: m.streamId, topic: m.topic, unread_message_ids: [] };
      u.streams.push(entry);
      // Entries of a channel are kept in the order of their first unread message.
      u.streams.sort((a: Obj, b: Obj) => a.stream_id - b.stream_id || (a.unread_message_ids[0] ?? m.id) - (b.unread_message_ids[0] ?? m.id));
    }
    if (!insertSorted(entry.unread_message_ids, m.id)) return;
    u.streams.sort((a: Obj, b: Obj) => a.stream_id - b.stream_id || a.unread_message_ids[0] - b.unread_message_ids[0]);
    if (!muted) u.count++;
    if (direct || (wildcard && !muted)) insertSorted(u.mentions, m.id);
    return;
  }
  const me = state.user_id as number | undefined;
  const people = m.recipientIds!;
  if (people.length <= 2) {
    const other = people.find((p) => p !== me) ?? me;
    let entry = (u.pms as Obj[]).find((p) => p.other_user_id === other);
    if (!entry) u.pms.push((entry = { other_user_id: other, sender_id: other, unread_message_ids: [] }));
    if (!insertSorted(entry.unread_message_ids, m.id)) return;
  } else {
    const key = [...people].sort((a, b) => a - b).join(',');
    let entry = (u.huddles as Obj[]).find((h) => h.user_ids_string === key);
    if (!entry) u.huddles.push((entry = { user_ids_string: key, unread_message_ids: [] }));
    if (!insertSorted(entry.unread_message_ids, m.id)) return;
  }
  u.count++;
  if (direct || wildcard) insertSorted(u.mentions, m.id);
}

/** Remove messages from unread_msgs (read, or deleted). */
export function removeUnread(state: RegisterState, ids: readonly number[]): void {
  const u = state.unread_msgs as Obj | undefined;
  if (!u) return;
  const gone = new Set(ids);
  for (const key of ['streams', 'pms', 'huddles']) {
    for (const entry of u[key] as Obj[]) {
      const before = entry.unread_message_ids.length;
      entry.unread_message_ids = entry.unread_message_ids.filter((id: number) => !gone.has(id));
      const removed = before - entry.unread_message_ids.length;
      if (removed > 0 && !(key === 'streams' && isMutedTopic(state, entry.stream_id, entry.topic))) u.count -= removed;
    }
    u[key] = (u[key] as Obj[]).filter((e) => e.unread_message_ids.length > 0);
  }
  u.mentions = (u.mentions as number[]).filter((id) => !gone.has(id));
}

const message: Reducer = (state, e) => {
  const m = e.message as Obj;
  if (typeof state.max_message_id === 'number') state.max_message_id = Math.max(state.max_message_id, m.id);
  const flags = e.flags as string[];
  const people = m.type === 'private' ? (m.display_recipient as Obj[]).map((p) => p.id as number) : undefined;
  if (!flags.includes('read')) {
    addUnread(state, { id: m.id, type: m.type, streamId: m.stream_id, topic: m.subject, recipientIds: people, flags });
  }
  if (people && state.recent_private_conversations) {
    const me = state.user_id as number | undefined;
    const others = people.filter((p) => p !== me).sort((a, b) => a - b);
    const list = state.recent_private_conversations as Obj[];
    const at = list.find((c) => JSON.stringify(c.user_ids) === JSON.stringify(others));
    if (at) at.max_message_id = Math.max(at.max_message_id, m.id);
    else list.push({ max_message_id: m.id, user_ids: others });
    list.sort((a, b) => b.max_message_id - a.max_message_id);
  }
  // The client tracks a channel's first message as it learns of messages.
  if (m.type === 'stream') {
    for (const key of ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed']) {
      for (const s of (state[key] as Obj[] | undefined) ?? []) if (s.stream_id === m.stream_id && s.first_message_id === null) s.first_message_id = m.id;
    }
  }
};

export const messageReducers: Record<string, Reducer> = {
  message,
};
