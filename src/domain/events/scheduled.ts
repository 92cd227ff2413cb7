// Scheduled messages and reminders events, sent to their author: scheduled (add), edited or
// failed to send (update; scheduled messages only), deleted or sent (remove).
import { z } from 'zod';
import { defineEvent } from './define.js';

export const scheduledMessageObject = z.object({
  scheduled_message_id: z.number().int(),
  type: z.enum(['stream', 'private']),
  to: z.union([z.number().int(), z.array(z.number().int())]),
  topic: z.string().optional(),
  content: z.string(),
  rendered_content: z.string(),
  scheduled_delivery_timestamp: z.number().int(),
  failed: z.boolean(),
});

export const reminderObject = z.object({
  reminder_id: z.number().int(),
  type: z.literal('private'),
  to: z.array(z.number().int()),
  content: z.string(),
  rendered_content: z.string(),
  scheduled_delivery_timestamp: z.number().int(),
  failed: z.boolean(),
  reminder_target_message_id: z.number().int(),
});

export const scheduledMessagesEvent = defineEvent(
  'scheduled_messages',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), scheduled_messages: z.array(scheduledMessageObject) }),
    z.object({ op: z.literal('update'), scheduled_message: scheduledMessageObject }),
    z.object({ op: z.literal('remove'), scheduled_message_id: z.number().int() }),
  ]),
);

export const remindersEvent = defineEvent(
  'reminders',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), reminders: z.array(reminderObject) }),
    z.object({ op: z.literal('remove'), reminder_id: z.number().int() }),
  ]),
);
