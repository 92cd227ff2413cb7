// The delete command of a conversation's owner: the message goes (with its rows, reactions,
// history and upload links), and delete_message reaches everyone who could see it.
import { deleteMessageEvent } from '../../domain/events/messages.js';
import { refreshFirstMessage } from '../../store/channels.js';
import { deleteMessages, rowsOf } from '../../store/message-edits.js';
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
}
