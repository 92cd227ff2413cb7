// The commands of conversation owners (channel and direct-message actors), one line per module.
import { sendMessage } from './send.js';

export const conversationCommands = {
  send: sendMessage,
};
