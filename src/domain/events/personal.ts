// Events about a user's own data (alert words, muted users, saved snippets, navigation views),
// sent to that user, and user_status, sent to everyone.
import { z } from 'zod';
import { defineEvent } from './define.js';

export const alertWordsEvent = defineEvent('alert_words', z.object({ alert_words: z.array(z.string()) }));

/** The user's whole list of mutes, after each change. */
export const mutedUsersEvent = defineEvent(
  'muted_users',
  z.object({ muted_users: z.array(z.object({ id: z.number().int(), timestamp: z.number().int() })) }),
);

export const userStatusEvent = defineEvent(
  'user_status',
  z
    .object({
      user_id: z.number().int(),
      away: z.boolean().optional(),
      status_text: z.string().optional(),
      emoji_name: z.string().optional(),
      emoji_code: z.string().optional(),
      reaction_type: z.string().optional(),
    })
    .strict(),
);

const snippet = z.object({ id: z.number().int(), title: z.string(), content: z.string(), date_created: z.number().int() });

export const savedSnippetsEvent = defineEvent(
  'saved_snippets',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), saved_snippet: snippet }),
    z.object({ op: z.literal('update'), saved_snippet: snippet }),
    z.object({ op: z.literal('remove'), saved_snippet_id: z.number().int() }),
  ]),
);

const view = z.object({ fragment: z.string(), is_pinned: z.boolean(), name: z.string().nullable() });

export const navigationViewEvent = defineEvent(
  'navigation_view',
  z.discriminatedUnion('op', [
    z.object({ op: z.literal('add'), navigation_view: view }),
    z.object({
      op: z.literal('update'),
      fragment: z.string(),
      data: z.object({ is_pinned: z.boolean().optional(), name: z.string().nullable().optional() }).strict(),
    }),
    z.object({ op: z.literal('remove'), fragment: z.string() }),
  ]),
);
