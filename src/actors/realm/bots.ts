// Realm commands for bots beyond creation and deactivation (users.ts): renaming and changing the
// owner. Run inside the realm actor.
import type { EventSpec } from '../event-sequencer.js';
import { errors } from '../../domain/errors.js';
import { realmBotEvent, realmUserEvent } from '../../domain/events/users.js';
import { isAdmin } from '../../domain/roles.js';
import { unsealApiKey } from '../../domain/secrets.js';
import * as users from '../../store/users.js';
import type { RealmContext } from './actor.js';
import { botDict } from './bot-view.js';
import type { RealmState, UserRecord } from './state.js';
import { nameChange } from './user-profile.js';
import { botAdministrators } from './users.js';

/** May this user administer the bot (its owner, or an organization administrator)? */
export function canAdministerBot(actor: UserRecord, bot: UserRecord): boolean {
  return bot.is_bot && (isAdmin(actor.role) || bot.bot_owner_id === actor.id);
}

/** The bot as `actor` may address it; "No such bot" for anything else. */
export function accessBot(state: RealmState, actor: UserRecord, botId: number): UserRecord {
  const bot = state.user(botId);
  if (!bot || !bot.is_bot || !canAdministerBot(actor, bot)) throw errors.noSuchBot();
  return bot;
}

export interface UpdateBotInput {
  readonly actorId: number;
  readonly botId: number;
  readonly fullName?: string | undefined;
  readonly ownerId?: number | undefined;
}

function checkNewOwner(state: RealmState, ownerId: number): UserRecord {
  const owner = state.user(ownerId);
  if (!owner) throw errors.badRequest('Failed to change owner, no such user');
  if (!owner.is_active) throw errors.badRequest('Failed to change owner, user is deactivated');
  if (owner.is_bot) throw errors.badRequest("Failed to change owner, bots can't own other bots");
  return owner;
}

async function updateBot(ctx: RealmContext, input: UpdateBotInput): Promise<UserRecord> {
  const { state, services } = ctx;
  const actor = state.user(input.actorId);
  if (!actor) throw errors.noSuchUser();
  const bot = accessBot(state, actor, input.botId);
  const rename = input.fullName === undefined ? null : nameChange(state, bot, input.fullName);
  const newOwner = input.ownerId === undefined || input.ownerId === bot.bot_owner_id ? null : checkNewOwner(state, input.ownerId);
  if (!rename && !newOwner) return bot;
  let next = rename?.next ?? bot;
  if (newOwner) next = { ...next, bot_owner_id: newOwner.id };
  const final = next;
  return ctx.write(
    async (tx, emit) => {
      if (rename) {
        await users.updateUser(tx, bot.id, rename.patch);
        for (const e of rename.events) emit(e);
      }
      if (newOwner) {
        await users.updateUser(tx, bot.id, { bot_owner_id: newOwner.id });
        for (const e of await ownerChangeEvents(state, bot, final, (id) => users.getCredentials(tx, id), services.secret)) emit(e);
      }
      return final;
    },
    (record) => state.putUser(record),
  );
}

/**
 * An owner change: everyone learns the new owner; the previous owner (unless an administrator)
 * loses the bot from realm_bots and the new one (likewise) gains it.
 */
async function ownerChangeEvents(
  state: RealmState,
  before: UserRecord,
  after: UserRecord,
  credentials: (id: number) => Promise<{ api_key_sealed: Buffer }>,
  secret: Parameters<typeof unsealApiKey>[0],
): Promise<EventSpec[]> {
  const ownerId = after.bot_owner_id!;
  const admins = botAdministrators(state, { ...after, bot_owner_id: null });
  const events: EventSpec[] = [
    realmUserEvent.build({ op: 'update', person: { user_id: after.id, bot_owner_id: ownerId } }, { userIds: null }),
    realmBotEvent.build({ op: 'update', bot: { user_id: after.id, owner_id: ownerId } }, { userIds: admins }),
  ];
  const previous = before.bot_owner_id;
  if (previous !== null && !admins.includes(previous) && state.user(previous)?.is_active) {
    events.push(realmBotEvent.build({ op: 'delete', bot: { user_id: after.id } }, { userIds: [previous] }));
  }
  if (!admins.includes(ownerId)) {
    const apiKey = unsealApiKey(secret, (await credentials(after.id)).api_key_sealed);
    events.push(realmBotEvent.build({ op: 'add', bot: botDict(after, apiKey) }, { userIds: [ownerId] }));
  }
  return events;
}

export const botCommands = {
  'bot.update': updateBot,
};
