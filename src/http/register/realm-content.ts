// The organization's custom emoji (`realm_emoji`) and linkifiers (`realm_linkifiers`, empty for
// clients without linkifier_url_template) in POST /register.
import { realmEmojiDict } from '../../domain/realm-emoji.js';
import type { StateProvider } from './state.js';

export const realmEmojiState: StateProvider = {
  types: ['realm_emoji'],
  spectators: true,
  fetch(ctx) {
    const state = ctx.realm.state;
    return { realm_emoji: realmEmojiDict(state.id, state.realmEmoji.values()) };
  },
};

export const linkifierState: StateProvider = {
  types: ['realm_linkifiers'],
  spectators: true,
  fetch(ctx) {
    const list = ctx.options.capabilities.linkifier_url_template ? ctx.realm.state.linkifiers : [];
    return { realm_linkifiers: list.map((l) => ({ id: l.id, pattern: l.pattern, url_template: l.url_template })) };
  },
};
