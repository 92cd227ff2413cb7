// The organization's automated senders, each a bot without an owner created on first use:
// "Notification Bot" posts notices such as "this topic was moved" and "marked as resolved";
// "Welcome Bot" greets accounts created through an invitation.
import { botEmail, userCommands } from './users.js';
import { Role } from '../../domain/roles.js';
import type { RealmContext } from './actor.js';

export const NOTIFICATION_BOT_SHORT_NAME = 'notification';
export const WELCOME_BOT_SHORT_NAME = 'welcome';

async function systemBot(ctx: RealmContext, shortName: string, fullName: string): Promise<number> {
  const email = botEmail(shortName, ctx.state.realm.host);
  const existing = ctx.state.userByEmail(email);
  if (existing) return existing.id;
  const { user } = await userCommands['user.create'](ctx, {
    email: shortName,
    fullName,
    role: Role.member,
    passwordHash: null,
    bot: { type: 1, ownerId: null },
  });
  return user.id;
}

export const systemBotCommands = {
  'bot.notificationBot': (ctx: RealmContext, _input: null) => systemBot(ctx, NOTIFICATION_BOT_SHORT_NAME, 'Notification Bot'),
  'bot.welcomeBot': (ctx: RealmContext, _input: null) => systemBot(ctx, WELCOME_BOT_SHORT_NAME, 'Welcome Bot'),
};
