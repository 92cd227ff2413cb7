// Typing notifications (ephemeral, never logged): `typing` for composing a message and
// `typing_edit_message` for editing one.
import { z } from 'zod';
import { defineEvent } from './define.js';

const person = z.object({ user_id: z.number().int(), email: z.string() });

export const typingEvent = defineEvent(
  'typing',
  z.object({
    op: z.enum(['start', 'stop']),
    message_type: z.enum(['direct', 'stream']),
    sender: person,
    recipients: z.array(person).optional(),
    stream_id: z.number().int().optional(),
    topic: z.string().optional(),
  }),
);

export const typingEditEvent = defineEvent(
  'typing_edit_message',
  z.object({
    op: z.enum(['start', 'stop']),
    sender_id: z.number().int(),
    message_id: z.number().int(),
    recipient: z.union([
      z.object({ type: z.literal('channel'), channel_id: z.number().int(), topic: z.string() }),
      z.object({ type: z.literal('direct'), user_ids: z.array(z.number().int()) }),
    ]),
  }),
);
