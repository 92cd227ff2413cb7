// `subscription` events: a user's own subscriptions (add, remove, update) and other users'
// (peer_add, peer_remove). Notification settings may be null (the presenter fills in defaults).
import { z } from 'zod';
import { defineEvent } from './define.js';

export const subscriptionAdd = defineEvent(
  'subscription',
  z.object({ op: z.literal('add'), subscriptions: z.array(z.record(z.string(), z.unknown())) }),
);

export const subscriptionRemove = defineEvent(
  'subscription',
  z.object({ op: z.literal('remove'), subscriptions: z.array(z.object({ stream_id: z.number().int(), name: z.string() })) }),
);

export const subscriptionUpdate = defineEvent(
  'subscription',
  z.object({
    op: z.literal('update'),
    stream_id: z.number().int(),
    property: z.string(),
    value: z.union([z.boolean(), z.string(), z.null()]),
  }),
);

const peers = z.object({ stream_ids: z.array(z.number().int()), user_ids: z.array(z.number().int()) });
export const peerAdd = defineEvent('subscription', peers.extend({ op: z.literal('peer_add') }));
export const peerRemove = defineEvent('subscription', peers.extend({ op: z.literal('peer_remove') }));
