// The commands of conversation owners (channel and direct-message actors), one line per module.
import { deleteMessage } from './delete.js';
import { editMessage } from './edit.js';
import { react } from './reactions.js';
import type { ConversationContext } from './conversations.js';
import { MAX_ROWS_PER_TRANSACTION, sendWeight, type SendInput } from './send.js';
import { Batched } from './serial-actor.js';

/**
 * An owner's batches of sends that run at once (commit-order.ts): the next one writes its
 * recipients' rows while the one before still writes its own, or commits. With one, a channel's
 * sends were stored one transaction at a time, on one of the database's cores: 0.75–0.88 × R3 in
 * the benchmark's 100-subscriber channel (median 0.78), against 0.78–1.00 (median 0.84) with two.
 * With three, 0.68–0.71: the third batch only waits for one of the realm's two send lanes.
 */
const SEND_DEPTH = 2;

export const conversationCommands = {
  // An owner's batch joins the realm's group commit (group-commit.ts).
  send: new Batched(
    (ctx: ConversationContext, inputs: readonly SendInput[], weight: number, turn) => ctx.realm.conversations.sends.submit(inputs, weight, turn),
    MAX_ROWS_PER_TRANSACTION,
    sendWeight,
    SEND_DEPTH,
  ),
  edit: editMessage,
  delete: deleteMessage,
  react,
};
