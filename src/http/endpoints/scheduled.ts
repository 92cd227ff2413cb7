// Scheduled messages (GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{id}) and
// reminders (GET/POST /reminders, DELETE /reminders/{id}). A scheduled message is checked as a
// send would be when it is scheduled and again when it is sent; a reminder needs a message the
// user may read. The writes run in the owner of the user's personal data (conversations/
// scheduled.ts); the process's timer (actors/scheduled-sends.ts) is told each new time.
import { z } from 'zod';
import { prepareSend, renderAs, type MessageTarget } from '../../actors/conversations/compose.js';
import { accessibleMessage } from '../../actors/conversations/message-view.js';
import { messageLink, quoteBlock, silentMention } from '../../actors/conversations/notices.js';
import { formatReminder, formatScheduledMessage } from '../../actors/conversations/scheduled.js';
import { clientName, defaultReadBySender, parseChannelTo, parseDmTo } from '../../actors/conversations/send-rules.js';
import { renderData } from '../../actors/realm/markdown-context.js';
import { errors } from '../../domain/errors.js';
import { LAST_TIMESTAMP, normalizeContent } from '../../domain/message-rules.js';
import { getPending, listPending, type ScheduledData, type ScheduledRow } from '../../store/scheduled-messages.js';
import { userEndpoint, type UserContext } from '../endpoint.js';
import { p } from '../params.js';

/** The longest note a reminder may carry. */
export const MAX_REMINDER_NOTE_LENGTH = 1000;

const typeParam = p.enum(['direct', 'private', 'stream', 'channel']);
type TypeParam = z.infer<typeof typeParam>;
const isChannelType = (t: TypeParam) => t === 'stream' || t === 'channel';

/** Epoch milliseconds of a delivery time, which must be in the future (and before the year 10000). */
function deliveryTime(ctx: UserContext, seconds: number): number {
  if (seconds * 1000 <= ctx.app.clock.now()) throw errors.badRequest('Scheduled delivery time must be in the future.');
  if (seconds > LAST_TIMESTAMP) throw errors.badRequest('Scheduled delivery time must not be after the year 9999.');
  return seconds * 1000;
}

/**
 * The message as it would be sent now (the sender's rights, the topic, the mentions checked), in
 * its stored form: the channel's id, or the other participants (the sender alone for a note to self).
 */
async function checkedMessage(ctx: UserContext, to: MessageTarget, content: string, deliverAtMs: number): Promise<ScheduledData> {
  const { input } = await prepareSend(ctx.realm, ctx.user, { to, content, readBySender: false, client: 'API' });
  if (input.channel) {
    const { id, topic } = input.channel;
    return { type: 'stream', to: [id], topic, content, rendered: input.rendered.html, deliverAtMs };
  }
  const all = input.dm!.userIds;
  const others = all.filter((id) => id !== ctx.user.id).sort((a, b) => a - b);
  return { type: 'private', to: others.length > 0 ? others : [ctx.user.id], topic: '', content, rendered: input.rendered.html, deliverAtMs };
}

function target(type: TypeParam, to: string, topic: string | undefined): MessageTarget {
  if (!isChannelType(type)) return { dm: parseDmTo(to) };
  if (topic === undefined) throw errors.missingTopic();
  return { channel: parseChannelTo(to), topic };
}

export const getScheduledMessages = userEndpoint(z.object({}), async (ctx) => ({
  scheduled_messages: (await listPending(ctx.app.db, ctx.user.id, 'message')).map(formatScheduledMessage),
}));

const createParams = z.object({
  type: typeParam,
  to: p.string(),
  content: p.string({ nul: 'handler' }),
  topic: p.string().optional(),
  scheduled_delivery_timestamp: p.int(),
  read_by_sender: p.bool().optional(),
});

export const createScheduledMessage = userEndpoint(createParams, async (ctx, q) => {
  const content = normalizeContent(q.content);
  const deliverAtMs = deliveryTime(ctx, q.scheduled_delivery_timestamp);
  const data = await checkedMessage(ctx, target(q.type, q.to, q.topic), content, deliverAtMs);
  const client = clientName(ctx.headers['user-agent']);
  const id = await ctx.realm.conversations.askUser(ctx.user.id, 'scheduled.create', {
    userId: ctx.user.id,
    kind: 'message',
    data,
    readBySender: q.read_by_sender ?? defaultReadBySender(client),
    client,
    targetMessageId: null,
  });
  ctx.app.scheduledSends.noteDue(deliverAtMs);
  return { scheduled_message_id: id };
});

