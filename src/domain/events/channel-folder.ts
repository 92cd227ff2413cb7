// `channel_folder` events: add (the whole folder), update (changed fields), reorder (every id).
import { z } from 'zod';
import { defineEvent } from './define.js';

export const channelFolderObject = z
  .object({
    id: z.number().int(),
    name: z.string(),
    order: z.number().int(),
    date_created: z.number().int().nullable(),
    creator_id: z.number().int().nullable(),
    description: z.string(),
    rendered_description: z.string(),
    is_archived: z.boolean(),
  })
  .strict();

export const channelFolderEvent = defineEvent(
  'channel_folder',
  z.union([
    z.object({ op: z.literal('add'), channel_folder: channelFolderObject }).strict(),
    z
      .object({
        op: z.literal('update'),
        channel_folder_id: z.number().int(),
        data: z
          .object({ name: z.string(), description: z.string(), rendered_description: z.string(), is_archived: z.boolean() })
          .partial()
          .strict(),
      })
      .strict(),
    z.object({ op: z.literal('reorder'), order: z.array(z.number().int()) }).strict(),
  ]),
);
