// `reaction` events: an emoji reaction added to or removed from a message.
import { z } from 'zod';
import { defineEvent } from './define.js';

export const reactionEvent = defineEvent(
  'reaction',
  z.object({
    op: z.enum(['add', 'remove']),
    message_id: z.number().int(),
    user_id: z.number().int(),
    emoji_name: z.string(),
    emoji_code: z.string(),
    reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'service_extra_emoji']),
  }),
);
