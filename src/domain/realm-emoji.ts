// Custom (realm) emoji: names, the API object, and the URLs their images are served at.
import { errors } from './errors.js';

export interface RealmEmojiRecord {
  readonly id: number;
  readonly name: string;
  readonly author_id: number | null;
  readonly file_name: string;
  readonly is_animated: boolean;
  readonly deactivated: boolean;
}

export const MAX_EMOJI_FILE_SIZE_MIB = 5;
const MAX_EMOJI_NAME_LENGTH = 60;

/** Lower-case letters, digits, spaces, dashes and underscores, ending in a letter or digit. */
export function checkEmojiName(name: string): void {
  if (name.length === 0) throw errors.badRequest('Emoji name is missing');
  if (name.length > MAX_EMOJI_NAME_LENGTH) throw errors.tooLong('emoji_name', MAX_EMOJI_NAME_LENGTH);
  if (!/^[0-9a-z_ -]+$/.test(name)) throw errors.badRequest('Invalid characters in emoji name');
  if (!/[0-9a-z]$/.test(name)) throw errors.badRequest('Emoji names must end with either a letter or digit.');
}

export const realmEmojiPath = (realmId: number, fileName: string): string => `/user_avatars/${realmId}/emoji/images/${fileName}`;

/**
 * The API object. Parley stores images as uploaded and makes no still frame of animations, so an
 * animated emoji's still_url is its image too (clients that avoid animation should prefer text).
 */
export function formatRealmEmoji(realmId: number, e: RealmEmojiRecord): Record<string, unknown> {
  const url = realmEmojiPath(realmId, e.file_name);
  return {
    id: String(e.id),
    name: e.name,
    source_url: url,
    still_url: e.is_animated ? url : null,
    deactivated: e.deactivated,
    author_id: e.author_id,
  };
}

/** The whole dictionary of an organization's custom emoji (deactivated ones included), by id. */
export function realmEmojiDict(realmId: number, emoji: Iterable<RealmEmojiRecord>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of emoji) out[String(e.id)] = formatRealmEmoji(realmId, e);
  return out;
}
