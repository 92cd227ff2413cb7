// Flag commands of the owner of a user's personal data: add or remove a flag on messages, and
// mark everything / a channel / a topic as read. One update_message_flags event per change;
// messages newly read also have their push notifications removed from the user's devices.
import { updateMessageFlagsEvent } from '../../domain/events/flags.js';
import { flagBit, MENTION_BITS } from '../../domain/flags.js';
import { notifyRead } from '../../push/push-notifier.js';
import * as store from '../../store/flags.js';
import { dmKeyUsers } from '../realm/channel-index.js';
import type { WriteContext } from './conversations.js';

export interface FlagInput {
  readonly userId: number;
  /** Messages the user has a row for (or gets one: see historical). */
  readonly messageIds: readonly number[];
  /** Readable messages without a row; adding a flag creates a historical row first. */
  readonly historicalIds: readonly number[];
  readonly op: 'add' | 'remove';
  readonly flag: string;
}

export async function updateFlags(ctx: WriteContext, input: FlagInput): Promise<number[]> {
  const add = input.op === 'add';
  const changed = await ctx.write(async (tx, emit) => {
    if (add) await store.addHistoricalRows(tx, input.userId, input.historicalIds);
    const ids = [...input.messageIds, ...(add ? input.historicalIds : [])];
    const changed = [...(ids.length > 0 ? await store.changeFlag(tx, input.userId, ids, flagBit(input.flag), add) : [])].sort((a, b) => a - b);
    const event = { op: input.op, operation: input.op, flag: input.flag, messages: changed, all: false };
    if (input.flag === 'read' && !add) {
      const details: Record<string, { type: 'stream' | 'private'; mentioned?: boolean; user_ids?: number[]; stream_id?: number; topic?: string }> = {};
      for (const d of await store.unreadDetails(tx, input.userId, changed)) {
        const mentioned = (d.flags & MENTION_BITS) !== 0 ? { mentioned: true } : {};
        details[String(d.id)] =
          d.channel_id !== null
            ? { type: 'stream', stream_id: d.channel_id, topic: d.topic ?? '', ...mentioned }
            : { type: 'private', user_ids: dmKeyUsers(d.dm_key!).filter((u) => u !== input.userId), ...mentioned };
      }
      emit(updateMessageFlagsEvent.build({ ...event, message_details: details }, { userIds: [input.userId] }));
    } else {
      emit(updateMessageFlagsEvent.build(event, { userIds: [input.userId] }));
    }
    return changed;
  });
  if (add && input.flag === 'read') void notifyRead(ctx.realm, input.userId, changed);
  return changed;
}

export async function markRead(ctx: WriteContext, input: { userId: number; channelId?: number; topic?: string; senderId?: number }): Promise<number[]> {
  const changed = await ctx.write(async (tx, emit) => {
    const scope = { channelId: input.channelId, topic: input.topic, senderId: input.senderId };
    const changed = [...(await store.markRead(tx, input.userId, scope))].sort((a, b) => a - b);
    if (changed.length > 0) {
      emit(updateMessageFlagsEvent.build({ op: 'add', operation: 'add', flag: 'read', messages: changed, all: false }, { userIds: [input.userId] }));
    }
    return changed;
  });
  void notifyRead(ctx.realm, input.userId, changed);
  return changed;
}