const editParams = z.object({
  scheduled_message_id: p.id(),
  type: typeParam.optional(),
  to: p.string().optional(),
  content: p.string({ nul: 'handler' }).optional(),
  topic: p.string().optional(),
  scheduled_delivery_timestamp: p.int().optional(),
});

/** The row's audience as a send's target; `topic` replaces a channel message's topic. */
function storedTarget(row: ScheduledRow, topic: string | undefined): MessageTarget {
  return row.type === 'stream' ? { channel: { id: row.to_ids[0]! }, topic: topic ?? row.topic } : { dm: row.to_ids };
}

export const editScheduledMessage = userEndpoint(editParams, async (ctx, q) => {
  const row = await getPending(ctx.app.db, ctx.user.id, 'message', q.scheduled_message_id);
  if (!row) throw errors.scheduledMessageNotFound();
  let to: MessageTarget;
  if (q.type !== undefined) {
    if (q.to === undefined) throw errors.badRequest('Recipient required when updating type of scheduled message.');
    if (isChannelType(q.type) && q.topic === undefined) throw errors.badRequest('Topic required when updating scheduled message type to channel.');
    to = target(q.type, q.to, q.topic);
  } else if (q.to !== undefined) {
    to = row.type === 'stream' ? { channel: parseChannelTo(q.to), topic: q.topic ?? row.topic } : { dm: parseDmTo(q.to) };
  } else {
    to = storedTarget(row, q.topic);
  }
  // A failed message is sent again only at a time its author chose anew.
  if (row.failed && q.scheduled_delivery_timestamp === undefined) {
    throw errors.badRequest('Scheduled delivery time must be in the future.');
  }
  const deliverAtMs = q.scheduled_delivery_timestamp !== undefined ? deliveryTime(ctx, q.scheduled_delivery_timestamp) : row.deliver_at;
  const content = q.content !== undefined ? normalizeContent(q.content) : row.content;
  const data = await checkedMessage(ctx, to, content, deliverAtMs);
  await ctx.realm.conversations.askUser(ctx.user.id, 'scheduled.edit', { userId: ctx.user.id, id: row.id, data });
  ctx.app.scheduledSends.noteDue(deliverAtMs);
  return {};
});

export const deleteScheduledMessage = userEndpoint(z.object({ scheduled_message_id: p.id() }), async (ctx, q) => {
  await ctx.realm.conversations.askUser(ctx.user.id, 'scheduled.delete', { userId: ctx.user.id, kind: 'message', id: q.scheduled_message_id });
  return {};
});

export const getReminders = userEndpoint(z.object({}), async (ctx) => ({
  reminders: (await listPending(ctx.app.db, ctx.user.id, 'reminder')).map(formatReminder),
}));

const reminderParams = z.object({
  message_id: p.int(),
  scheduled_delivery_timestamp: p.int(),
  note: p.string({ max: MAX_REMINDER_NOTE_LENGTH }).optional(),
});

export const createReminder = userEndpoint(reminderParams, async (ctx, q) => {
  const { realm, user } = ctx;
  const { row: message } = await accessibleMessage(realm, user, q.message_id);
  const deliverAtMs = deliveryTime(ctx, q.scheduled_delivery_timestamp);
  const sender = realm.state.user(message.sender_id);
  const who = sender ? silentMention(sender) : 'someone';
  let content = `You asked to be reminded of [a message](${messageLink(realm.state, message)}) ${who} sent:\n${quoteBlock(message.content)}`;
  const note = q.note?.trim();
  if (note) content += `\n\nYour note: ${note}`;
  const rendered = renderAs(realm, user, renderData(realm.state), content).html;
  const id = await realm.conversations.askUser(user.id, 'scheduled.create', {
    userId: user.id,
    kind: 'reminder',
    data: { type: 'private', to: [user.id], topic: '', content, rendered, deliverAtMs },
    readBySender: false,
    client: 'Internal',
    targetMessageId: message.id,
  });
  ctx.app.scheduledSends.noteDue(deliverAtMs);
  return { reminder_id: id };
});

export const deleteReminder = userEndpoint(z.object({ reminder_id: p.id() }), async (ctx, q) => {
  await ctx.realm.conversations.askUser(ctx.user.id, 'scheduled.delete', { userId: ctx.user.id, kind: 'reminder', id: q.reminder_id });
  return {};
});
