// The commands of conversation owners (channel and direct-message actors), one line per module.
import { deleteMessage } from './delete.js';
import { editMessage } from './edit.js';
import { react } from './reactions.js';
import { sendMessage } from './send.js';

export const conversationCommands = {
  send: sendMessage,
  edit: editMessage,
  delete: deleteMessage,
  react,
};
