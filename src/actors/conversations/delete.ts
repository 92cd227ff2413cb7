// The delete commands of a conversation's owner: a message, a channel's topic, or messages the
// caller listed (a deactivation's `actions`) go (with their rows, reactions, history and upload
// links), delete_message reaches everyone who could see them, and devices still showing their
// push notifications drop them.
import { deleteMessageEvent } from '../../domain/events/messages.js';
import { notifyDeleted } from '../../push/push-notifier.js';
import { lockAttachments } from '../../store/attachments.js';
import { refreshFirstMessage } from '../../store/channels.js';
import { deleteMessages, lockPlaced, rowsOf, topicBatch, type PlacedMessage } from '../../store/message-edits.js';
import type { ConversationContext } from './conversations.js';
import { emitAttachmentUpdates } from './attachments.js';
import { lockTarget } from './edit.js';
import { emitFirstMessageChange } from './first-message.js';
import { activeSubscribers } from '../realm/channel-view.js';
import type { Emit } from '../realm-events.js';
import type { CommonQueryMethods } from 'slonik';
import { groupBy } from '../../group-by.js';

export interface DeleteInput {
  readonly messageId: number;
}

/** A channel whose first message went: its new first message's id (null: none left). */
interface FirstMessage {
  readonly channelId: number;
  readonly id: number | null;
}

/** Where a message is, for its delete_message event: a channel's topic, or a direct conversation. */
const placeOf = (m: PlacedMessage): string => (m.channel_id !== null ? `${m.channel_id}\n${m.topic}` : m.dm_key!);

/**
 * Delete messages, all of one channel or all direct, in the caller's transaction: one
 * delete_message event per topic or direct conversation, to those who received its messages (and
 * every active subscriber where the channel's history is public to them). The channel's new first
 * message when the first one went, else null.
 */
async function deleteRows(ctx: ConversationContext, tx: CommonQueryMethods, emit: Emit, rows: readonly PlacedMessage[]): Promise<FirstMessage | null> {
  const state = ctx.realm.state;
  const ids = rows.map((m) => m.id);
  const receivers = groupBy(await rowsOf(tx, ids), (r) => r.message_id);
  const channelId = rows[0]!.channel_id;
  const channel = channelId !== null ? state.channels.get(channelId) : undefined;
  const everySubscriber = channel?.history_public_to_subscribers ? activeSubscribers(state, channel.id) : [];
  for (const group of groupBy(rows, placeOf).values()) {
    const recipients = new Set(everySubscriber);
    for (const m of group) for (const r of receivers.get(m.id) ?? []) recipients.add(r.user_id);
    const groupIds = group.map((m) => m.id);
    const m = group[0]!;
    const payload =
      m.channel_id !== null
        ? { message_ids: groupIds, message_type: 'stream' as const, stream_id: m.channel_id, topic: m.topic ?? '' }
        : { message_ids: groupIds, message_type: 'private' as const };
    emit({ ...deleteMessageEvent.build(payload, { userIds: [...recipients] }), span: groupIds.length });
  }
  // Their uploads stay, referenced by fewer messages: their owners are told.
  const uploads = await lockAttachments(tx, ctx.realm.id, { messageIds: ids });
  await deleteMessages(tx, ids);
  await emitAttachmentUpdates(tx, emit, ctx.realm.id, uploads);
  if (!channel || channel.first_message_id === null || !ids.includes(channel.first_message_id)) return null;
  const first = { channelId: channel.id, id: await refreshFirstMessage(tx, channel.id) };
  emitFirstMessageChange(state, emit, channel.id, first.id);
  return first;
}

/** After commit: the cached channel has its new first message. */
function cacheFirst(ctx: ConversationContext, first: FirstMessage | null): void {
  if (first) ctx.realm.state.channels.patch(first.channelId, (c) => ({ ...c, first_message_id: first.id }));
}

export async function deleteMessage(ctx: ConversationContext, input: DeleteInput): Promise<void> {
  await ctx.write(
    async (tx, emit) => deleteRows(ctx, tx, emit, [await lockTarget(ctx, tx, input.messageId)]),
    (first) => cacheFirst(ctx, first),
  );
  void notifyDeleted(ctx.realm, [input.messageId]);
}

export interface DeleteTopicInput {
  readonly channelId: number;
  readonly topic: string;
  /** Only messages this user received (a channel whose history is protected), or null for all. */
  readonly receivedBy: number | null;
}

/** Messages deleted in one transaction; a topic goes newest first, batch by batch. */
export const TOPIC_DELETE_BATCH = 100;
/** How long one request deletes before it answers that more is left (`complete: false`). */
const TOPIC_DELETE_BUDGET_MS = 10_000;

/**
 * POST /streams/{id}/delete_topic: the topic's messages go in batches, newest first, each its own
 * transaction and delete_message event (one per message for clients without
 * bulk_message_deletion). A topic too large for one request is left partly deleted, the answer
 * saying so; the client repeats the request.
 */
export async function deleteTopic(ctx: ConversationContext, input: DeleteTopicInput): Promise<{ complete: boolean }> {
  const started = ctx.services.clock.now();
  for (;;) {
    let ids: number[] = [];
    await ctx.write(
      async (tx, emit) => {
        const rows = await topicBatch(tx, input.channelId, input.topic, TOPIC_DELETE_BATCH, input.receivedBy);
        if (rows.length === 0) return null;
        ids = rows.map((m) => m.id);
        return deleteRows(ctx, tx, emit, rows);
      },
      (first) => cacheFirst(ctx, first),
    );
    void notifyDeleted(ctx.realm, ids);
    if (ids.length < TOPIC_DELETE_BATCH) return { complete: true };
    if (ctx.services.clock.now() - started > TOPIC_DELETE_BUDGET_MS) return { complete: false };
  }
}

export interface DeleteListedInput {
  /** Messages of this owner's conversations; any since moved elsewhere are left. */
  readonly messageIds: readonly number[];
}

/**
 * Listed messages, those still this owner's, in batches of TOPIC_DELETE_BATCH, each batch its own
 * transaction (deleteRows).
 */
export async function deleteListed(ctx: ConversationContext, input: DeleteListedInput): Promise<void> {
  const channelId = ctx.owner.kind === 'channel' ? ctx.owner.channelId : null;
  for (let at = 0; at < input.messageIds.length; at += TOPIC_DELETE_BATCH) {
    let ids: number[] = [];
    await ctx.write(
      async (tx, emit) => {
        const rows = await lockPlaced(tx, ctx.realm.id, input.messageIds.slice(at, at + TOPIC_DELETE_BATCH), channelId);
        if (rows.length === 0) return null;
        ids = rows.map((m) => m.id);
        return deleteRows(ctx, tx, emit, rows);
      },
      (first) => cacheFirst(ctx, first),
    );
    void notifyDeleted(ctx.realm, ids);
  }
}
