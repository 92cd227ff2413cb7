// Personal message flags: POST /messages/flags (endpoint 17), POST /messages/flags/narrow, and
// marking all, a channel or a topic as read.
import { z } from 'zod';
import type { UserRecord } from '../../actors/realm/state.js';
import { canReadFullHistory } from '../../actors/realm/channel-view.js';
import type { RealmHandle } from '../../actors/realm/actor.js';
import { errors } from '../../domain/errors.js';
import { topicFromClient } from '../../domain/events/topics.js';
import { ALL_FLAG_NAMES, EDITABLE_FLAGS } from '../../domain/flags.js';
import { checkNarrow, messageNarrowSchema } from '../../domain/narrow.js';
import { messageChannels, topicHasMessagesFor } from '../../store/flags.js';
import { flagsFor } from '../../store/messages.js';
import { userEndpoint } from '../endpoint.js';
import { p } from '../params.js';
import { anchorParam, fetchWindow, resolveNarrow } from '../views/message-fetch.js';
import { readableChannel } from './channels.js';

const MAX_MESSAGES_PER_UPDATE = 5000;

function checkFlagRequest(op: string, flag: string): 'add' | 'remove' {
  if (!ALL_FLAG_NAMES.has(flag)) throw errors.badRequest(`Invalid flag: '${flag}'`);
  if (!EDITABLE_FLAGS.has(flag)) throw errors.badRequest(`Flag not editable: '${flag}'`);
  if (op !== 'add' && op !== 'remove') throw errors.badRequest(`Invalid message flag operation: '${op}'`);
  return op;
}

interface Sorted {
  readonly withRow: number[];
  readonly historical: number[];
  readonly ignoredChannels: number[];
}

/**
 * Sort requested messages: those the user has a row for, readable ones without (they get a
 * historical row when a flag is added), and — marking unread — those in channels the user is
 * not subscribed to, which are skipped.
 */
async function sortMessages(realm: RealmHandle, user: UserRecord, ids: readonly number[], op: 'add' | 'remove', flag: string): Promise<Sorted> {
  const state = realm.state;
  const db = realm.services.db;
  const unique = [...new Set(ids)];
  const rows = await flagsFor(db, user.id, unique);
  const where = new Map((await messageChannels(db, unique)).map((m) => [m.id, m.channel_id]));
  const withRow: number[] = [];
  const historical: number[] = [];
  const ignored = new Set<number>();
  for (const id of unique) {
    if (!where.has(id)) throw errors.invalidMessage();
    const channelId = where.get(id) ?? null;
    if (flag === 'read' && op === 'remove' && channelId !== null && !state.channels.isSubscribed(user.id, channelId)) {
      ignored.add(channelId);
      continue;
    }
    if (rows.has(id)) {
      withRow.push(id);
      continue;
    }
    const c = channelId !== null ? state.channels.get(channelId) : undefined;
    if (!c || !canReadFullHistory(state, user, c)) throw errors.invalidMessage();
    historical.push(id);
  }
  return { withRow, historical, ignoredChannels: [...ignored].sort((a, b) => a - b) };
}

export const updateFlags = userEndpoint(
  z.object({ messages: p.intList(), op: p.string(), flag: p.string() }),
  async (ctx, q) => {
    const op = checkFlagRequest(q.op, q.flag);
    const sorted = await sortMessages(ctx.realm, ctx.user, q.messages, op, q.flag);
    const changed = await ctx.realm.conversations.askUser(ctx.user.id, 'flags.update', {
      userId: ctx.user.id,
      messageIds: sorted.withRow,
      historicalIds: sorted.historical,
      op,
      flag: q.flag,
    });
    const out: Record<string, unknown> = { messages: changed };
    if (q.flag === 'read' && op === 'remove') out.ignored_because_not_subscribed_channels = sorted.ignoredChannels;
    return out;
  },
);

export const updateFlagsForNarrow = userEndpoint(
  z.object({
    anchor: anchorParam(),
    include_anchor: p.bool().default('true'),
    num_before: p.int({ min: 0 }),
    num_after: p.int({ min: 0 }),
    narrow: p.json(messageNarrowSchema),
    op: p.string(),
    flag: p.string(),
  }),
  async (ctx, q) => {
    const op = checkFlagRequest(q.op, q.flag);
    if (q.num_before + q.num_after > MAX_MESSAGES_PER_UPDATE) throw errors.tooManyMessages(MAX_MESSAGES_PER_UPDATE);
    const db = ctx.app.db;
    const query = resolveNarrow(ctx.realm, ctx.user, checkNarrow(q.narrow));
    const w = await fetchWindow(db, query, { anchor: q.anchor, numBefore: q.num_before, numAfter: q.num_after, includeAnchor: q.include_anchor });
    // Only the user's own messages carry flags.
    const processed = w.messages.filter((m) => m.flags !== null).map((m) => m.id).sort((a, b) => a - b);
    const sorted = await sortMessages(ctx.realm, ctx.user, processed, op, q.flag);
    const changed = await ctx.realm.conversations.askUser(ctx.user.id, 'flags.update', {
      userId: ctx.user.id,
      messageIds: sorted.withRow,
      historicalIds: [],
      op,
      flag: q.flag,
    });
    const out: Record<string, unknown> = {
      processed_count: processed.length,
      updated_count: changed.length,
      first_processed_id: processed[0] ?? null,
      last_processed_id: processed.at(-1) ?? null,
      found_oldest: w.foundOldest,
      found_newest: w.foundNewest,
    };
    if (q.flag === 'read' && op === 'remove') out.ignored_because_not_subscribed_channels = sorted.ignoredChannels;
    return out;
  },
);

export const markAllAsRead = userEndpoint(z.object({}), async (ctx) => {
  await ctx.realm.conversations.askUser(ctx.user.id, 'flags.markRead', { userId: ctx.user.id });
  return { complete: true };
});

export const markStreamAsRead = userEndpoint(z.object({ stream_id: p.int() }), async (ctx, q) => {
  const c = readableChannel(ctx, q.stream_id);
  await ctx.realm.conversations.askUser(ctx.user.id, 'flags.markRead', { userId: ctx.user.id, channelId: c.id });
  return {};
});

export const markTopicAsRead = userEndpoint(z.object({ stream_id: p.int(), topic_name: p.string() }), async (ctx, q) => {
  const c = readableChannel(ctx, q.stream_id);
  const topic = topicFromClient(q.topic_name.trim(), ctx.realm.state.realm.settings.empty_topic_display_name);
  if (!(await topicHasMessagesFor(ctx.app.db, ctx.user.id, c.id, topic))) throw errors.badRequest(`No such topic '${q.topic_name}'`);
  await ctx.realm.conversations.askUser(ctx.user.id, 'flags.markRead', { userId: ctx.user.id, channelId: c.id, topic });
  return {};
});
