// A user's logged-in devices (POST /register_client_device), told to that user's clients so that
// register's `devices` stays current: a new device (add), and what push knows of one (update:
// only the fields that changed).
import { z } from 'zod';
import { defineEvent } from './define.js';

export const deviceEvent = defineEvent(
  'device',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), device_id: z.number().int() }),
    z.object({
      op: z.literal('update'),
      device_id: z.number().int(),
      push_key_id: z.number().int().optional(),
      push_token_id: z.string().nullable().optional(),
      pending_push_token_id: z.null().optional(),
      push_token_last_updated_timestamp: z.number().int().optional(),
    }),
  ]),
);
