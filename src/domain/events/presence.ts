// `presence` events (not logged: presence is soft state clients also poll). Canonical payload
// with both formats; present.ts keeps `presences` for simplified_presence_events clients and the
// legacy fields for the others.
import { z } from 'zod';
import { defineEvent } from './define.js';

const modern = z.object({ active_timestamp: z.number().int(), idle_timestamp: z.number().int() }).strict();

export const presenceEvent = defineEvent(
  'presence',
  z
    .object({
      user_id: z.number().int(),
      email: z.string(),
      server_timestamp: z.number(),
      presence: z.object({
        website: z
          .object({ client: z.literal('website'), status: z.enum(['active', 'idle']), timestamp: z.number().int(), pushable: z.literal(false) })
          .strict(),
      }),
      presences: z.record(z.string(), modern),
    })
    .strict(),
);
