// Bots: creation by their owner (POST /bots), their API keys, renaming and re-owning, and
// deactivation. A bot is administered by its owner and by organization administrators.
import { z } from 'zod';
import { accessBot } from '../../actors/realm/bots.js';
import { avatarUrl } from '../../domain/avatar.js';
import { errors } from '../../domain/errors.js';
import { unsealApiKey } from '../../domain/secrets.js';
import { getCredentials } from '../../store/users.js';
import { userEndpoint } from '../endpoint.js';
import { requireMemberOrAbove } from '../guards.js';
import { p } from '../params.js';
import { storeUploadedAvatar } from './avatars.js';

/** Bot types: 1 generic, 2 incoming webhook (write-only). Outgoing-webhook and embedded bots need services Parley does not run. */
const BOT_TYPES = [1, 2] as const;

const botFields = (bot: { full_name: string } & Parameters<typeof avatarUrl>[0]) => ({
  full_name: bot.full_name,
  avatar_url: avatarUrl(bot, false),
  default_sending_stream: null,
  default_events_register_stream: null,
  default_all_public_streams: false,
});

export const createBot = userEndpoint(
  z.object({
    full_name: p.string(),
    short_name: p.string({ trim: true }),
    bot_type: p.int().default('1'),
  }),
  async (ctx, params) => {
    const { user, realm } = ctx;
    requireMemberOrAbove(user);
    if (!(BOT_TYPES as readonly number[]).includes(params.bot_type)) throw errors.badRequest('Invalid bot type');
    const state = realm.state;
    const allowed =
      state.hasRealmPermission(user.id, 'can_create_bots_group') ||
      (params.bot_type === 2 && state.hasRealmPermission(user.id, 'can_create_write_only_bots_group'));
    if (!allowed) throw errors.insufficientPermission();
    const { user: bot, apiKey } = await realm.ask('user.create', {
      email: params.short_name,
      fullName: params.full_name,
      role: 400,
      passwordHash: null,
      bot: { type: params.bot_type, ownerId: user.id },
    });
    const file = ctx.files[0];
    const shown = file ? await storeUploadedAvatar(ctx, bot.id, file) : bot;
    const { full_name: _name, ...fields } = botFields(shown);
    return { user_id: bot.id, api_key: apiKey, ...fields };
  },
);

export const getBotApiKey = userEndpoint(z.object({ bot_id: p.int() }), async (ctx, params) => {
  const bot = accessBot(ctx.realm.state, ctx.user, params.bot_id);
  const creds = await getCredentials(ctx.app.db, bot.id);
  return { api_key: unsealApiKey(ctx.app.secret, creds.api_key_sealed) };
});

export const regenerateBotApiKey = userEndpoint(z.object({ bot_id: p.int() }), async (ctx, params) => {
  const bot = accessBot(ctx.realm.state, ctx.user, params.bot_id);
  return { api_key: await ctx.realm.ask('user.regenerateApiKey', { userId: bot.id }) };
});

export const updateBot = userEndpoint(
  z.object({ bot_id: p.int(), full_name: p.string().optional(), bot_owner_id: p.int().optional() }),
  async (ctx, params) => {
    accessBot(ctx.realm.state, ctx.user, params.bot_id);
    let bot = await ctx.realm.ask('bot.update', {
      actorId: ctx.user.id,
      botId: params.bot_id,
      fullName: params.full_name,
      ownerId: params.bot_owner_id,
    });
    const file = ctx.files[0];
    if (file) bot = await storeUploadedAvatar(ctx, bot.id, file);
    return botFields(bot);
  },
);

export const deactivateBot = userEndpoint(z.object({ bot_id: p.int() }), async (ctx, params) => {
  const bot = accessBot(ctx.realm.state, ctx.user, params.bot_id);
  await ctx.realm.ask('user.setActive', { userId: bot.id, active: false, actorId: ctx.user.id });
  return {};
});
