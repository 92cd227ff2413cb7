// The bot object of register's realm_bots and of realm_bot events.
import { avatarUrl } from '../../domain/avatar.js';
import type { z } from 'zod';
import type { botObject } from '../../domain/events/users.js';
import type { UserRecord } from './state.js';

export type BotDict = z.input<typeof botObject>;

export function botDict(bot: UserRecord, apiKey: string): BotDict {
  return {
    user_id: bot.id,
    email: bot.email,
    full_name: bot.full_name,
    bot_type: bot.bot_type ?? 1,
    is_active: bot.is_active,
    api_key: apiKey,
    // Default channels of bots are not supported (README): a bot names its channels itself.
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: avatarUrl(bot, false)!,
    owner_id: bot.bot_owner_id,
    services: [],
  };
}
