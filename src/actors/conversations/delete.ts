// The delete commands of a conversation's owner: a message, or a channel's topic, goes (with its
// rows, reactions, history and upload links), delete_message reaches everyone who could see it,
// and devices still showing its push notification drop it.
import { deleteMessageEvent } from '../../domain/events/messages.js';
import { notifyDeleted } from '../../push/push-notifier.js';
import { refreshFirstMessage } from '../../store/channels.js';
import { deleteMessages, rowsOf, topicBatch } from '../../store/message-edits.js';
import type { ConversationContext } from './conversations.js';
import { emitFirstMessageChange, lockTarget } from './edit.js';
import { activeSubscribers } from '../realm/channel-view.js';

export interface DeleteInput {
  readonly messageId: number;
}

export async function deleteMessage(ctx: ConversationContext, input: DeleteInput): Promise<void> {
  const { realm } = ctx;
  let first: { channelId: number; id: number | null } | null = null;
  await ctx.write(
    async (tx, emit) => {
      const state = realm.state;
      const row = await lockTarget(ctx, tx, input.messageId);
      const recipients = new Set((await rowsOf(tx, [row.id])).map((r) => r.user_id));
      const channel = row.channel_id !== null ? state.channels.get(row.channel_id) : undefined;
      if (channel?.history_public_to_subscribers) for (const u of activeSubscribers(state, channel.id)) recipients.add(u);
      await deleteMessages(tx, [row.id]);
      if (channel && channel.first_message_id === row.id) {
        first = { channelId: channel.id, id: await refreshFirstMessage(tx, channel.id) };
        emitFirstMessageChange(state, emit, channel.id, first.id);
      }
      const payload = channel
        ? { message_ids: [row.id], message_type: 'stream' as const, stream_id: channel.id, topic: row.topic ?? '' }
        : { message_ids: [row.id], message_type: 'private' as const };
      emit({ ...deleteMessageEvent.build(payload, { userIds: [...recipients] }), span: 1 });
    },
    () => {
      const f = first as { channelId: number; id: number | null } | null;
      if (f) realm.state.channels.patch(f.channelId, (c) => ({ ...c, first_message_id: f.id }));
    },
  );
  void notifyDeleted(realm, [input.messageId]);
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
  const { realm } = ctx;
  const started = ctx.services.clock.now();
  for (;;) {
    let first: number | null | undefined;
    let ids: number[] = [];
    const deleted = await ctx.write(
      async (tx, emit) => {
        const state = realm.state;
        const batch = await topicBatch(tx, input.channelId, input.topic, TOPIC_DELETE_BATCH, input.receivedBy);
        if (batch.length === 0) return 0;
        ids = batch.map((m) => m.id).sort((a, b) => a - b);
        const recipients = new Set((await rowsOf(tx, ids)).map((r) => r.user_id));
        const channel = state.channels.get(input.channelId);
        if (channel?.history_public_to_subscribers) for (const u of activeSubscribers(state, channel.id)) recipients.add(u);
        await deleteMessages(tx, ids);
        if (channel && channel.first_message_id !== null && ids.includes(channel.first_message_id)) {
          first = await refreshFirstMessage(tx, channel.id);
          emitFirstMessageChange(state, emit, channel.id, first);
        }
        const payload = { message_ids: ids, message_type: 'stream' as const, stream_id: input.channelId, topic: batch[0]!.topic };
        emit({ ...deleteMessageEvent.build(payload, { userIds: [...recipients] }), span: ids.length });
        return ids.length;
      },
      () => {
        if (first !== undefined) realm.state.channels.patch(input.channelId, (c) => ({ ...c, first_message_id: first! }));
      },
    );
    void notifyDeleted(realm, ids);
    if (deleted < TOPIC_DELETE_BATCH) return { complete: true };
    if (ctx.services.clock.now() - started > TOPIC_DELETE_BUDGET_MS) return { complete: false };
  }
}
