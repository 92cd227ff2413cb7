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

/** unread_msgs.count as clients derive it: everything but muted channel messages. */
export function recount(state: RegisterState): void {
  const u = state.unread_msgs as Obj | undefined;
  if (!u) return;
  let n = 0;
  for (const e of u.pms as Obj[]) n += e.unread_message_ids.length;
  for (const e of u.huddles as Obj[]) n += e.unread_message_ids.length;
  for (const e of u.streams as Obj[]) if (!isMutedTopic(state, e.stream_id, e.topic)) n += e.unread_message_ids.length;
  u.count = n;
}

const updateMessage: Reducer = (state, e) => {
  const ids = e.message_ids as number[];
  const flags = (e.flags as string[] | undefined) ?? [];
  const u = state.unread_msgs as Obj | undefined;
  const moved = e.new_stream_id !== undefined || e.subject !== undefined;
  if (u && moved) {
    const toStream = (e.new_stream_id ?? e.stream_id) as number;
    const toTopic = (e.subject ?? e.orig_subject) as string;
    const movedUnread: number[] = [];
    for (const entry of u.streams as Obj[]) {
      const keep = entry.unread_message_ids.filter((id: number) => !ids.includes(id));
      if (keep.length !== entry.unread_message_ids.length) movedUnread.push(...entry.unread_message_ids.filter((id: number) => ids.includes(id)));
      entry.unread_message_ids = keep;
    }
    u.streams = (u.streams as Obj[]).filter((x) => x.unread_message_ids.length > 0);
    const wereMentions = new Set((u.mentions as number[]).filter((id) => movedUnread.includes(id)));
    u.mentions = (u.mentions as number[]).filter((id) => !movedUnread.includes(id));
    if (isSubscribed(state, toStream)) {
      for (const id of movedUnread) addUnread(state, { id, type: 'stream', streamId: toStream, topic: toTopic, flags: wereMentions.has(id) ? ['mentioned'] : [] });
    }
    recount(state);
  }
  if (moved && e.new_stream_id !== undefined && !isSubscribed(state, e.new_stream_id) && Array.isArray(state.starred_messages)) {
    state.starred_messages = (state.starred_messages as number[]).filter((id) => !ids.includes(id));
  }
  // A content edit can add or remove a mention of this user.
  if (u && e.content !== undefined && !flags.includes('read')) {
    const id = e.message_id as number;
    const mentioned = flags.includes('mentioned') || flags.includes('wildcard_mentioned');
    const unread = ['streams', 'pms', 'huddles'].some((k) => (u[k] as Obj[]).some((x) => x.unread_message_ids.includes(id)));
    u.mentions = (u.mentions as number[]).filter((x) => x !== id);
    if (mentioned && unread) u.mentions = [...u.mentions, id].sort((a: number, b: number) => a - b);
  }
};

const deleteMessage: Reducer = (state, e) => {
  const ids = (e.message_ids as number[] | undefined) ?? [e.message_id as number];
  removeUnread(state, ids);
  if (Array.isArray(state.starred_messages)) state.starred_messages = (state.starred_messages as number[]).filter((id) => !ids.includes(id));
};

const userTopic: Reducer = (state, e) => {
  const list = state.user_topics as Obj[] | undefined;
  if (list) {
    const at = list.findIndex((t) => t.stream_id === e.stream_id && t.topic_name.toLowerCase() === e.topic_name.toLowerCase());
    if (at >= 0) list.splice(at, 1);
    if (e.visibility_policy !== 0) {
      list.push({ stream_id: e.stream_id, topic_name: e.topic_name, last_updated: e.last_updated, visibility_policy: e.visibility_policy });
    }
  }
  recount(state);
};

const updateMessageFlags: Reducer = (state, e) => {
  const ids = e.messages as number[];
  if (e.flag === 'starred' && Array.isArray(state.starred_messages)) {
    const set = new Set(state.starred_messages as number[]);
    for (const id of ids) e.op === 'add' ? set.add(id) : set.delete(id);
    state.starred_messages = [...set].sort((a, b) => a - b);
  }
  if (e.flag !== 'read') return;
  if (e.op === 'add') return removeUnread(state, ids);
  const me = state.user_id as number;
  for (const id of ids) {
    const d = (e.message_details as Record<string, Obj>)[String(id)]!;
    addUnread(state, {
      id,
      type: d.type,
      streamId: d.stream_id,
      topic: d.topic,
      recipientIds: d.type === 'private' ? [...(d.user_ids as number[]), me] : undefined,
      flags: d.mentioned ? ['mentioned'] : [],
    });
  }
};

const ignored: Reducer = () => undefined;

export const messageReducers: Record<string, Reducer> = {
  update_message_flags: updateMessageFlags,
  // Not part of the registered state: reactions travel with messages, typing is ephemeral.
  reaction: ignored,
  typing: ignored,
  typing_edit_message: ignored,
  attachment: ignored,
  message,
  update_message: updateMessage,
  delete_message: deleteMessage,
  user_topic: userTopic,
};
