// Greeting a person's new account (an invitation's sign-up, POST /users): Welcome Bot's direct
// message with the invitation's custom text or the organization's (welcome_message_custom_text),
// and Notification Bot's announcement in the sign-up announcements channel. Sent after the account
// exists, outside the realm actor (a send belongs to the conversation's owner).
import type { Logger } from 'pino';
import type { RealmHandle } from '../realm/actor.js';
import type { UserRecord } from '../realm/state.js';
import { announceNewMember, sendAutomated } from './notices.js';

/** Send `text` from Welcome Bot to the user; nothing when the text is empty. Returns the message id. */
export async function sendWelcomeMessage(realm: RealmHandle, userId: number, text: string): Promise<number | null> {
  if (text.trim() === '') return null;
  const botId = await realm.ask('bot.welcomeBot', null);
  return sendAutomated(realm, botId, { dmUserIds: [botId, userId] }, text);
}

/** Welcome the new member, then announce them; a failure is logged, since the account stands. */
export async function greetNewMember(realm: RealmHandle, user: UserRecord, welcomeText: string, log: Logger): Promise<void> {
  await sendWelcomeMessage(realm, user.id, welcomeText).catch((err: unknown) => log.warn({ err, user: user.id }, 'welcome message not sent'));
  await announceNewMember(realm, user);
}
