// Reducers for channel events: stream, subscription, default_streams — what a client does with
// them to keep `streams`, `subscriptions`, `unsubscribed`, `never_subscribed` and
// `realm_default_streams` current.
import { recount } from './messages.js';
import type { Reducer, RegisterState } from './types.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LISTS = ['subscriptions', 'unsubscribed', 'never_subscribed'] as const;

/** Every copy of a channel in the state (streams and the three subscription lists). */
function copiesOf(state: RegisterState, streamId: number): Obj[] {
  const out: Obj[] = [];
  for (const key of ['streams', ...LISTS]) {
    const list = state[key] as Obj[] | undefined;
    if (list) for (const s of list) if (s.stream_id === streamId) out.push(s);
  }
  return out;
}

/** Did this client ask for subscriber lists (include_subscribers)? */
function wantsSubscribers(state: RegisterState): boolean {
  return LISTS.some((k) => (state[k] as Obj[] | undefined)?.some((s) => 'subscribers' in s || 'partial_subscribers' in s));
}

function removeFrom(state: RegisterState, key: string, streamId: number): Obj | undefined {
  const list = state[key] as Obj[] | undefined;
  if (!list) return undefined;
  const i = list.findIndex((s) => s.stream_id === streamId);
  return i >= 0 ? list.splice(i, 1)[0] : undefined;
}

const stream: Reducer = (state, e) => {
  switch (e.op) {
    case 'create':
      for (const s of e.streams as Obj[]) {
        if (state.streams && !state.streams.some((x: Obj) => x.stream_id === s.stream_id)) state.streams.push({ ...s });
        const listed = LISTS.some((k) => (state[k] as Obj[] | undefined)?.some((x) => x.stream_id === s.stream_id));
        if (state.never_subscribed && !listed) {
          state.never_subscribed.push(wantsSubscribers(state) ? { ...s, subscribers: [] } : { ...s });
        }
      }
      return;
    case 'delete':
      for (const id of e.stream_ids as number[]) for (const key of ['streams', ...LISTS]) removeFrom(state, key, id);
      return;
    case 'update':
      for (const s of copiesOf(state, e.stream_id)) {
        s[e.property] = e.value;
        if (e.property === 'description') s.rendered_description = e.rendered_description;
        if (e.property === 'invite_only') {
          s.history_public_to_subscribers = e.history_public_to_subscribers;
          s.is_web_public = e.is_web_public;
        }
      }
      return;
  }
};

function peerChange(state: RegisterState, e: Obj, add: boolean): void {
  const users = e.user_ids as number[];
  for (const id of e.stream_ids as number[]) {
    for (const s of copiesOf(state, id)) {
      const list: number[] | undefined = s.subscribers ?? s.partial_subscribers;
      let changed = users.length;
      if (list) {
        changed = 0;
        for (const u of users) {
          const at = list.indexOf(u);
          if (add && at < 0) {
            list.push(u);
            changed++;
          } else if (!add && at >= 0) {
            list.splice(at, 1);
            changed++;
          }
        }
        list.sort((a, b) => a - b);
      }
      s.subscriber_count += add ? changed : -changed;
    }
  }
}

const subscription: Reducer = (state, e, me) => {
  switch (e.op) {
    case 'add': {
      const keep = wantsSubscribers(state);
      for (const sub of e.subscriptions as Obj[]) {
        removeFrom(state, 'unsubscribed', sub.stream_id);
        removeFrom(state, 'never_subscribed', sub.stream_id);
        const copy = { ...sub };
        if (!keep) delete copy.subscribers;
        state.subscriptions?.push(copy);
        // Clients keep one record per channel: the subscription's counts are the channel's.
        for (const st of (state.streams ?? []) as Obj[]) if (st.stream_id === sub.stream_id) st.subscriber_count = sub.subscriber_count;
      }
      return;
    }
    case 'remove':
      for (const { stream_id } of e.subscriptions as Obj[]) {
        const sub = removeFrom(state, 'subscriptions', stream_id);
        if (sub && state.unsubscribed) state.unsubscribed.push(sub);
        // peer_remove is for the others: the former subscriber drops itself from the list.
        if (sub) peerChange(state, { stream_ids: [stream_id], user_ids: [me] }, false);
        // Unread messages of channels one is not subscribed to are not tracked.
        const u = state.unread_msgs as Obj | undefined;
        if (u) u.streams = (u.streams as Obj[]).filter((x) => x.stream_id !== stream_id);
      }
      recount(state);
      return;
    case 'update':
      for (const s of state.subscriptions ?? []) if (s.stream_id === e.stream_id) s[e.property] = e.value;
      if (e.property === 'is_muted' || e.property === 'in_home_view') recount(state);
      return;
    case 'peer_add':
      return peerChange(state, e, true);
    case 'peer_remove':
      return peerChange(state, e, false);
  }
};

const defaultStreams: Reducer = (state, e) => {
  if (state.realm_default_streams) state.realm_default_streams = [...e.default_streams];
};

export const channelReducers: Record<string, Reducer> = {
  stream,
  subscription,
  default_streams: defaultStreams,
};
