// The commands of the model test: their generators, and how each runs against the server and,
// when the server accepts it, against the model. The model states what must succeed or fail
// where the rules are plain; elsewhere it follows the server's answer and checks the result.
import fc from 'fast-check';
import type { TestResponse } from '../helpers/server.js';
import {
  CHANNELS,
  ROLES,
  USERS,
  applyActive,
  applyEdit,
  applyRole,
  applySend,
  applySubscribe,
  applyUnsubscribe,
  canRead,
  contentAccess,
  type ChannelKey,
  type ExpectedEvents,
  type RoleCode,
  type UserKey,
} from './access-model.js';
import { Violation, type World } from './world.js';

export type Command =
  | { readonly kind: 'send'; readonly by: UserKey; readonly to: ChannelKey; readonly topic: string }
  | { readonly kind: 'dm'; readonly by: UserKey; readonly to: UserKey }
  | { readonly kind: 'subscribe'; readonly by: 'owner' | 'self'; readonly who: UserKey; readonly channel: ChannelKey }
  | { readonly kind: 'unsubscribe'; readonly who: UserKey; readonly channel: ChannelKey }
  | { readonly kind: 'edit'; readonly message: number }
  | { readonly kind: 'move'; readonly by: UserKey; readonly message: number; readonly channel: ChannelKey | null; readonly topic: string | null }
  | { readonly kind: 'role'; readonly who: Exclude<UserKey, 'owner'>; readonly role: RoleCode }
  | { readonly kind: 'deactivate'; readonly who: Exclude<UserKey, 'owner'> }
  | { readonly kind: 'reactivate'; readonly who: Exclude<UserKey, 'owner'> };

const user = fc.constantFrom(...USERS);
const notOwner = fc.constantFrom('admin' as const, 'member' as const, 'guest' as const);
const channel = fc.constantFrom(...CHANNELS);
const topic = fc.constantFrom('alpha', 'beta');
const messageIndex = fc.nat({ max: 7 });

export const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('send' as const), by: user, to: channel, topic }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dm' as const), by: user, to: user }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('subscribe' as const), by: fc.constantFrom('owner' as const, 'self' as const), who: user, channel }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unsubscribe' as const), who: user, channel }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), message: messageIndex }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      by: user,
      message: messageIndex,
      channel: fc.option(channel, { nil: null }),
      topic: fc.option(fc.constantFrom('alpha', 'beta', 'gamma'), { nil: null }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('role' as const), who: notOwner, role: fc.constantFrom(...ROLES) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deactivate' as const), who: notOwner }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reactivate' as const), who: notOwner }) },
);

export const describe = (c: Command): string => JSON.stringify(c);

type Expect = 'ok' | 'fail' | 'either';

function checkOutcome(r: TestResponse, expected: Expect, step: string): boolean {
  const ok = r.status === 200 && r.json.result === 'success';
  if (!ok && r.status >= 500) throw new Violation(`${step}: ${r.status} ${r.text.slice(0, 300)}`);
  if (expected === 'ok' && !ok) throw new Violation(`${step}: refused (${r.text.slice(0, 300)}), the model says it is allowed`);
  if (expected === 'fail' && ok) throw new Violation(`${step}: accepted, the model says it must be refused`);
  return ok;
}

let contentCounter = 0;

