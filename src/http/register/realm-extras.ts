// The organization's allowed domains (`realm_domains`), code playgrounds (`realm_playgrounds`)
// and the defaults of new accounts' personal settings (`realm_user_settings_defaults`) in
// POST /register.
import { USER_SETTING_NAMES, USER_SETTINGS } from '../../domain/user-settings.js';
import { listPlaygrounds } from '../../store/playgrounds.js';
import { listDomains } from '../../store/realm-domains.js';
import type { StateProvider } from './state.js';

export const realmDomainsState: StateProvider = {
  types: ['realm_domains'],
  spectators: false,
  async fetch(ctx) {
    const rows = await listDomains(ctx.app.db, ctx.realm.id);
    return { realm_domains: rows.map((d) => ({ domain: d.domain, allow_subdomains: d.allow_subdomains })) };
  },
};

export const realmPlaygroundsState: StateProvider = {
  types: ['realm_playgrounds'],
  spectators: false,
  async fetch(ctx) {
    return { realm_playgrounds: (await listPlaygrounds(ctx.app.db, ctx.realm.id)).map((r) => ({ ...r })) };
  },
};

export const realmUserDefaultsState: StateProvider = {
  types: ['realm_user_settings_defaults'],
  spectators: false,
  fetch(ctx) {
    const overrides = ctx.realm.state.realm.settings.user_settings_defaults;
    const defaults = Object.fromEntries(USER_SETTING_NAMES.map((n) => [n, overrides[n] ?? USER_SETTINGS[n].default]));
    return { realm_user_settings_defaults: defaults };
  },
};
