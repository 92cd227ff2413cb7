// Message events: `message` (a new message: the canonical object, the most common flags of its
// recipients as the default, per-user flags where they differ, and the sender's local echo id),
// `update_message`, `delete_message`.
import { z } from 'zod';
import { defineEvent } from './define.js';

const messageObject = z.record(z.string(), z.unknown());

export const messageEvent = defineEvent(
  'message',
  z.object({
    message: messageObject,
    /** Flags of every recipient without a perUser entry (see the presenter). */
    flags: z.array(z.string()),
    _local: z.object({ queue_id: z.string(), local_id: z.string() }).optional(),
  }),
);

export const updateMessageEvent = defineEvent(
  'update_message',
  z
    .object({
      user_id: z.number().int().nullable(),
      rendering_only: z.boolean(),
      message_id: z.number().int(),
      message_ids: z.array(z.number().int()),
      flags: z.array(z.string()),
      edit_timestamp: z.number().int(),
      stream_name: z.string().optional(),
      stream_id: z.number().int().optional(),
      new_stream_id: z.number().int().optional(),
      propagate_mode: z.enum(['change_one', 'change_later', 'change_all']).optional(),
      orig_subject: z.string().optional(),
      subject: z.string().optional(),
      topic_links: z.array(z.object({ text: z.string(), url: z.string() })).optional(),
      orig_content: z.string().optional(),
      orig_rendered_content: z.string().optional(),
      content: z.string().optional(),
      rendered_content: z.string().optional(),
      is_me_message: z.boolean().optional(),
    })
    .strict(),
);

export const deleteMessageEvent = defineEvent(
  'delete_message',
  z.object({
    message_ids: z.array(z.number().int()),
    message_type: z.enum(['stream', 'private']),
    stream_id: z.number().int().optional(),
    topic: z.string().optional(),
  }),
);