/** Run one command on the server and, if accepted, on the model; returns the expected events. */
export async function runCommand(w: World, c: Command, step: string): Promise<ExpectedEvents> {
  const m = w.model;
  const active = (u: UserKey) => m.users[u].active;
  const none: ExpectedEvents = new Map();
  switch (c.kind) {
    case 'send': {
      const sub = m.channels[c.to].subs.has(c.by);
      const guest = m.users[c.by].role === 600;
      const expected: Expect = !active(c.by) ? 'fail' : sub || (!guest && !m.channels[c.to].inviteOnly) ? 'ok' : m.channels[c.to].webPublic ? 'either' : 'fail';
      const content = `note ${++contentCounter}`;
      const r = await w.users[c.by].post('/api/v1/messages', { type: 'stream', to: String(w.channelIds[c.to]), topic: c.topic, content });
      if (!checkOutcome(r, expected, step)) return none;
      return remember(w, applySend(m, { id: r.json.id, sender: c.by, channel: c.to, dmTo: null, topic: c.topic, content }), r.json.id);
    }
    case 'dm': {
      const content = `private note ${++contentCounter}`;
      const expected: Expect = active(c.by) && active(c.to) ? 'ok' : 'fail';
      const r = await w.users[c.by].post('/api/v1/messages', { type: 'direct', to: [w.userId(c.to)], content });
      if (!checkOutcome(r, expected, step)) return none;
      return remember(w, applySend(m, { id: r.json.id, sender: c.by, channel: null, dmTo: c.by === c.to ? null : c.to, topic: '', content }), r.json.id);
    }
    case 'subscribe': {
      const by = c.by === 'owner' ? 'owner' : c.who;
      // Notification Bot's message to the user subscribed is its own feature (channels tests), not access.
      const params = {
        subscriptions: [{ name: c.channel }],
        principals: c.by === 'owner' ? [w.userId(c.who)] : undefined,
        send_new_subscription_messages: false,
      };
      const ch = m.channels[c.channel];
      const expected: Expect = !active(by)
        ? 'fail'
        : c.by === 'self'
          ? ch.inviteOnly && !ch.subs.has(c.who) ? 'fail' : m.users[c.who].role !== 600 && !ch.inviteOnly ? 'ok' : 'either'
          : active(c.who) && (!ch.inviteOnly || ch.subs.has('owner')) ? 'ok' : 'either';
      const r = await w.users[by].post('/api/v1/users/me/subscriptions', params);
      if (!checkOutcome(r, expected, step)) return none;
      return applySubscribe(m, c.who, c.channel);
    }
    case 'unsubscribe': {
      const r = await w.users[c.who].delete('/api/v1/users/me/subscriptions', { subscriptions: [c.channel] });
      if (!checkOutcome(r, active(c.who) && contentAccess(m, c.who, c.channel) ? 'ok' : 'either', step)) return none;
      return applyUnsubscribe(m, c.who, c.channel);
    }
    case 'edit': {
      const msg = w.window[c.message % Math.max(1, w.window.length)];
      if (!msg) return none;
      const content = `edited ${++contentCounter}`;
      const r = await w.users[msg.sender].patch(`/api/v1/messages/${msg.id}`, { content });
      if (!checkOutcome(r, canRead(m, msg.sender, msg) ? 'either' : 'fail', step)) return none;
      return applyEdit(m, msg, { content });
    }
    case 'move': {
      const msg = w.window[c.message % Math.max(1, w.window.length)];
      if (!msg || msg.channel === null || (c.channel === null && c.topic === null)) return none;
      const to = c.channel ?? msg.channel;
      const readable = canRead(m, c.by, msg) && contentAccess(m, c.by, to);
      const params: Record<string, string | number> = { propagate_mode: 'change_one', send_notification_to_old_thread: 'false', send_notification_to_new_thread: 'false' };
      if (c.channel !== null) params.stream_id = w.channelIds[c.channel];
      if (c.topic !== null) params.topic = c.topic;
      const r = await w.users[c.by].patch(`/api/v1/messages/${msg.id}`, params);
      if (!checkOutcome(r, readable ? 'either' : 'fail', step)) return none;
      return applyEdit(m, msg, { channel: c.channel ?? undefined, topic: c.topic ?? undefined });
    }
    case 'role': {
      const r = await w.users.owner.patch(`/api/v1/users/${w.userId(c.who)}`, { role: c.role });
      if (!checkOutcome(r, active(c.who) ? 'ok' : 'either', step)) return none;
      return applyRole(m, c.who, c.role);
    }
    case 'deactivate': {
      const r = await w.users.owner.delete(`/api/v1/users/${w.userId(c.who)}`);
      if (!checkOutcome(r, active(c.who) ? 'ok' : 'fail', step)) return none;
      return applyActive(m, c.who, false);
    }
    case 'reactivate': {
      const r = await w.users.owner.post(`/api/v1/users/${w.userId(c.who)}/reactivate`);
      if (!checkOutcome(r, active(c.who) ? 'either' : 'ok', step)) return none;
      if (active(c.who)) return none;
      const events = applyActive(m, c.who, true);
      await w.register(c.who);
      return events;
    }
  }
}

function remember(w: World, events: ExpectedEvents, id: number): ExpectedEvents {
  w.window.push(w.model.messages.find((x) => x.id === id)!);
  return events;
}
