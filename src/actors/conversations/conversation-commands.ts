// The commands of conversation owners (channel and direct-message actors), one line per module.
import { deleteListed, deleteMessage, deleteTopic } from './delete.js';
import { editMessage } from './edit.js';
import { react } from './reactions.js';
import type { ConversationContext } from './conversations.js';
import { MAX_ROWS_PER_TRANSACTION, sendWeight, type SendInput } from './send.js';
import { Batched, type Pipeline } from './serial-actor.js';

/**
 * An owner's batches of sends (commit-order.ts): two run at once, the next one starting once the
 * one before has taken its message ids, so that it writes its recipients' rows while the one
 * before still writes its own, or commits. In the benchmark's 100-subscriber channel, Parley ÷ R3:
 * - one batch at a time (the channel's sends stored on one of the database's cores): 0.75–0.88;
 * - two, the next starting at once: 0.78–1.00, median 0.84 (batches of two or three sends);
 * - two, the next starting once the one before has its ids: 0.80–0.97, median 0.89 (what
 *   arrives meanwhile joins it);
 * - three: 0.68–0.71 (the third only waited for one of the realm's two send lanes).
 */
const SEND_PIPELINE: Pipeline = { depth: 2, startAfter: 'messages' };

export const conversationCommands = {
  // An owner's batch joins the realm's group commit (group-commit.ts).
  send: new Batched(
    (ctx: ConversationContext, inputs: readonly SendInput[], weight: number, turn) => ctx.realm.conversations.sends.submit(inputs, weight, turn),
    MAX_ROWS_PER_TRANSACTION,
    sendWeight,
    SEND_PIPELINE,
  ),
  edit: editMessage,
  delete: deleteMessage,
  deleteTopic,
  deleteListed,
  react,
};
