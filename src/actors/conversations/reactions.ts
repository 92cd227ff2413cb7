// The react command of a conversation's owner: add or remove one user's emoji reaction, and
// tell everyone who can see the message.
import { errors } from '../../domain/errors.js';
import { reactionEvent } from '../../domain/events/reactions.js';
import { addReaction, ensureHistoricalRow, removeReaction } from '../../store/reactions.js';
import type { ConversationContext } from './conversations.js';
import { lockTarget } from './edit.js';
import { messageAudience } from './message-view.js';

export interface ReactInput {
  readonly op: 'add' | 'remove';
  readonly userId: number;
  readonly messageId: number;
  readonly emojiName: string;
  readonly emojiCode: string;
  readonly reactionType: 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji';
}

export async function react(ctx: ConversationContext, input: ReactInput): Promise<void> {
  const now = ctx.services.clock.now();
  await ctx.write(async (tx, emit) => {
    const state = ctx.realm.state;
    const row = await lockTarget(ctx, tx, input.messageId);
    const key = { messageId: row.id, userId: input.userId, emojiCode: input.emojiCode, reactionType: input.reactionType };
    let emojiName = input.emojiName;
    if (input.op === 'add') {
      if (!(await addReaction(tx, key, input.emojiName, now))) throw errors.reactionExists();
      await ensureHistoricalRow(tx, input.userId, row.id);
    } else {
      const removed = await removeReaction(tx, key);
      if (removed === null) throw errors.reactionDoesNotExist();
      emojiName = removed;
    }
    const recipients = await messageAudience(tx, state, row);
    emit(
      reactionEvent.build(
        { op: input.op, message_id: row.id, user_id: input.userId, emoji_name: emojiName, emoji_code: input.emojiCode, reaction_type: input.reactionType },
        { userIds: [...recipients] },
      ),
    );
  });
}
