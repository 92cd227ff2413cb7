// Events about the organization's custom emoji, linkifiers and code playgrounds. realm_emoji
// carries both the changed emoji and the whole dictionary; the presenter sends each client the
// form it declared (individual_emoji_changes). realm_linkifiers carries the whole ordered list,
// realm_playgrounds the whole list.
import { z } from 'zod';
import { defineEvent } from './define.js';

const emojiObject = z.object({ id: z.string() }).catchall(z.unknown());

export const realmEmojiEvent = defineEvent(
  'realm_emoji',
  z.object({ op: z.enum(['add', 'edit']), emoji: emojiObject, realm_emoji: z.record(z.string(), emojiObject) }),
);

export const linkifierObject = z.object({ id: z.number().int(), pattern: z.string(), url_template: z.string() });

export const realmLinkifiersEvent = defineEvent('realm_linkifiers', z.object({ realm_linkifiers: z.array(linkifierObject) }));

export const playgroundObject = z.object({ id: z.number().int(), name: z.string(), pygments_language: z.string(), url_template: z.string() });

export const realmPlaygroundsEvent = defineEvent('realm_playgrounds', z.object({ realm_playgrounds: z.array(playgroundObject) }));
