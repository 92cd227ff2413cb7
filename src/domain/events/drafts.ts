// Drafts events, sent to the drafts' owner: created (add), edited (update), deleted (remove).
import { z } from 'zod';
import { defineEvent } from './define.js';

export const draftObject = z.object({
  id: z.number().int(),
  type: z.enum(['', 'stream', 'private']),
  to: z.array(z.number().int()),
  topic: z.string(),
  content: z.string(),
  timestamp: z.number().int(),
});

export const draftsEvent = defineEvent(
  'drafts',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), drafts: z.array(draftObject) }),
    z.object({ op: z.literal('update'), draft: draftObject }),
    z.object({ op: z.literal('remove'), draft_id: z.number().int() }),
  ]),
);
