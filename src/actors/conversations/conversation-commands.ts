// The commands of conversation owners (channel and direct-message actors), one line per module.
import { deleteMessage } from './delete.js';
import { editMessage } from './edit.js';
import { react } from './reactions.js';
import { MAX_ROWS_PER_TRANSACTION, sendMessages, sendWeight } from './send.js';
import { Batched } from './serial-actor.js';

export const conversationCommands = {
  send: new Batched(sendMessages, MAX_ROWS_PER_TRANSACTION, sendWeight),
  edit: editMessage,
  delete: deleteMessage,
  react,
};
