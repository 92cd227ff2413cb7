// Reducers for the organization's allowed domains, new accounts' setting defaults, custom emoji
// and linkifiers.
import type { Reducer } from './types.js';

const realmDomains: Reducer = (state, e) => {
  const list: Array<{ domain: string; allow_subdomains: boolean }> | undefined = state.realm_domains;
  if (!list) return;
  const domain = e.op === 'remove' ? e.domain : e.realm_domain.domain;
  const i = list.findIndex((d) => d.domain === domain);
  if (e.op === 'remove') {
    if (i >= 0) list.splice(i, 1);
  } else if (i >= 0) list[i] = e.realm_domain;
  else list.push(e.realm_domain);
};

const userSettingsDefaults: Reducer = (state, e) => {
  if (state.realm_user_settings_defaults) state.realm_user_settings_defaults[e.property] = e.value;
};

const realmEmoji: Reducer = (state, e) => {
  if (!state.realm_emoji) return;
  if (e.op === 'update') state.realm_emoji = e.realm_emoji;
  else state.realm_emoji[e.emoji.id] = e.emoji;
};

const realmLinkifiers: Reducer = (state, e) => {
  if (state.realm_linkifiers) state.realm_linkifiers = e.realm_linkifiers;
};

const realmPlaygrounds: Reducer = (state, e) => {
  if (state.realm_playgrounds) state.realm_playgrounds = e.realm_playgrounds;
};

export const realmReducers: Record<string, Reducer> = {
  realm_domains: realmDomains,
  realm_user_settings_defaults: userSettingsDefaults,
  realm_emoji: realmEmoji,
  realm_linkifiers: realmLinkifiers,
  realm_playgrounds: realmPlaygrounds,
};
