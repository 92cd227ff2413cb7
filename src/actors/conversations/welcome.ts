// Welcome Bot's direct message to an account created through an invitation: the invitation's
// custom text, or the organization's (welcome_message_custom_text). Sent after the account
// exists, outside the realm actor (a send belongs to the conversation's owner).
import type { RealmHandle } from '../realm/actor.js';
import { sendAutomated } from './notices.js';

/** Send `text` from Welcome Bot to the user; nothing when the text is empty. Returns the message id. */
export async function sendWelcomeMessage(realm: RealmHandle, userId: number, text: string): Promise<number | null> {
  if (text.trim() === '') return null;
  const botId = await realm.ask('bot.welcomeBot', null);
  return sendAutomated(realm, botId, { dmUserIds: [botId, userId] }, text);
}
