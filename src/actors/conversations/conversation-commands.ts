// The commands of conversation owners (channel and direct-message actors), one line per module.
import { deleteMessage } from './delete.js';
import { editMessage } from './edit.js';
import { react } from './reactions.js';
import type { ConversationContext } from './conversations.js';
import { MAX_ROWS_PER_TRANSACTION, sendWeight, type SendInput } from './send.js';
import { Batched } from './serial-actor.js';

export const conversationCommands = {
  // An owner's batch joins the realm's group commit (group-commit.ts).
  send: new Batched(
    (ctx: ConversationContext, inputs: readonly SendInput[], weight: number) => ctx.realm.conversations.sends.submit(inputs, weight),
    MAX_ROWS_PER_TRANSACTION,
    sendWeight,
  ),
  edit: editMessage,
  delete: deleteMessage,
  react,
};
