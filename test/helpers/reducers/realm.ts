// Reducers for the organization's allowed domains and new accounts' setting defaults.
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

export const realmReducers: Record<string, Reducer> = {
  realm_domains: realmDomains,
  realm_user_settings_defaults: userSettingsDefaults,
};
