// An emoji as a request names it (status emoji, reactions): a name, and optionally a code and a
// reaction type, resolved and checked against the organization's custom emoji and the Unicode
// table. Read-only over the cached state.
import { emojiByCode, emojiByName } from '../../domain/emoji.js';
import { errors } from '../../domain/errors.js';
import type { RealmState } from './state.js';

/** The extra emoji the service ships besides Unicode and custom ones (code = name). */
export const SERVICE_EXTRA_EMOJI: readonly string[] = ['parley'];

export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji';

export interface ResolvedEmoji {
  readonly emoji_name: string;
  readonly emoji_code: string;
  readonly reaction_type: ReactionType;
}

/** The code and type of an emoji known by name only: custom emoji first, then Unicode, then extra. */
export function emojiNamed(state: RealmState, name: string): { code: string; type: ReactionType } {
  const custom = state.activeEmojiNamed(name);
  if (custom) return { code: String(custom.id), type: 'realm_emoji' };
  const unicode = emojiByName(name);
  if (unicode) return { code: unicode.code, type: 'unicode_emoji' };
  if (SERVICE_EXTRA_EMOJI.includes(name)) return { code: name, type: 'service_extra_emoji' };
  throw errors.badRequest(`Emoji '${name}' does not exist`);
}

/**
 * Resolve and check an emoji named by a request. With a code and no type, the type is the one
 * the name has (Unicode for unknown names); a code must exist and go with the name given.
 */
export function resolveEmoji(state: RealmState, name: string, code?: string, type?: string): ResolvedEmoji {
  if (code === undefined) {
    const found = emojiNamed(state, name);
    if (type !== undefined && type !== found.type) throw errors.badRequest('Invalid emoji type.');
    return { emoji_name: name, emoji_code: found.code, reaction_type: found.type };
  }
  let inferred: ReactionType = 'unicode_emoji';
  if (type === undefined) {
    try {
      inferred = emojiNamed(state, name).type;
    } catch {
      // an unknown name is checked against the code below
    }
  }
  const reactionType = type ?? inferred;
  switch (reactionType) {
    case 'realm_emoji': {
      const custom = /^\d{1,10}$/.test(code) ? state.realmEmoji.get(Number(code)) : undefined;
      if (!custom) throw errors.badRequest('Invalid custom emoji.');
      if (custom.name !== name) throw errors.badRequest('Invalid custom emoji name.');
      if (custom.deactivated) throw errors.badRequest('This custom emoji has been deactivated.');
      break;
    }
    case 'service_extra_emoji':
      if (!SERVICE_EXTRA_EMOJI.includes(code)) throw errors.badRequest('Invalid emoji code.');
      if (name !== code) throw errors.badRequest('Invalid emoji name.');
      break;
    case 'unicode_emoji': {
      const known = emojiByCode(code);
      if (!known || known.code !== code) throw errors.badRequest('Invalid emoji code.');
      // Any name of the emoji (or of its base, for a skin-toned code) will do.
      const named = emojiByName(name);
      if (!named || named.code !== emojiByName(known.name)?.code) throw errors.badRequest('Invalid emoji name.');
      break;
    }
    default:
      throw errors.badRequest('Invalid emoji type.');
  }
  return { emoji_name: name, emoji_code: code, reaction_type: reactionType };
}
