// `update_message_flags`: a user's flag added to or removed from messages; marking messages
// unread carries what clients need to file them (message_details).
import { z } from 'zod';
import { defineEvent } from './define.js';

const details = z.object({
  type: z.enum(['stream', 'private']),
  mentioned: z.boolean().optional(),
  user_ids: z.array(z.number().int()).optional(),
  stream_id: z.number().int().optional(),
  topic: z.string().optional(),
  unmuted_stream_msg: z.boolean().optional(),
});

export const updateMessageFlagsEvent = defineEvent(
  'update_message_flags',
  z.object({
    op: z.enum(['add', 'remove']),
    operation: z.enum(['add', 'remove']),
    flag: z.string(),
    messages: z.array(z.number().int()),
    all: z.boolean(),
    message_details: z.record(z.string(), details).optional(),
  }),
);
