// The commands of conversation owners (channel and direct-message actors), one line per module.
import { deleteMessage } from './delete.js';
import { editMessage } from './edit.js';
import { react } from './reactions.js';
import { MAX_SENDS_PER_TRANSACTION, sendMessages } from './send.js';
import { Batched } from './serial-actor.js';

export const conversationCommands = {
  send: new Batched(sendMessages, MAX_SENDS_PER_TRANSACTION),
  edit: editMessage,
  delete: deleteMessage,
  react,
};
