// The organization's automated sender: "Notification Bot" posts notices such as "this topic was
// moved" and "marked as resolved". Created on first use, a bot without an owner.
import { botEmail, userCommands } from './users.js';
import { Role } from '../../domain/roles.js';
import type { RealmContext } from './actor.js';

export const NOTIFICATION_BOT_SHORT_NAME = 'notification';

async function notificationBot(ctx: RealmContext, _input: null): Promise<number> {
  const email = botEmail(NOTIFICATION_BOT_SHORT_NAME, ctx.state.realm.host);
  const existing = ctx.state.userByEmail(email);
  if (existing) return existing.id;
  const { user } = await userCommands['user.create'](ctx, {
    email: NOTIFICATION_BOT_SHORT_NAME,
    fullName: 'Notification Bot',
    role: Role.member,
    passwordHash: null,
    bot: { type: 1, ownerId: null },
  });
  return user.id;
}

export const systemBotCommands = {
  'bot.notificationBot': notificationBot,
};
