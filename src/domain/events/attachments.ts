// `attachment` events: a user's uploads added, referenced by more or fewer messages, removed.
import { z } from 'zod';
import { defineEvent } from './define.js';

const attachment = z.object({
  id: z.number().int(),
  name: z.string(),
  path_id: z.string(),
  size: z.number().int(),
  create_time: z.number().int(),
  message_ids: z.array(z.number().int()),
});

export const attachmentAdd = defineEvent('attachment', z.object({ op: z.literal('add'), attachment, upload_space_used: z.number().int() }));
export const attachmentUpdate = defineEvent('attachment', z.object({ op: z.literal('update'), attachment, upload_space_used: z.number().int() }));
export const attachmentRemove = defineEvent(
  'attachment',
  z.object({ op: z.literal('remove'), attachment: z.object({ id: z.number().int() }), upload_space_used: z.number().int() }),
);
