// Channel events: `stream` (create, delete, update) and `default_streams`. Payloads follow the
// reference; `_stream` and `_archived` are presenter inputs (clients without archived_channels).
import { z } from 'zod';
import { defineEvent } from './define.js';

const channelObject = z.record(z.string(), z.unknown());

export const streamCreate = defineEvent(
  'stream',
  z.object({ op: z.literal('create'), streams: z.array(channelObject), _archived: z.boolean().optional() }),
);

export const streamDelete = defineEvent(
  'stream',
  z.object({
    op: z.literal('delete'),
    streams: z.array(channelObject),
    stream_ids: z.array(z.number().int()),
    _archived: z.boolean().optional(),
  }),
);

export const streamUpdate = defineEvent(
  'stream',
  z.object({
    op: z.literal('update'),
    stream_id: z.number().int(),
    name: z.string(),
    property: z.string(),
    value: z.unknown(),
    rendered_description: z.string().optional(),
    history_public_to_subscribers: z.boolean().optional(),
    is_web_public: z.boolean().optional(),
    _stream: channelObject.optional(),
    _archived: z.boolean().optional(),
  }),
);

export const defaultStreams = defineEvent('default_streams', z.object({ default_streams: z.array(z.number().int()) }));
