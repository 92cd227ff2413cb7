// Typing notifications: POST /typing (composing, to direct-message participants or a channel
// topic) and POST /messages/{id}/typing (editing, endpoint 18). Ephemeral events, never logged;
// clients expire them themselves (server_typing_*_period_milliseconds in POST /register).
import { z } from 'zod';
import { dmKeyUsers } from '../../actors/realm/channel-index.js';
import type { UserRecord } from '../../actors/realm/state.js';
import { errors } from '../../domain/errors.js';
import { typingEditEvent, typingEvent } from '../../domain/events/typing.js';
import { topicFromClient } from '../../domain/events/topics.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';
import { accessibleMessage } from '../../actors/conversations/message-view.js';
import { messageAudience } from '../../actors/conversations/message-view.js';
import { checkCanSendToChannel } from '../../actors/conversations/send-rules.js';
import { readableChannel } from './channels.js';

/** Above this many subscribers a channel gets no typing notifications (too much traffic). */
export const MAX_CHANNEL_SIZE_FOR_TYPING = 100;

/** Who is told: active humans (bots have no typing indicators). */
function listeners(ctx: UserContext, ids: readonly number[]): number[] {
  const out: number[] = [];
  for (const id of ids) {
    const u = ctx.realm.state.user(id);
    if (u && u.is_active && !u.is_bot) out.push(id);
  }
  return out;
}

/** `people` in id order, each once, in place (two people, the usual case, need no sort). */
function inIdOrderOnce(people: UserRecord[]): UserRecord[] {
  if (people.length === 2) {
    if (people[1]!.id < people[0]!.id) people.reverse();
  } else if (people.length > 2) people.sort((a, b) => a.id - b.id);
  let n = 0;
  for (const u of people) if (n === 0 || people[n - 1]!.id !== u.id) people[n++] = u;
  people.length = n;
  return people;
}

/**
 * A channel's active subscribers: how many (channels above MAX_CHANNEL_SIZE_FOR_TYPING get no
 * typing notifications) and the humans among them, who are told. One pass, in no order.
 */
function channelListeners(ctx: UserContext, channelId: number): { active: number; humans: number[] } {
  const subscribers = ctx.realm.state.channels.subscribers(channelId);
  // Sized once: grown by push, the array of a 50-subscriber channel was copied three times.
  const humans = new Array<number>(subscribers.size);
  let active = 0;
  let n = 0;
  for (const id of subscribers) {
    const u = ctx.realm.state.user(id);
    if (!u?.is_active) continue;
    active++;
    if (!u.is_bot) humans[n++] = id;
  }
  humans.length = n;
  return { active, humans };
}

const person = (u: UserRecord) => ({ user_id: u.id, email: u.email });

export const setTyping = userEndpoint(
  z.object({
    type: p.enum(['direct', 'private', 'stream', 'channel']).default('direct'),
    op: p.enum(['start', 'stop']),
    to: p.intList().optional(),
    stream_id: p.int().optional(),
    topic: p.string().optional(),
  }),
  async (ctx, q) => {
    const { realm, user } = ctx;
    const state = realm.state;
    if (q.type === 'stream' || q.type === 'channel') {
      if (q.stream_id === undefined) throw errors.missingArgument('stream_id');
      if (q.topic === undefined) throw errors.missingTopic();
      if (!user.settings.send_stream_typing_notifications) throw errors.badRequest('User has disabled typing notifications for channel messages');
      const c = readableChannel(ctx, q.stream_id);
      checkCanSendToChannel(state, user, c);
      const { active, humans } = channelListeners(ctx, c.id);
      if (active > MAX_CHANNEL_SIZE_FOR_TYPING) return {};
      const topic = topicFromClient(q.topic.trim(), state.realm.settings.empty_topic_display_name);
      await realm.events.publishEphemeral([
        typingEvent.build({ op: q.op, message_type: 'stream', sender: person(user), stream_id: c.id, topic }, { userIds: humans }),
      ]);
      return {};
    }
    if (q.to === undefined) throw errors.missingArgument('to');
    if (q.to.length === 0) throw errors.badRequest("Empty 'to' list");
    if (!user.settings.send_private_typing_notifications) throw errors.badRequest('User has disabled typing notifications for direct messages');
    const people: UserRecord[] = [user];
    for (const id of q.to) {
      const u = state.user(id);
      if (!u || !u.is_active || !state.canAccessUser(user.id, id)) throw errors.invalidUserId(id);
      people.push(u);
    }
    // The sender and the recipients, all active.
    inIdOrderOnce(people);
    const humans: number[] = [];
    for (const u of people) if (!u.is_bot) humans.push(u.id);
    await realm.events.publishEphemeral([
      typingEvent.build({ op: q.op, message_type: 'direct', sender: person(user), recipients: people.map(person) }, { userIds: humans }),
    ]);
    return {};
  },
);

export const setEditTyping = userEndpoint(z.object({ message_id: p.int(), op: p.enum(['start', 'stop']) }), async (ctx, q) => {
  const { realm, user } = ctx;
  const { row } = await accessibleMessage(realm, user, q.message_id);
  if (row.channel_id !== null) {
    if (!user.settings.send_stream_typing_notifications) return {};
    const { active, humans } = channelListeners(ctx, row.channel_id);
    if (active > MAX_CHANNEL_SIZE_FOR_TYPING) return {};
    // Not to subscribers who may not know the message (protected history, joined after it).
    const audience = await messageAudience(ctx.app.db, realm.state, row);
    await realm.events.publishEphemeral([
      typingEditEvent.build(
        { op: q.op, sender_id: user.id, message_id: row.id, recipient: { type: 'channel', channel_id: row.channel_id, topic: row.topic ?? '' } },
        { userIds: humans.filter((id) => audience.has(id)) },
      ),
    ]);
    return {};
  }
  if (!user.settings.send_private_typing_notifications) return {};
  const participants = dmKeyUsers(row.dm_key!);
  await realm.events.publishEphemeral([
    typingEditEvent.build(
      { op: q.op, sender_id: user.id, message_id: row.id, recipient: { type: 'direct', user_ids: participants } },
      { userIds: listeners(ctx, participants) },
    ),
  ]);
  return {};
});
